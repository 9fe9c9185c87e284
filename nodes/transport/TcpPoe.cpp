#include "nodes/transport/TcpPoe.hpp"
#include "nodes/transport/EngineCause.hpp"

#include "simcore/results/Trace.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <stdexcept>

namespace nafsim::nodes {

TcpPoe::TcpPoe(net::HostId host, const PoeConfig& timing, const tcp::TcpConfig& tcp, Scheduler& sched,
               net::Fabric& fabric, MemorySystem& memory, PoeListener& listener, std::uint64_t buffer_base,
               BitsPerSecond copy_cap)
    : host_(host)
    , timing_(timing)
    , cfg_(tcp)
    , sched_(sched)
    , fabric_(fabric)
    , memory_(memory)
    , listener_(listener)
    , buffer_base_(buffer_base)
    , copy_cap_(copy_cap)
    , copy_(copy_cap, SimTime{})
{
}

QpId TcpPoe::open_session(net::HostId peer, QpId remote)
{
  if (sessions_.size() >= cfg_.max_sessions)
    throw std::length_error(fmt::format("host {}: a session to host {} would be session {} of an engine holding {}",
                                        host_, peer, sessions_.size() + 1, cfg_.max_sessions));
  auto id = static_cast<QpId>(sessions_.size());
  sessions_.push_back(Session{peer, remote, tcp::Connection(cfg_), (std::uint64_t{host_} << 32) | id});
  return id;
}

void TcpPoe::set_trace(results::Trace* t, std::uint32_t pid)
{
  trace_     = t && t->messages() ? t : nullptr;
  trace_pid_ = pid;
  if (trace_)
    trace_->name_thread(pid, 2, "inbound messages");
}

void TcpPoe::execute(QpId s, tcp::Actions& acts)
{
  tcp::Actions todo;
  todo.swap(acts);
  bool tx = false, more_space = false;
  for (auto& a : todo) {
    Session& ss = sessions_[s];
    if (auto* t = std::get_if<tcp::ArmTimer>(&a)) {
      arm_timer(s, *t);
    } else if (auto* ad = std::get_if<tcp::ArmAckTimer>(&a)) {
      ss.ack_token = ad->token;
      ss.ack_due   = ad->at;
      ss.ack_event      = sched_.at(ad->at, this, kAckDelay, s); // (a connection arms one only when none is armed)
      ss.ack_event_live = true;
    } else if (auto* d = std::get_if<tcp::Deliver>(&a)) {
      if (cfg_.rx_fifo.count > 0)
        fifo_held_ += d->to - ss.delivered; // in the shared FIFO until the consumer takes it
      ss.delivered = d->to;
      consume(s);
    } else if (auto* k = std::get_if<tcp::Acked>(&a)) {
      while (!ss.tx.empty() && ss.tx.front().written == ss.tx.front().head.bytes &&
             ss.tx.front().head.start + ss.tx.front().head.bytes <= k->upto) {
        TxRecord& r = ss.tx.front();
        if (r.report) {
          roce::Completion c;
          c.wr_id = r.head.wr_id;
          c.verb  = r.verb;
          c.bytes = r.head.bytes;
          notify_after_writes(Notice{s, false, c, {}});
        }
        ++c_.records_sent;
        ss.tx.pop_front();
        --ss.unwritten;
      }
      while (!ss.pushed.empty() && ss.pushed.front().first <= k->upto)
        ss.pushed.pop_front();
      more_space = true;
    } else if (auto* f = std::get_if<tcp::Failed>(&a)) {
      ++c_.failed_sessions;
      for (auto const& r : ss.tx) {
        roce::Completion c;
        c.wr_id    = r.head.wr_id;
        c.verb     = r.verb;
        c.status   = roce::Status::RetryExceeded;
        c.bytes    = r.head.bytes;
        c.stream_byte = f->at;
        c.attempts = f->attempts;
        notify_after_writes(Notice{s, false, c, {}});
      }
      ss.tx.clear();
      ss.unwritten = 0;
      ss.pushed.clear();
      ss.wait_room = false;
      if (cfg_.serial_tx) { // its unwritten messages leave the command queue; the next session's goes on
        const bool was_head = !write_order_.empty() && write_order_.front() == s;
        std::erase(write_order_, s);
        if (was_head && !write_order_.empty())
          sched_.call_at(sched_.now(), [this, next = write_order_.front()] { write_records(next); });
      }
    } else if (std::holds_alternative<tcp::WantTx>(a)) {
      tx = true;
    }
  }
  Session& ss = sessions_[s];
  if (ss.timer_live && !ss.conn.timer_running()) { // a stopped timer leaves no event behind
    sched_.cancel(ss.timer_event);
    ss.timer_live = false;
  }
  if (ss.wait_room && ss.unwritten < ss.tx.size() && room(ss) >= chunk(ss)) {
    ss.wait_room = false;
    request();
  } else if (more_space && ss.unwritten < ss.tx.size()) {
    write_records(s);
  }
  if (tx)
    want_tx(s);
}

void TcpPoe::notify_after_writes(Notice n)
{
  // (Critical paths) a notice that waits, waits for the payload's writes, as the RoCE engine's.
  notices_.push(std::move(n), writes_);
}

void TcpPoe::hand_over(Notice& n, SimTime now)
{
  if (n.inbound) {
    if (trace_)
      trace_->instant(trace_pid_, 2, fmt::format("message {} from host {}", format_bytes(Bytes{n.message.bytes}),
                                                 sessions_[n.session].peer),
                      now);
    listener_.on_inbound(n.session, n.message);
  } else {
    listener_.on_completion(n.session, n.completion);
  }
}

void TcpPoe::arm_timer(QpId s, const tcp::ArmTimer& t)
{
  Session& ss       = sessions_[s];
  ss.timer_token    = t.token;
  ss.timer_deadline = t.at;
  if (!ss.timer_live || ss.timer_event_at > t.at) {
    if (ss.timer_live)
      sched_.cancel(ss.timer_event);
    ss.timer_live     = true;
    ss.timer_event_at = t.at;
    ss.timer_event    = sched_.at(t.at, this, kTimer, s);
  }
}

void TcpPoe::want_tx(QpId s)
{
  Session& ss = sessions_[s];
  if (!ss.in_ctrl && ss.conn.ack_pending()) {
    ss.in_ctrl = true;
    ctrl_.push_back(s);
  }
  if (!ss.in_data && ss.conn.next()) {
    ss.in_data = true;
    data_rr_.push_back(s);
  }
  fabric_.tx_ready(host_);
}

void TcpPoe::deliver(net::Packet&& p)
{
  ++c_.packets_received;
  if (p.corrupted) { // TCP/IP checksum failure: discarded
    ++c_.corrupted_dropped;
    return;
  }
  rx_pipe_.push(std::move(p), timing_.rx_latency);
}

void TcpPoe::deliver_ahead(net::Packet&& p, SimTime arrival, const net::WireCause& wire)
{
  ++c_.packets_received; // (ahead only on a fabric without faults: never corrupted)
  rx_pipe_.push_ahead(std::move(p), arrival, timing_.rx_latency, wire);
}

CauseLabel TcpPoe::cause(std::uint32_t kind, std::uint64_t) const
{
  static const char* const details[] = {"receive pipeline", "payload", "retransmission timeout", "consumer poll",
                                        "completion notice", "write request status", "delayed ACK"};
  static const auto what = engine_causes("TCP POE", details, kTxWake);
  return kind < what.size() ? CauseLabel::at_host(what[kind], host_) : CauseLabel{};
}

void TcpPoe::on_event(std::uint32_t kind, std::uint64_t arg)
{
  SimTime now = sched_.now();
  notices_.begin_event();
  switch (kind) {
    case kRx: {
      net::Packet p = rx_pipe_.take(arg);
      auto* pkt = p.body.get<Packet>();
      if (!pkt)
        throw SimulationError(fmt::format("host {} (TCP) received a non-TCP packet from host {}", host_, p.src));
      QpId id = pkt->seg.dst_session;
      if (id >= sessions_.size())
        throw SimulationError(fmt::format("host {} received a segment for unknown session {}", host_, id));
      Session& ss = sessions_[id];
      for (auto const& h : pkt->heads)
        if (h.start >= ss.consumed)
          ss.heads.emplace(h.start, h);
      ss.conn.on_segment(pkt->seg, now, scratch_, pkt->seg.len == 0 || fifo_room(now));
      execute(id, scratch_);
      break;
    }
    case kTxWake: tx_wake_.fire(); break;
    case kStatus: on_status(static_cast<QpId>(arg)); break;
    case kAckDelay: {
      Session& ss       = sessions_[arg];
      ss.ack_event_live = false;
      if (ss.ack_due != now)
        break; // an older delay, re-armed since
      ss.conn.on_ack_timer(ss.ack_token, scratch_);
      execute(static_cast<QpId>(arg), scratch_);
      break;
    }
    case kTimer: {
      Session& ss = sessions_[arg];
      if (!ss.timer_live || ss.timer_event_at != now)
        break; // superseded by an earlier event
      ss.timer_live = false;
      if (!ss.conn.timer_running())
        break;
      if (ss.timer_deadline > now) { // restarted since: follow the deadline
        ss.timer_live     = true;
        ss.timer_event_at = ss.timer_deadline;
        ss.timer_event    = sched_.at(ss.timer_deadline, this, kTimer, arg);
        break;
      }
      ss.conn.on_timer(ss.timer_token, now, scratch_);
      execute(static_cast<QpId>(arg), scratch_);
      break;
    }
    case kPoll:
      sessions_[arg].stalled = false;
      consume(static_cast<QpId>(arg));
      break;
    case kNotify: {
      Notice n = notices_.pop();
      hand_over(n, now);
      break;
    }
    default: break;
  }
  notices_.end_event([&](Notice& n) { hand_over(n, now); });
}

TcpPoeCounters TcpPoe::counters() const
{
  TcpPoeCounters c = c_;
  for (auto const& s : sessions_) {
    auto const& k = s.conn.counters();
    c.tcp.segments_sent += k.segments_sent;
    c.tcp.retransmitted += k.retransmitted;
    c.tcp.acks_sent += k.acks_sent;
    c.tcp.fast_retransmits += k.fast_retransmits;
    c.tcp.timeouts += k.timeouts;
    c.tcp.probes += k.probes;
    c.tcp.duplicate_acks += k.duplicate_acks;
    c.tcp.duplicates += k.duplicates;
    c.tcp.out_of_order_held += k.out_of_order_held;
    c.tcp.out_of_order_dropped += k.out_of_order_dropped;
    c.tcp.window_dropped += k.window_dropped;
    c.tcp.refused_full += k.refused_full;
  }
  return c;
}

std::string TcpPoe::in_flight() const
{
  std::string s;
  for (std::size_t i = 0; i < sessions_.size(); ++i) {
    auto const& ss = sessions_[i];
    if (!ss.tx.empty())
      s += fmt::format("{}session {} to host {}: {} message(s) unacknowledged from stream byte {} ({} B outstanding, "
                       "the peer's window {} B, cwnd {} B{})",
                       s.empty() ? "" : "; ", i, ss.peer, ss.tx.size(), ss.conn.unacknowledged(),
                       ss.conn.write_end() - ss.conn.unacknowledged(), ss.conn.peer_window(), ss.conn.cwnd(),
                       ss.wait_room ? ", its next write refused: waiting for room" : "");
    if (ss.consumed < ss.delivered || ss.current)
      s += fmt::format("{}session {} from host {}: a message half placed at stream byte {}", s.empty() ? "" : "; ", i,
                       ss.peer, ss.consumed);
  }
  return s;
}

} // namespace nafsim::nodes
