#pragma once
// Drop-tail switches at flow fidelity: where the packet fabric would have dropped. The flow fabric is lossless by
// construction (a fluid shares a link, it does not queue), so a run on drop-tail switches comes out optimistic
// wherever the packet fabric's queues overflow: its RoCE engines then recover by go-back-N and retransmission
// timeouts (simcore/net/README.md: -60 % and -80 % on a 4:1 leaf-spine). No per-link factor corrects that (the
// packet fabric's goodput under a k-to-1 incast is 0.19-0.52 of the link for k = 6-48 and not monotone in k: the
// timeouts set it), so the flow fabric flags those ports instead, and the run's summary says so.
//
// The estimate, per switch output port l with a byte buffer B (the sender's NIC port is not watched: it paces its
// own queue), from what its lanes hold (each lane, a sender's flow identity, holds its flow in progress and the
// packets waiting behind it: what the sender's engine has handed over, which the packet fabric's sender puts on its
// cable as soon as each byte is ready, without congestion control). Per input port i of l: the bytes b_i of the
// lanes that come in on it, arriving at r_i, the lesser of its line rate and its flows' paces summed (a flow's
// pace: its bytes over the time until its last byte is ready, Packet::tail_ready, at most its sender's line rate,
// which the fabric divides by its sender's flows in progress, since the sender's engine takes them in turn);
// l drains at its rate R. If they all start at once, input i sends until T_i = b_i / r_i and the queue
//   Q(t) = sum_i r_i min(t, T_i) - R t
// is concave (its slope falls as inputs finish), so it peaks at one of the T_i; the port is flagged when that peak
// exceeds B. ASSUMPTION: the lanes' bytes start together, the waiting ones at the pace of the flow before them (an
// upper bound on the queue of bytes that arrive spread out). Measured against the packet fabric's drops on 28
// scenarios (simcore/net/README.md): a run is flagged exactly when its packet run drops (a k-to-1 incast of four
// 64 KiB messages per sender into a 1 MiB buffer from k = 5, both ways), but the all-to-all flags more ports than
// drop (137 against 4 on 64 ranks). A fluid cannot resolve what a buffer of a few packets drops: two packets that
// meet at a port (the TCP preset's 8-rank gather with 2 KiB and 8 KiB buffers: 109 and 11 drops, the estimate 4 % and
// 1 % of the buffer). So a port whose buffer holds fewer than kFewSegments of the segments crossing it is noted
// apart (ASSUMPTION: 8, from that gather: its 1.5 KB segments drop at 8 KiB and not at 64 KiB). Tests:
// tests/unit/simcore/DropTailWatchTest.cpp.

#include "simcore/units/Units.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace nafsim::net {

class DropTailWatch {
public:
  /// Per port: its line rate in bits per second and its buffer in bytes (0: not watched).
  DropTailWatch(std::vector<std::uint64_t> rate_bps, std::vector<std::uint64_t> buffer);

  /// A lane's flow starts on `path` (ports in path order, the sender's first) holding `bytes` (its lane's all), its
  /// bytes ready at `pace_bps` bits per second at most.
  void enter(std::span<const std::uint32_t> path, double bytes, double pace_bps, SimTime now);
  /// The lane of the flow on `path` takes `bytes` more (a packet waits behind the flow).
  void grow(std::span<const std::uint32_t> path, double bytes, SimTime now);
  /// The flow on `path` ended: its lane's `bytes` (as entered and grown) and its pace (as entered) leave the path.
  void leave(std::span<const std::uint32_t> path, double bytes, double pace_bps);
  /// A flow of segments of `wire_bytes` each crosses `path`: the watched ports on it whose buffer holds fewer than
  /// kFewSegments of them are counted (once each).
  void segments(std::span<const std::uint32_t> path, std::uint32_t wire_bytes);
  static constexpr std::uint32_t kFewSegments = 8;
  /// A flow's pace: `bytes` ready by `tail_ready` (from `now`), at most the line rate of its path's first port.
  double pace(std::span<const std::uint32_t> path, double bytes, SimTime now, SimTime tail_ready) const;

  struct Summary {
    std::uint32_t ports = 0;   ///< ports flagged (each once)
    double worst        = 0;   ///< the largest estimated queue over its buffer (flagged or not)
    std::uint32_t worst_port = 0;
    SimTime first;             ///< when the first port was flagged (ports > 0)
    std::uint32_t small_buffer_ports = 0; ///< ports whose buffer holds fewer than kFewSegments segments crossing them
    std::uint32_t segment            = 0; ///< ... the largest such segment (wire bytes)
    std::uint64_t buffer             = 0; ///< ... and the smallest such buffer
  };
  const Summary& summary() const { return summary_; }
  /// The estimated queue now of port `p`, in bytes (tests).
  double queue(std::uint32_t p) const;

private:
  void check(std::uint32_t p, SimTime now);
  std::vector<std::uint64_t> rate_, buffer_;
  struct Input {
    std::uint32_t port  = 0; ///< the input port
    std::uint32_t flows = 0; ///< flows in progress through it
    double pace         = 0; ///< their paces summed (bits per second)
    double bytes        = 0; ///< their lanes' bytes
  };
  std::vector<std::vector<Input>> inputs_; ///< per port: its input ports with flows
  Input* find(std::uint32_t p, std::uint32_t in); ///< port p's record of input `in`, or null
  Input& input(std::uint32_t p, std::uint32_t in); ///< ... made if there was none
  std::vector<std::uint8_t> flagged_; ///< per port: kOver, kSmall
  static constexpr std::uint8_t kOver = 1, kSmall = 2;
  struct Sending {
    double until = 0; ///< T_i: when it has brought all its bytes
    double rate  = 0; ///< r_i, bytes per second
    double bytes = 0; ///< b_i
  };
  mutable std::vector<Sending> order_; ///< queue(): its inputs by T_i (scratch)
  Summary summary_;
};

} // namespace nafsim::net
