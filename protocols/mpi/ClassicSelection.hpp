#pragma once
// Open MPI's classic `coll/tuned` fixed decision rules: the hand-written functions of
// ompi/mca/coll/tuned/coll_tuned_decision_fixed.c, fitted to MX measurements on UTK's Grig cluster, in force from
// the 1.x series until 4.1.0 replaced them with generated tables (TunedSelection.hpp). They are the rules of the
// 2016 releases (1.10, 2.0) whose collectives the PAC paper's MPI follows ([OpenMPI 2016], section 5.1). Each rule
// names an algorithm (the 4.1 names for the same coll/base functions) and its segment size. The message size each
// looks at: bcast, reduce, allreduce the whole buffer; alltoall, gather, scatter one rank's block; allgather and
// reduce_scatter the total of all ranks' blocks; barrier none.

#include "protocols/mpi/TunedSelection.hpp"

#include <string>

namespace nafsim::mpi {

/// The classic rules' choice for `collective` on `ranks` processes moving `bytes` (as above) in `count` elements.
/// Throws std::invalid_argument for collectives without a tuned decision and for ranks == 0.
TunedChoice ompi_classic_select(coll::Collective collective, unsigned ranks, std::uint64_t bytes,
                                std::uint64_t count, bool commutative = true);

/// Whether coll/tuned's algorithm `name` for `collective` came after 2.0 (coll_tuned_<collective>_algorithm's
/// values in 2.0.x against 4.1.4: bcast knomial, scatter_allgather, scatter_allgather_ring; reduce and allreduce
/// rabenseifner; reduce_scatter butterfly; scatter linear_nb, each added to coll/base in 2018-2019): a 2.0 library
/// cannot be forced to run it.
bool ompi_after_2_0(coll::Collective collective, const std::string& name);

} // namespace nafsim::mpi
