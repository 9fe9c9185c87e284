#pragma once
// (Critical paths) the step that began a run of work on one resource, each piece behind the one before: a NIC
// engine's payload writes into memory (PayloadWrites), its own payload reads for transmission (RdmaPoe). What waits
// for the run's end is caused by that step, so its path walks back through the run (the resource's) rather than
// through the step that issued the last piece (a packet's arrival, a port's pull), as the host CPU's queued work
// walks back through the CPU (MpiProcess::cpu). ASSUMPTION: the pieces share one port, as one engine's payloads do.

#include "simcore/engine/Scheduler.hpp"

#include <algorithm>
#include <cstdint>

namespace nafsim::nodes {

class RunStart {
public:
  explicit RunStart(Scheduler& s) : sched_(s) {}
  /// A piece whose first byte is through at `first` and last at `last` (MemoryPort's Stream): it streams right behind
  /// the run (its first byte no later than the run's last: it waited for the port) or begins a run with the running
  /// step. A piece that only takes the memory's latency after an idle port begins one: latency is not a queue.
  void issued(SimTime first, SimTime last)
  {
    if (sched_.causes() && first > end_)
      began_ = sched_.cause_mark();
    end_ = std::max(end_, last);
  }
  /// The step that began the run in progress (Scheduler::kRunningStep: none recorded; 0 is the run's origin, where
  /// the first work request of a run is posted).
  std::uint32_t began() const { return began_; }

private:
  Scheduler& sched_;
  SimTime end_;
  std::uint32_t began_ = Scheduler::kRunningStep;
};

} // namespace nafsim::nodes
