#include "protocols/mpi/TunedSelection.hpp"

#include <fmt/format.h>
#include <initializer_list>
#include <stdexcept>
#include <utility>
#include <vector>

namespace nafsim::mpi {

namespace {

using coll::Collective;

/// One band of communicator sizes: below `ranks_below` processes, the algorithm is the one of the
/// first size step whose bound the message is below, else `otherwise`.
struct Band {
  unsigned ranks_below; ///< 0 = no upper bound (the last band)
  std::vector<std::pair<std::uint64_t, int>> steps;
  int otherwise;
};

int pick(const std::vector<Band>& table, unsigned ranks, std::uint64_t bytes)
{
  for (auto const& b : table) {
    if (b.ranks_below != 0 && ranks >= b.ranks_below)
      continue;
    for (auto [below, alg] : b.steps)
      if (bytes < below)
        return alg;
    return b.otherwise;
  }
  throw std::logic_error("tuned decision table without a last band");
}

// The tables of coll_tuned_decision_fixed.c, transcribed band by band (communicator size bands,
// then message-size steps). Comments name the algorithm numbers.

// allreduce: 1 basic_linear, 2 nonoverlapping, 3 recursive_doubling, 4 ring, 5 segmented_ring, 6 rabenseifner
const std::vector<Band> kAllreduce{
    {4, {{8, 4}, {4096, 3}, {8192, 4}, {16384, 3}, {65536, 4}, {262144, 5}}, 6},
    {8, {{16, 4}, {8192, 3}}, 6},
    {16, {{8192, 3}}, 6},
    {32, {{64, 5}, {4096, 3}}, 6},
    {64, {{128, 5}}, 6},
    {128, {{262144, 3}}, 6},
    {256, {{131072, 2}, {262144, 3}}, 6},
    {512, {{4096, 2}}, 6},
    {2048, {{2048, 2}, {16384, 3}}, 6},
    {4096, {{2048, 2}, {4096, 5}, {16384, 3}}, 6},
    {0, {{2048, 2}, {16384, 5}, {32768, 3}}, 6},
};
const std::vector<Band> kAllreduceNonCommutative{
    {4, {{131072, 3}}, 1},
    {8, {}, 3},
    {16, {{1048576, 3}}, 2},
    {128, {}, 3},
    {256, {{131072, 2}, {524288, 3}}, 2},
    {512, {{4096, 2}, {524288, 3}}, 2},
    {0, {{2048, 2}}, 3},
};

// alltoall: 1 linear, 2 pairwise, 3 modified_bruck, 4 linear_sync, 5 two_proc
const std::vector<Band> kAlltoall{
    {3, {{2, 2}, {4, 5}, {16, 2}, {64, 5}, {256, 2}, {4096, 5}, {32768, 2}, {262144, 4}, {1048576, 5}}, 2},
    {8, {{8192, 4}, {16384, 1}, {65536, 4}, {524288, 1}, {1048576, 2}}, 1},
    {16, {{262144, 4}}, 1},
    {32, {{4, 4}, {512, 3}, {8192, 4}, {32768, 1}, {262144, 4}, {524288, 1}}, 4},
    {64, {{512, 3}, {524288, 1}}, 4},
    {128, {{1024, 3}, {2048, 1}, {4096, 4}, {262144, 1}}, 2},
    {256, {{1024, 3}, {2048, 4}, {262144, 1}}, 2},
    {512, {{1024, 3}, {8192, 4}, {32768, 1}}, 2},
    {1024, {{512, 3}, {8192, 4}, {16384, 1}, {131072, 4}, {262144, 1}}, 2},
    {2048, {{512, 3}, {1024, 4}, {2048, 1}, {16384, 4}, {262144, 1}}, 4},
    {4096, {{1024, 3}, {4096, 4}, {8192, 1}, {131072, 4}}, 1},
    {0, {{2048, 3}, {8192, 4}, {16384, 1}, {32768, 4}, {65536, 1}}, 4},
};

// barrier: 1 linear, 2 double_ring, 3 recursive_doubling, 4 bruck, 5 two_proc, 6 tree
const std::vector<Band> kBarrier{
    {4, {}, 3}, {8, {}, 1}, {64, {}, 3}, {256, {}, 4}, {512, {}, 6}, {1024, {}, 4}, {4096, {}, 6}, {0, {}, 4},
};

// bcast: 1 basic_linear, 2 chain, 3 pipeline, 4 split_binary_tree, 5 binary_tree, 6 binomial, 7 knomial,
// 8 scatter_allgather, 9 scatter_allgather_ring
const std::vector<Band> kBcast{
    {4, {{32, 3}, {256, 5}, {512, 3}, {1024, 7}, {32768, 1}, {131072, 5}, {262144, 2}, {524288, 1}, {1048576, 6}}, 5},
    {8, {{64, 5}, {128, 6}, {2048, 5}, {8192, 6}, {1048576, 1}}, 2},
    {16, {{8, 7}, {64, 5}, {4096, 7}, {16384, 5}, {32768, 6}}, 1},
    {32, {{4096, 7}, {1048576, 6}}, 8},
    {64, {{2048, 6}}, 7},
    {128, {}, 7},
    {256, {{2, 6}, {16384, 5}, {32768, 1}, {65536, 5}}, 7},
    {1024, {{16384, 7}, {32768, 4}}, 7},
    {2048, {{524288, 7}}, 8},
    {4096, {{262144, 7}}, 8},
    {0, {{8192, 7}, {16384, 5}, {262144, 7}}, 8},
};

// reduce: 1 linear, 2 chain, 3 pipeline, 4 binary, 5 binomial, 6 in-order_binary, 7 rabenseifner
const std::vector<Band> kReduce{
    {4, {{8, 7}, {16, 4}, {32, 3}, {262144, 1}, {524288, 3}, {1048576, 2}}, 3},
    {8, {{4096, 4}, {65536, 2}, {262144, 5}, {524288, 1}, {1048576, 5}}, 1},
    {16, {{8192, 4}}, 5},
    {32, {{4096, 4}}, 5},
    {256, {}, 5},
    {512, {{8192, 5}, {16384, 6}}, 5},
    {2048, {}, 5},
    {4096, {{512, 5}, {1024, 6}, {8192, 5}, {16384, 6}}, 5},
    {0, {{16, 5}, {32, 6}, {1024, 5}, {2048, 6}, {8192, 5}, {16384, 6}}, 5},
};
const std::vector<Band> kReduceNonCommutative{
    {4, {{8, 6}}, 1},
    {8, {}, 1},
    {16, {{1024, 6}, {8192, 1}, {16384, 6}, {262144, 1}}, 6},
    {128, {}, 6},
    {256, {{512, 6}, {1024, 1}}, 6},
    {0, {}, 6},
};

// reduce_scatter: 1 non-overlapping, 2 recursive_halving, 3 ring, 4 butterfly
const std::vector<Band> kReduceScatter{
    {4, {{65536, 3}, {131072, 4}}, 3},
    {8, {{8, 1}, {262144, 2}}, 3},
    {32, {{262144, 2}}, 3},
    {64, {{64, 1}, {2048, 2}, {524288, 4}}, 3},
    {128, {{256, 1}, {512, 2}, {2048, 4}, {4096, 2}}, 4},
    {256, {{256, 1}, {512, 2}}, 4},
    {512, {{256, 1}, {1024, 2}}, 4},
    {1024, {{512, 1}, {2048, 2}, {8192, 4}, {16384, 2}}, 4},
    {2048, {{512, 1}, {4096, 2}, {16384, 4}, {32768, 2}}, 4},
    {4096, {{512, 1}, {4096, 2}}, 4},
    {0, {{1024, 1}, {8192, 2}}, 4},
};

// allgather: 1 linear, 2 bruck, 3 recursive_doubling, 4 ring, 5 neighbor, 6 two_proc
const std::vector<Band> kAllgather{
    {3, {}, 6},
    {32, {}, 3},
    {64, {{1024, 3}, {65536, 5}}, 4},
    {128, {{512, 3}, {65536, 5}}, 4},
    {256, {{512, 3}, {131072, 5}, {524288, 4}, {1048576, 5}}, 4},
    {512, {{32, 3}, {128, 2}, {1024, 3}, {131072, 5}, {524288, 4}, {1048576, 5}}, 4},
    {1024, {{64, 3}, {256, 2}, {2048, 3}}, 5},
    {2048, {{4, 3}, {8, 2}, {16, 3}, {32, 2}, {256, 3}, {512, 2}, {4096, 3}}, 5},
    {4096, {{32, 2}, {128, 3}, {512, 2}, {4096, 3}}, 5},
    {0, {{2, 3}, {8, 2}, {16, 3}, {512, 2}, {4096, 3}}, 5},
};

// gather: 1 basic_linear, 2 binomial, 3 linear_sync (heterogeneous-datatype support off)
const std::vector<Band> kGather{
    {4, {{2, 3}, {4, 1}, {32768, 2}, {65536, 1}, {131072, 2}}, 3},
    {8, {{1024, 2}, {8192, 1}, {32768, 2}, {262144, 1}}, 3},
    {256, {}, 2},
    {512, {{2048, 2}, {8192, 1}}, 2},
    {0, {}, 2},
};

// scatter: 1 basic_linear, 2 binomial, 3 linear_nb
const std::vector<Band> kScatter{
    {4, {{2, 3}, {131072, 1}, {262144, 3}}, 1},
    {8, {{2048, 2}, {4096, 1}, {8192, 2}, {32768, 1}, {1048576, 3}}, 1},
    {16, {{16384, 2}, {1048576, 3}}, 1},
    {32, {{16384, 2}, {32768, 1}}, 3},
    {64, {{512, 2}, {8192, 3}, {16384, 2}}, 3},
    {0, {{512, 2}}, 3},
};

const std::vector<const char*>& names(Collective c)
{
  static const std::vector<const char*> allreduce{"basic_linear", "nonoverlapping", "recursive_doubling", "ring",
                                                  "segmented_ring", "rabenseifner"};
  static const std::vector<const char*> alltoall{"linear", "pairwise", "modified_bruck", "linear_sync", "two_proc"};
  static const std::vector<const char*> barrier{"linear", "double_ring", "recursive_doubling", "bruck", "two_proc",
                                                "tree"};
  static const std::vector<const char*> bcast{"basic_linear", "chain",    "pipeline", "split_binary_tree",
                                              "binary_tree",  "binomial", "knomial",  "scatter_allgather",
                                              "scatter_allgather_ring"};
  static const std::vector<const char*> reduce{"linear",   "chain",           "pipeline",    "binary",
                                               "binomial", "in-order_binary", "rabenseifner"};
  static const std::vector<const char*> reduce_scatter{"non-overlapping", "recursive_halving", "ring", "butterfly"};
  static const std::vector<const char*> allgather{"linear", "bruck", "recursive_doubling", "ring", "neighbor",
                                                  "two_proc"};
  static const std::vector<const char*> gather{"basic_linear", "binomial", "linear_sync"};
  static const std::vector<const char*> scatter{"basic_linear", "binomial", "linear_nb"};
  switch (c) {
    case Collective::AllReduce: return allreduce;
    case Collective::AllToAll: return alltoall;
    case Collective::Barrier: return barrier;
    case Collective::Bcast: return bcast;
    case Collective::Reduce: return reduce;
    case Collective::ReduceScatter: return reduce_scatter;
    case Collective::AllGather: return allgather;
    case Collective::Gather: return gather;
    case Collective::Scatter: return scatter;
    default: break;
  }
  throw std::invalid_argument(fmt::format("OpenMPI's tuned component has no decision for {}",
                                          coll::collective_name(c)));
}

} // namespace

std::string ompi_algorithm_name(Collective c, int id)
{
  auto const& n = names(c);
  if (id < 1 || static_cast<std::size_t>(id) > n.size())
    throw std::invalid_argument(fmt::format("{} has no OpenMPI algorithm {}", coll::collective_name(c), id));
  return n[static_cast<std::size_t>(id - 1)];
}

TunedChoice ompi_tuned_select(Collective c, unsigned ranks, std::uint64_t bytes, bool commutative)
{
  if (ranks == 0)
    throw std::invalid_argument("a communicator has at least one process");
  int id = 0;
  switch (c) {
    case Collective::AllReduce: id = pick(commutative ? kAllreduce : kAllreduceNonCommutative, ranks, bytes); break;
    // (OpenMPI special-cases exactly 2 processes for these two; a single process takes the next band.)
    case Collective::AllToAll: id = pick(kAlltoall, ranks == 1 ? 3 : ranks, bytes); break;
    case Collective::Barrier: id = pick(kBarrier, ranks, 0); break;
    case Collective::Bcast: id = pick(kBcast, ranks, bytes); break;
    case Collective::Reduce: id = pick(commutative ? kReduce : kReduceNonCommutative, ranks, bytes); break;
    case Collective::ReduceScatter: id = commutative ? pick(kReduceScatter, ranks, bytes) : 1; break;
    case Collective::AllGather: id = pick(kAllgather, ranks == 1 ? 3 : ranks, bytes); break;
    case Collective::Gather: id = pick(kGather, ranks, bytes); break;
    case Collective::Scatter: id = pick(kScatter, ranks, bytes); break;
    default: names(c); // throws
  }
  return TunedChoice{id, ompi_algorithm_name(c, id)};
}

} // namespace nafsim::mpi
