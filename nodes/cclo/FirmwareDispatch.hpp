#pragma once
// The firmware's dispatch of a call (ccl_offload_control.c's switch over the call's scenario): plan it, flush the
// retry queue before a barrier, and run the firmware's own function for it (FirmwareCall) or, for an algorithm or
// protocol the firmware lacks, its schedule through the schedule executor (ScheduleExecutor), on the same
// primitives. The CCLO gives this program to its micro-controller (Firmware's CallDispatch).

#include "nodes/cclo/Firmware.hpp"

namespace nafsim::nodes {

/// Run (or resume, from `call.step`) one call picked by the firmware's main loop.
Task<FwStatus> dispatch_call(Firmware& fw, CcloPending& call);

} // namespace nafsim::nodes
