#pragma once
#include "simcore/engine/CausalGraph.hpp"
#include "simcore/net/Packet.hpp"

#include <optional>
#include <string>

namespace nafsim::net {

/// What a packet's time on the wire before it reaches its host was spent on (critical paths): its label, and the
/// record of the step that time began at (the cable's start, or the flow's). Empty when causes are not recorded.
struct WireCause {
  CauseLabel label;
  std::uint32_t parent = 0;
};

/// What a host's network interface connects to (a POE, a NIC model).
/// The host's egress port pulls packets when it is free: the endpoint decides what goes next
/// (priorities, arbitration between queue pairs) and when data is ready; this is also how the
/// port back-pressures its source.
class Endpoint {
public:
  /// A packet reached this host (at the time its last bit arrived). `p` is the fabric's own copy, in its packet
  /// pool: move it out (into a receive pipe) before anything that may make the fabric take a packet (tx_ready),
  /// which may move the pool's storage.
  virtual void deliver(Packet&& p) = 0;
  /// Whether this endpoint takes packets ahead (deliver_ahead): it does nothing at a packet's arrival but count it
  /// and pass it into a receive pipe of fixed latency (RxPipe), so the moment of the arrival itself is observed by no
  /// one. Asked once, when the endpoint is attached.
  virtual bool takes_ahead() const { return false; }
  /// The packet whose last bit reaches this host at `arrival` (later than now, and nothing on the way can change it:
  /// on its last cable on a fabric without faults to apply, or a flow that has ended), handed over now, so that the
  /// engine's receive event is its only event at this host. `wire`: what the time up to `arrival` is spent on, and
  /// where (the lead-in of the receive event's label when causes are recorded). Same moving rules as deliver().
  virtual void deliver_ahead(Packet&& /*p*/, SimTime /*arrival*/, const WireCause& /*wire*/) {}
  /// The egress port is free: the next packet to transmit now, or nothing. An endpoint that has
  /// nothing ready now calls Fabric::tx_ready() again once it has.
  virtual std::optional<Packet> pull() = 0;
  /// Asked right after pull() handed over a packet: whether the endpoint may have another without calling
  /// tx_ready(). The port then asks again when it is free (an event); an endpoint that answers false promises
  /// to call tx_ready() for its next packet, and the port spends no event on asking.
  virtual bool may_have_more() const { return true; }
  /// Whether every packet this endpoint hands over is a frame of the fabric's Ethernet (its wire_bytes from
  /// EthernetConfig::wire_bytes of an IP packet within max_frame, as nodes/platform/FrameCheck holds the engines
  /// to): the bounds the fabric's lookahead rests on (Fabric::pass_last_hop, which no hop takes while an attached
  /// endpoint does not promise it). Asked once, when the endpoint is attached.
  virtual bool sends_frames() const { return false; }
  /// The most wire bytes one packet of this endpoint may stand for when it is longer than a frame: a fast-forward
  /// train (NetworkConfig::fast_forward); 0: frames only. The bound of what an input cable starts toward a switch
  /// (Fabric::pass_last_hop). Asked once, when the endpoint is attached.
  virtual std::uint32_t longest_wire() const { return 0; }
  /// Asked right after pull() handed over a packet, when may_have_more() said yes: whether a pull when the port is
  /// free would nonetheless find nothing unless the endpoint calls tx_ready() first, and change nothing but what
  /// the endpoint can apply later (pull_skipped). The port then asks no question at its free date.
  virtual bool idle_until_told() const { return false; }
  /// The question the port did not ask: due at `at`, in the place `place` among that date's events
  /// (Scheduler::reserve_place). If tx_ready() comes before that place, the port asks it there after all (and the
  /// endpoint's next pull is that one); otherwise the endpoint applies its effects at its next step after it
  /// (Scheduler::passed).
  virtual void pull_skipped(SimTime /*at*/, std::uint64_t /*place*/) {}
  /// The packets this endpoint refused on arrival for want of room in its own state (a full table, buffer or
  /// channel), each kind with its count and the setting that gives room, for the note of a run whose transport gave
  /// up on a network that lost nothing (Fabric::failure_note). Empty: none.
  virtual std::string refusals() const { return {}; }

protected:
  ~Endpoint() = default;
};

} // namespace nafsim::net
