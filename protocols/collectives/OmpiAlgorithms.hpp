#pragma once
// Open MPI 4.1's coll/base algorithms (ompi/mca/coll/base/coll_base_*.c) as schedules, written call by
// call as the library runs them (MpiProgram.hpp): the trees of coll_base_topo.c, segmented tree
// broadcasts and reductions (bcast_intra_generic, reduce_generic), recursive doubling / halving with
// the ranks beyond a power of two folded in, Bruck, rings, linear and synchronised linear variants,
// the barriers. Selected by Algorithm::OpenMpi with AlgorithmOptions::ompi naming the algorithm as
// coll/tuned does (protocols/mpi chooses it). Every name below is the algorithm itself, not a stand-in.

#include "protocols/collectives/Algorithms.hpp"

#include <string>
#include <vector>

namespace nafsim::coll {

/// coll/tuned's names of the algorithms nafsim runs for `c` (empty for collectives MPI lacks).
const std::vector<std::string>& ompi_algorithms(Collective c);
/// Whether nafsim runs Open MPI's algorithm `name` for `c`.
bool ompi_has(Collective c, const std::string& name);
/// COLL_BASE_COMPUTED_SEGCOUNT: elements per segment for a segment size in bytes (0 or not below the
/// message: the whole message, one segment).
std::uint64_t ompi_segment_count(std::uint64_t segment_bytes, unsigned elem_bytes, std::uint64_t count);
/// The algorithm Open MPI ends up running when coll/tuned calls `opt.name` for `call`: some functions hand
/// over to another one for small counts or sizes they do not handle (ring and Rabenseifner allreduce to
/// recursive doubling below p and p' elements, the unsegmented segmented ring to the ring, recursive-doubling
/// allgather to Bruck on a non-power-of-two communicator). The schedules do the same; this names it.
std::string ompi_effective(const CollectiveCall& call, const OmpiOptions& opt);

/// Which of coll/tuned's parameters the algorithm `opt.name` reads for `call` (a value not read changes nothing):
/// the segment size (the tree broadcasts and reductions, the synchronised linear gather, the segmented ring), the
/// chain fanout (the chain broadcast and reduction), the k-nomial radix (a k-nomial broadcast, the algorithm's or
/// a composite's part). A composite's parts read neither the segment size nor the fanout: they are the library's
/// own decisions (OmpiOptions::reduce_part).
struct OmpiReads {
  bool segment_size  = false;
  bool chain_fanout  = false;
  bool knomial_radix = false;
};
OmpiReads ompi_reads(const CollectiveCall& call, const OmpiOptions& opt);

} // namespace nafsim::coll
