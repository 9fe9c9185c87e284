#pragma once
// How software MPI picks a collective algorithm: OpenMPI's `coll/tuned` fixed decision rules
// (ompi/mca/coll/tuned/coll_tuned_decision_fixed.c, the tables generated from the
// ompi-collectives-tuning measurements, introduced in OpenMPI 4.1.0 and used by the ACCL+ paper's
// baseline, OpenMPI 4.1.3). Each collective has its own algorithm numbering (the values of the MCA
// parameter `coll_tuned_<collective>_algorithm`); a choice is a function of the communicator size
// and the message size as OpenMPI measures it:
//   bcast, reduce, allreduce: count x datatype size (the whole buffer);
//   gather, scatter, allgather, alltoall: one rank's block (scount x datatype size);
//   reduce_scatter: the sum of all ranks' blocks;  barrier: the communicator size only.
// Assumptions: a build without heterogeneous-datatype support (the default), commutative operations
// unless stated. See protocols/mpi/README.md for the tables in words.

#include "protocols/collectives/Schedule.hpp"

#include <cstdint>
#include <string>

namespace nafsim::mpi {

struct TunedChoice {
  int id = 0;           ///< OpenMPI's algorithm number for this collective (0: the classic rules name it only)
  std::string name;     ///< OpenMPI's algorithm name ("binomial", "ring", ...)
  std::uint64_t segment_bytes = 0; ///< the segment size the rule passes (the 4.1 tables: none)
};

/// OpenMPI 4.1 tuned's fixed decision for `collective` on `ranks` processes moving `bytes` (as
/// defined above). Throws std::invalid_argument for collectives without a tuned decision (send,
/// copy, ...) and for ranks == 0.
TunedChoice ompi_tuned_select(coll::Collective collective, unsigned ranks, std::uint64_t bytes,
                              bool commutative = true);

/// The name OpenMPI gives algorithm `id` of `collective` (e.g. reduce 5 = "binomial").
std::string ompi_algorithm_name(coll::Collective collective, int id);

} // namespace nafsim::mpi
