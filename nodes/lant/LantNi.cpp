#include "nodes/lant/LantNi.hpp"
#include "nodes/transport/EngineCause.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace nafsim::nodes {

using namespace lant;

LantNi::LantNi(net::HostId host, const LantNiConfig& cfg, Hertz clock, Scheduler& sched, net::Fabric& fabric,
               MemorySystem& memory)
    : host_(host)
    , cfg_(cfg)
    , cycle_(cycles_time(Cycles{1}, clock))
    , phy_tx_(cycles_time(Cycles{cfg.phy_latency / 2}, clock))
    , phy_rx_(cycles_time(Cycles{cfg.phy_latency - cfg.phy_latency / 2}, clock))
    , sched_(sched)
    , fabric_(fabric)
    , memory_(memory)
    , tx_(cfg.transport, host)
    , rx_(cfg.transport, host)
{
}

// ---- the program's interface ------------------------------------------------------------------

void LantNi::post(ActorContext& ctx, const Command& c)
{
  static const std::uint32_t posting = cause_what("host CPU", "posting a command to the NI");
  ctx.sleep_for(cfg_.post_overhead, CauseLabel::at_host(posting, host_));
  if (!tx_.can_post(c.queue, c.bytes, c.message)) {
    ++c_.post_waits;
    while (!tx_.can_post(c.queue, c.bytes, c.message)) {
      waiters_.push_back(ctx.id());
      ctx.block(WaitReason([&] { return fmt::format("node {}: command queue {} full (command_queue_depth {})", host_, c.queue,
                            cfg_.transport.command_queue_depth); }));
    }
  }
  local_[c.id] = Local{};
  enqueue(c);
  execute(scratch_);
}

bool LantNi::try_post(const Command& c)
{
  if (!tx_.can_post(c.queue, c.bytes, c.message))
    return false;
  local_[c.id] = Local{};
  enqueue(c);
  execute(scratch_);
  return true;
}

void LantNi::set_trace(results::Trace* t, std::uint32_t pid)
{
  trace_     = t && t->messages() ? t : nullptr;
  trace_pid_ = pid;
  if (trace_) {
    trace_->name_thread(pid, 1, "commands");
    trace_->name_thread(pid, 2, "receive notifications");
  }
}

void LantNi::enqueue(const Command& c)
{
  if (trace_)
    posted_[c.id] = Posted{sched_.now(), fmt::format("{} {} to node {}", c.message ? "message" : "write",
                                                     format_bytes(Bytes{c.bytes}), c.dst)};
  tx_.post(c, sched_.now(), scratch_);
}

void LantNi::submit(Command c, PayloadSource source)
{
  c.queue = 1;
  if (source)
    sources_[c.id] = Source{c.local_addr, std::move(source), sched_.cause_mark()};
  if (!submitted_.empty() || !tx_.can_post(1, c.bytes, c.message))
    ++c_.post_waits; // waits inside the NI for queue space
  submitted_.push_back(c);
  drain_submitted();
}

void LantNi::drain_submitted()
{
  while (!submitted_.empty() && tx_.can_post(1, submitted_.front().bytes, submitted_.front().message)) {
    enqueue(submitted_.front());
    submitted_.pop_front();
  }
  if (!scratch_.empty())
    execute(scratch_);
}

SimTime LantNi::seen_by_poll(SimTime since, SimTime posted) const
{
  // Polls back to back from `since`, each taking poll_period; the first that ends after the
  // notification was posted sees it.
  std::int64_t p = std::max<std::int64_t>(cfg_.poll_period.ps(), 1);
  std::int64_t n = posted > since ? (posted.ps() - since.ps() + p - 1) / p : 1;
  return SimTime::ps(since.ps() + std::max<std::int64_t>(n, 1) * p);
}

SimTime LantNi::wait_local(ActorContext& ctx, std::uint64_t id, LocalNotice::Kind kind)
{
  SimTime since = ctx.now();
  auto at       = [&] {
    auto it = local_.find(id);
    if (it == local_.end())
      throw SimulationError(fmt::format("node {}: no command {} was posted", host_, id));
    return kind == LocalNotice::Kind::Pushed ? it->second.pushed : it->second.complete;
  };
  while (at() == SimTime::max()) {
    waiters_.push_back(ctx.id());
    ctx.block(WaitReason([&] { return fmt::format("node {}: local notification of command {}", host_, id); }));
  }
  ctx.sleep_until(seen_by_poll(since, at()), poll_cause());
  return ctx.now();
}

ReceiveNotice LantNi::wait_receive(ActorContext& ctx, const std::function<bool(const ReceiveNotice&)>& accept)
{
  SimTime since = ctx.now();
  auto find     = [&] {
    return std::find_if(received_.begin(), received_.end(), [&](auto const& n) { return !accept || accept(n); });
  };
  while (find() == received_.end()) {
    waiters_.push_back(ctx.id());
    ctx.block(WaitReason([&] { return fmt::format("node {}: receive notification", host_); }));
  }
  auto it         = find();
  ReceiveNotice n = *it;
  received_.erase(it);
  ctx.sleep_until(seen_by_poll(since, n.at), poll_cause());
  return n;
}

CauseLabel LantNi::poll_cause() const
{
  static const std::uint32_t poll = cause_what("host CPU", "the program's next poll of the notification queue");
  return CauseLabel::at_host(poll, host_);
}

void LantNi::wake_waiters()
{
  for (ActorId a : waiters_)
    sched_.wake(a);
  waiters_.clear();
}

std::string LantNi::leaks() const
{
  std::string r;
  auto add = [&](std::size_t n, const char* what) {
    if (n)
      r += fmt::format("{}{} {}", r.empty() ? "" : ", ", n, what);
  };
  add(tx_.queued_commands(), "queued commands");
  add(tx_.ops_in_flight(), "op-table entries");
  add(tx_.transactions_in_flight(), "transaction-table entries");
  add(rx_.registrations_in_use(), "registration-table entries");
  add(rx_.escape_in_use(), "escape-channel packets");
  add(notices_.size() + received_.size(), "unread receive notifications");
  add(submitted_.size(), "hardware posts waiting");
  return r;
}

// ---- executing the transport's actions --------------------------------------------------------

net::Packet LantNi::make(std::uint32_t dst, Wire w, std::uint32_t l3, std::uint64_t flow, std::uint32_t seq) const
{
  net::Packet p;
  p.src        = host_;
  p.dst        = dst;
  p.wire_bytes = fabric_.config().ethernet.wire_bytes(l3);
  p.flow       = flow;
  p.seq        = seq;
  p.body       = std::move(w);
  return p;
}

void LantNi::control(std::uint32_t dst, Wire w, SimTime from)
{
  net::Packet p    = make(dst, std::move(w), static_cast<std::uint32_t>(cfg_.transport.control_bytes.count),
                          (std::uint64_t{host_} << 32) | dst, 0);
  p.ecc_protected  = true;
  SimTime ready    = std::max(sched_.now(), from) + cycle_ * static_cast<std::int64_t>(cfg_.tx_pipeline) + phy_tx_;
  CauseLabel why{};
  std::uint32_t parent = Scheduler::kRunningStep;
  if (sched_.causes()) {
    // (Critical paths) a control packet's wait is its write response and the transmit pipeline, from the step that
    // queued it (a packet's receipt), not from the pull that found it not yet ready: an ACK stream paced by the
    // arriving data was blamed on a "payload stream" the receiver does not have.
    static const std::uint32_t pipeline = cause_what("connectionless NI", "control packet: transmit pipeline");
    why    = CauseLabel::at_host(pipeline, host_);
    if (from > sched_.now())
      why = CausalGraph::with_lead(why, writes_.why(), from);
    parent = sched_.cause_mark();
  }
  if (!ctrl_.empty() && ctrl_.back().ready >= ready) { // one control queue, in order: behind the one before
    ready  = ctrl_.back().ready;
    why    = ctrl_.back().why;
    parent = ctrl_.back().parent;
  }
  ctrl_.push_back(Control{ready, std::move(p), why, parent});
  ++c_.control_packets_sent;
  fabric_.tx_ready(host_);
}

bool LantNi::verify_and_forget(const Delivered& d)
{
  const std::uint64_t P     = cfg_.transport.packet_payload.count;
  const std::uint64_t count = cfg_.transport.packets_for(d.bytes);
  bool ok                   = true;
  for (std::uint64_t i = 0; i < count; ++i) {
    auto it = image_.find(d.base + i * P);
    if (it == image_.end() || it->second != std::pair{d.msg, static_cast<std::uint32_t>(i)})
      ok = false;
    else
      image_.erase(it); // only our own data: a slot another operation overwrote stays for its check
  }
  return ok;
}

void LantNi::execute(Actions& acts)
{
  Actions todo;
  todo.swap(acts);
  bool tx = false;
  SimTime written; // the packet just written: its ACK waits for the memory's write response
  for (auto& a : todo) {
    if (auto* ack = std::get_if<SendAck>(&a)) {
      control(ack->dst, Wire{ack->ack}, cfg_.ack_after_write ? written : SimTime{});
      written = SimTime{};
    } else if (auto* n = std::get_if<SendNotify>(&a)) {
      control(n->dst, Wire{n->notify}, SimTime{});
    } else if (auto* w = std::get_if<WriteData>(&a)) {
      const Stream s     = memory_.write(Engine::PoeWrite, sched_.now(), w->addr, Bytes{w->pkt.length},
                                         MemorySystem::kNoCap);
      const SimTime done = s.last;
      writes_.wrote(s.first, done, [&] { return memory_.write_rate(Engine::PoeWrite, w->addr); });
      written      = done;
      image_[w->addr] = {w->pkt.msg, w->pkt.index};
    } else if (auto* d = std::get_if<Delivered>(&a)) {
      ReceiveNotice rn{d->src, d->op, d->base, d->bytes, d->msg, d->registered, verify_and_forget(*d), {}, d->message,
                       d->recv_id, d->header};
      if (!rn.verified)
        ++c_.verification_failures;
      SimTime at = std::max(sched_.now(), writes_.done());
      if (!notices_.empty())
        at = std::max(at, notices_.back().first);
      notices_.emplace_back(at, rn);
      // (Critical paths) one waiting for the payload's writes walks back through them to the step that began them
      // (as NoticeQueue does for the RDMA, TCP and UDP engines).
      if (sched_.causes() && at > sched_.now() && at == writes_.done())
        sched_.at_caused_by(writes_.busy_cause(), at, this, kNotify, 0, writes_.why());
      else
        sched_.at(at, this, kNotify);
    } else if (auto* l = std::get_if<LocalNotice>(&a)) {
      if (l->kind == LocalNotice::Kind::Failed)
        throw SimulationError(l->error);
      sources_.erase(l->command);
      if (auto it = posted_.find(l->command); trace_ && it != posted_.end()) {
        trace_->span(trace_pid_, 1, it->second.what, it->second.at, sched_.now(),
                     fmt::format(R"({{"command":{}}})", l->command));
        posted_.erase(it);
      }
      if (local_hook_ && local_hook_(l->command))
        continue;
      if (auto it = local_.find(l->command); it != local_.end()) { // else: nobody waits for it
        it->second.complete = sched_.now();
        wake_waiters();
      }
    } else if (std::holds_alternative<WantTx>(a)) {
      tx = true;
    }
  }
  if (tx)
    fabric_.tx_ready(host_);
  rearm();
}

void LantNi::rearm()
{
  SimTime next = std::min(tx_.next_deadline(), rx_.next_deadline());
  if (next == SimTime::max() || (timer_live_ && timer_at_ <= next))
    return;
  if (timer_live_)
    sched_.cancel(timer_event_);
  timer_live_  = true;
  timer_at_    = next;
  timer_event_ = sched_.at(next, this, kTimer);
}

// ---- transmit ---------------------------------------------------------------------------------

void LantNi::refill(SimTime now)
{
  bool took = false; // a packet taken from the sender starts its transaction-table timeout
  while (staged_.size() < cfg_.tx_prefetch_packets) {
    auto t = tx_.next_packet(now, scratch_);
    if (!t)
      break;
    // The DMA engine fetches a new command's descriptor, then reads the payload; the packet
    // leaves after the NI pipeline and the PHY's transmit half.
    SimTime start = now + (t->starts_command ? cycle_ * static_cast<std::int64_t>(cfg_.descriptor_fetch) : SimTime{});
    SimTime data;
    std::uint32_t began = Scheduler::kRunningStep; // (critical paths) what began the payload's way in
    static const std::uint32_t read   = cause_what("connectionless NI", "payload read from memory");
    static const std::uint32_t pipe   = cause_what("connectionless NI", "transmit pipeline (a command's descriptor fetch)");
    std::uint32_t what = payload_stream_what();
    if (auto src = sources_.find(t->command); src != sources_.end()) { // streamed in by another block
      data  = std::max(start, src->second.fn(t->local_addr - src->second.local, t->pkt.length));
      began = src->second.posted;
    } else {
      const Stream rd = memory_.read(Engine::PoeRead, start, t->local_addr, Bytes{t->pkt.length}, MemorySystem::kNoCap);
      payload_reads_.issued(rd.first, rd.last);
      data  = rd.last;
      began = payload_reads_.began();
      what  = read;
    }
    // (Critical paths) a packet whose payload came later than the pull that staged it waits from what began that;
    // otherwise for the descriptor fetch and the transmit pipeline from the step that staged it (not from a later
    // pull that finds it not ready yet).
    const bool payload_later = data > start;
    const SimTime ready = std::max(start, data) + cycle_ * static_cast<std::int64_t>(cfg_.tx_pipeline) + phy_tx_;
    staged_.push_back(Staged{*t, ready,
                             sched_.causes() ? CauseLabel::at_host(payload_later ? what : pipe, host_) : CauseLabel{},
                             payload_later ? began : staging_step(sched_)});
    took = true;
    if (t->starts_command) {
      wake_waiters(); // a command left its queue: room for a waiting post
      if (!submitted_.empty())
        sched_.call_at(now, [this] { drain_submitted(); });
    }
  }
  if (!scratch_.empty())
    execute(scratch_); // re-arms the timer too
  else if (took)
    rearm();
}

SimTime LantNi::on_line(const net::Packet& p, SimTime now)
{
  // At packet fidelity the port pulls a packet when it starts on the wire. At flow fidelity the fabric takes every
  // ready packet at once and shares the line as flows, so the NI dates a packet's start on the wire itself: behind
  // the packets it handed over before, at the line rate (exact on an idle link; the paper's send counted its last
  // packet as pushed once handed over, faster than the link: 32 KiB in 15.5 us at 10 Gb/s).
  if (fabric_.config().fidelity != net::Fidelity::Flow)
    return now;
  const SimTime starts = std::max(now, line_free_);
  line_free_           = starts + transmit_time(Bytes{p.wire_bytes}, fabric_.config().link.rate);
  return starts;
}

std::optional<net::Packet> LantNi::pull()
{
  SimTime now = sched_.now();
  SimTime wake = SimTime::max();
  CauseLabel why{};
  std::uint32_t parent = Scheduler::kRunningStep;
  if (!ctrl_.empty()) {
    if (ctrl_.front().ready <= now) {
      net::Packet p = std::move(ctrl_.front().p);
      ctrl_.pop_front();
      on_line(p, now);
      return p;
    }
    wake   = ctrl_.front().ready;
    why    = ctrl_.front().why;
    parent = ctrl_.front().parent;
  }
  refill(now);
  while (!staged_.empty()) {
    Staged& s = staged_.front();
    if (!tx_.still_needed(s.t.pkt.op, s.t.pkt.index)) { // acknowledged while it waited
      ++c_.stale_staged;
      staged_.pop_front();
      refill(now);
      continue;
    }
    if (s.ready > now) {
      if (s.ready < wake) {
        wake   = s.ready;
        why    = s.why;
        parent = s.parent;
      }
      break;
    }
    Sender::TxPacket t = s.t;
    staged_.pop_front();
    ++c_.data_packets_sent;
    std::uint64_t flow = (std::uint64_t{host_} << 40) ^ t.pkt.op; // ECMP: one path per operation
    auto l3 = static_cast<std::uint32_t>(cfg_.transport.header.count + t.pkt.length);
    net::Packet p      = make(t.dst, Wire{t.pkt}, l3, flow, t.pkt.index);
    const SimTime starts = on_line(p, now);
    if (auto it = local_.find(t.command); t.last_of_command && it != local_.end()) {
      it->second.pushed = starts; // the paper's send: all data pushed into the network
      wake_waiters();
    }
    return p;
  }
  tx_wake_.at(wake, why, parent);
  return std::nullopt;
}

// ---- receive ----------------------------------------------------------------------------------

std::string LantNi::refusals() const
{
  // The receiver drops a packet unacknowledged where it has no room or no registration for it; the sender then
  // retransmits on its timeout, and retries that keep meeting the same refusal end its operation.
  auto const& r = rx_.counters();
  auto const& t = cfg_.transport;
  const std::string at = "platform.node.fpga.connectionless.transport.";
  std::vector<std::string> why;
  if (r.registration_full_drops > 0)
    why.push_back(fmt::format("{} first packet(s) with its registration table full ({} entries; the senders that "
                              "retry first take the entries freed, so others may starve): raise {}registration_entries, "
                              "send to it from fewer nodes or with a smaller window at once, or leave those operations "
                              "unregistered ({}register_min above their size, or registration false)",
                              r.registration_full_drops, t.registration_entries, at, at));
  if (r.escape_overflow_drops > 0)
    why.push_back(fmt::format("{} packet(s) with its escape channel full ({} packets): raise {}escape_packets",
                              r.escape_overflow_drops, t.escape_packets, at));
  if (r.not_ready_drops > 0)
    why.push_back(fmt::format("{} first packet(s) of messages with no receive buffer free (the CCLO's Rx buffers: "
                              "raise platform.node.fpga.cclo.rx_buffers.count)",
                              r.not_ready_drops));
  if (why.empty())
    return {};
  // The packets behind a first packet that never registered wait in the escape channel and time out there.
  if (r.escape_timeouts > 0 && r.registration_full_drops + r.not_ready_drops > 0)
    why.push_back(fmt::format("and {} packet(s) timed out in its escape channel ({}), mostly behind those first "
                              "packets (section 3.3: a first packet that never registers)",
                              r.escape_timeouts, format_time(t.escape_timeout)));
  return fmt::format("node {} refused {}", host_, fmt::join(why, "; "));
}

void LantNi::deliver(net::Packet&& p)
{
  rx_pipe_.push(std::move(p), phy_rx_ + cycle_ * static_cast<std::int64_t>(cfg_.rx_pipeline));
}

void LantNi::deliver_ahead(net::Packet&& p, SimTime arrival, const net::WireCause& wire)
{
  rx_pipe_.push_ahead(std::move(p), arrival, phy_rx_ + cycle_ * static_cast<std::int64_t>(cfg_.rx_pipeline), wire);
}

CauseLabel LantNi::cause(std::uint32_t kind, std::uint64_t) const
{
  static const char* const details[] = {"receive pipeline", "payload", "retransmission timeout", "completion notice"};
  static const auto what = engine_causes("connectionless NI", details, kTxWake);
  return kind < what.size() ? CauseLabel::at_host(what[kind], host_) : CauseLabel{};
}

void LantNi::on_event(std::uint32_t kind, std::uint64_t arg)
{
  SimTime now = sched_.now();
  switch (kind) {
    case kRx: {
      net::Packet p = rx_pipe_.take(arg);
      auto* w = p.body.get<Wire>();
      if (!w)
        throw SimulationError(fmt::format("node {} received a packet of another transport from node {}", host_, p.src));
      std::visit(
          [&](auto const& pkt) {
            using T = std::decay_t<decltype(pkt)>;
            if constexpr (std::is_same_v<T, DataPacket>)
              rx_.on_data(p.src, pkt, p.corrupted, now, scratch_);
            else if constexpr (std::is_same_v<T, AckPacket>)
              tx_.on_ack(pkt, now, scratch_);
            else
              rx_.on_notify(p.src, pkt, now, scratch_);
          },
          *w);
      execute(scratch_);
      break;
    }
    case kTxWake: tx_wake_.fire(); break;
    case kTimer:
      if (!timer_live_ || now != timer_at_)
        break;
      timer_live_ = false;
      tx_.on_timer(now, scratch_);
      rx_.on_timer(now, scratch_);
      execute(scratch_);
      break;
    case kNotify: {
      ReceiveNotice n = notices_.front().second;
      n.at            = now;
      n.cause         = sched_.cause_mark();
      notices_.pop_front();
      ++c_.deliveries;
      if (trace_)
        trace_->instant(trace_pid_, 2,
                        fmt::format("{} {} {} from node {}", n.registered ? "registered" : "unregistered",
                                    n.message ? "message" : "write", format_bytes(Bytes{n.bytes}), n.src),
                        now);
      if (receive_hook_ && receive_hook_(n))
        break;
      received_.push_back(n);
      wake_waiters();
      break;
    }
    default:
      break;
  }
}

} // namespace nafsim::nodes
