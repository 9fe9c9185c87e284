#pragma once
// Builders of per-rank schedules: the algorithms of the ACCL+ firmware (ccl_offload_control.c) and
// the ones it lacks (recursive doubling, binomial gather, Rabenseifner, pairwise all-to-all).

#include "protocols/collectives/AlgorithmOptions.hpp"
#include "protocols/collectives/Schedule.hpp"
#include "protocols/collectives/Segments.hpp"

#include <string>

namespace nafsim::coll {

/// Empty if `alg` can run `call`; otherwise why not (e.g. "needs a power-of-two number of ranks").
std::string check_applicable(const CollectiveCall& call, Algorithm alg);

/// The schedule of `rank` (throws std::invalid_argument if the algorithm does not apply).
Schedule build_schedule(const CollectiveCall& call, Algorithm alg, Protocol proto, int rank,
                        const AlgorithmOptions& opt = {});

} // namespace nafsim::coll
