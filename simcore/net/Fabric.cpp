#include "simcore/net/Fabric.hpp"

#include "simcore/config/ConfigError.hpp"

#include <algorithm>
#include <cassert>
#include <fmt/format.h>
#include <limits>
#include <stdexcept>

namespace nafsim::net {

namespace {
constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
}

Fabric::Fabric(const topo::Topology& topo, const NetworkConfig& cfg, Scheduler& sched, std::uint64_t seed)
    : topo_(topo), routes_(topo), cfg_(cfg), sched_(sched), faults_(cfg.faults)
{
  check_drop_rules();
  lossless_ = cfg.switch_.flow_control == FlowControl::Lossless;
  fast_forward_ = cfg.fast_forward.train > 1;
  sched.add_failure_note([this](const std::string& failure) { return failure_note(failure); });
  build_ports(seed);
  min_wire_ = cfg.ethernet.wire_bytes(0);
  // (a train, fast_forward, is as long as its packets back to back: what an input cable can have started toward a
  // switch is bounded by the longest an attached endpoint sends, where it was one frame: attach())
  max_frame_ = cfg.ethernet.wire_bytes(cfg.ethernet.max_l3());
  max_wire_  = max_frame_;
  bound_hops();
  if (cfg.switch_.shared_buffer.count > 0) {
    shared_ = cfg.switch_.shared_buffer.count;
    alpha_  = cfg.switch_.alpha;
    shared_used_.assign(topo.vertex_count(), 0);
  }
  host_port_.resize(topo.host_count());
  for (std::size_t h = 0; h < topo.host_count(); ++h)
    host_port_[h] = port_id(static_cast<std::uint32_t>(topo.host_vertex(h)), 0);
  endpoints_.assign(topo.host_count(), nullptr);
  ahead_.assign(topo.host_count(), 0);
  frames_.assign(topo.host_count(), 1);
  if (cfg.fidelity == Fidelity::Flow)
    flow_setup();
}

void Fabric::check_drop_rules() const
{
  auto const& topo = topo_;
  for (std::size_t i = 0; i < cfg_.faults.drops.size(); ++i) {
    auto const& d = cfg_.faults.drops[i];
    for (auto [end, host] : {std::pair{"src", d.src}, std::pair{"dst", d.dst}})
      if (host >= topo.host_count())
        throw config::ConfigError("", fmt::format("/platform/network/faults/drops/{}/{}", i, end),
                                  fmt::format("host {} does not exist: the topology has hosts 0 to {}", host,
                                              topo.host_count() - 1));
    if (d.src == d.dst)
      throw config::ConfigError("", fmt::format("/platform/network/faults/drops/{}/dst", i),
                                fmt::format("src and dst are both host {}: a drop rule names a flow between two hosts",
                                            d.src));
  }
}

std::string Fabric::failure_note(const std::string& failure) const
{
  std::string s = faults_.active() ? faults_.summary() : std::string{};
  // A transport that gave up on a network that lost nothing waited less than delivery took: say so, since
  // "retry limit exhausted" reads as loss.
  const bool gave_up = failure.find("retry limit") != std::string::npos ||
                       failure.find("retransmission") != std::string::npos;
  const FabricTotals t = totals();
  if (gave_up && t.queue_drops > 0)
    s += cfg_.switch_.flow_control == FlowControl::Lossless
             ? fmt::format("{}lossless switch queues dropped {} duplicate(s) that found no room beside the room reserved "
                           "(a larger platform.network.switch.port_buffer, or a lower faults.duplicate_rate, keeps them)",
                           s.empty() ? "" : "\n", t.queue_drops)
             : fmt::format("{}switch queues dropped {} packet(s) (their port_buffer full): lossless switches "
                           "(platform.network.switch.flow_control lossless) or a larger "
                           "platform.network.switch.port_buffer keep them",
                           s.empty() ? "" : "\n", t.queue_drops);
  // On a network that lost nothing, packets the receiving engines refused (no room in their own tables) are what the
  // retries kept meeting, not the timeouts (the first few receivers named). Where the network lost packets too, its
  // losses are the likelier cause and the notes above name them.
  const bool lost = t.queue_drops + t.fault_drops + t.corrupted > 0;
  std::vector<std::string> refused;
  std::size_t refusing = 0;
  if (gave_up && !lost)
    for (const Endpoint* ep : endpoints_)
      if (ep)
        if (std::string r = ep->refusals(); !r.empty() && refusing++ < 3)
          refused.push_back(std::move(r));
  if (refusing > 0) {
    s += fmt::format("{}the network lost no packet ({} sent, 0 dropped by queues or faults); receiving engines refused "
                     "packets, unacknowledged, for want of room, so their senders' retries met the same refusal: {}{}",
                     s.empty() ? "" : "\n", t.injected, fmt::join(refused, "; "),
                     refusing > refused.size() ? fmt::format(" (and {} more receivers)", refusing - refused.size())
                                               : std::string{});
  } else if (gave_up && t.queue_drops == 0 && t.fault_drops == 0 && t.corrupted == 0 &&
             (t.held_back > 0 || t.duplicates > 0)) {
    // Nothing lost, but reordered or duplicated: the recovery, not the link's speed, is what gave up.
    s += fmt::format("{}the network lost no packet ({} sent, 0 dropped), but it reordered {} and duplicated {}: the "
                     "transport's go-back-N recovery (each gap or duplicate answered by resending what follows it) "
                     "did not get through before its retry limit. Lower "
                     "platform.network.faults.reorder_rate / duplicate_rate, or give the transport longer timeouts or "
                     "more retries (the node's rdma.timeouts and rdma.retry_limit; with rdma.adaptive_retransmission, "
                     "rdma.adaptive_timeout_initial too)",
                     s.empty() ? "" : "\n", t.injected, t.held_back, t.duplicates);
  } else if (gave_up && t.queue_drops == 0 && t.fault_drops == 0 && t.corrupted == 0) {
    const auto& eth           = cfg_.ethernet;
    const std::uint64_t frame = eth.max_frame.count + eth.preamble.count + eth.ifg.count;
    const SimTime serialize   = transmit_time(Bytes{frame}, cfg_.link.rate);
    const SimTime fixed       = cfg_.link.propagation + cfg_.switch_.latency; // per cable and switch, whatever the size
    // The timeouts are the fix that always holds; which part of the network to speed up instead depends on what
    // dominates a hop: the largest frame's serialization (the link's rate) or the fixed delays.
    const std::string faster =
        serialize >= fixed
            ? fmt::format("raise platform.network.link.rate ({}: the largest frame, {} B on the wire, takes {} to "
                          "cross one cable)",
                          format_rate(cfg_.link.rate), frame, format_time(serialize))
            : fmt::format("lower platform.network.link.propagation ({}) or platform.network.switch.latency ({}), "
                          "which dominate each hop (the largest frame takes {} to cross a cable)",
                          format_time(cfg_.link.propagation), format_time(cfg_.switch_.latency), format_time(serialize));
    s += fmt::format("{}the network lost no packet ({} sent, 0 dropped by queues or faults): the transport's "
                     "retransmission timeouts were shorter than delivery and acknowledgement took. Give the "
                     "transport longer timeouts (RoCE: the node's rdma.timeouts, e.g. platform.node.fpga.rdma.timeouts; "
                     "TCP: tcp.rto_initial and tcp.rto_max; connectionless: "
                     "platform.node.fpga.connectionless.transport.packet_timeout and retry_limit), or {}",
                     s.empty() ? "" : "\n", t.injected, faster);
  }
  return s;
}

void Fabric::build_ports(std::uint64_t seed)
{
  auto const& topo = topo_;
  auto const& cfg  = cfg_;
  const auto nv = static_cast<std::uint32_t>(topo.vertex_count());
  std::size_t total_ports = 0;
  for (std::uint32_t v = 0; v < nv; ++v)
    total_ports += topo.ports(v).size();
  ports_.reserve(total_ports);
  port_base_.resize(nv);
  switch_rng_.reserve(nv);
  for (std::uint32_t v = 0; v < nv; ++v) {
    port_base_[v] = static_cast<std::uint32_t>(ports_.size());
    switch_rng_.emplace_back(seed, Rng::mix(0x5717C4, v));
    bool is_host = topo.info(v).kind == topo::VertexKind::Host;
    auto const& refs = topo.ports(v); // a host has exactly one (RoutingTable, built first, checks it)
    for (std::uint32_t i = 0; i < refs.size(); ++i) {
      Port p;
      p.vertex       = v;
      p.index        = i;
      p.peer         = static_cast<std::uint32_t>(refs[i].peer);
      p.peer_port    = refs[i].peer_port;
      p.rate         = refs[i].rate;
      p.line         = LineRate(refs[i].rate);
      p.propagation  = refs[i].propagation;
      // (Shared: what one congested queue may hold, alpha / (1 + alpha) of the switch's buffer; only the flow
      // fabric's drop-tail watch reads it then, the packet fabric asks fits().)
      p.capacity = is_host ? 0
                   : cfg.switch_.shared_buffer.count > 0
                       ? std::max<std::uint64_t>(1, static_cast<std::uint64_t>(
                                                        cfg.switch_.alpha / (1 + cfg.switch_.alpha) *
                                                        static_cast<double>(cfg.switch_.shared_buffer.count)))
                       : cfg.switch_.port_buffer.count;
      p.peer_is_host = topo.info(refs[i].peer).kind == topo::VertexKind::Host;
      p.rng          = Rng(seed, Rng::mix(0xFA017, ports_.size()));
      ports_.push_back(std::move(p));
    }
  }
}

void Fabric::bound_hops()
{
  const std::size_t nv = topo_.vertex_count();
  lookahead_.assign(nv, SimTime::max());
  in_bytes_per_ps_.assign(nv, 0.0);
  in_cables_.assign(nv, 0);
  // A packet that starts on a cable at t is decided on at the next switch no earlier than t + propagation + the
  // time its first `first` bytes take + the switch's latency (transmit(): the head, or the whole of a packet smaller
  // than the header, when cutting through; the whole packet when storing and forwarding).
  const std::uint64_t first = cfg_.switch_.forwarding == Forwarding::CutThrough
                                  ? std::min<std::uint64_t>(cfg_.switch_.cut_through_header.count, min_wire_)
                                  : min_wire_;
  for (auto const& p : ports_) {
    const SimTime l      = p.propagation + p.line.time_for(Bytes{first}) + cfg_.switch_.latency;
    lookahead_[p.peer]   = std::min(lookahead_[p.peer], l);
    in_bytes_per_ps_[p.peer] += p.rate.bps / 8e12;
    ++in_cables_[p.peer];
  }
}

void Fabric::set_trace(results::Trace* t)
{
  queue_trace_ = t && (t->blocks() || t->packets()) ? t : nullptr;
  trace_       = t && t->packets() ? t : nullptr;
  if (!trace_)
    return;
  for (auto const& p : ports_)
    trace_->name_thread(p.vertex, 100 + p.index, fmt::format("port {} -> {}", p.index, topo_.info(p.peer).name));
}

void Fabric::trace_queue(const Port& port)
{
  // Only switches queue (a host's port pulls from its engine); a counter track per port of the switch's process.
  queue_trace_->counter(port.vertex, fmt::format("port {} queue (bytes)", port.index),
                        static_cast<double>(port.queued_bytes), sched_.now());
}

void Fabric::attach(HostId h, Endpoint* ep)
{
  if (endpoints_.at(h) && !frames_[h])
    --unframed_;
  endpoints_[h] = ep;
  ahead_[h]     = ep != nullptr && ep->takes_ahead();
  frames_[h]    = ep == nullptr || ep->sends_frames();
  if (ep)
    max_wire_ = std::max(max_wire_, ep->longest_wire());
  if (!frames_[h])
    ++unframed_;
}

std::uint32_t Fabric::store(Packet&& p)
{
  if (free_.empty()) {
    pool_.push_back(std::move(p));
    return static_cast<std::uint32_t>(pool_.size() - 1);
  }
  auto slot = free_.back();
  free_.pop_back();
  pool_[slot] = std::move(p);
  return slot;
}

void Fabric::drop(std::uint32_t slot)
{
  free_.push_back(slot);
}

void Fabric::hand_over(std::uint32_t slot)
{
  Packet& p = pool_[slot];
  endpoints_[p.dst]->deliver(std::move(p)); // (Endpoint::deliver: moved out before anything may grow the pool)
  free_.push_back(slot);
}

void Fabric::hand_over_ahead(std::uint32_t slot, SimTime arrival, WireCause wire)
{
  Packet& p = pool_[slot];
  ++totals_.delivered; // (no faults: never corrupted)
  endpoints_[p.dst]->deliver_ahead(std::move(p), arrival, wire); // (moved out before anything may grow the pool)
  free_.push_back(slot);
}

void Fabric::tx_ready(HostId h)
{
  if (flow_mode_) {
    flow_pull(h);
    return;
  }
  ports_[host_port_.at(h)].source_ready = true;
  kick(host_port_[h]);
}

void Fabric::kick(std::uint32_t pid)
{
  Port& port = ports_[pid];
  if (port.wake_pending || port.pulling)
    return;
  if (port.skipped_pull != 0) { // the question not asked at free_at: asked in its place after all, if still ahead
    const std::uint64_t place = port.skipped_pull;
    port.skipped_pull         = 0;
    if (!sched_.passed(port.free_at, place)) {
      port.wake_pending = true;
      sched_.at_reserved(port.free_at, place, this, kTxDone, pid);
      return;
    }
  }
  if (sched_.now() >= port.free_at) {
    start_tx(pid);
    return;
  }
  port.wake_pending = true;
  if (port.busy_recorded > 0) // (a run recording causes) the pull waits for the port, busy with the packet it started
    sched_.at_caused_by(port.busy_cause, port.free_at, this, kTxDone, pid);
  else
    sched_.at(port.free_at, this, kTxDone, pid);
}

void Fabric::start_tx(std::uint32_t pid)
{
  Port& port = ports_[pid];
  std::uint32_t slot;
  if (lossless_ && port.held != kNone) { // waited for room downstream
    slot      = port.held;
    port.held = kNone;
  } else if (!port.queue.empty()) {
    slot = port.queue.front();
    port.queue.pop_front();
    port.queued_bytes -= pool_[slot].wire_bytes;
    shared_give(port, pool_[slot].wire_bytes);
    if (queue_trace_)
      trace_queue(port);
    if (lossless_ && !port.blocked.empty())
      wake_blocked(pid);
  } else if (port.source_ready) {
    HostId h = static_cast<HostId>(topo_.host_or_none(port.vertex));
    // Reserve the port while the endpoint chooses: a tx_ready() from inside pull() only raises the flag.
    port.pulling = true;
    std::optional<Packet> next;
    while (!next && port.source_ready) {
      port.source_ready = false;
      next              = endpoints_[h] ? endpoints_[h]->pull() : std::nullopt;
    }
    port.pulling = false;
    if (!next)
      return;
    // Keep pulling after this packet, unless the endpoint has nothing left (it calls tx_ready() for its next one).
    // (A run that records causes records the port busy with this packet then too: transmit(), kTxBusy.)
    port.source_ready = port.source_ready || endpoints_[h]->may_have_more();
    ++totals_.injected;
    if (next->train > 1) {
      ++totals_.trains;
      totals_.train_packets += next->train;
    }
    if (frames_[h]) { // (a train: frames back to back, up to fast_forward.train of them)
      const std::uint32_t frames = std::max<std::uint32_t>(1, next->train);
      if (next->wire_bytes < min_wire_ || next->wire_bytes > std::uint64_t{max_frame_} * frames ||
          frames > std::max(1u, cfg_.fast_forward.train))
        throw std::logic_error(fmt::format("host {}'s endpoint promised Ethernet frames (Endpoint::sends_frames) but "
                                           "handed over a packet of {} B on the wire standing for {} frame(s), outside "
                                           "{} to {} B each (at most {} per train)",
                                           h, next->wire_bytes, frames, min_wire_, max_frame_,
                                           std::max(1u, cfg_.fast_forward.train)));
    }
    next->not_before = sched_.now();
    slot             = store(std::move(*next));
  } else {
    return;
  }

  if (lossless_ && !port.peer_is_host && !reserve_downstream(pid, slot))
    return; // parked until the next switch's queue drains
  transmit(pid, slot);
}

void Fabric::transmit(std::uint32_t pid, std::uint32_t slot)
{
  Port& port  = ports_[pid];
  Packet& p   = pool_[slot];
  SimTime t0  = std::max(sched_.now(), p.not_before);
  SimTime ser = port.line.time_for(Bytes{p.wire_bytes});
  put_on_cable(pid, p, t0, ser);

  if (port.source_ready || !port.queue.empty()) { // (a port that has started a packet holds none)
    // (A host's port, whose endpoint may have more: a switch's port holds no source.)
    const std::size_t h = port.queue.empty() && !sched_.causes() ? topo_.host_or_none(port.vertex)
                                                                   : topo::Topology::kNotAHost;
    Endpoint* ep        = h != topo::Topology::kNotAHost ? endpoints_[h] : nullptr;
    if (ep && ep->idle_until_told()) {
      port.source_ready = false; // the question's place kept, the question not asked (Endpoint::idle_until_told)
      port.skipped_pull = sched_.reserve_place();
      ep->pull_skipped(port.free_at, port.skipped_pull);
    } else {
      port.wake_pending = true;
      sched_.at(port.free_at, this, kTxDone, pid);
    }
  } else if (sched_.causes() && topo_.host_or_none(port.vertex) != topo::Topology::kNotAHost) {
    // A host port whose engine has nothing more (it calls tx_ready() for its next packet), in a run that records
    // causes: the port's busy span is recorded (the bottleneck's busy share over a call, workloads/CriticalPath.hpp,
    // counts it) by an event that asks nothing, so that the pull after the engine's tx_ready() takes the place among
    // the free date's events it takes unobserved (a question kept at free_at had pulled ahead of that date's other
    // events: an ECMP traffic run changed with --critical-path). A pull that waits for the port still walks back to
    // this packet's start (kick()).
    ++port.busy_recorded;
    port.busy_cause = sched_.cause_mark();
    sched_.at(port.free_at, this, kTxBusy, pid);
  }
  if (trace_)
    trace_->span(port.vertex, 100 + port.index, fmt::format("{}->{} #{}", p.src, p.dst, p.seq), t0, t0 + ser,
                 fmt::format(R"({{"bytes":{},"flow":{}}})", p.wire_bytes, p.flow));
  SimTime decide = p.tail_arrival;
  if (port.peer_is_host && ahead_[p.dst] && !faults_.active()) {
    assert(topo_.host_or_none(port.peer) == p.dst && "packet delivered to the wrong host");
    p.head_arrival = p.tail_arrival;
    hand_over_ahead(slot, p.tail_arrival,
                    sched_.causes() ? WireCause{cause(kArrive, slot), sched_.cause_mark()} : WireCause{});
    return;
  }
  if (!port.peer_is_host) {
    if (cfg_.switch_.forwarding == Forwarding::CutThrough) {
      SimTime head = t0 + port.propagation + port.line.time_for(cfg_.switch_.cut_through_header);
      decide       = std::min(head, p.tail_arrival) + cfg_.switch_.latency;
    } else {
      decide = p.tail_arrival + cfg_.switch_.latency;
    }
    if (p.next_port != kNone && pass_last_hop(slot, decide))
      return;
  }
  sched_.at(decide, this, kArrive, slot);
}

// A packet's last switch hop without its arrival event. A lossless fabric reserves a packet's room in its next
// output queue when the packet starts toward that switch (reserve_downstream), so every packet on its way to the
// output port is known; and no packet that starts later reaches the switch's decision sooner than the switch's
// lookahead after its start. So when the port toward the destination host is idle (or free by the decision), holds
// no queue, no parked packet and no waiting upstream port, and no packet but this one has room reserved in it, and
// the decision is due within the lookahead, nothing another packet does before the decision can change what the
// decision does: it is taken now, for its date, as forward() -> kick() -> start_tx() -> transmit() would take it then,
// and the packet is handed to its host's endpoint (hand_over_ahead). What packets starting toward that port in the
// meantime see differs only in the port's reserved bytes (this packet's, given back now rather than at the
// decision), and that changes no reservation's outcome when the queue could hold this packet and everything the
// switch's input cables can start meanwhile (the capacity check). Off where another component could observe the
// moment: faults (decided at the arrival), traces, recorded causes (a critical path's hop), shared buffers (the
// switch-wide occupancy others' admissions read), and spray or adaptive routing (each switch's port choice per packet
// draws from its random stream and reads its queues, so an arrival event fewer reorders the draws of other events of
// the same picosecond: the run differed from the same run with --critical-path or --trace).
bool Fabric::pass_last_hop(std::uint32_t slot, SimTime decide)
{
  Packet& p        = pool_[slot];
  const auto pid   = p.next_port;
  Port& out        = ports_[pid];
  const SimTime now = sched_.now();
  if (!out.peer_is_host || !ahead_[p.dst] || unframed_ > 0 || faults_.active() || trace_ || queue_trace_ || shared_ ||
      sched_.causes() || per_packet_routes_)
    return false;
  if (!out.queue.empty() || out.held != kNone || !out.blocked.empty() || out.wake_pending || out.free_at > decide ||
      out.reserved != p.wire_bytes)
    return false;
  const SimTime window = decide - now;
  if (window > lookahead_[out.vertex])
    return false;
  if (out.capacity > 0 &&
      static_cast<double>(out.capacity) < static_cast<double>(p.wire_bytes) +
                                              static_cast<double>(window.ps()) * in_bytes_per_ps_[out.vertex] +
                                              static_cast<double>(in_cables_[out.vertex]) * max_wire_)
    return false;
  // forward() at `decide`, with its reserved room ...
  out.reserved -= p.wire_bytes;
  p.next_port         = kNone;
  p.not_before        = leave_after(out, p, decide);
  out.max_queue_bytes = std::max(out.max_queue_bytes, out.queued_bytes + p.wire_bytes);
  // ... start_tx() taking it off the queue at once, and transmit() onto the host's cable.
  put_on_cable(pid, p, p.not_before, out.line.time_for(Bytes{p.wire_bytes}));
  ++totals_.passed_hops;
  p.head_arrival = p.tail_arrival;
  hand_over_ahead(slot, p.tail_arrival, WireCause{});
  return true;
}

bool Fabric::stores_whole(const Port& out, const Packet& p) const
{
  // Onto a faster port a packet cannot be cut through (its bytes would run out mid-frame): the switch stores it
  // whole first, as switches that cut through do between ports of one speed or onto slower ones (Extreme's EXOS
  // manual: "store-and-forward switching will automatically be used" from a lower-speed port to a higher-speed one).
  const Bytes b{p.wire_bytes};
  return cfg_.switch_.forwarding != Forwarding::CutThrough ||
         out.line.time_for(b) < ports_[p.from_port].line.time_for(b);
}

SimTime Fabric::leave_after(const Port& out, const Packet& p, SimTime decided) const
{
  if (cfg_.switch_.forwarding != Forwarding::CutThrough)
    return decided;
  const Bytes b{p.wire_bytes};
  const SimTime out_ser = out.line.time_for(b);
  if (stores_whole(out, p))
    return std::max(decided, p.tail_arrival + cfg_.switch_.latency);
  // The last bit cannot leave before it came in.
  return std::max(decided, p.tail_arrival + cfg_.switch_.latency - out_ser);
}

void Fabric::put_on_cable(std::uint32_t pid, Packet& p, SimTime t0, SimTime ser)
{
  Port& port   = ports_[pid];
  port.free_at = t0 + ser;
  if (fast_forward_)
    port.last_flow = p.flow;
  ++port.tx_packets;
  port.tx_bytes += p.wire_bytes;
  ++totals_.packet_hops;
  ++p.hops;
  p.tail_arrival = t0 + ser + port.propagation;
  p.at_vertex    = port.peer;
  p.from_port    = pid;
}

void Fabric::on_event(std::uint32_t kind, std::uint64_t arg)
{
  switch (kind) {
    case kTxDone: {
      auto pid                = static_cast<std::uint32_t>(arg);
      ports_[pid].wake_pending = false;
      start_tx(pid);
      break;
    }
    case kTxBusy: --ports_[arg].busy_recorded; break; // (a run recording causes) the busy span, recorded
    case kArrive:
      arrive(static_cast<std::uint32_t>(arg));
      break;
    case kHeldBack: // a held-back packet resumes; faults were applied once, on arrival
      handle(static_cast<std::uint32_t>(arg));
      break;
    case kFlowSolve: flow_solve(); break;
    case kFlowDone: flows_done(); break;
    case kFlowDeliver: flow_deliver(static_cast<std::uint32_t>(arg)); break;
    default:
      assert(false && "unknown fabric event");
  }
}

CauseLabel Fabric::cause(std::uint32_t kind, std::uint64_t arg) const
{
  static const std::uint32_t held = cause_what("wire", "fault injection: delayed packet");
  static const std::uint32_t flow = cause_what("wire", "flow transfer (max-min share)");
  static const std::uint32_t flow_by_input =
      cause_what("wire", "flow transfer (max-min share weighted by input port)"); // flow_sharing: input-ports
  // Where (the port's host or switch) and its line rate: the limit a segment on it is bound by.
  // (Labelled once per port: formatting them per event doubled the cost of recording causes.)
  auto at_port = [&](std::uint32_t pid, bool busy) {
    if (port_causes_.empty())
      port_causes_.resize(ports_.size());
    auto& known = port_causes_[pid][busy ? 1 : 0];
    if (known.what == 0) {
      const Port& p     = ports_[pid];
      const bool host   = topo_.info(p.vertex).kind == topo::VertexKind::Host;
      const double gbps = p.line.rate().bps / 1e9;
      const std::uint32_t what =
          busy ? cause_what(host ? "wire" : "switch", fmt::format("{} port at {:.0f} Gb/s busy (earlier packets{})",
                                                                 host ? "host" : "switch", gbps, host ? "" : ": queue"))
               : cause_what("wire", fmt::format("{} link at {:.0f} Gb/s: serialization, propagation, next switch",
                                                host ? "host" : "switch", gbps));
      known = host ? CauseLabel::at_host(what, static_cast<std::uint32_t>(topo_.host_index(p.vertex)))
                   : CauseLabel::at_switch(what, p.vertex);
    }
    return known;
  };
  switch (kind) {
    case kTxDone:
    case kTxBusy: return at_port(static_cast<std::uint32_t>(arg), true);
    case kArrive: return at_port(pool_[arg].from_port, false);
    case kHeldBack: return CauseLabel{held};
    default: return CauseLabel{cfg_.flow_sharing == FlowSharing::InputPorts ? flow_by_input : flow};
  }
}

void Fabric::arrive(std::uint32_t slot)
{
  if (faults_.active()) {
    SimTime delay;
    switch (faults_.on_arrival(ports_[pool_[slot].from_port], pool_[slot], delay)) {
      case FaultVerdict::Drop:
        release_reservation(pool_[slot]);
        if (trace_)
          trace_->instant(pool_[slot].at_vertex, 100, "lost on cable", sched_.now());
        drop(slot);
        return;
      case FaultVerdict::Duplicate: {
        Packet copy    = pool_[slot];
        copy.duplicate = true;
        copy.next_port = kNone; // the copy has no room reserved: it takes its chances
        handle(store(std::move(copy)));
        break;
      }
      case FaultVerdict::Delay:
        pool_[slot].tail_arrival = pool_[slot].tail_arrival + delay; // its tail now arrives later too
        sched_.after(delay, this, kHeldBack, slot);
        return;
      case FaultVerdict::Deliver:
        break;
    }
  }
  handle(slot);
}

void Fabric::handle(std::uint32_t slot)
{
  std::uint32_t v = pool_[slot].at_vertex;
  const std::size_t h = topo_.host_or_none(v);
  if (h == topo::Topology::kNotAHost) {
    forward(slot);
    return;
  }
  ++totals_.delivered;
  if (pool_[slot].corrupted)
    ++totals_.corrupted_delivered;
  pool_[slot].head_arrival = pool_[slot].tail_arrival;
  assert(h == pool_[slot].dst && "packet delivered to the wrong host");
  hand_over(slot);
}

std::span<const std::uint16_t> Fabric::hops_to(std::uint32_t vertex, HostId dst) const
{
  auto hops = routes_.next_hops(vertex, dst);
  if (hops.empty())
    throw SimulationError(fmt::format("no route from '{}' to host {}", topo_.info(vertex).name, dst));
  return hops;
}

std::uint32_t Fabric::fixed_port(std::uint32_t vertex, const Packet& p) const
{
  auto hops = hops_to(vertex, p.dst);
  if (hops.size() == 1)
    return hops[0];
  if (cfg_.routing == RoutingMode::DModK) {
    // Up-ports: destination / n^(tier-1) mod n, the fat-tree rule. Going down the path is unique but for parallel
    // cables to one switch (a leaf-spine whose spines take several cables from each leaf): there the destination's
    // own digit, mod n, so that a leaf's hosts come in over different cables as they left theirs over different ones
    // (the tier rule there gave every host of a leaf the same cable).
    std::uint64_t d = p.dst;
    if (topo_.tier(ports_[port_id(vertex, hops[0])].peer) > topo_.tier(vertex))
      for (unsigned t = 1; t < topo_.tier(vertex); ++t)
        d /= hops.size();
    return hops[d % hops.size()];
  }
  const std::uint64_t h = Rng::mix(p.flow * 0x100000001B3ULL + p.src * 31 + p.dst, vertex);
  const std::size_t n   = hops.size(); // a power of two (a fat-tree of even k / 2 ports up): a mask, not a division
  return hops[(n & (n - 1)) == 0 ? h & (n - 1) : h % n];
}

bool Fabric::path_clear(HostId src, HostId dst, std::uint64_t flow) const
{
  Packet probe;
  probe.src = src;
  probe.dst = dst;
  probe.flow = flow;
  if (ports_[host_port_[src]].peer_is_host) // a cable between two hosts carries no other flow
    return true;
  std::uint32_t v = ports_[host_port_[src]].peer;
  for (;;) {
    const Port& out = ports_[port_id(v, fixed_port(v, probe))];
    if (!out.queue.empty() || out.held != kNone || !out.blocked.empty() ||
        (serializing(out) && out.last_flow != flow))
      return false;
    if (out.peer_is_host)
      return true;
    v = out.peer;
  }
}

std::uint32_t Fabric::choose_port(std::uint32_t vertex, const Packet& p)
{
  if (cfg_.routing == RoutingMode::Ecmp || cfg_.routing == RoutingMode::DModK)
    return fixed_port(vertex, p);
  auto hops = hops_to(vertex, p.dst);
  if (hops.size() == 1)
    return hops[0];
  if (cfg_.routing == RoutingMode::Spray)
    return hops[switch_rng_[vertex].below(hops.size())];
  // Adaptive: the least occupied port, ties broken at random.
  std::uint64_t best = UINT64_MAX;
  std::uint32_t pick = hops[0];
  std::uint64_t ties = 0;
  for (auto h : hops) {
    Port const& port = ports_[port_id(vertex, h)];
    std::uint64_t load = port.queued_bytes + port.reserved + (serializing(port) ? 1 : 0);
    if (load < best) {
      best = load;
      pick = h;
      ties = 1;
    } else if (load == best && switch_rng_[vertex].below(++ties) == 0) {
      pick = h;
    }
  }
  return pick;
}

void Fabric::forward(std::uint32_t slot)
{
  Packet& p        = pool_[slot];
  std::uint32_t v  = p.at_vertex;
  const bool reserved = p.next_port != kNone; // lossless: room was reserved when the previous hop sent it
  const std::uint32_t out = reserved ? p.next_port : port_id(v, choose_port(v, p));
  if (p.corrupted && stores_whole(ports_[out], p)) {
    // A switch that has the whole frame before it sends it on checks its FCS and drops a corrupted one, lost on the
    // cable that corrupted it (one that cuts it through has sent its head on before the FCS came: the receiver
    // drops it on its CRC check).
    release_reservation(p);
    faults_.fcs_drop(p);
    ++totals_.fault_drops;
    if (trace_)
      trace_->instant(v, 100, "dropped by the switch's FCS check", sched_.now());
    drop(slot);
    return;
  }
  if (reserved) {
    p.next_port = kNone;
    ports_[out].reserved -= p.wire_bytes;
  }
  p.not_before = leave_after(ports_[out], p, sched_.now());
  if (reserved) {
    Port& port = ports_[out];
    port.queue.push_back(slot);
    port.queued_bytes += p.wire_bytes;
    port.max_queue_bytes = std::max(port.max_queue_bytes, port.queued_bytes);
    kick(out);
    return;
  }
  enqueue(out, slot);
}

bool Fabric::reserve_downstream(std::uint32_t pid, std::uint32_t slot)
{
  Port& port = ports_[pid];
  Packet& p  = pool_[slot];
  if (p.next_port == kNone)
    p.next_port = port_id(port.peer, choose_port(port.peer, p));
  Port& out         = ports_[p.next_port];
  std::uint64_t use = out.queued_bytes + out.reserved;
  // An empty queue always takes one packet (a packet larger than the buffer must not block forever).
  if (out.capacity > 0 && use > 0 && !fits(out, use, p.wire_bytes)) {
    port.held = slot;
    if (std::find(out.blocked.begin(), out.blocked.end(), pid) == out.blocked.end()) {
      out.blocked.push_back(pid);
      ++port.counters.pauses;
      port.paused_since = sched_.now();
    }
    return false;
  }
  out.reserved += p.wire_bytes;
  shared_take(out, p.wire_bytes);
  return true;
}

void Fabric::release_reservation(Packet& p)
{
  if (p.next_port == kNone)
    return;
  ports_[p.next_port].reserved -= p.wire_bytes;
  shared_give(ports_[p.next_port], p.wire_bytes);
  std::uint32_t out = p.next_port;
  p.next_port       = kNone;
  wake_blocked(out);
}

void Fabric::wake_blocked(std::uint32_t out)
{
  std::vector<std::uint32_t> waiting;
  waiting.swap(ports_[out].blocked);
  for (auto pid : waiting) {
    Port& up = ports_[pid];
    up.counters.paused = up.counters.paused + (sched_.now() - up.paused_since);
    kick(pid); // re-checks the room; parks again if there is still none
  }
}

void Fabric::enqueue(std::uint32_t pid, std::uint32_t slot)
{
  Port& port = ports_[pid];
  auto bytes = pool_[slot].wire_bytes;
  std::uint64_t occupancy = port.queued_bytes + bytes;
  // Under lossless flow control the room reserved for packets on their way here is taken: a packet that arrives
  // without a reservation (a cable's duplicate) fits beside them or is dropped (it was queued into their room, and the
  // queue grew past port_buffer with nothing dropped). Without flow control nothing is reserved.
  if (port.capacity > 0 && !fits(port, port.queued_bytes + port.reserved, bytes)) {
    ++port.counters.queue_drops;
    if (trace_)
      trace_->instant(port.vertex, 100 + port.index, "tail drop", sched_.now());
    drop(slot);
    return;
  }
  port.max_queue_bytes = std::max(port.max_queue_bytes, occupancy);
  if (!lossless_ && !queue_trace_ && port.queue.empty() && !port.wake_pending && !port.pulling &&
      sched_.now() >= port.free_at) { // (a port holds a packet back only under lossless flow control)
    transmit(pid, slot); // an idle port: what the queue and kick() would do, without the queue's round trip
    return;
  }
  port.queue.push_back(slot);
  port.queued_bytes = occupancy;
  shared_take(port, bytes);
  if (queue_trace_)
    trace_queue(port);
  kick(pid);
}

FabricTotals Fabric::totals() const
{
  FabricTotals t = totals_;
  for (auto const& p : ports_) {
    t.queue_drops += p.counters.queue_drops;
    t.fault_drops += p.counters.fault_drops;
    t.duplicates += p.counters.duplicated;
    t.held_back += p.counters.held_back;
    t.corrupted += p.counters.corrupted;
  }
  return t;
}

} // namespace nafsim::net
