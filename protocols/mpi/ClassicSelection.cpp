#include "protocols/mpi/ClassicSelection.hpp"

#include <fmt/format.h>
#include <stdexcept>

namespace nafsim::mpi {

using coll::Collective;

namespace {

bool power_of_two(unsigned p)
{
  return p > 0 && (p & (p - 1)) == 0;
}

TunedChoice allreduce(unsigned p, std::uint64_t bytes, std::uint64_t count, bool commutative)
{
  if (bytes < 10000) // intermediate_message
    return {0, "recursive_doubling"};
  if (commutative && count > p) {
    const std::uint64_t segment = 1 << 20;
    if (std::uint64_t{p} * segment >= bytes)
      return {0, "ring"};
    return {0, "segmented_ring", segment};
  }
  return {0, "nonoverlapping"};
}

TunedChoice alltoall(unsigned p, std::uint64_t block)
{
  if (p == 2)
    return {0, "two_proc"};
  // ompi_coll_tuned_alltoall_small_msg 200 and _intermediate_msg 3000 (the MCA parameters' defaults)
  if (block < 200 && p > 12)
    return {0, "modified_bruck"};
  if (block < 3000)
    return {0, "linear"};
  return {0, "pairwise"};
}

TunedChoice barrier(unsigned p)
{
  if (p == 2)
    return {0, "two_proc"};
  return power_of_two(p) ? TunedChoice{0, "recursive_doubling"} : TunedChoice{0, "bruck"};
}

TunedChoice bcast(unsigned p, std::uint64_t bytes, std::uint64_t count)
{
  const double m = static_cast<double>(bytes), n = p;
  if (bytes < 2048 || count <= 1) // small_message_size
    return {0, "binomial"};
  if (bytes < 370728) // intermediate_message_size
    return {0, "split_binary_tree", 1024};
  if (n < 1.6134e-6 * m + 2.1102) // a_p128, b_p128
    return {0, "pipeline", 128 << 10};
  if (p < 13)
    return {0, "split_binary_tree", 8 << 10};
  if (n < 2.3679e-6 * m + 1.1787) // a_p64, b_p64
    return {0, "pipeline", 64 << 10};
  if (n < 3.2118e-6 * m + 8.7936) // a_p16, b_p16
    return {0, "pipeline", 16 << 10};
  return {0, "pipeline", 8 << 10};
}

TunedChoice reduce(unsigned p, std::uint64_t bytes, std::uint64_t count, bool commutative)
{
  const double m = static_cast<double>(bytes), n = p;
  if (!commutative) {
    if (p < 12 && bytes < 2048)
      return {0, "linear"};
    return {0, "in-order_binary"};
  }
  if (p < 8 && bytes < 512)
    return {0, "linear"};
  if ((p < 8 && bytes < 20480) || bytes < 2048 || count <= 1)
    return {0, "binomial"};
  if (n > 0.6016 / 1024.0 * m + 1.3496) // a1, b1
    return {0, "binomial", 1024};
  if (n > 0.0410 / 1024.0 * m + 9.7128) // a2, b2
    return {0, "pipeline", 1024};
  if (n > 0.0422 / 1024.0 * m + 1.1614) // a3, b3
    return {0, "binary", 32 << 10};
  if (n > 0.0033 / 1024.0 * m + 1.6761) // a4, b4
    return {0, "pipeline", 32 << 10};
  return {0, "pipeline", 64 << 10};
}

TunedChoice reduce_scatter(unsigned p, std::uint64_t total, bool commutative)
{
  if (!commutative)
    return {0, "non-overlapping"};
  if (total <= 12 * 1024 || (total <= 256 * 1024 && power_of_two(p)) ||
      static_cast<double>(p) >= 0.0012 * static_cast<double>(total) + 8.0)
    return {0, "recursive_halving"};
  return {0, "ring"};
}

TunedChoice allgather(unsigned p, std::uint64_t total)
{
  if (p == 2)
    return {0, "two_proc"};
  if (total < 50000)
    return power_of_two(p) ? TunedChoice{0, "recursive_doubling"} : TunedChoice{0, "bruck"};
  return p % 2 ? TunedChoice{0, "ring"} : TunedChoice{0, "neighbor"};
}

TunedChoice gather(unsigned p, std::uint64_t block)
{
  if (block > 92160) // large_block_size
    return {0, "linear_sync", 32768};
  if (block > 6000) // intermediate_block_size
    return {0, "linear_sync", 1024};
  if (p > 60 || (p > 10 && block < 1024))
    return {0, "binomial"};
  return {0, "basic_linear"};
}

TunedChoice scatter(unsigned p, std::uint64_t block)
{
  if (p > 10 && block < 300)
    return {0, "binomial"};
  return {0, "basic_linear"};
}

} // namespace

TunedChoice ompi_classic_select(Collective c, unsigned ranks, std::uint64_t bytes, std::uint64_t count,
                                bool commutative)
{
  if (ranks == 0)
    throw std::invalid_argument("a communicator has at least one process");
  switch (c) {
    case Collective::AllReduce: return allreduce(ranks, bytes, count, commutative);
    case Collective::AllToAll: return alltoall(ranks, bytes);
    case Collective::Barrier: return barrier(ranks);
    case Collective::Bcast: return bcast(ranks, bytes, count);
    case Collective::Reduce: return reduce(ranks, bytes, count, commutative);
    case Collective::ReduceScatter: return reduce_scatter(ranks, bytes, commutative);
    case Collective::AllGather: return allgather(ranks, bytes);
    case Collective::Gather: return gather(ranks, bytes);
    case Collective::Scatter: return scatter(ranks, bytes);
    default: break;
  }
  throw std::invalid_argument(fmt::format("Open MPI's tuned rules have no decision for {}", coll::collective_name(c)));
}

bool ompi_after_2_0(Collective collective, const std::string& name)
{
  switch (collective) {
    case Collective::Bcast: return name == "knomial" || name == "scatter_allgather" || name == "scatter_allgather_ring";
    case Collective::Reduce:
    case Collective::AllReduce: return name == "rabenseifner";
    case Collective::ReduceScatter: return name == "butterfly";
    case Collective::Scatter: return name == "linear_nb";
    default: return false;
  }
}

} // namespace nafsim::mpi
