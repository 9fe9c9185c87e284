#include "nodes/rdma/RdmaPoe.hpp"

#include "nodes/transport/EngineCause.hpp"
#include "protocols/roce/Train.hpp"
#include "simcore/engine/Interned.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>
#include <utility>

namespace nafsim::nodes {

using namespace roce;

RdmaPoe::RdmaPoe(net::HostId host, const PoeConfig& poe, const RoceConfig& rc, Scheduler& sched, net::Fabric& fabric,
                 MemorySystem& memory, PoeListener& listener)
    : sched_(sched)
    , fabric_(fabric)
    , memory_(memory)
    , listener_(listener)
    , host_(host)
    , flow_(fabric.config().fidelity == net::Fidelity::Flow)
    , cfg_(intern(sched, poe))
    , roce_(intern(sched, engine_roce(rc, flow_)))
    , spare_actions_(sched.shared<SpareActions>())
{
  wire_mtu_ = rc.mtu.count;
  if (!flow_) {
    ff_train_  = fabric.config().fast_forward.train;
    ff_window_ = fabric.config().fast_forward.window;
  }
}

roce::RoceConfig RdmaPoe::engine_roce(roce::RoceConfig rc, bool flow)
{
  if (flow) {
    rc.mtu = Bytes{kFlowSegment};
    // Nothing is lost at flow fidelity, so a retransmission could only be spurious: a message is one
    // sequence number, acknowledged once it is all in, which under sharing may take longer than the
    // packet-level timeouts (set for a packet's round trip).
    rc.timeouts = {SimTime::from_seconds(1e5)};
    // Adaptive retransmission (the hosts' ConnectX) would start its own shorter timer (256 us first) under that
    // one: a READ response longer than it was re-requested, nothing having been lost.
    rc.adaptive_retransmission = false;
  }
  return rc;
}

QpId RdmaPoe::create_qp(net::HostId peer, QpId remote_qpn, Psn initial_psn)
{
  auto id = static_cast<QpId>(qps_.size());
  // Flow identity for ECMP hashing: distinct per (host, queue pair).
  std::uint64_t flow = (std::uint64_t{host_} << 32) | id;
  qps_.push_back(Qp{.peer       = peer,
                    .remote_qpn = remote_qpn,
                    .flow       = flow,
                    .req        = Requester(roce_, remote_qpn, initial_psn),
                    .rsp        = Responder(roce_, remote_qpn, initial_psn)});
  if (provider_)
    qps_.back().rsp.set_recv_provider(provider_);
  return id;
}

void RdmaPoe::set_trace(results::Trace* t, std::uint32_t pid)
{
  trace_     = t && t->messages() ? t : nullptr;
  trace_pid_ = pid;
  if (trace_) {
    trace_->name_thread(pid, 1, "work requests");
    trace_->name_thread(pid, 2, "inbound messages");
  }
}

void RdmaPoe::set_recv_provider(RecvProvider p)
{
  provider_ = std::move(p);
  for (auto& q : qps_)
    q.rsp.set_recv_provider(provider_);
}

void RdmaPoe::post_send(QpId qp, const WorkRequest& wr, PayloadSource source)
{
  post_send(qp, wr, std::move(source), {});
}

void RdmaPoe::post_send(QpId qp, const WorkRequest& wr, PayloadSource source, std::function<void()> accepted)
{
  if (wr.length > roce::kMaxMessage)
    throw SimulationError(fmt::format("host {}: a RoCE work request of {} is above RoCE's largest message, 2 GiB "
                                      "(InfiniBand's 2^31 B; its packets would outrun the 24-bit sequence numbers): "
                                      "send it as several messages of at most 2 GiB",
                                      host_, format_bytes(Bytes{wr.length})));
  std::uint32_t slot = outgoing_.find(wr.msg);
  if (slot == FlatIndex::kNone) {
    slot = out_pool_.acquire();
    outgoing_.set(wr.msg, slot);
  }
  out_pool_[slot] = Outgoing{wr.local_addr,    std::move(source),     wr.length,        std::move(accepted),
                             wr.payload_cause, wr.payload_lead_cause, wr.payload_first, sched_.cause_mark()};
  if (trace_)
    posted_[wr.wr_id] = sched_.now();
  qps_.at(qp).req.post(wr, sched_.now(), scratch_);
  execute(qp, scratch_);
}

void RdmaPoe::post_recv(QpId qp, const RecvRequest& r)
{
  qps_.at(qp).rsp.post_recv(r, sched_.now(), scratch_);
  execute(qp, scratch_);
}

bool RdmaPoe::idle_until_told() const
{
  // A pull now would stage nothing and send nothing: no acknowledgement queued, nothing staged, and no queue pair of
  // the round robin with a READ response or a request packet (peek at any date: an RNR wait ends through a timer,
  // which says want_tx). Such a pull only takes those queue pairs out of the round robin (refill()), and anything
  // that gives them a packet comes through want_tx(), which calls tx_ready().
  if (!ctrl_.empty() || !staged_.empty() || flow_)
    return false;
  return std::none_of(data_rr_.begin(), data_rr_.end(), [&](QpId id) { return has_output(qps_[id]); });
}

void RdmaPoe::settle_skipped_pull()
{
  // Past its place the skipped pull has happened: it emptied the round robin (refill(), every queue pair with
  // nothing). Before it, the port asks in its place after all (Fabric::kick), and that pull is this engine's next.
  // (A queue pair of the round robin given a packet without a want_tx before that place, as an RNR NAK's rewind
  // does, has the port ask in its place too: execute(). Asking where the port always asked is exact in any case.)
  if (sched_.passed(skipped_at_, skipped_place_)) {
    for (QpId id : data_rr_)
      qps_[id].in_data = false;
    data_rr_.clear();
  }
  skipped_place_ = 0;
}

void RdmaPoe::want_tx(QpId qp)
{
  if (skipped_place_ != 0)
    settle_skipped_pull();
  Qp& q = qps_[qp];
  if (!q.in_ctrl && q.rsp.has_output()) {
    q.in_ctrl = true;
    ctrl_.push_back(qp);
  }
  if (!q.in_data) {
    q.in_data = true;
    data_rr_.push_back(qp);
  }
  fabric_.tx_ready(host_);
}

void RdmaPoe::execute(QpId qp, Actions& acts)
{
  // Actions may append to a fresh vector while we iterate: take ownership first, leaving `acts` an emptied list
  // that keeps its storage (not a list allocated per packet).
  Actions todo;
  if (!spare_actions_.empty()) {
    todo = std::move(spare_actions_.back());
    spare_actions_.pop_back();
  }
  todo.swap(acts);
  bool tx = false;
  for (auto& a : todo) {
    if (auto* t = std::get_if<ArmTimer>(&a)) {
      arm_timer(qp, *t);
    } else if (auto* c = std::get_if<Completion>(&a)) {
      notify_after_writes(Notice{qp, false, *c, {}});
    } else if (auto* p = std::get_if<PlaceData>(&a)) {
      SimTime now = placing_.on ? placing_date(*p) : sched_.now(); // (a train's member: when it would have come)
      SimTime first, done;
      if (flow_ && p->seg.length > wire_mtu_ && rx_head_ < now) {
        // Flow fidelity: the data was written as it came in, from its first segment on.
        done = first = memory_.write_streamed(Engine::PoeWrite, rx_head_, now, p->addr, Bytes{p->seg.length},
                                              Bytes{wire_mtu_}, p->command);
      } else {
        const Stream w = memory_.write(Engine::PoeWrite, now, p->addr, Bytes{p->seg.length}, MemorySystem::kNoCap,
                                       p->command);
        first = w.first;
        done  = w.last;
      }
      writes_.wrote(first, done, [&] { return memory_.write_rate(Engine::PoeWrite, p->addr); });
    } else if (auto* m = std::get_if<InboundMessage>(&a)) {
      notify_after_writes(Notice{qp, true, {}, *m});
    } else if (std::holds_alternative<WantTx>(a)) {
      tx = true;
    }
  }
  todo.clear();
  spare_actions_.push_back(std::move(todo));
  // A stopped retransmission timer leaves no event behind (it would run the clock on for nothing).
  Qp& q = qps_[qp];
  if (q.timer_event_live && !q.req.timer_running()) {
    sched_.cancel(q.timer_event);
    q.timer_event_live = false;
    q.timer_armed      = false;
  }
  if (tx)
    want_tx(qp);
  else if (skipped_place_ != 0 && q.in_data && !sched_.passed(skipped_at_, skipped_place_) && has_output(q))
    fabric_.tx_ready(host_); // given something without a want_tx (an RNR NAK's rewind): asked in its place after all
}

void RdmaPoe::notify_after_writes(Notice n)
{
  // Notifications leave in order, each once every payload before it is in memory; (critical paths) a notice that
  // waits, waits for the payload's writes.
  // An inbound message its listener takes a fixed delay later (the CCLO's Rx parse) goes then, in one event (a
  // traced run keeps the two: its trace records each at its own moment, in the order they happen).
  if (n.inbound && !trace_)
    if (PoeListener::Late late = listener_.inbound_delay(n.qp, n.message); late.delay > SimTime{})
      if (notices_.push_late(n, writes_, late.delay, kLateNotice, late.label))
        return;
  notices_.push(std::move(n), writes_);
}

void RdmaPoe::arm_timer(QpId qp, const ArmTimer& t)
{
  Qp& q = qps_[qp];
  if (t.token & roce::Responder::kAckTimerToken) { // the responder's ACK coalescing: its own event, tokened
    q.ack_token = t.token;
    sched_.at(t.at, this, kAckTimer, qp);
    return;
  }
  if (t.token >> 63) { // receiver-not-ready wait: rare, schedule directly
    q.rnr_token = t.token;
    sched_.at(t.at, this, kRnrTimer, qp);
    return;
  }
  q.timer_token    = t.token;
  q.timer_deadline = t.at;
  q.timer_armed    = true;
  if (!q.timer_event_live || q.timer_event_at > t.at) {
    if (q.timer_event_live)
      sched_.cancel(q.timer_event);
    q.timer_event_live = true;
    q.timer_event_at   = t.at;
    q.timer_event      = sched_.at(t.at, this, kTimer, qp);
  }
}

net::Packet RdmaPoe::make_packet(const Qp& q, Wire w, SimTime tail_ready) const
{
  net::Packet p;
  p.src        = host_;
  p.dst        = q.peer;
  auto const& eth = fabric_.config().ethernet;
  p.wire_bytes = eth.wire_bytes(l3_bytes(w, roce_));
  p.flow       = q.flow;
  p.seq        = packet_psn(w);
  if (flow_) {
    // The responder's packets (ACKs, READ responses) are a stream of their own: they do not wait
    // behind the requester's messages of the same queue pair.
    if (!std::holds_alternative<RequestPacket>(w))
      p.flow |= 1ULL << 63;
    std::uint64_t len = std::visit(
        [](auto const& x) -> std::uint64_t {
          if constexpr (std::is_same_v<std::decay_t<decltype(x)>, AckPacket>)
            return 0;
          else
            return x.data.length;
        },
        w);
    if (len > wire_mtu_) { // the packets it stands for: the first with this one's headers, the rest plain
      std::uint64_t first = l3_bytes(w, roce_) - len + wire_mtu_;
      std::uint64_t n     = (len + wire_mtu_ - 1) / wire_mtu_;
      std::uint64_t last  = len - (n - 1) * wire_mtu_;
      std::uint64_t wire  = eth.wire_bytes(first) + (n - 2) * eth.wire_bytes(roce_.base_header.count + wire_mtu_) +
                           eth.wire_bytes(roce_.base_header.count + last);
      p.wire_bytes         = static_cast<std::uint32_t>(wire);
      p.segment_wire_bytes = eth.wire_bytes(roce_.base_header.count + wire_mtu_);
    }
    p.tail_ready = tail_ready;
  }
  p.body = std::move(w);
  return p;
}

void RdmaPoe::refill(SimTime now)
{
  // When the next packet's data can be ready: payloads streamed in by another block (the CCLO's
  // data mover) arrive one message after the other, so a queue pair whose data has not been
  // produced yet must not hold up those whose data is there; memory reads are issued now.
  auto ready_estimate = [&](QpId id) {
    const Qp& q = qps_[id];
    if (q.rsp.front_response())
      return now;
    auto p = q.req.peek(now);
    if (!p || p->data.length == 0)
      return now;
    const Outgoing* o = outgoing(p->data.msg);
    if (!o)
      throw std::logic_error(fmt::format("RdmaPoe: a packet of message {} that was never posted", p->data.msg));
    return o->source ? std::max(now, o->source(p->data.offset, p->data.length)) : now;
  };
  while ((staged_bytes_ < cfg_.tx_prefetch.count || staged_.empty()) && !data_rr_.empty()) {
    // Round robin over the queue pairs with data, skipping ahead only past ones still waiting for it.
    std::size_t pick = 0;
    if (data_rr_.size() > 1) { // a choice to make
      SimTime best = ready_estimate(data_rr_.front());
      for (std::size_t i = 1; i < data_rr_.size() && best > now; ++i)
        if (SimTime t = ready_estimate(data_rr_[i]); t < best) {
          best = t;
          pick = i;
        }
    }
    QpId id = data_rr_[pick];
    if (pick == 0) // (the usual choice)
      data_rr_.pop_front();
    else
      data_rr_.erase(pick);
    Qp& q = qps_[id];
    q.in_data = false;
    std::uint32_t len = 0;
    auto r = q.rsp.front_response();
    auto p = r && !q.requester_next ? std::nullopt : q.req.peek(now);
    if (r && p) // both engines have a packet: the requester's turn now, the responder's next
      r.reset();
    if (r) {
      len              = stage_response(id, *r, now);
      q.requester_next = true;
    } else if (p) {
      len              = stage_request(id, *p, now);
      q.requester_next = false;
    } else {
      continue; // nothing from this queue pair now; it re-enters on its next WantTx
    }
    staged_bytes_ += len;
    if (!q.in_data) {
      q.in_data = true;
      data_rr_.push_back(id);
    }
  }
}

CauseLabel RdmaPoe::staging_cause(bool payload_later, const Outgoing* o) const
{
  if (!sched_.causes())
    return {};
  static const std::uint32_t pipeline = cause_what("RoCE POE", "transmit pipeline (tx latency)");
  static const std::uint32_t own_read = cause_what("RoCE POE", "payload read from memory");
  if (!payload_later)
    return CauseLabel::at_host(pipeline, host_);
  if (!o || o->payload_cause == 0)
    return CauseLabel::at_host(own_read, host_);
  return CausalGraph::with_lead(CauseLabel::at_host(o->payload_cause, host_), o->payload_lead_cause,
                                SimTime::ps(o->payload_first));
}

SimTime RdmaPoe::first_segment_read(const Stream& rd, std::uint64_t len) const
{
  // A packet is staged once its whole payload is read (packet fidelity: rd.last of its own read); a flow's first
  // segment is read a segment's time at the stream's rate after its first byte (rd.first alone had it go a segment
  // early: 0.29 us at 115 Gb/s for 4 KiB).
  if (len <= wire_mtu_ || rd.rate.bps <= 0)
    return rd.last;
  return std::min(rd.last, rd.first + transmit_time(Bytes{wire_mtu_}, rd.rate));
}

std::uint32_t RdmaPoe::stage_response(QpId id, const roce::PendingResponse& r, SimTime now)
{
  Qp& q = qps_[id];
  q.rsp.pop_front();
  if (!q.in_ctrl && q.rsp.front_ack()) { // an ACK queued behind the READ response is next: control path
    q.in_ctrl = true;
    ctrl_.push_back(id);
  }
  const std::uint32_t len = r.packet.data.length;
  ++q.staged_responses;
  Stream rd     = memory_.read(Engine::PoeRead, now, r.addr, Bytes{len}, MemorySystem::kNoCap);
  payload_reads_.issued(rd.first, rd.last);
  // Flow fidelity: the message goes once its first segment is read; the rest streams behind it.
  SimTime ready = std::max(flow_ ? first_segment_read(rd, len) : rd.last, now + cfg_.tx_latency);
  const bool read_later = ready > now + cfg_.tx_latency;
  staged_.push_back(Staged{Wire{r.packet}, ready, std::max(rd.last, now + cfg_.tx_latency), id, q.rsp.epoch(), false,
                           {}, sched_.causes() ? staging_cause(read_later, nullptr) : CauseLabel{},
                           read_later ? payload_reads_.began() : staging_step(sched_)});
  return len;
}

std::uint32_t RdmaPoe::stage_request(QpId id, const roce::RequestPacket& p, SimTime now)
{
  Qp& q = qps_[id];
  q.req.commit(now, scratch_);
  const std::uint32_t len = p.data.length;
  SimTime ready = now + cfg_.tx_latency;
  SimTime tail  = ready;
  std::function<void()> accepted;
  std::uint32_t began = Scheduler::kRunningStep; // (critical paths) the step that began what the payload waits for
  Outgoing* source    = outgoing(p.data.msg);
  if (source) {
    Outgoing& o     = *source;
    SimTime payload = now;
    if (len > 0) {
      SimTime head = now;
      if (o.source) {
        payload = o.source(p.data.offset, len);
        head    = flow_ ? o.source(p.data.offset, static_cast<std::uint32_t>(std::min<std::uint64_t>(len, wire_mtu_)))
                        : payload;
        began   = o.posted; // the stream that feeds it began with the work request's post
      } else {
        Stream rd = memory_.read(Engine::PoeRead, now, o.local_addr + p.data.offset, Bytes{len}, MemorySystem::kNoCap);
        payload_reads_.issued(rd.first, rd.last);
        payload   = rd.last;
        head      = flow_ ? first_segment_read(rd, len) : rd.last;
        began     = payload_reads_.began();
      }
      // Flow fidelity: the message goes once its first segment is ready; the rest streams behind it.
      ready = std::max(ready, head);
      tail  = std::max(tail, payload);
    }
    if (o.accepted && p.data.offset + len >= o.length) { // the last byte enters the transmit path
      if (flow_) // ... once the wire has drained to within tx_prefetch of it (see pull())
        accepted = std::exchange(o.accepted, nullptr);
      else if (trace_ || sched_.causes()) // (its wait: the payload read into the transmit path)
        sched_.call_at_caused_by(payload > now ? began : Scheduler::kRunningStep, std::max(now, payload),
                                 std::exchange(o.accepted, nullptr), staging_cause(true, source));
      else // (told at the end of the pull)
        accepted_.emplace_back(std::max(now, payload), std::exchange(o.accepted, nullptr));
    }
  }
  const bool payload_later = ready > now + cfg_.tx_latency;
  staged_.push_back(Staged{Wire{p}, ready, tail, id, q.req.epoch(), true, std::move(accepted),
                           sched_.causes() ? staging_cause(payload_later, source) : CauseLabel{},
                           payload_later ? began : staging_step(sched_)});
  execute(id, scratch_);
  return len;
}

std::optional<net::Packet> RdmaPoe::pull_control()
{
  for (std::size_t n = ctrl_.size(); n > 0; --n) {
    QpId id = ctrl_.front();
    ctrl_.pop_front();
    Qp& q     = qps_[id];
    q.in_ctrl = false;
    auto ack  = q.rsp.front_ack();
    if (!ack) {
      if (q.rsp.has_output() && !q.in_data) { // READ responses: data path
        q.in_data = true;
        data_rr_.push_back(id);
      }
      continue;
    }
    if (q.staged_responses > 0) {
      q.in_ctrl = true;
      ctrl_.push_back(id);
      continue;
    }
    q.rsp.pop_front();
    ++(ack->syndrome == Syndrome::Ack ? c_.acks_sent : c_.naks_sent);
    // (fast-forward: it may stand for the ACKs of a train's members, folded into it)
    const auto count = static_cast<std::uint16_t>(1 + q.ack_weight); // (at most fast_forward.train)
    q.ack_weight     = 0;
    if (q.rsp.has_output()) {
      q.in_ctrl = true;
      ctrl_.push_back(id);
    }
    net::Packet pkt = make_packet(q, Wire{*ack});
    if (count > 1) {
      pkt.wire_bytes *= count;
      pkt.train = count;
    }
    if (ff_train_ > 1) { // an ACK right behind a data packet keeps the port busy: the run of data goes on after it
      const SimTime now = sched_.now();
      if (now == run_end_)
        run_end_ = now + transmit_time(Bytes{pkt.wire_bytes}, fabric_.config().link.rate);
      else
        run_qp_ = kNoRun;
    }
    return pkt;
  }
  return std::nullopt;
}

void RdmaPoe::sent(Staged& done, std::uint64_t payload, const net::Packet& pkt, SimTime now)
{
  if (flow_)
    nic_free_ = std::max(nic_free_, now) + transmit_time(Bytes{pkt.wire_bytes}, fabric_.config().link.rate);
  if (done.accepted) {
    // Flow fidelity: the message leaves as one flow; its last byte is taken into the transmit path once no
    // more than tx_prefetch of its payload is left for the wire (at the line rate: exact on an idle link).
    std::uint64_t ahead = std::min<std::uint64_t>(payload, cfg_.tx_prefetch.count);
    double left_wire    = static_cast<double>(pkt.wire_bytes) * static_cast<double>(payload - ahead) /
                       static_cast<double>(std::max<std::uint64_t>(payload, 1));
    const SimTime line = now + transmit_time(Bytes{static_cast<std::uint64_t>(left_wire)}, fabric_.config().link.rate);
    // (Critical paths) its wait: the line's drain (the wire's), or else its payload's last byte (what paced it).
    sched_.call_at(std::max(done.tail, line), std::move(done.accepted),
                   line >= done.tail ? line_cause() : done.why.what != 0 ? done.why : accept_cause());
  }
}

CauseLabel RdmaPoe::line_cause() const
{
  return sched_.causes() ? fabric_.host_port_busy(host_) : CauseLabel{}; // the fabric's own words for it
}

CauseLabel RdmaPoe::accept_cause() const
{
  // The payload-stream wake-up's own words: the message's last byte waited for its read from memory.
  return CauseLabel::at_host(payload_stream_what(), host_);
}

std::optional<net::Packet> RdmaPoe::pull()
{
  if (skipped_place_ != 0)
    settle_skipped_pull();
  const std::uint64_t wakes = tx_wake_.scheduled();
  auto packet               = pull_staged();
  for (auto& [date, fn] : accepted_)
    if (tx_wake_.scheduled() == wakes || !tx_wake_.ride(date, fn))
      sched_.call_at(date, std::move(fn));
  accepted_.clear();
  return packet;
}

std::optional<net::Packet> RdmaPoe::pull_staged()
{
  SimTime now = sched_.now();
  // 1. Acknowledgements first, unless a READ response of the same queue pair is still staged.
  if (auto ack = pull_control())
    return ack;
  // 2. Data.
  refill(now);
  while (!staged_.empty()) {
    Staged& s = staged_.front();
    Qp& q     = qps_[s.qp];
    if (s.request && s.epoch != q.req.epoch()) { // made stale by a rewind
      staged_bytes_ -= std::get<RequestPacket>(s.pkt).data.length;
      ++c_.stale_discarded;
      staged_.pop_front();
      refill(now);
      continue;
    }
    if (!s.request && s.epoch != q.rsp.epoch() && q.rsp.stale(std::get<ReadResponsePacket>(s.pkt).psn, s.epoch)) {
      // a repeated READ request restarted the responses at or before this one
      staged_bytes_ -= std::get<ReadResponsePacket>(s.pkt).data.length;
      --q.staged_responses;
      ++c_.stale_discarded;
      staged_.pop_front();
      refill(now);
      continue;
    }
    SimTime ready = s.ready;
    if (flow_) // behind what the transmit path holds of the messages already on their way (see nic_free_)
      ready = std::max(ready, std::min(nic_free_, s.ready + transmit_time(cfg_.tx_prefetch, fabric_.config().link.rate)));
    if (ready > now) {
      if (ready == s.ready)
        tx_wake_.at(ready, s.why, s.parent);
      else // (critical paths) flow fidelity: a wait for the line, busy with the messages ahead (was: s.why, which
        tx_wake_.at(ready, line_cause()); // named a 64-rank all-to-all 56 % payload reads; lifting them gained 1.6 %)
      return pull_control(); // an ACK the discards above unblocked goes now, not at the wake
    }
    Staged done = std::move(staged_.front());
    staged_.pop_front();
    std::uint16_t members = 1;
    std::uint32_t wire    = 0;
    if (done.request) {
      auto const& r = std::get<RequestPacket>(done.pkt);
      staged_bytes_ -= r.data.length;
      ++c_.requests_sent;
      if (q.sent_any && psn_le(r.psn, q.max_tx_psn))
        ++c_.retransmitted;
      else
        q.max_tx_psn = r.psn;
      q.sent_any = true;
      if (ff_train_ > 1)
        members = gather_train(done, now, wire);
    } else {
      staged_bytes_ -= std::get<ReadResponsePacket>(done.pkt).data.length;
      --q.staged_responses;
      ++c_.responses_sent;
      run_qp_ = kNoRun;
    }
    refill(now);
    std::uint64_t payload = done.request ? std::get<RequestPacket>(done.pkt).data.length : 0;
    net::Packet pkt       = make_packet(q, std::move(done.pkt), done.tail);
    if (members > 1) { // a train, carried by its last member
      pkt.wire_bytes = wire;
      pkt.train      = members;
    }
    sent(done, payload, pkt, now);
    return pkt;
  }
  // Nothing staged: an ACK held back while this queue pair's READ responses were staged (now discarded as stale)
  // goes now. Returning nothing here left the port idle with the ACK (and the restarted READ behind it) queued until
  // the peer's retransmission timeout.
  return pull_control();
}

void RdmaPoe::deliver(net::Packet&& p)
{
  c_.packets_received += std::max<std::uint16_t>(1, p.train);
  if (p.corrupted) { // ICRC mismatch: silently discarded (IBA 9.7.5.1.1)
    ++c_.corrupted_dropped;
    return;
  }
  rx_pipe_.push(std::move(p), cfg_.rx_latency);
}

void RdmaPoe::deliver_ahead(net::Packet&& p, SimTime arrival, const net::WireCause& wire)
{
  c_.packets_received += std::max<std::uint16_t>(1, p.train); // (ahead only without faults: never corrupted)
  if (p.train > 1)
    arrival = train_arrival(p, arrival);
  rx_pipe_.push_ahead(std::move(p), arrival, cfg_.rx_latency, wire);
}

void RdmaPoe::receive(SimTime now, std::uint64_t place)
{
  // Read in place, and released after the last read: the run's pipes share one store whose place freed last is the
  // next any NIC fills (RxPipe::Store), so nothing may read the packet once it is released; execute() below, which
  // may send packets, reads only the actions, which hold copies.
  const net::Packet& p = rx_pipe_.at(place);
  auto* w              = p.body.get<Wire>();
  if (!w)
    throw SimulationError(fmt::format("host {} received a non-RoCE packet from host {}", host_, p.src));
  rx_head_ = p.head_arrival + cfg_.rx_latency;
  QpId id = packet_qp(*w);
  if (id >= qps_.size())
    throw SimulationError(fmt::format("host {} received a packet for unknown queue pair {}", host_, id));
  if (p.train > 1 && std::holds_alternative<RequestPacket>(*w))
    return receive_train(id, place, now);
  Qp& q = qps_[id];
  std::visit(
      [&](auto const& pkt) {
        using T = std::decay_t<decltype(pkt)>;
        if constexpr (std::is_same_v<T, RequestPacket>)
          q.rsp.on_request(pkt, now, scratch_);
        else if constexpr (std::is_same_v<T, AckPacket>) {
          // A receiver refusing while an actor sleeps may take the packet once it wakes: slow, not stuck.
          if (pkt.syndrome == roce::Syndrome::NakRnr && sched_.actors_sleeping())
            q.req.still_live(now);
          q.req.on_ack(pkt, now, scratch_);
        }
        else
          q.req.on_read_response(pkt, now, scratch_);
      },
      *w);
  rx_pipe_.release(place);
  execute(id, scratch_);
}

void RdmaPoe::on_retransmit_timer(QpId id, SimTime now)
{
  Qp& q = qps_[id];
  if (!q.timer_event_live || q.timer_event_at != now)
    return; // superseded by an earlier event
  q.timer_event_live = false;
  if (!q.timer_armed)
    return;
  if (q.timer_deadline > now) { // restarted since: follow the deadline
    q.timer_event_live = true;
    q.timer_event_at   = q.timer_deadline;
    q.timer_event      = sched_.at(q.timer_deadline, this, kTimer, id);
    return;
  }
  q.timer_armed = false;
  q.req.on_timer(q.timer_token, now, scratch_);
  execute(id, scratch_);
}

void RdmaPoe::notify(SimTime now)
{
  Notice n = notices_.pop();
  hand_over(n, now);
}

void RdmaPoe::hand_over(Notice& n, SimTime now)
{
  if (trace_) {
    static constexpr const char* verbs[] = {"SEND", "WRITE", "READ"};
    if (n.inbound) {
      trace_->instant(trace_pid_, 2, fmt::format("{} {} from host {}", verbs[static_cast<int>(n.message.verb)],
                                                 format_bytes(Bytes{n.message.bytes}), qps_[n.qp].peer),
                      now);
    } else if (auto it = posted_.find(n.completion.wr_id); it != posted_.end()) {
      trace_->span(trace_pid_, 1,
                   fmt::format("{} {} to host {}", verbs[static_cast<int>(n.completion.verb)],
                               format_bytes(Bytes{n.completion.bytes}), qps_[n.qp].peer),
                   it->second, now, fmt::format(R"({{"wr_id":{},"status":"{}"}})", n.completion.wr_id,
                                                status_name(n.completion.status)));
      posted_.erase(it);
    }
  }
  if (n.inbound)
    listener_.on_inbound(n.qp, n.message);
  else {
    // (the completion names its message: no look-up by work request)
    if (const std::uint32_t slot = outgoing_.erase(n.completion.msg); slot != FlatIndex::kNone)
      out_pool_.release(slot); // its callbacks' captures freed now
    listener_.on_completion(n.qp, n.completion);
  }
}

CauseLabel RdmaPoe::cause(std::uint32_t kind, std::uint64_t) const
{
  static const char* const details[] = {"receive pipeline", "payload", "retransmission timeout", "RNR timer", "completion notice", "ACK coalescing timer"};
  static const auto what = engine_causes("RoCE POE", details, kTxWake);
  return kind < what.size() ? CauseLabel::at_host(what[kind], host_) : CauseLabel{};
}

void RdmaPoe::on_event(std::uint32_t kind, std::uint64_t arg)
{
  SimTime now = sched_.now();
  notices_.begin_event();
  switch (kind) {
    case kRx: receive(now, arg); break;
    case kTxWake: tx_wake_.fire(arg); break;
    case kTimer: on_retransmit_timer(static_cast<QpId>(arg), now); break;
    case kRnrTimer:
      qps_[arg].req.on_timer(qps_[arg].rnr_token, now, scratch_);
      execute(static_cast<QpId>(arg), scratch_);
      break;
    case kAckTimer:
      qps_[arg].rsp.on_ack_timer(qps_[arg].ack_token, now, scratch_);
      execute(static_cast<QpId>(arg), scratch_);
      break;
    case kNotify: notify(now); break;
    case kLateNotice: {
      auto [n, due] = notices_.take_late(arg);
      listener_.on_inbound_late(n.qp, n.message, due);
      break;
    }
    default:
      break;
  }
  notices_.end_event([&](Notice& n) { hand_over(n, now); });
}

PoeCounters RdmaPoe::counters() const
{
  PoeCounters c = c_;
  for (auto const& q : qps_) {
    c.timeouts += q.req.counters().timeouts;
    c.send_timeouts += q.req.counters().send_timeouts;
    c.naks_received += q.req.counters().naks_received;
    c.duplicates_received += q.rsp.counters().duplicates;
    c.out_of_sequence += q.rsp.counters().out_of_sequence;
  }
  return c;
}

} // namespace nafsim::nodes
