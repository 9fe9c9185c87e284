// The TCP engine's transmit side (nodes/transport/TcpPoe.hpp): segments staged up to tx_prefetch ahead of the port
// while their bytes come from the transmit buffer in memory (or the application's stream), pulled by the port pure
// ACKs first, then data round robin over the sessions; a segment that carries a session's ACK cancels its delayed ACK.
#include "nodes/transport/TcpPoe.hpp"
#include "nodes/transport/EngineCause.hpp"

#include <algorithm>

namespace nafsim::nodes {

net::Packet TcpPoe::make_packet(const Session& ss, Packet body) const
{
  net::Packet p;
  p.src        = host_;
  p.dst        = ss.peer;
  p.wire_bytes = fabric_.config().ethernet.wire_bytes(cfg_.headers.count + body.seg.len);
  p.flow       = ss.flow;
  // Deterministic drop rules name the segment by its index in the stream.
  p.seq  = static_cast<std::uint32_t>(body.seg.len ? body.seg.seq / cfg_.mss() : UINT32_MAX);
  p.body = std::move(body);
  return p;
}

SimTime TcpPoe::payload_ready(Session& ss, QpId id, const tcp::Segment& seg, SimTime now, std::uint32_t& paced,
                              std::uint32_t& began)
{
  std::uint64_t slot = buffer_base_ + std::uint64_t{id} * cfg_.tx_buffer.count + seg.seq % cfg_.tx_buffer.count;
  const bool host    = is_host(slot);
  // Device memory: the engine's own channel to its buffers; host memory: the NIC reads over PCIe.
  auto read_back = [&](SimTime at) {
    return memory_.read_done(host ? Engine::PoeRead : Engine::TxBufRead, at, slot, Bytes{seg.len});
  };
  if (seg.seq + seg.len <= ss.max_sent) // a retransmission: from the transmit buffer, once its copy is there
    return read_back(cfg_.tx_bypass ? std::max(now, ss.stored) : now);
  // First transmission: the application's bytes go into the transmit buffer (on a host: the kernel
  // copies them from the user buffer), then out of it, or (tx_bypass) out beside it.
  SimTime in = now;
  for (auto const& r : ss.tx) {
    std::uint64_t a = std::max(seg.seq, r.head.start), b = std::min(seg.seq + seg.len, r.head.start + r.head.bytes);
    if (a >= b || r.head.kind == RecordKind::ReadRequest) // no bytes here, or the engine's own control bytes
      continue;
    std::uint64_t off = a - r.head.start;
    auto len          = static_cast<std::uint32_t>(b - a);
    SimTime t;
    std::uint32_t from = r.posted; // (critical paths) a stream began with its work request's post
    if (r.source) {
      t = std::max(now, r.source(off, len));
    } else {
      const Stream s = host ? copy_.stream(now, Bytes{len}, copy_cap_)
                            : memory_.read(Engine::PoeRead, now, r.local_addr + off, Bytes{len}, MemorySystem::kNoCap);
      payload_reads_.issued(s.first, s.last);
      t    = s.last;
      from = payload_reads_.began();
    }
    if (t > in) {
      paced = r.payload_cause;
      began = from;
    }
    in = std::max(in, t);
  }
  // tx_status_latency: a write's data enters the stack only after its status.
  for (auto it = std::upper_bound(ss.pushed.begin(), ss.pushed.end(), seg.seq,
                                  [](std::uint64_t v, auto const& e) { return v < e.first; });
       it != ss.pushed.end(); ++it) {
    if (it->second > in) { // (critical paths) the write's data pushed in after its status (whose own event came
      // first: the segment is known once the status is in), from the step that stages the segment
      static const std::uint32_t push = cause_what("TCP POE", "write data pushed in at the application rate");
      paced = push; // (it was the stream's label, when the stream had come first)
      began = Scheduler::kRunningStep;
    }
    in = std::max(in, it->second);
    if (it->first >= seg.seq + seg.len)
      break;
  }
  ss.max_sent = std::max(ss.max_sent, seg.seq + seg.len);
  if (host)
    return read_back(in);
  const SimTime stored = memory_.write_done(Engine::TxBufWrite, in, slot, Bytes{seg.len});
  // tx_bypass: the segment leaves from the application's stream; the buffer's copy serves retransmissions only.
  ss.stored = std::max(ss.stored, stored);
  return cfg_.tx_bypass ? in : read_back(stored);
}

void TcpPoe::cancel_delayed_ack(Session& ss)
{
  if (!ss.ack_event_live)
    return;
  sched_.cancel(ss.ack_event);
  ss.ack_event_live = false;
}

void TcpPoe::refill(SimTime now)
{
  while ((staged_bytes_ < timing_.tx_prefetch.count || staged_.empty()) && !data_rr_.empty()) {
    QpId id = data_rr_.front();
    data_rr_.pop_front();
    Session& ss = sessions_[id];
    ss.in_data  = false;
    if (!ss.conn.next())
      continue; // re-enters on its next WantTx
    Packet pkt;
    pkt.seg             = ss.conn.commit(now, scratch_);
    cancel_delayed_ack(ss);
    pkt.seg.dst_session = ss.remote;
    SimTime ready       = now + timing_.tx_latency;
    // (Critical paths) a segment's wait is its payload's way in when that comes later than the transmit pipeline,
    // else the pipeline from this step, the one that staged it: a later pull that finds it not ready yet is not
    // what it waits for (that blamed the port's earlier packets and a "payload stream" for the XRT stack's
    // request/status handshake, which sets its pace).
    CauseLabel why{};
    std::uint32_t parent = Scheduler::kRunningStep;
    if (sched_.causes()) {
      static const std::uint32_t pipeline = cause_what("TCP POE", "transmit pipeline (tx latency)");
      why    = CauseLabel::at_host(pipeline, host_);
      parent = staging_step(sched_);
    }
    if (pkt.seg.len > 0) {
      std::uint32_t paced = 0, began = Scheduler::kRunningStep;
      const SimTime data  = payload_ready(ss, id, pkt.seg, now, paced, began);
      if (data > ready && sched_.causes()) {
        static const std::uint32_t buffer = cause_what("TCP POE", "payload through the transmit buffer");
        why    = CauseLabel::at_host(paced != 0 ? paced : buffer, host_);
        parent = began == Scheduler::kRunningStep ? staging_step(sched_) : began;
      }
      ready = std::max(ready, data);
      for (auto const& r : ss.tx)
        if (r.head.start >= pkt.seg.seq && r.head.start < pkt.seg.seq + pkt.seg.len)
          pkt.heads.push_back(r.head);
    }
    staged_bytes_ += pkt.seg.len;
    staged_.push_back(Staged{std::move(pkt), ready, id, why, parent});
    execute(id, scratch_);
    if (!ss.in_data && ss.conn.next()) {
      ss.in_data = true;
      data_rr_.push_back(id);
    }
  }
}

std::optional<net::Packet> TcpPoe::pull()
{
  SimTime now = sched_.now();
  // 1. Pure ACKs (window updates, answers to data) first.
  while (!ctrl_.empty()) {
    QpId id = ctrl_.front();
    ctrl_.pop_front();
    Session& ss = sessions_[id];
    ss.in_ctrl  = false;
    if (!ss.conn.ack_pending())
      continue; // a data segment carried it
    Packet pkt;
    pkt.seg             = ss.conn.take_ack();
    cancel_delayed_ack(ss);
    pkt.seg.dst_session = ss.remote;
    return make_packet(ss, std::move(pkt));
  }
  // 2. Data.
  refill(now);
  while (!staged_.empty()) {
    Staged& s = staged_.front();
    Session& ss = sessions_[s.session];
    if (s.pkt.seg.len > 0 && s.pkt.seg.seq + s.pkt.seg.len <= ss.conn.unacknowledged()) {
      ++c_.stale_discarded; // acknowledged while staged (a go-back resent it needlessly)
      if (!s.pkt.seg.probe)
        ss.conn.withdrawn();
      staged_bytes_ -= s.pkt.seg.len;
      staged_.pop_front();
      refill(now);
      continue;
    }
    if (s.ready > now) {
      tx_wake_.at(s.ready, s.why, s.parent);
      return std::nullopt;
    }
    Staged done = std::move(staged_.front());
    staged_.pop_front();
    staged_bytes_ -= done.pkt.seg.len;
    ss.conn.stamp(done.pkt.seg);
    cancel_delayed_ack(ss);
    refill(now);
    return make_packet(ss, std::move(done.pkt));
  }
  return std::nullopt;
}

} // namespace nafsim::nodes
