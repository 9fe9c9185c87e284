#include "nodes/transport/UdpPoe.hpp"
#include "nodes/transport/EngineCause.hpp"

#include "protocols/roce/Wire.hpp"

#include <fmt/format.h>

namespace nafsim::nodes {

UdpPoe::UdpPoe(net::HostId host, const PoeConfig& timing, const udp::UdpConfig& udp, Scheduler& sched,
               net::Fabric& fabric, MemorySystem& memory, PoeListener& listener)
    : host_(host)
    , timing_(timing)
    , cfg_(udp)
    , sched_(sched)
    , fabric_(fabric)
    , memory_(memory)
    , listener_(listener)
{
}

void UdpPoe::post_send(QpId peer, const roce::WorkRequest& wr, PayloadSource source)
{
  if (wr.verb == roce::Verb::Read)
    throw SimulationError(fmt::format("host {}: UDP carries no READ (a READ to host {} was posted)", host_, peer));
  std::uint64_t bytes = std::max<std::uint64_t>(wr.length, 1);
  auto fragments      = static_cast<std::uint32_t>((bytes + cfg_.fragment_payload() - 1) / cfg_.fragment_payload());
  out_.push_back(Out{peer, wr, std::move(source), 0, fragments, sched_.cause_mark()});
  ++sent_to_[peer];
  ++c_.messages_sent;
  fabric_.tx_ready(host_);
}

void UdpPoe::refill(SimTime now)
{
  while ((staged_bytes_ < timing_.tx_prefetch.count || staged_.empty()) && !out_.empty()) {
    Out& o              = out_.front();
    std::uint64_t bytes = std::max<std::uint64_t>(o.wr.length, 1);
    std::uint64_t off   = std::uint64_t{o.next} * cfg_.fragment_payload();
    auto len            = static_cast<std::uint32_t>(std::min(cfg_.fragment_payload(), bytes - off));
    Datagram d{o.wr.msg, bytes, o.next, o.fragments, len, o.wr.verb, o.wr.remote_addr, o.wr.header};
    SimTime data;
    std::uint32_t began = o.posted; // (critical paths) a stream began with the work request's post
    if (o.source) {
      data = o.source(off, len);
    } else {
      const Stream rd = memory_.read(Engine::PoeRead, now, o.wr.local_addr + off, Bytes{len}, MemorySystem::kNoCap);
      payload_reads_.issued(rd.first, rd.last);
      data  = rd.last;
      began = payload_reads_.began();
    }
    const SimTime ready = std::max(now + timing_.tx_latency, data);
    bool last           = ++o.next == o.fragments;
    // (Critical paths) its payload's way in when that comes later than the transmit pipeline, else the pipeline from
    // this step, the one that staged it (not a later pull that finds it not ready yet).
    const bool payload_later = data > now + timing_.tx_latency;
    CauseLabel why{};
    if (sched_.causes() && !payload_later) {
      static const std::uint32_t pipeline = cause_what("UDP POE", "transmit pipeline (tx latency)");
      why = CauseLabel::at_host(pipeline, host_);
    }
    staged_.push_back(Staged{o.peer, d, ready, last, o.wr.wr_id, o.wr.verb,
                             payload_later ? began : staging_step(sched_),
                             why});
    staged_bytes_ += len;
    if (last)
      out_.pop_front();
  }
}

std::optional<net::Packet> UdpPoe::pull()
{
  SimTime now = sched_.now();
  refill(now);
  if (staged_.empty())
    return std::nullopt;
  Staged& s = staged_.front();
  if (s.ready > now) {
    tx_wake_.at(s.ready, s.why, s.parent);
    return std::nullopt;
  }
  Staged done = std::move(staged_.front());
  staged_.pop_front();
  staged_bytes_ -= done.d.len;
  ++c_.datagrams_sent;
  if (done.last) { // sent is all UDP promises
    roce::Completion c;
    c.wr_id = done.wr_id;
    c.verb  = done.verb;
    c.bytes = done.d.bytes;
    notify_after_writes(done.peer, false, c, {});
  }
  net::Packet p;
  p.src        = host_;
  p.dst        = done.peer;
  p.wire_bytes = fabric_.config().ethernet.wire_bytes(cfg_.headers.count + cfg_.fragment_header.count + done.d.len);
  p.flow       = (std::uint64_t{host_} << 32) | done.peer;
  p.seq        = done.d.index;
  p.body       = std::move(done.d);
  refill(now);
  return p;
}

void UdpPoe::deliver(net::Packet&& p)
{
  ++c_.datagrams_received;
  if (p.corrupted) { // UDP checksum failure: discarded
    ++c_.corrupted_dropped;
    return;
  }
  rx_pipe_.push(std::move(p), timing_.rx_latency);
}

void UdpPoe::deliver_ahead(net::Packet&& p, SimTime arrival, const net::WireCause& wire)
{
  ++c_.datagrams_received; // (ahead only on a fabric without faults: never corrupted)
  rx_pipe_.push_ahead(std::move(p), arrival, timing_.rx_latency, wire);
}

void UdpPoe::notify_after_writes(net::HostId peer, bool inbound, roce::Completion c, roce::InboundMessage m)
{
  // (Critical paths) a notice that waits, waits for the payload's writes, as the RoCE engine's.
  notices_.push(Notice{peer, inbound, c, m}, writes_);
}

void UdpPoe::hand_over(Notice& n)
{
  if (n.inbound)
    listener_.on_inbound(n.peer, n.message);
  else
    listener_.on_completion(n.peer, n.completion);
}

CauseLabel UdpPoe::cause(std::uint32_t kind, std::uint64_t) const
{
  static const char* const details[] = {"receive pipeline", "payload", "completion notice"};
  static const auto what = engine_causes("UDP POE", details, kTxWake);
  return kind < what.size() ? CauseLabel::at_host(what[kind], host_) : CauseLabel{};
}

void UdpPoe::on_event(std::uint32_t kind, std::uint64_t arg)
{
  SimTime now = sched_.now();
  notices_.begin_event();
  switch (kind) {
    case kRx: {
      net::Packet p = rx_pipe_.take(arg);
      auto* d = p.body.get<Datagram>();
      if (!d)
        throw SimulationError(fmt::format("host {} (UDP) received a non-UDP packet from host {}", host_, p.src));
      auto key = std::make_pair(static_cast<net::HostId>(p.src), d->msg);
      if (finished_.count(key)) {
        ++c_.duplicates;
        break;
      }
      auto it = in_.find(key);
      if (it == in_.end()) {
        In fresh{udp::Reassembly(d->fragments)};
        if (d->verb == roce::Verb::Write) {
          fresh.addr = d->remote_addr;
        } else {
          roce::RecvOffer o = provider_ ? provider_(d->header) : roce::RecvOffer{};
          if (o.status != roce::RecvOffer::Status::Ready) { // no room: the datagram is dropped
            ++c_.no_buffer_dropped;
            break;
          }
          if (o.recv.length < d->bytes)
            throw SimulationError(fmt::format("host {}: a {}-byte message from host {} does not fit its {}-byte "
                                              "receive buffer",
                                              host_, d->bytes, p.src, o.recv.length));
          fresh.addr    = o.recv.local_addr;
          fresh.recv_wr = o.recv.wr_id;
        }
        fresh.first = *d;
        fresh.since = now;
        it          = in_.emplace(key, std::move(fresh)).first;
      }
      In& in = it->second;
      auto r = in.parts.add(d->index);
      if (r == udp::Reassembly::Outcome::Duplicate) {
        ++c_.duplicates;
        break;
      }
      std::uint64_t off = std::uint64_t{d->index} * cfg_.fragment_payload();
      const Stream w = memory_.write(Engine::PoeWrite, now, in.addr + off, Bytes{d->len}, MemorySystem::kNoCap);
      writes_.wrote(w.first, w.last, [&] { return memory_.write_rate(Engine::PoeWrite, in.addr); });
      in.checksum += roce::range_checksum(d->msg, off, off + d->len);
      if (r == udp::Reassembly::Outcome::Complete) {
        roce::InboundMessage m;
        m.verb       = d->verb;
        m.msg        = d->msg;
        m.addr       = in.addr;
        m.bytes      = d->bytes;
        m.checksum   = in.checksum;
        m.recv_wr_id = in.recv_wr;
        m.header     = in.first.header;
        ++c_.messages_received;
        ++received_from_[key.first];
        finished_.insert(key);
        in_.erase(it);
        notify_after_writes(key.first, true, {}, m);
      }
      break;
    }
    case kTxWake: tx_wake_.fire(); break;
    case kNotify: {
      Notice n = notices_.pop();
      hand_over(n);
      break;
    }
    default: break;
  }
  notices_.end_event([&](Notice& n) { hand_over(n); });
}

std::string UdpPoe::incomplete() const
{
  std::string s;
  for (auto const& [key, in] : in_)
    s += fmt::format("{}message {:#x} from host {}: {} of {} datagrams arrived (first missing: {})",
                     s.empty() ? "" : "; ", key.second, key.first, in.parts.received(), in.parts.fragments(),
                     in.parts.first_missing());
  return s;
}

} // namespace nafsim::nodes
