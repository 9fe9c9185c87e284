#include "nodes/cclo/FirmwareDispatch.hpp"

#include "nodes/cclo/FirmwareCall.hpp"
#include "nodes/cclo/ScheduleExecutor.hpp"

namespace nafsim::nodes {

Task<FwStatus> dispatch_call(Firmware& fw, CcloPending& p)
{
  FirmwareCall call(fw, p);
  if (!call.ok())
    co_return FwStatus::Done;
  fw.set_waits_for({});
  // barrier(): `if(world.size == 1){ return NO_ERROR; }` comes before `flush_retries = true`: a one-rank barrier
  // neither waits for the retry queue nor changes which queue the firmware serves first.
  const bool barrier = call.call().call.collective == coll::Collective::Barrier && call.call().call.size > 1;
  if (barrier && fw.barrier_waits_for_retries())
    co_return FwStatus::NotReady;
  FwStatus st = FwStatus::Done;
  if (const coll::Schedule* s = call.schedule()) {
    ScheduleExecutor executor(fw, call);
    co_await executor.run(*s);
  } else {
    st = co_await call.run();
  }
  if (barrier && st == FwStatus::Done)
    fw.barrier_done();
  co_return st;
}

} // namespace nafsim::nodes
