#pragma once
// What a schedule's builder takes besides the call: the eager segmentation, the flat gather's fan-in, the
// composites' parts, and which of Open MPI's algorithms runs (Algorithms.hpp: build_schedule).

#include "protocols/collectives/Schedule.hpp"

#include <cstdint>
#include <string>

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
  /// Radix of the k-nomial broadcast (coll_tuned_bcast_algorithm_knomial_radix, default 4: one MCA parameter for every
  /// k-nomial broadcast, the fixed rules' and a composite's part too).
  int knomial_radix = 4;
  /// Composites (allreduce nonoverlapping, reduce_scatter non-overlapping): the reduce and bcast algorithms
  /// the library's own decisions pick for the parts, with the segment sizes those decisions pass (4.1's rules: 0).
  /// The parts reach coll/tuned's decision (comm->c_coll->coll_reduce, coll_bcast), not the composite's forced
  /// parameters: they run with these segments and faninout 0 whatever segment_bytes and chain_fanout say.
  std::string reduce_part = "linear";
  std::string bcast_part  = "basic_linear";
  std::uint64_t reduce_part_segment_bytes = 0;
  std::uint64_t bcast_part_segment_bytes  = 0;
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

} // namespace nafsim::coll
