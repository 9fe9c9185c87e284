// The flow fidelity of the fabric (DESIGN.md section 3): see Fabric.hpp and
// simcore/net/README.md.
//
// Timing of a flow of W wire bytes cut into segments of S wire bytes (the last
// one may be shorter), started at t0 on a path of ports p0 (the sender's NIC)
// .. pk:
//   its bytes leave the sender at its max-min share of every port on the path,
//   re-solved whenever a flow starts or ends; the last byte leaves at tf (no
//   earlier than tail_ready + S / R0); delivery = tf + the last segment's
//   pipeline to the receiver (computed exactly as the packet fabric times one
//   packet on an idle path: per cable, propagation; per switch, cut-through or
//   store-and-forward decision plus latency, the output's serialization) less
//   its serialization at the port that binds the flow's rate, which tf already
//   holds (flow_done);
//   head_arrival = t0 + the first segment's pipeline.
// On an idle path this is the packet fabric's timing of a back-to-back segment
// train; under contention the fluid shares replace queues (no queueing delay
// beyond the sharing, no drops).
//
// When the shares are solved (platform.network.flow_resolve_fraction f): at
// every start and end (f = 0, exact), or once the starts and ends since the
// last solve reach f x the flows in progress (at least one). In between, a
// new flow leaves at its equal share of its busiest link (capacity / flows
// on it) and the others keep their rates: a link may be over-subscribed, or
// under-used after an end, until the next solve, which sets every rate that
// changed exactly. An all-to-all puts every flow in one connected component,
// which each exact solve takes whole (re-filling the flows at or above the
// level of the change, MaxMin.hpp); with f the solves cost about
// (starts + ends) / f flow rates in all, whatever the component's size.

#include "simcore/net/Fabric.hpp"

#include "simcore/config/ConfigError.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <fmt/format.h>

namespace nafsim::net {

namespace {
/// When `remaining` wire bytes have left at `rate` bytes per picosecond from `now` (at the far end of time if the
/// rate is 0 or so low that the date would not fit).
SimTime done_at(SimTime now, double remaining, double rate)
{
  const double ps = rate > 0 ? std::ceil(remaining / rate - 1e-6) : 9e18;
  return now + SimTime::ps(static_cast<std::int64_t>(std::min(ps, 9e18 - static_cast<double>(now.ps()))));
}
/// The wire bytes of one of the segments a flow stands for (the whole flow when it is one packet).
std::uint32_t segment_of(const Packet& p)
{
  return p.segment_wire_bytes > 0 ? std::min(p.segment_wire_bytes, p.wire_bytes) : p.wire_bytes;
}
} // namespace

void Fabric::flow_setup()
{
  // The scenario's schema makes this check already; a fabric built otherwise (tests, tools) makes it here.
  if (auto pr = cfg_.check(); !pr.message.empty())
    throw config::ConfigError("", "/platform/network/" + pr.field, pr.message);
  flow_mode_ = true;
  std::vector<double> cap(ports_.size());
  for (std::size_t i = 0; i < ports_.size(); ++i)
    cap[i] = ports_[i].rate.bps / 8.0 / 1e12; // bytes per picosecond
  sharing_ = std::make_unique<MaxMinSharing>(std::move(cap), cfg_.flow_sharing == FlowSharing::InputPorts
                                                                   ? MaxMinSharing::Weights::InputPorts
                                                                   : MaxMinSharing::Weights::Equal);
  if (!lossless_) { // drop-tail switches: watch their output ports' buffers (a host's NIC port has none)
    std::vector<std::uint64_t> rate(ports_.size()), buffer(ports_.size());
    for (std::size_t i = 0; i < ports_.size(); ++i) {
      rate[i]   = static_cast<std::uint64_t>(ports_[i].rate.bps);
      buffer[i] = ports_[i].capacity;
    }
    watch_ = std::make_unique<DropTailWatch>(std::move(rate), std::move(buffer));
  }
}

Fabric::FlowWork Fabric::flow_work() const
{
  if (!flow_mode_)
    return FlowWork{};
  FlowWork w;
  w.flows               = flows_started_;
  w.flows_solved        = sharing_->flows_solved();
  w.flows_in_components = sharing_->flows_in_components();
  if (watch_) {
    w.drop_tail   = true;
    w.over_buffer = watch_->summary();
  }
  return w;
}

void Fabric::flow_pull(HostId h)
{
  Port& port        = ports_[host_port_.at(h)];
  port.source_ready = true;
  if (port.pulling) // already pulling: the loop below sees the flag
    return;
  port.pulling = true;
  while (port.source_ready) {
    port.source_ready = false;
    while (auto next = endpoints_[h] ? endpoints_[h]->pull() : std::nullopt) {
      ++totals_.injected;
      std::uint32_t slot = store(std::move(*next));
      if (!forget_.empty())
        forget_idle_lanes();
      const std::uint32_t lane = lanes_.get(pool_[slot].src, pool_[slot].flow);
      if (watch_)
        lanes_[lane].bytes += pool_[slot].wire_bytes;
      if (lanes_[lane].active) {
        lanes_[lane].waiting.push_back(slot);
        if (watch_)
          watch_->grow(sharing_->links(lanes_[lane].shared), pool_[slot].wire_bytes, sched_.now());
      } else {
        flow_begin(slot, lane);
      }
    }
  }
  port.pulling = false;
}

std::uint32_t Fabric::flow_port(std::uint32_t vertex, const Packet& p)
{
  // Per-packet choices become per-flow ones: spray picks a random port per
  // flow, adaptive the equal-cost port carrying the fewest flows.
  if (cfg_.routing == RoutingMode::Adaptive) {
    auto hops = routes_.next_hops(vertex, p.dst);
    if (hops.size() > 1) {
      std::uint32_t pick = hops[0];
      std::size_t best   = SIZE_MAX;
      for (auto h : hops)
        if (std::size_t n = sharing_->flows_on(port_id(vertex, h)); n < best) {
          best = n;
          pick = h;
        }
      return port_id(vertex, pick);
    }
  }
  return port_id(vertex, choose_port(vertex, p));
}

SimTime Fabric::segment_pipeline(std::uint32_t bytes) const
{
  // Port by port of path_scratch_: when the segment's last bit reaches its far end, relative to its start at the
  // sender.
  SimTime start;
  for (std::size_t i = 0;; ++i) {
    const Port& port   = ports_[path_scratch_[i]];
    const SimTime ser  = port.line.time_for(Bytes{bytes});
    const SimTime head = start + port.propagation;
    const SimTime tail = start + ser + port.propagation;
    if (i + 1 == path_scratch_.size())
      return tail;
    const SimTime ser_out = ports_[path_scratch_[i + 1]].line.time_for(Bytes{bytes});
    if (cfg_.switch_.forwarding == Forwarding::CutThrough) {
      SimTime decide =
          std::min(head + port.line.time_for(cfg_.switch_.cut_through_header), tail) + cfg_.switch_.latency;
      // (onto a faster port the segment is stored whole first, as Fabric::leave_after times a packet)
      start = std::max(decide, tail + cfg_.switch_.latency - (ser_out < ser ? SimTime::zero() : ser_out));
    } else {
      start = tail + cfg_.switch_.latency;
    }
  }
}

void Fabric::flow_begin(std::uint32_t slot, std::uint32_t lane, std::uint32_t cause)
{
  Packet& p           = pool_[slot];
  lanes_[lane].active = true;
  SimTime now         = sched_.now();
  // The path, then the pipeline of a segment along it (as Fabric::start_tx and forward time a packet).
  path_scratch_.clear();
  std::uint32_t pid       = host_port_[p.src];
  const std::uint32_t seg = segment_of(p);
  for (;;) {
    path_scratch_.push_back(pid);
    Port& port = ports_[pid];
    ++port.tx_packets;
    port.tx_bytes += p.wire_bytes;
    ++totals_.packet_hops;
    ++p.hops;
    if (port.peer_is_host)
      break;
    pid = flow_port(port.peer, p);
    if (path_scratch_.size() > topo_.vertex_count())
      throw SimulationError(fmt::format("routing loop from host {} to host {}", p.src, p.dst));
  }
  const SimTime first_ser = ports_[path_scratch_[0]].line.time_for(Bytes{seg});
  const SimTime pipe      = segment_pipeline(seg);
  std::uint32_t id    = sharing_->add(path_scratch_);
  const bool solving  = flow_change();
  if (watch_) {
    LaneTable::Lane& l = lanes_[lane];
    l.shared           = id;
    // Its sender's engine takes its flows in progress in turn (as the input-port sharing assumes): its part of them.
    const auto turns = static_cast<double>(sharing_->flows_on(path_scratch_[0]));
    l.pace           = watch_->pace(path_scratch_, p.wire_bytes, now, p.tail_ready) / turns;
    watch_->enter(path_scratch_, l.bytes, l.pace, now);
    watch_->segments(path_scratch_, seg);
  }
  ++flows_started_;
  if (id >= flows_.size()) {
    flows_.resize(id + 1);
    done_key_.resize(id + 1);
  }
  FlowRec& f      = flows_[id];
  f.slot          = slot;
  f.started       = now;
  f.last          = now;
  f.remaining     = p.wire_bytes;
  f.rate_before   = 0;
  f.hold          = std::max(now, p.tail_ready) + first_ser;
  f.latency       = pipe; // less the serialization at the port that sets its pace, at its end (flow_done)
  f.first_latency = pipe;
  f.cause         = cause == kNoCause ? sched_.cause_mark() : cause;
  f.lane          = lane;
  if (!solving) { // no solve due: it leaves at its equal share until the next one
    const double rate = sharing_->equal_share(id);
    sharing_->set_rate(id, rate);
    flow_rate(id, rate);
    flow_arm();
  }
  if (trace_)
    trace_->instant(ports_[path_scratch_[0]].vertex, 100,
                    fmt::format("flow {}->{} #{} ({} B)", p.src, p.dst, p.seq, p.wire_bytes), now);
}

bool Fabric::flow_change()
{
  ++flow_pending_;
  if (flow_solve_scheduled_)
    return true;
  if (static_cast<double>(flow_pending_) <
      std::max(1.0, cfg_.flow_resolve_fraction * static_cast<double>(sharing_->active())))
    return false;
  sched_.at(sched_.now(), this, kFlowSolve);
  flow_solve_scheduled_ = true;
  return true;
}

void Fabric::flow_solve()
{
  flow_solve_scheduled_ = false;
  flow_pending_         = 0;
  const std::vector<std::uint32_t>& changed = sharing_->solve();
  if (changed.size() * 4 < done_heap_.size()) {
    for (auto id : changed)
      flow_rate(id, sharing_->rate(id));
  } else { // a quarter of the completion dates or more moved (an all-to-all's solve): re-order the heap once
    // The records in id order, one after the other (in the solve's order each was a cache miss), each with the
    // sequence number of its place in the solve's list, so ties at one date break as before.
    if (redate_pos_.size() < flows_.size())
      redate_pos_.resize(flows_.size(), kUnchanged);
    for (std::uint32_t i = 0; i < changed.size(); ++i)
      redate_pos_[changed[i]] = i;
    const std::uint64_t seq = done_seq_;
    for (std::uint32_t id = 0; id < redate_pos_.size(); ++id) {
      if (redate_pos_[id] == kUnchanged)
        continue;
      flow_redate(id, sharing_->rate(id), seq + redate_pos_[id]);
      redate_pos_[id] = kUnchanged;
      if (!done_heap_.contains(id))
        done_heap_.append(id);
    }
    done_seq_ = seq + changed.size();
    done_heap_.heapify();
  }
  flow_arm();
}

void Fabric::flow_redate(std::uint32_t id, double rate, std::uint64_t seq)
{
  FlowRec& f  = flows_[id];
  SimTime now = sched_.now();
  // Bring the bytes left up to date at the old rate, then date the last byte at the new one.
  f.remaining   = std::max(0.0, f.remaining - f.rate_before * static_cast<double>((now - f.last).ps()));
  f.last        = now;
  f.rate_before = rate;
  done_key_[id] = DoneKey{done_at(now, f.remaining, rate), seq};
}

void Fabric::flow_rate(std::uint32_t id, double rate)
{
  flow_redate(id, rate, done_seq_++);
  if (done_heap_.contains(id))
    done_heap_.update(id);
  else
    done_heap_.push(id);
}

void Fabric::flow_arm()
{
  if (done_heap_.empty()) {
    if (done_event_live_)
      sched_.cancel(done_event_);
    done_event_live_ = false;
    return;
  }
  SimTime next = done_key_[done_heap_.top()].done;
  if (done_event_live_ && done_event_at_ == next)
    return;
  if (done_event_live_)
    sched_.cancel(done_event_);
  done_event_      = sched_.at(next, this, kFlowDone);
  done_event_at_   = next;
  done_event_live_ = true;
}

void Fabric::flows_done()
{
  done_event_live_ = false;
  SimTime now      = sched_.now();
  while (!done_heap_.empty() && done_key_[done_heap_.top()].done == now)
    flow_done(done_heap_.pop());
  flow_arm();
}

void Fabric::flow_done(std::uint32_t id)
{
  FlowRec& f            = flows_[id];
  SimTime now           = sched_.now();
  Packet& p             = pool_[f.slot];
  LaneTable::Lane& lane = lanes_[f.lane];
  if (watch_) {
    watch_->leave(sharing_->links(id), lane.bytes, lane.pace);
    lane.bytes -= p.wire_bytes;
  }
  // The last byte leaves the sender at tf at the flow's rate, which the port that binds it sets: segments leave that
  // port one behind the other, so the last one is out of it at tf + the segment's pipeline up to there less its
  // serialization there, and then takes the rest of the pipeline. The binding port: the one of least equal share
  // (capacity over its flows, this one included; of those the slowest), which on an idle path is the slowest port
  // and under sharing the shared one. (The sender's serialization, subtracted before 2026-12-07, counted the last
  // segment twice behind a slower link: a 4 KiB message over 10 Gb/s uplinks 7.77 us against the packets' 4.75 us.)
  const std::uint32_t seg = segment_of(p);
  std::uint32_t binding   = host_port_[p.src];
  double least            = -1;
  for (std::uint32_t l : sharing_->links(id)) {
    const double share = sharing_->capacity(l) / static_cast<double>(std::max<std::size_t>(1, sharing_->flows_on(l)));
    if (least < 0 || share < least || (share == least && sharing_->capacity(l) < sharing_->capacity(binding))) {
      least   = share;
      binding = l;
    }
  }
  const SimTime latency = f.latency - ports_[binding].line.time_for(Bytes{seg});
  sharing_->remove(id);
  flow_change();
  SimTime left          = std::max(now, f.hold); // the last segment leaves the sender
  SimTime at            = std::max(left + latency, lane.last_delivery);
  lane.last_delivery    = at;
  lane.active           = false;
  p.head_arrival        = std::min(at, f.started + f.first_latency);
  p.tail_arrival        = at;
  p.at_vertex           = static_cast<std::uint32_t>(topo_.host_vertex(p.dst));
  // Critical paths: the flows ending at this date share one event, scheduled by whichever step set the earliest
  // date last; each delivery walks back to the step its own transfer started from instead (the transfer, start
  // to delivery, is one wire segment), and the next message of its lane starts from there too.
  const std::uint32_t from = f.cause;
  if (ahead_[p.dst]) { // its endpoint's receive event is its delivery (Endpoint::deliver_ahead)
    if (!lane.forget_pending) {
      lane.forget_pending = true;
      forget_.emplace(at.ps(), f.lane);
    }
    hand_over_ahead(f.slot, at, sched_.causes() ? WireCause{cause(kFlowDeliver, f.slot), from} : WireCause{});
  } else {
    ++lane.deliveries;
    if (delivering_lane_.size() <= f.slot)
      delivering_lane_.resize(pool_.size());
    delivering_lane_[f.slot] = f.lane;
    sched_.at_caused_by(from, at, this, kFlowDeliver, f.slot);
  }
  if (!lane.waiting.empty()) {
    std::uint32_t next = lane.waiting.front();
    lane.waiting.pop_front();
    flow_begin(next, f.lane, from);
  }
}

void Fabric::forget_idle_lanes()
{
  const std::int64_t now = sched_.now().ps();
  while (!forget_.empty() && forget_.top().first <= now) {
    const std::uint32_t id = forget_.top().second;
    forget_.pop();
    LaneTable::Lane& lane = lanes_[id];
    lane.forget_pending   = false;
    if (lane.last_delivery.ps() > now) { // a later delivery since: forget it after that one
      lane.forget_pending = true;
      forget_.emplace(lane.last_delivery.ps(), id);
    } else if (!lane.active && lane.waiting.empty() && lane.deliveries == 0) {
      lanes_.erase(id);
    }
  }
}

void Fabric::flow_deliver(std::uint32_t slot)
{
  ++totals_.delivered;
  const std::uint32_t id = delivering_lane_[slot];
  LaneTable::Lane& lane  = lanes_[id];
  if (--lane.deliveries == 0 && !lane.active && lane.waiting.empty() && !lane.forget_pending)
    lanes_.erase(id); // idle: nothing to keep in order behind it (a flow starting later is delivered later anyway)
  hand_over(slot);
}

} // namespace nafsim::net
