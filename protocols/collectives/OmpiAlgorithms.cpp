#include "protocols/collectives/OmpiAlgorithms.hpp"

#include "protocols/collectives/OmpiBuilders.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace nafsim::coll {

const std::vector<std::string>& ompi_algorithms(Collective c)
{
  static const std::map<Collective, std::vector<std::string>> names{
      {Collective::Bcast,
       {"basic_linear", "chain", "pipeline", "binary_tree", "binomial", "knomial", "scatter_allgather",
        "scatter_allgather_ring", "split_binary_tree"}},
      {Collective::Reduce, {"linear", "chain", "pipeline", "binary", "binomial", "in-order_binary"}},
      {Collective::AllReduce,
       {"basic_linear", "nonoverlapping", "recursive_doubling", "ring", "segmented_ring", "rabenseifner"}},
      {Collective::Gather, {"basic_linear", "binomial", "linear_sync"}},
      {Collective::Scatter, {"basic_linear", "binomial", "linear_nb"}},
      {Collective::AllGather, {"bruck", "recursive_doubling", "ring", "two_proc", "neighbor"}},
      {Collective::AllToAll, {"linear", "pairwise", "modified_bruck", "linear_sync", "two_proc"}},
      {Collective::ReduceScatter, {"non-overlapping", "recursive_halving", "ring", "butterfly"}},
      {Collective::Barrier, {"linear", "double_ring", "recursive_doubling", "bruck", "two_proc", "tree"}},
  };
  static const std::vector<std::string> none;
  auto it = names.find(c);
  return it == names.end() ? none : it->second;
}

bool ompi_has(Collective c, const std::string& name)
{
  auto const& v = ompi_algorithms(c);
  return std::find(v.begin(), v.end(), name) != v.end();
}

std::uint64_t ompi_segment_count(std::uint64_t segment_bytes, unsigned elem_bytes, std::uint64_t count)
{
  if (segment_bytes >= elem_bytes && segment_bytes < elem_bytes * count) {
    std::uint64_t seg            = segment_bytes / elem_bytes;
    const std::uint64_t residual = segment_bytes - seg * elem_bytes;
    if (residual > elem_bytes / 2)
      ++seg;
    return seg;
  }
  return count;
}

std::string ompi_effective(const CollectiveCall& call, const OmpiOptions& opt)
{
  std::string name          = opt.name;
  const std::uint64_t n     = call.count;
  const auto p              = static_cast<std::uint64_t>(call.size);
  const auto pof2           = static_cast<std::uint64_t>(ompi::floor_power_of_two(std::max(call.size, 1)));
  if (call.size <= 1)
    return name;
  if (call.collective == Collective::AllReduce) {
    if (name == "segmented_ring" && n < p * ompi_segment_count(opt.segment_bytes, call.elem_bytes, n))
      name = "ring";
    if (name == "ring" && n < p)
      name = "recursive_doubling";
    if (name == "rabenseifner" && n < pof2) // ompi_coll_base_allreduce_intra_redscat_allgather: "switching to basic
      name = "basic_linear";                 // linear allreduce"
  }
  if (call.collective == Collective::AllGather && name == "recursive_doubling" && pof2 != p)
    name = "bruck";
  if (call.collective == Collective::AllGather && name == "neighbor" && p % 2 != 0)
    name = "ring"; // ompi_coll_base_allgather_intra_neighborexchange: "odd size %d, switching to ring algorithm"
  if (call.collective == Collective::Bcast && (name == "scatter_allgather" || name == "scatter_allgather_ring") && n < p)
    name = "basic_linear";
  return name;
}

OmpiReads ompi_reads(const CollectiveCall& call, const OmpiOptions& opt)
{
  OmpiReads r;
  if (call.size <= 1)
    return r;
  const std::string name = ompi_effective(call, opt);
  auto tree              = [&](const std::string& n) {
    return n == "chain" || n == "pipeline" || n == "binary_tree" || n == "binary" || n == "binomial" ||
           n == "knomial" || n == "in-order_binary" || n == "split_binary_tree";
  };
  switch (call.collective) {
    case Collective::Bcast:
      r.segment_size  = tree(name);
      r.chain_fanout  = name == "chain";
      r.knomial_radix = name == "knomial";
      break;
    case Collective::Reduce:
      r.segment_size = tree(name);
      r.chain_fanout = name == "chain";
      break;
    case Collective::Gather: r.segment_size = name == "linear_sync"; break;
    case Collective::AllReduce:
      // The segment size decides whether the segmented ring runs as the ring (ompi_effective).
      r.segment_size  = opt.name == "segmented_ring";
      r.knomial_radix = name == "nonoverlapping" && opt.bcast_part == "knomial";
      break;
    default: break;
  }
  return r;
}

namespace detail {

void build_openmpi(Builder& b, const CollectiveCall& call, int rank, const OmpiOptions& opt)
{
  if (!ompi_has(call.collective, opt.name))
    throw std::invalid_argument("Open MPI has no modeled " + std::string(collective_name(call.collective)) +
                                " algorithm '" + opt.name + "'");
  if (opt.name == "two_proc" && call.size != 2)
    throw std::invalid_argument("Open MPI's two_proc algorithms run on exactly 2 ranks, not " +
                                std::to_string(call.size));
  MpiProgram m(b);
  ompi_alg::Ctx c{m, call.size, rank, call.elem_bytes, opt};
  const std::uint64_t n = call.count;
  switch (call.collective) {
    case Collective::Bcast: return ompi_alg::bcast(c, opt.name, call.root, n, in(0, n), out(0, n));
    case Collective::Reduce: return ompi_alg::reduce(c, opt.name, call.root, n, in(0, n), out(0, n));
    case Collective::Gather: return ompi_alg::gather(c, opt.name, call.root, n);
    case Collective::Scatter:
      return ompi_alg::scatter(c, opt.name, call.root, n, in(0, n * static_cast<std::uint64_t>(call.size)));
    case Collective::AllReduce: return ompi_alg::allreduce(c, opt.name, n);
    case Collective::AllGather: return ompi_alg::allgather(c, opt.name, n);
    case Collective::AllToAll: return ompi_alg::alltoall(c, opt.name, n);
    case Collective::ReduceScatter: return ompi_alg::reduce_scatter(c, opt.name, n);
    case Collective::Barrier: return ompi_alg::barrier(c, opt.name);
    default: break;
  }
  throw std::invalid_argument(std::string("MPI has no collective for ") + collective_name(call.collective));
}

} // namespace detail

} // namespace nafsim::coll
