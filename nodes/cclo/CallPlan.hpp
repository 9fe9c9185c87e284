#pragma once
// What the firmware makes of a call before it moves anything: the protocol and algorithm it selects (the tuning
// registers, the link, a forced choice), the schedule when the firmware has no function of its own for them, and
// why the call cannot run when it cannot. FirmwareCall takes its first step from here, and workloads check their
// calls with the same code before a run (a setting that cannot work fails `--check-only`, not the run).

#include "nodes/cclo/CcloCore.hpp"
#include "nodes/cclo/CcloLink.hpp"

#include <string>

namespace nafsim::nodes {

struct CallPlan {
  coll::Selection sel;
  bool rendezvous = false;
  bool firmware   = false;    ///< the firmware's own function runs it (no schedule built)
  coll::Schedule schedule;     ///< otherwise: the schedule the executor runs
  std::string error;           ///< why it cannot run ("" : it can)
  bool stream_refused = false; ///< the error is a kernel stream the firmware's function never reads or writes
  bool count_refused  = false; ///< the error is a count of 0 (no driver call, or a firmware that hangs on it)
  bool write_refused  = false; ///< the error is a rendezvous block larger than the link's largest WRITE
};

/// The firmware's tuning registers as the selection reads them (a reduce_flat_tree_max_count of 0 is the driver's
/// min(max_rendezvous_size / reduce_flat_tree_max_ranks, 32 KiB)).
coll::CcloTuning tuning_of(const CcloConfig& cfg);
/// Whether the firmware has a function of its own for `c` run by `a` (eager or rendezvous).
bool firmware_runs(coll::Collective c, coll::Algorithm a, bool rendezvous);
/// Plan `call` on a CCLO configured by `cfg` over a link that can (`rendezvous_link`) or cannot carry the rendezvous
/// protocol's RDMA WRITE (`transport` names it in errors).
CallPlan plan_call(const CcloCall& call, const CcloConfig& cfg, bool rendezvous_link, const std::string& transport);
/// Plan `call` on a CCLO configured by `cfg` over `link`: what its firmware will make of it (an eager segment the link
/// cannot place is an error too).
CallPlan plan_call(const CcloCall& call, const CcloConfig& cfg, const CcloLink& link);

} // namespace nafsim::nodes
