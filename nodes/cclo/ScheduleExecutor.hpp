#pragma once
// Runs a collective's schedule (protocols/collectives) on the CCLO for the algorithms the firmware
// does not have (recursive doubling, Rabenseifner, pairwise all-to-all, binomial gather, eager
// variants of rendezvous-only algorithms): a dataflow walk in schedule order that issues every
// operation whose dependencies are done (at most `max_inflight` moves outstanding), leaves a
// rendezvous send whose address has not come for later, and otherwise waits for a notification or a
// move status; a notification's arrival costs one rendezvous lookup before the walk acts on it.
// Costs per step, move and notification are the firmware's.

#include "nodes/cclo/FirmwareCall.hpp"

namespace nafsim::nodes {

class ScheduleExecutor {
public:
  ScheduleExecutor(Firmware& fw, FirmwareCall& call) : fw_(fw), call_(call) {}
  void run(const coll::Schedule& s);

private:
  Firmware& fw_;
  FirmwareCall& call_;
};

} // namespace nafsim::nodes
