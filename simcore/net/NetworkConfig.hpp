#pragma once
#include "simcore/config/Schema.hpp"

#include <fmt/format.h>

namespace nafsim::net {

enum class Forwarding { CutThrough, StoreAndForward };
enum class FlowControl { Drop, Lossless };
enum class RoutingMode { Ecmp, DModK, Spray, Adaptive };
enum class Fidelity { Packet, Flow };
enum class FlowSharing { PerFlow, InputPorts };

struct LinkConfig {
  BitsPerSecond rate{100e9};
  SimTime propagation = SimTime::ns(10);
  template <class V> void describe(V& v)
  {
    v.field("rate", rate, "line rate of every NIC and switch port (leaf-spine uplinks have their own)");
    v.field("propagation", propagation, "propagation delay of each cable (about 5 ns per metre)");
  }
};

struct SwitchConfig {
  Forwarding forwarding = Forwarding::CutThrough;
  SimTime latency       = SimTime::ns(500);
  Bytes port_buffer{1 << 20};
  Bytes shared_buffer{0}; ///< > 0: one buffer per switch shared by its output queues (dynamic thresholds)
  double alpha = 1;       ///< ... a queue's limit: alpha x the shared buffer's free bytes
  Bytes cut_through_header{64};
  FlowControl flow_control = FlowControl::Drop;
  template <class V> void describe(V& v)
  {
    v.field("flow_control", flow_control,
            "drop: a full output queue tail-drops (Ethernet without PFC); lossless: link-level flow control, a port "
            "sends a packet only when the output queue it goes to at the next switch has room for it, else it waits "
            "(head-of-line blocking; as credit-based HPC links and InfiniBand do; for Ethernet's PFC an ideal "
            "stand-in: one class, no pause/resume thresholds per input port, headroom or pause-frame delay, so the "
            "back-pressure starts only once the whole output queue is full: simcore/net/README.md)");
    v.field("forwarding", forwarding, "cut-through starts forwarding once the header is in; store-and-forward waits "
                                      "for the whole packet");
    v.field("latency", latency, "forwarding latency from decision point (header or tail in) to output start");
    v.field("port_buffer", port_buffer, "byte capacity of each output-port queue; packets beyond it are tail-dropped",
            config::Limits::at_least(64));
    v.field("shared_buffer", shared_buffer,
            "0: every output queue has its own port_buffer; > 0: each switch's output queues share one buffer of this "
            "many bytes with dynamic thresholds (Choudhury and Hahne 1998, as shared-buffer switch chips do): a queue "
            "may grow while it is under alpha x the bytes the switch has free, so one congested queue takes alpha / "
            "(1 + alpha) of it, two alpha / (1 + 2 alpha) each (port_buffer then unused)",
            config::Limits::at_least(0));
    v.field("alpha", alpha,
            "shared_buffer only: the dynamic threshold's factor (SONiC's dynamic_th is its log2, -6 to 3: 1/64 to 8)",
            config::Limits::between(1.0 / 64, 8));
    v.field("cut_through_header", cut_through_header, "bytes received before a cut-through switch decides",
            config::Limits::at_least(1));
  }
};

/// Ethernet framing around every L3 packet: header, FCS, preamble+SFD and inter-frame gap.
struct EthernetConfig {
  Bytes header{14};
  Bytes fcs{4};
  Bytes preamble{8};
  Bytes ifg{12};
  Bytes min_frame{64};
  Bytes max_frame{9234}; // 9216 B IP MTU + 14 B header + 4 B FCS
  template <class V> void describe(V& v)
  {
    v.field("header", header, "MAC header bytes (IEEE 802.3)");
    v.field("fcs", fcs, "frame check sequence bytes");
    v.field("preamble", preamble, "preamble + start-of-frame delimiter bytes on the wire");
    v.field("ifg", ifg, "minimum inter-frame gap, in byte times");
    v.field("min_frame", min_frame, "minimum frame size (header + payload + FCS); shorter frames are padded");
    v.field("max_frame", max_frame,
            "largest frame (header + payload + FCS) a port carries: 9234 B carries the 9216 B IP MTU of data-center "
            "switches' jumbo frames (1518 B without jumbo frames); every transport's largest packet must fit",
            config::Limits::between(64, 65536));
  }
  config::FieldProblem check() const
  {
    if (header.count + fcs.count >= max_frame.count)
      return {"header", "a frame's header (" + format_bytes(header) + ") and FCS (" + format_bytes(fcs) +
                            ") leave no payload in the largest frame (max_frame " + format_bytes(max_frame) + ")"};
    if (min_frame > max_frame)
      return {"min_frame", "the minimum frame (" + format_bytes(min_frame) + ") is larger than max_frame (" +
                               format_bytes(max_frame) + ")"};
    return {};
  }
  /// Largest IP datagram a frame carries.
  std::uint64_t max_l3() const { return max_frame.count - header.count - fcs.count; }
  /// Bytes a packet with `l3` bytes of IP datagram occupies on the wire.
  std::uint32_t wire_bytes(std::uint64_t l3) const
  {
    std::uint64_t frame = header.count + l3 + fcs.count;
    if (frame < min_frame.count)
      frame = min_frame.count;
    return static_cast<std::uint32_t>(frame + preamble.count + ifg.count);
  }
};

/// "Drop the first `count` copies of sequence number `seq` sent from host `src` to host `dst`."
struct DropRule {
  unsigned src   = 0;
  unsigned dst   = 1;
  unsigned seq   = 0;
  unsigned count = 1;
  template <class V> void describe(V& v)
  {
    v.field("src", src, "source host index");
    v.field("dst", dst, "destination host index");
    v.field("seq", seq, "transport sequence number to drop (RoCE PSN)");
    v.field("count", count, "how many transmissions of it to drop (1 = only the first)", config::Limits::at_least(1));
  }
};

struct FaultConfig {
  double loss_rate       = 0;
  double corruption_rate = 0;
  double duplicate_rate  = 0;
  double reorder_rate    = 0;
  SimTime reorder_delay  = SimTime::us(2);
  std::vector<DropRule> drops;
  template <class V> void describe(V& v)
  {
    v.field("loss_rate", loss_rate, "probability that a packet is lost on each cable it crosses",
            config::Limits::between(0, 1));
    v.field("corruption_rate", corruption_rate,
            "probability that a packet is corrupted on each cable (receivers drop it on CRC check)",
            config::Limits::between(0, 1));
    v.field("duplicate_rate", duplicate_rate, "probability that a cable delivers a packet twice",
            config::Limits::between(0, 1));
    v.field("reorder_rate", reorder_rate,
            "probability that a cable holds a packet back for a random extra delay in (0, reorder_delay], letting "
            "later packets overtake it (a detour; reorders on any topology)",
            config::Limits::between(0, 1));
    v.field("reorder_delay", reorder_delay, "largest extra delay of a held-back packet");
    v.field("drops", drops, "deterministic drops on the first cable of a flow");
  }
  bool any() const
  {
    return loss_rate > 0 || corruption_rate > 0 || duplicate_rate > 0 || reorder_rate > 0 || !drops.empty();
  }
};

/// Steady states fast-forwarded as trains (issue 53; simcore/net/README.md, "Steady states fast-forwarded"): opt-in.
struct FastForwardConfig {
  unsigned train  = 0; ///< packets per train at most; 0: off
  unsigned window = 8; ///< a queue pair's packets that must have left back to back before its next ones may ride
  template <class V> void describe(V& v)
  {
    v.field("train", train,
            "0: off (every packet crosses the fabric on its own). n >= 2: a RoCE queue pair whose last `window` "
            "packets left back to back at the line rate sends up to n of the next packets of the same message "
            "(after its first), staged and ready by their turn on the wire, as one train: one transmission per "
            "port, one receive event, its acknowledgements as one; packet fidelity on lossless cut-through "
            "switches without faults only. Error and speed measured in simcore/net/README.md",
            config::Limits::between(0, 64));
    v.field("window", window,
            "fast_forward: packets of a queue pair that must have left back to back (the port busy with them and "
            "the NIC's acknowledgements only) before trains form; an idle moment, a READ response or another queue "
            "pair's packet starts the count again",
            config::Limits::between(1, 1 << 16));
  }
};

struct NetworkConfig {
  Fidelity fidelity = Fidelity::Packet;
  FlowSharing flow_sharing = FlowSharing::PerFlow;
  double flow_resolve_fraction = 0; ///< flow fidelity: re-solve once this fraction of the flows started or ended
  LinkConfig link;
  SwitchConfig switch_;
  EthernetConfig ethernet;
  RoutingMode routing = RoutingMode::Ecmp;
  FaultConfig faults;
  FastForwardConfig fast_forward;
  config::FieldProblem check() const
  {
    if (fast_forward.train == 1)
      return {"fast_forward/train", "a train of 1 packet is no train: give 0 (off) or at least 2 (e.g. 16)"};
    if (fast_forward.train > 1) {
      const char* why = fidelity == Fidelity::Flow ? "flow fidelity has no packets to fast-forward"
                        : faults.any() ? "a train would take one fault decision for all its packets (remove the faults)"
                                       : nullptr;
      if (why)
        return {"fast_forward/train", std::string("fast_forward needs packet fidelity on lossless cut-through "
                                                  "switches without faults, one path per flow: ") +
                                          why + "; or set it to 0"};
    }
    if (fidelity == Fidelity::Flow && faults.any())
      return {"fidelity", "the flow fidelity loses nothing: it cannot inject faults (platform.network.faults sets "
                          "some); use fidelity \"packet\" to study faults, or remove the faults"};
    if (switch_.cut_through_header > ethernet.max_frame)
      return {"switch/cut_through_header",
              "a cut-through switch decides on the header of one frame: cut_through_header (" +
                  format_bytes(switch_.cut_through_header) + ") is larger than the largest frame (ethernet.max_frame " +
                  format_bytes(ethernet.max_frame) + "); use forwarding \"store-and-forward\" to wait for whole packets"};
    return {};
  }
  /// fast_forward.train's conditions on the switches (PlatformConfig::check: only on a topology that has some).
  config::FieldProblem check_train_switches() const
  {
    if (fast_forward.train <= 1)
      return {};
    const char* why = switch_.flow_control != FlowControl::Lossless
                          ? "a drop-tail queue would drop a train's packets as one (use switch.flow_control lossless)"
                      : switch_.forwarding != Forwarding::CutThrough
                          ? "a store-and-forward switch would hold a whole train at every hop where its packets "
                            "pipeline (use switch.forwarding cut-through)"
                      : routing == RoutingMode::Spray || routing == RoutingMode::Adaptive
                          ? "spray and adaptive routing choose a port per packet; a train would take one (use routing "
                            "ecmp or dmodk)"
                          : nullptr;
    if (why)
      return {"fast_forward/train", std::string("fast_forward needs packet fidelity on lossless cut-through switches "
                                                "without faults, one path per flow: ") +
                                        why + "; or set it to 0"};
    // (a port's room: its buffer, or with a shared buffer what the dynamic threshold leaves one port at most)
    const std::uint64_t longest = std::uint64_t{fast_forward.train} * ethernet.wire_bytes(ethernet.max_l3());
    const double room = switch_.shared_buffer.count > 0
                            ? static_cast<double>(switch_.shared_buffer.count) * switch_.alpha / (1 + switch_.alpha)
                            : static_cast<double>(switch_.port_buffer.count);
    if (room > 0 && static_cast<double>(longest) > room)
      return {"fast_forward/train",
              fmt::format("a train of {} packets ({} on the wire at the largest frame) would not fit a switch's "
                          "output queue ({}): a lossless port would take it into an empty queue only, holding "
                          "the others back where its packets would not; give fewer packets per train",
                          fast_forward.train, format_bytes(Bytes{longest}),
                          format_bytes(Bytes{static_cast<std::uint64_t>(room)}))};
    return {};
  }
  template <class V> void describe(V& v)
  {
    v.field("fidelity", fidelity,
            "packet: every packet through port queues and switches (loss, faults, reordering); flow: each message "
            "crosses its routed path as one flow, links shared max-min fair, no queues and no loss (for large "
            "clusters; RDMA sends a message as one flow, other transports each packet)");
    v.field("flow_sharing", flow_sharing,
            "flow fidelity only: how a link is shared. per-flow: max-min fair between its flows; input-ports (opt-in "
            "correction for lossless switches): between the links its flows come in on, as a lossless switch serves "
            "its paused input ports in turn (weighted max-min; simcore/net/README.md: 64-rank gather and all-to-all "
            "of 64 KiB within 2 % of packet fidelity where per-flow misses by +5.5 % and -4.3 %; a 16-rank "
            "all-to-all -6 %, a saturating one -17 %: use packet fidelity there)");
    v.field("flow_resolve_fraction", flow_resolve_fraction,
            "flow fidelity only: 0 (exact) re-solves the sharing at every flow start and end; f > 0 re-solves once "
            "the starts and ends since the last solve reach f x the flows in progress (at least 1), a new flow "
            "taking its equal share of its busiest link until then and the others keeping their rates (opt-in "
            "approximation for all-to-all-like traffic, where every change re-solves every flow; "
            "simcore/net/README.md: 0.02 within 0.3 % of the exact sharing on a 64-rank all-to-all and 0.8 % on a "
            "256-rank one, 0.05 +2 to +4 %, both faster than packet fidelity there; measured speeds in "
            "simcore/net/README.md)",
            config::Limits::between(0, 1));
    v.field("link", link, "cables and ports");
    v.field("switch", switch_, "switches");
    v.field("ethernet", ethernet, "Ethernet framing");
    v.field("routing", routing, "ecmp: one path per flow (hash); dmodk: one path per destination (up-port = destination / n^(tier-1) mod n, the InfiniBand fat-tree rule, and a down cable among a leaf-spine's parallel ones = destination mod n: contention-free for shift permutations); spray: random equal-cost port per packet; "
                                "adaptive: least-occupied equal-cost port per packet (spray and adaptive reorder)");
    v.field("faults", faults, "fault injection");
    v.field("fast_forward", fast_forward,
            "opt-in speed-up at packet fidelity: steady streams of RoCE packets cross the fabric as trains "
            "(simcore/net/README.md: its error and speed)");
  }
};

} // namespace nafsim::net

namespace nafsim::config {
template <> struct EnumNames<net::Forwarding> {
  static constexpr std::array list{std::pair{net::Forwarding::CutThrough, "cut-through"},
                                   std::pair{net::Forwarding::StoreAndForward, "store-and-forward"}};
};
template <> struct EnumNames<net::FlowControl> {
  static constexpr std::array list{std::pair{net::FlowControl::Drop, "drop"},
                                   std::pair{net::FlowControl::Lossless, "lossless"}};
};
template <> struct EnumNames<net::Fidelity> {
  static constexpr std::array list{std::pair{net::Fidelity::Packet, "packet"}, std::pair{net::Fidelity::Flow, "flow"}};
};
template <> struct EnumNames<net::FlowSharing> {
  static constexpr std::array list{std::pair{net::FlowSharing::PerFlow, "per-flow"},
                                   std::pair{net::FlowSharing::InputPorts, "input-ports"}};
};
template <> struct EnumNames<net::RoutingMode> {
  static constexpr std::array list{std::pair{net::RoutingMode::Ecmp, "ecmp"}, std::pair{net::RoutingMode::DModK, "dmodk"},
                                   std::pair{net::RoutingMode::Spray, "spray"},
                                   std::pair{net::RoutingMode::Adaptive, "adaptive"}};
};
} // namespace nafsim::config
