#include "protocols/mpi/MpichSelection.hpp"

#include <fmt/format.h>
#include <stdexcept>

namespace nafsim::mpi {

namespace {
bool pow2(unsigned n)
{
  return n != 0 && (n & (n - 1)) == 0;
}
std::uint64_t pof2(unsigned n)
{
  std::uint64_t p = 1;
  while (p * 2 <= n)
    p *= 2;
  return p;
}
} // namespace

std::string mpich_select(const MpichCall& c)
{
  using coll::Collective;
  if (c.ranks == 0)
    throw std::invalid_argument("a communicator has at least one process");
  const std::uint64_t b = c.bytes;
  switch (c.collective) {
    case Collective::Bcast:
      if (c.ranks < 8 || b <= 12288)
        return "MPIR_Bcast_intra_binomial";
      if (pow2(c.ranks) && b <= 524288)
        return "MPIR_Bcast_intra_scatter_recursive_doubling_allgather";
      return "MPIR_Bcast_intra_scatter_ring_allgather";
    case Collective::AllReduce:
      if (b <= 8 || !c.builtin_op || c.elements < pof2(c.ranks))
        return "MPIR_Allreduce_intra_recursive_doubling";
      return "MPIR_Allreduce_intra_reduce_scatter_allgather";
    case Collective::AllGather:
      if (pow2(c.ranks))
        return b < 524288 ? "MPIR_Allgather_intra_recursive_doubling" : "MPIR_Allgather_intra_ring";
      return b < 81920 ? "MPIR_Allgather_intra_brucks" : "MPIR_Allgather_intra_ring";
    case Collective::Reduce:
      if (b <= 2048 || !c.builtin_op || c.elements < pof2(c.ranks))
        return "MPIR_Reduce_intra_binomial";
      return "MPIR_Reduce_intra_reduce_scatter_gather";
    case Collective::ReduceScatter:
      if (c.commutative)
        return b < 524288 ? "MPIR_Reduce_scatter_intra_recursive_halving" : "MPIR_Reduce_scatter_intra_pairwise";
      return pow2(c.ranks) ? "MPIR_Reduce_scatter_intra_noncommutative" : "MPIR_Reduce_scatter_intra_recursive_doubling";
    case Collective::Gather: return "MPIR_Gather_intra_binomial";
    case Collective::Scatter: return "MPIR_Scatter_intra_binomial";
    case Collective::Barrier: return "MPIR_Barrier_intra_k_dissemination";
    case Collective::AllToAll:
      if (c.ranks >= 8 && b <= 256)
        return "MPIR_Alltoall_intra_brucks";
      return b <= 32768 ? "MPIR_Alltoall_intra_scattered" : "MPIR_Alltoall_intra_pairwise";
    default: break;
  }
  throw std::invalid_argument(fmt::format("MPICH's selection has no rule for {}", coll::collective_name(c.collective)));
}

} // namespace nafsim::mpi
