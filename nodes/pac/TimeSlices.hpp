#pragma once
// The PAC paper's virtual platform runs its nodes in time slices (section 3.1): "the simulator calculates
// the number of instructions that should be executed by a processor in a time slice, and then it simulates
// those instructions. At the end of the time slice, the simulation of this particular processing node is
// suspended and the next node is simulated for another time slice." OVPsim is a sequential program: the
// nodes' slices of one round run one after another on the simulating host, and a node's memory writes
// (the paper's nodes talk only through writes into global address spaces, 3.1) are seen by whichever node
// reads them afterwards in that host order, whatever the two nodes' own clocks say.
//
// nafsim replays that order on its engine: round k of node i (its clock from k*Q to (k+1)*Q, Q the quantum)
// occupies engine dates [(k*N + i)*Q, (k*N + i + 1)*Q) of N nodes. A node's work is dated on its own clock
// and scheduled at the matching engine date (SlicedClock); a write another node makes is delivered at the
// engine date it is made, and the reader sees it at its own clock's date then: inside its slice, exactly;
// otherwise the start of its next slice. So a node writing to a higher-numbered node within a round is seen
// in that same round, from the reader's slice start on, and may be seen at a reader's date earlier than the
// writer's own; a node writing to a lower-numbered one is seen from the next round. Senders run ahead of
// receivers by up to a slice, as on the paper's platform.
//
// Engine dates grow N times faster than node clocks (128 nodes, 1 ms quantum: 128 ms of engine time per
// round); nothing happens in a slice whose node is idle, so the cost is the nodes' work, not the slices.

#include "nodes/pac/NodeClock.hpp"

namespace nafsim::nodes {

class TimeSlices {
public:
  /// `nodes` nodes in round-robin slices of `quantum` (> 0) of their own clocks.
  TimeSlices(std::size_t nodes, SimTime quantum);
  /// The engine date at which node `n`'s clock reads `t` (a slice's end is the next slice's start).
  SimTime engine_date(std::size_t n, SimTime t) const;
  /// Node `n`'s clock at engine date `d`: exact within its slice; otherwise the start of its next slice.
  SimTime local(std::size_t n, SimTime d) const;
  /// The first engine date at or after `d` where a round begins: every node's clock there reads the same.
  SimTime round_start(SimTime d) const;

private:
  std::size_t nodes_;
  SimTime q_;
};

/// A node's clock on the sliced platform.
class SlicedClock final : public NodeClock {
public:
  SlicedClock(Scheduler& s, const TimeSlices& ts, std::size_t node) : s_(s), ts_(ts), node_(node) {}
  SimTime now() const override { return ts_.local(node_, s_.now()); }
  void at(SimTime t, std::function<void()> fn) override
  {
    s_.call_at(std::max(s_.now(), ts_.engine_date(node_, std::max(t, now()))), std::move(fn));
  }

private:
  Scheduler& s_;
  const TimeSlices& ts_;
  std::size_t node_;
};

} // namespace nafsim::nodes
