#pragma once
// The network (DESIGN.md section 3). Fidelity `packet`: every packet crosses NIC and
// switch ports that serialize at line rate, cables with propagation delay, switches that forward
// cut-through or store-and-forward after a fixed latency into byte-capacity output queues with
// tail drop, routed over equal-cost paths; faults are injected per cable. Fidelity `flow`: messages
// as flows sharing links max-min fair (FlowFabric.cpp).
//
// Timing of one hop, for a packet whose transmission starts at t0 on a port of rate R over a cable
// of propagation P (S = wire bytes / R):
//   tail arrival      = t0 + S + P
//   store-and-forward : the next switch decides at tail + L and may start at once;
//   cut-through       : it decides at t0 + P + H/R + L (H = cut_through_header bytes) and starts
//                       no earlier than tail + L - S_out (its last bit cannot leave before it came in); onto
//                       a faster port no earlier than tail + L (stored whole first, as switches do).
// Hosts receive a packet at its tail arrival.

#include "simcore/engine/Scheduler.hpp"
#include "simcore/net/DropTailWatch.hpp"
#include "simcore/net/Endpoint.hpp"
#include "simcore/net/FaultInjector.hpp"
#include "simcore/net/LaneTable.hpp"
#include "simcore/net/MaxMin.hpp"
#include "simcore/net/NetworkConfig.hpp"
#include "simcore/net/Port.hpp"
#include "simcore/results/Trace.hpp"
#include "simcore/topo/Topology.hpp"

#include <memory>
#include <array>
#include <queue>
#include <span>
#include <vector>

namespace nafsim::net {

struct FabricTotals {
  std::uint64_t injected     = 0; ///< packets pulled from endpoints
  std::uint64_t delivered    = 0; ///< packets handed to endpoints (duplicates included)
  std::uint64_t packet_hops  = 0; ///< port transmissions (one per packet per cable)
  std::uint64_t queue_drops  = 0;
  std::uint64_t fault_drops  = 0;
  std::uint64_t duplicates   = 0;
  std::uint64_t held_back    = 0; ///< packets delayed by the reorder fault
  std::uint64_t corrupted    = 0; ///< corruptions injected (a corrupted packet may still be lost later)
  std::uint64_t corrupted_delivered = 0; ///< corrupted packets handed to endpoints
  std::uint64_t passed_hops  = 0; ///< switch hops taken in the event of the hop before (Fabric::pass_last_hop)
  std::uint64_t trains        = 0; ///< fast_forward: packets pulled from endpoints that stood for several
  std::uint64_t train_packets = 0; ///< ... and the packets they stood for
};

class Fabric final : public EventHandler {
public:
  Fabric(const topo::Topology& topo, const NetworkConfig& cfg, Scheduler& sched, std::uint64_t seed);
  Fabric(const Fabric&)            = delete;
  Fabric& operator=(const Fabric&) = delete;

  /// Connect host `h` to the endpoint that sends and receives its packets.
  void attach(HostId h, Endpoint* ep);
  /// The endpoint of host `h` has a packet to send: its port pulls it when free.
  void tx_ready(HostId h);
  /// Fast-forward (NetworkConfig::fast_forward): whether the path a packet of `flow` from host `src` to `dst` takes
  /// holds nothing of another flow now, past `src`'s own port: at every switch port on it no queue, no parked or
  /// waiting packet, and nothing on the wire but that flow's own (what is already on its way toward those ports, its
  /// reserved room, is not seen). ECMP and d-mod-k routing only (one path per flow).
  bool path_clear(HostId src, HostId dst, std::uint64_t flow) const;
  /// Record packet transmissions and drops (when the trace level is `packets`).
  void set_trace(results::Trace* t);

  const topo::Topology& topology() const { return topo_; }
  const topo::RoutingTable& routes() const { return routes_; }
  const NetworkConfig& config() const { return cfg_; }
  const std::vector<Port>& ports() const { return ports_; }
  FabricTotals totals() const;
  /// Flow fidelity's solver work: flows started, and flows whose rate a solve recomputed, in all (0 at packet
  /// fidelity). Their ratio is how often each flow was re-solved: high when every flow shares one component.
  struct FlowWork {
    std::uint64_t flows = 0, flows_solved = 0, flows_in_components = 0;
    bool drop_tail = false;            ///< drop-tail switches: the ports where packets would have dropped (below)
    DropTailWatch::Summary over_buffer;
  };
  FlowWork flow_work() const;
  /// Shared switch buffers: the bytes switch `vertex` holds in its output queues (and has reserved in them), now.
  std::uint64_t shared_held(std::uint32_t vertex) const { return shared_ ? shared_used_[vertex] : 0; }
  std::size_t packets_in_flight() const { return pool_.size() - free_.size(); }

  void on_event(std::uint32_t kind, std::uint64_t arg) override;
  /// Critical paths: a packet's hop is spent on the wire (its serialization, the propagation and the next switch's
  /// latency) at the port it leaves; a port's next start on the packets before it (at a switch: its queue).
  CauseLabel cause(std::uint32_t kind, std::uint64_t arg) const override;
  /// Critical paths: host `h`'s port busy with the packets before it, in the words above (for an engine that dates
  /// its own line at flow fidelity, RdmaPoe).
  CauseLabel host_port_busy(HostId h) const { return cause(kTxBusy, host_port_.at(h)); }

private:
  mutable std::vector<std::array<CauseLabel, 2>> port_causes_; ///< per port: hop, busy (critical paths)
  enum EventKind : std::uint32_t { kTxDone, kArrive, kHeldBack, kFlowSolve, kFlowDone, kFlowDeliver, kTxBusy };

  std::uint32_t store(Packet&& p);
  /// The packet in `slot` is lost (a full queue, a fault): its slot is free (what it held goes when the slot is
  /// taken again).
  void drop(std::uint32_t slot);
  /// The packet in `slot` reached its host: its endpoint takes it straight out of the pool (one copy of its 224
  /// bytes, into the endpoint's receive pipe, instead of two), then the slot is free.
  void hand_over(std::uint32_t slot);
  /// The packet in `slot`, bound for a host whose endpoint takes packets ahead (Endpoint::takes_ahead), handed over
  /// now with the date its last bit arrives and no arrival event (the endpoint's receive event after its pipeline is
  /// the packet's next one): at packet fidelity when it starts its last cable on a fabric without faults, at flow
  /// fidelity when its flow ends; `wire` names what its time on the wire waited for (critical paths). Then the slot
  /// is free.
  void hand_over_ahead(std::uint32_t slot, SimTime arrival, WireCause wire);
  std::uint32_t port_id(std::uint32_t vertex, std::uint32_t index) const { return port_base_[vertex] + index; }
  void start_tx(std::uint32_t port);
  /// Port `pid`, idle, starts packet `slot` now (or at the packet's not_before).
  void transmit(std::uint32_t pid, std::uint32_t slot);
  /// The last switch hop of packet `slot`, just started toward the switch before its host and due there at `decide`,
  /// taken now when nothing can tell it from the arrival event it replaces: see Fabric.cpp. True if taken.
  bool pass_last_hop(std::uint32_t slot, SimTime decide);
  /// When a packet decided on at `decided` may start on switch port `out` (cut-through: not before its last bit is in).
  SimTime leave_after(const Port& out, const Packet& p, SimTime decided) const;
  /// Whether the switch has all of `p` before it sends it on through `out` (store-and-forward, or cut-through onto a
  /// faster port).
  bool stores_whole(const Port& out, const Packet& p) const;
  /// Packet `p` starts on port `pid` at `t0` for `ser`: the port's free date and counters, the packet's hop and tail.
  void put_on_cable(std::uint32_t pid, Packet& p, SimTime t0, SimTime ser);
  /// Per switch: the shortest time from a packet starting on a cable into it to its forwarding decision there
  /// (lookahead_), and what its input cables can start in a window (the sum of their rates, bytes per ps, and their
  /// number), for packets between a minimum and a largest Ethernet frame on the wire (min_wire_, max_wire_), which
  /// every endpoint that promises frames keeps to (Endpoint::sends_frames; no hop passes while one does not).
  void bound_hops();
  std::vector<SimTime> lookahead_;
  std::vector<double> in_bytes_per_ps_;
  std::vector<std::uint32_t> in_cables_;
  std::uint32_t min_wire_ = 0, max_wire_ = 0, max_frame_ = 0; ///< (max_wire_: an endpoint's longest, a train's)
  /// Something waits for port `pid`: start it now if it is idle, else make it take the next packet when free.
  void kick(std::uint32_t pid);
  bool serializing(const Port& p) const { return p.wake_pending || p.pulling || sched_.now() < p.free_at; }
  void arrive(std::uint32_t slot);
  void handle(std::uint32_t slot);
  void forward(std::uint32_t slot);
  std::uint32_t choose_port(std::uint32_t vertex, const Packet& p);
  /// The equal-cost next hops from `vertex` toward host `dst` (none: a routing error, thrown).
  std::span<const std::uint16_t> hops_to(std::uint32_t vertex, HostId dst) const;
  /// choose_port for the routings that keep a flow on one path (ECMP, d-mod-k): no state changes.
  std::uint32_t fixed_port(std::uint32_t vertex, const Packet& p) const;
  bool fast_forward_ = false; ///< trains may be on the wire: ports keep the flow they started last
  void enqueue(std::uint32_t port, std::uint32_t slot);
  /// Lossless: reserve room for `slot` in its output queue at the next switch, or park it.
  bool reserve_downstream(std::uint32_t pid, std::uint32_t slot);
  void release_reservation(Packet& p);
  void wake_blocked(std::uint32_t port);
  bool lossless_ = false;
  // Shared switch buffers (switch.shared_buffer > 0): the bytes each switch holds in its output queues (and, lossless,
  // has reserved in them), and whether `out`, holding `use` bytes, may take `bytes` more: under alpha x the switch's
  // free bytes (the dynamic threshold), within the buffer; without sharing, within the port's own buffer.
  bool fits(const Port& out, std::uint64_t use, std::uint64_t bytes) const
  {
    if (!shared_)
      return use + bytes <= out.capacity;
    const std::uint64_t used = shared_used_[out.vertex];
    const std::uint64_t free = shared_ - std::min(used, shared_);
    return bytes <= free && static_cast<double>(use + bytes) <= alpha_ * static_cast<double>(free);
  }
  void shared_take(const Port& p, std::uint64_t bytes)
  {
    if (shared_)
      shared_used_[p.vertex] += bytes;
  }
  void shared_give(const Port& p, std::uint64_t bytes)
  {
    if (shared_)
      shared_used_[p.vertex] -= bytes;
  }

  // Flow fidelity (FlowFabric.cpp): each packet the endpoints hand over crosses its path as one flow;
  // a flow's bytes leave at its max-min share of every link on the path; it is delivered a path
  // latency (propagation, switch latency, the last segment's pipeline) after its last byte left.
  // Flows of one sender and flow identity go one after the other, and are delivered in order.
  struct FlowRec {
    std::uint32_t slot = 0;
    SimTime started, last;      ///< start; last time `remaining` was brought up to date
    double remaining = 0;       ///< wire bytes still to leave the sender
    double rate_before = 0;     ///< share it had since `last`, in bytes per picosecond
    SimTime hold;               ///< the last segment cannot leave before this
    SimTime latency;            ///< a segment's pipeline: start at the sender -> all in at the receiver
    SimTime first_latency;      ///< first segment: start -> all in at the receiver
    std::uint32_t cause    = 0; ///< critical paths: the step its transfer started from (Scheduler::cause_mark)
    std::uint32_t lane     = 0; ///< its sender's and flow identity's (LaneTable: kept until it is delivered)
  };
  // A flow's place in done_heap_, apart from its record: the heap's comparisons read 16 bytes per flow.
  struct DoneKey {
    SimTime done;          ///< when its last byte leaves at the current rate (while in done_heap_)
    std::uint64_t seq = 0; ///< ties at one date: in the order the dates were set
  };
  struct DoneBefore {
    const std::vector<DoneKey>* keys;
    bool operator()(std::uint32_t a, std::uint32_t b) const
    {
      const DoneKey &x = (*keys)[a], &y = (*keys)[b];
      return x.done != y.done ? x.done < y.done : x.seq < y.seq;
    }
  };
  bool flow_mode_ = false;
  std::uint64_t flows_started_ = 0;
  std::unique_ptr<MaxMinSharing> sharing_;
  std::vector<FlowRec> flows_;
  std::vector<DoneKey> done_key_;
  // The flows by completion date, and one engine event at the earliest (a
  // cancelled and re-posted event per flow per rate change left millions of
  // stale events pending in a 256-rank all-to-all).
  IndexedHeap<DoneBefore> done_heap_{DoneBefore{&done_key_}};
  std::uint64_t done_seq_ = 0;
  EventId done_event_     = 0;
  SimTime done_event_at_;
  bool done_event_live_ = false;
  void flow_arm();
  // Solves (flow_resolve_fraction): one is due once the starts and ends since the last reach the fraction of the
  // flows in progress (at least one: every change, exact, by default).
  std::uint32_t flow_pending_ = 0; ///< flow starts and ends since the last solve
  bool flow_solve_scheduled_  = false;
  /// One more start or end: schedules a solve at this date when one is due; true if one is scheduled.
  bool flow_change();
  void flows_done();
  LaneTable lanes_;
  std::unique_ptr<DropTailWatch> watch_; ///< drop-tail switches: where the packet fabric's queues would overflow
  std::vector<std::uint32_t> delivering_lane_; ///< per packet slot: the lane of the flow being delivered
  /// Lanes whose latest flow was handed over ahead (to an endpoint that takes packets ahead: no delivery event to
  /// erase them at), by the date of that delivery, earliest first: forget_idle_lanes() erases the ones idle by then.
  std::priority_queue<std::pair<std::int64_t, std::uint32_t>, std::vector<std::pair<std::int64_t, std::uint32_t>>,
                      std::greater<>>
      forget_;
  /// Erase the lanes of forget_ whose last delivery has come and that carry nothing: what flow_deliver does for a
  /// lane delivered by event (a lane idle since its last delivery behaves as a new one would: every later delivery
  /// comes after it anyway), done before a lane is looked up.
  void forget_idle_lanes();
  std::vector<std::uint32_t> path_scratch_;
  /// A segment's pipeline along path_scratch_ (flow fidelity): when its last bit is at the far end of the last port,
  /// relative to its start at the sender.
  SimTime segment_pipeline(std::uint32_t bytes) const;
  void flow_setup();
  /// The fault plan's drop rules name hosts of the topology, two different ones each (a ConfigError otherwise).
  void check_drop_rules() const;
  /// What a run's failure report adds about the network (faults, or why a transport gave up on a lossless run).
  std::string failure_note(const std::string& failure) const;
  /// Every vertex's ports, in vertex order, with their queues' capacities and random streams.
  void build_ports(std::uint64_t seed);
  void flow_pull(HostId h);
  /// Start the flow of packet `slot` on its lane (its sender's and flow identity's, found by the caller);
  /// `cause`: the step it starts from, for critical paths (kNoCause: the one running now).
  void flow_begin(std::uint32_t slot, std::uint32_t lane, std::uint32_t cause = kNoCause);
  static constexpr std::uint32_t kNoCause = UINT32_MAX;
  void flow_solve();
  /// Flow `id` leaves at `rate` from now on: its bytes left brought up to date, its completion date re-keyed.
  void flow_rate(std::uint32_t id, double rate);
  /// ... its bytes left and completion date (sequence number `seq` among dates alike) only (the caller re-orders
  /// the heap).
  void flow_redate(std::uint32_t id, double rate, std::uint64_t seq);
  static constexpr std::uint32_t kUnchanged = UINT32_MAX;
  std::vector<std::uint32_t> redate_pos_; ///< flow_solve(): per flow, its place in the solve's list of changes
  void flow_done(std::uint32_t id);
  void flow_deliver(std::uint32_t slot);
  std::uint32_t flow_port(std::uint32_t vertex, const Packet& p);

  const topo::Topology& topo_;
  topo::RoutingTable routes_;
  NetworkConfig cfg_;
  Scheduler& sched_;
  FaultInjector faults_;
  std::vector<Port> ports_;
  std::vector<std::uint32_t> port_base_;
  std::vector<std::uint32_t> host_port_; ///< host -> its (single) egress port
  std::vector<Endpoint*> endpoints_;
  std::vector<std::uint8_t> ahead_; ///< per host: its endpoint takes packets ahead (hand_over_ahead)
  std::vector<std::uint8_t> frames_; ///< per host: its endpoint sends Ethernet frames only (Endpoint::sends_frames)
  std::uint32_t unframed_ = 0;       ///< hosts whose endpoints do not promise it
  /// Spray or adaptive routing: a port chosen per packet, by draws and queue reads (no pass_last_hop).
  bool per_packet_routes_ = cfg_.routing == RoutingMode::Spray || cfg_.routing == RoutingMode::Adaptive;
  std::vector<Rng> switch_rng_;          ///< per vertex: spray / adaptive tie-breaks
  std::vector<Packet> pool_;
  std::vector<std::uint32_t> free_;
  FabricTotals totals_;
  results::Trace* trace_ = nullptr;
  results::Trace* queue_trace_ = nullptr; ///< switch ports' queue depth counters (--trace blocks and packets)
  void trace_queue(const Port& port);
  // (Shared buffers, after the fields every hop reads: see fits().)
  std::uint64_t shared_ = 0;
  double alpha_         = 1;
  std::vector<std::uint64_t> shared_used_; ///< per vertex
};

} // namespace nafsim::net
