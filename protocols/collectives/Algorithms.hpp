#pragma once
// Builders of per-rank schedules: the algorithms of the ACCL+ firmware (ccl_offload_control.c) and
// the ones it lacks (recursive doubling, binomial gather, Rabenseifner, pairwise all-to-all).

#include "protocols/collectives/Schedule.hpp"

#include <string>
#include <utility>
#include <vector>

namespace nafsim::coll {

/// Algorithm::OpenMpi: which of Open MPI 4.1 coll/base's algorithms runs, with the parameters coll/tuned passes it.
struct OmpiOptions {
  /// coll/tuned's name of the algorithm for the call's collective ("binary_tree", "recursive_doubling", ...).
  std::string name;
  /// Segment size in bytes (coll_tuned_<collective>_algorithm_segmentsize); 0: unsegmented, as the 4.1 fixed
  /// decision rules call every algorithm.
  std::uint64_t segment_bytes = 0;
  /// Chains of the chain algorithms; 0 is forced to 1 (a pipeline), as the fixed rules' faninout 0 is.
  int chain_fanout = 0;
  /// Radix of the k-nomial broadcast (coll_tuned_bcast_knomial_radix, default 4).
  int knomial_radix = 4;
  /// Composites (allreduce nonoverlapping, reduce_scatter non-overlapping): the reduce and bcast algorithms
  /// the library's own decisions pick for the parts.
  std::string reduce_part = "linear";
  std::string bcast_part  = "basic_linear";
};

struct AlgorithmOptions {
  /// Eager: elements per Rx buffer, where an algorithm segments explicitly (flat bcast, ring
  /// allreduce, as the firmware does). 0: no explicit segmentation.
  std::uint64_t segment_elems = 0;
  /// Flat gather: receives announced at once (0: all of them).
  unsigned gather_fanin = 0;
  /// Sub-algorithms of the composites (reduce + bcast, reduce + scatter).
  Algorithm reduce_sub = Algorithm::Flat;
  Algorithm bcast_sub  = Algorithm::Flat;
  /// Algorithm::OpenMpi.
  OmpiOptions ompi;
};

/// (offset, count) pieces of `count` elements in segments of `seg` elements (one piece if seg is 0 or
/// count <= seg; one empty piece if count is 0): how eager transfers are cut to Rx-buffer size.
std::vector<std::pair<std::uint64_t, std::uint64_t>> segments(std::uint64_t count, std::uint64_t seg);

/// Empty if `alg` can run `call`; otherwise why not (e.g. "needs a power-of-two number of ranks").
std::string check_applicable(const CollectiveCall& call, Algorithm alg);

/// The schedule of `rank` (throws std::invalid_argument if the algorithm does not apply).
Schedule build_schedule(const CollectiveCall& call, Algorithm alg, Protocol proto, int rank,
                        const AlgorithmOptions& opt = {});

} // namespace nafsim::coll
