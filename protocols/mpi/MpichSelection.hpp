#pragma once
// How MPICH picks a collective algorithm (the MPICH-over-TCP baseline of ACCL+ Fig. 13): the default
// collective-selection tree of MPICH 4 (src/mpi/coll/coll_selection.json, intra-communicators,
// send buffer not in place), as a function of the communicator size, the message size as MPICH
// measures it, and the element count:
//   bcast, reduce, allreduce: the whole buffer (avg_msg_size); allgather, reduce_scatter: all ranks'
//   blocks together (total_msg_size); alltoall: one block (avg_msg_size); gather, scatter, barrier:
//   no size dependence.
// "pof2" is the largest power of two not above the communicator size.

#include "protocols/collectives/Schedule.hpp"

#include <cstdint>
#include <string>

namespace nafsim::mpi {

struct MpichCall {
  coll::Collective collective = coll::Collective::Bcast;
  unsigned ranks              = 2;
  std::uint64_t bytes         = 0; ///< as defined above
  std::uint64_t elements      = 0; ///< reduce / allreduce: element count
  bool builtin_op             = true;
  bool commutative            = true;
};

/// MPICH's algorithm name (e.g. "MPIR_Bcast_intra_binomial"); throws std::invalid_argument for a
/// collective without a selection (send, copy, ...) or ranks == 0.
std::string mpich_select(const MpichCall& call);

} // namespace nafsim::mpi
