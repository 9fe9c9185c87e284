#include "protocols/mpi/MpiPlan.hpp"

#include "protocols/mpi/MpichSelection.hpp"
#include "protocols/mpi/TunedSelection.hpp"

#include <fmt/format.h>
#include <stdexcept>

namespace nafsim::mpi {

using coll::Algorithm;
using coll::Collective;

namespace {

struct Mapping {
  Algorithm algorithm;
  const char* substitution; ///< nullptr: nafsim runs the library's algorithm itself
};

bool pof2(int p)
{
  return p > 0 && (p & (p - 1)) == 0;
}

/// OpenMPI's algorithm `name` for collective `c` as a nafsim schedule.
Mapping ompi_mapping(Collective c, const std::string& name)
{
  auto is = [&](const char* n) { return name == n; };
  switch (c) {
    case Collective::Bcast:
      if (is("basic_linear"))
        return {Algorithm::Flat, nullptr};
      if (is("binomial"))
        return {Algorithm::Binomial, nullptr};
      if (is("knomial"))
        return {Algorithm::Binomial, "k-nomial tree (radix 4) run as a binomial tree"};
      if (is("binary_tree") || is("split_binary_tree"))
        return {Algorithm::Binomial, "segmented binary tree run as an unsegmented binomial tree"};
      if (is("chain") || is("pipeline"))
        return {Algorithm::Binomial, "segmented chain run as a binomial tree"};
      return {Algorithm::Binomial, "scatter + allgather run as a binomial tree"};
    case Collective::Reduce:
      if (is("linear"))
        return {Algorithm::Flat, nullptr};
      if (is("chain") || is("pipeline"))
        return {Algorithm::Ring, "segmented chain run unsegmented"};
      if (is("binomial"))
        return {Algorithm::Binomial, "segmented binomial tree run unsegmented"};
      if (is("binary") || is("in-order_binary"))
        return {Algorithm::Binomial, "segmented binary tree run as an unsegmented binomial tree"};
      return {Algorithm::Binomial, "Rabenseifner (reduce-scatter + gather) run as a binomial tree"};
    case Collective::AllReduce:
      if (is("basic_linear") || is("nonoverlapping"))
        return {Algorithm::ReduceBcast, nullptr};
      if (is("ring") || is("segmented_ring"))
        return {Algorithm::Ring, is("ring") ? nullptr : "segmented ring run unsegmented"};
      if (is("recursive_doubling"))
        return {Algorithm::RecursiveDoubling, nullptr};
      return {Algorithm::Rabenseifner, nullptr};
    case Collective::Gather:
      if (is("binomial"))
        return {Algorithm::Binomial, nullptr};
      return {Algorithm::Flat, is("basic_linear") ? nullptr : "linear with synchronisation run as linear"};
    case Collective::Scatter:
      if (is("binomial"))
        return {Algorithm::Flat, "binomial tree run as linear (no binomial scatter schedule yet)"};
      return {Algorithm::Flat, nullptr};
    case Collective::AllGather:
      if (is("recursive_doubling"))
        return {Algorithm::RecursiveDoubling, nullptr};
      if (is("ring"))
        return {Algorithm::Ring, nullptr};
      if (is("bruck"))
        return {Algorithm::RecursiveDoubling, "Bruck run as recursive doubling"};
      return {Algorithm::Ring, "run as a ring"};
    case Collective::AllToAll:
      if (is("pairwise"))
        return {Algorithm::Pairwise, nullptr};
      if (is("modified_bruck"))
        return {Algorithm::Pairwise, "modified Bruck run as pairwise exchange"};
      return {Algorithm::Flat, is("linear") ? nullptr : "linear with a bounded window run as linear"};
    case Collective::ReduceScatter:
      if (is("ring"))
        return {Algorithm::Ring, nullptr};
      if (is("non-overlapping"))
        return {Algorithm::ReduceScatterComposite, nullptr};
      return {Algorithm::Ring, "recursive halving / butterfly run as a ring"};
    case Collective::Barrier:
      return {Algorithm::Flat, is("linear") ? nullptr : "run as a linear (fan-in, fan-out) barrier"};
    default: break;
  }
  throw std::invalid_argument(fmt::format("MPI has no collective for {}", coll::collective_name(c)));
}

/// MPICH's algorithm `name` as a nafsim schedule.
Mapping mpich_mapping(Collective c, const std::string& name)
{
  auto has = [&](const char* n) { return name.find(n) != std::string::npos; };
  switch (c) {
    case Collective::Bcast:
      return {Algorithm::Binomial, has("binomial") ? nullptr : "scatter + allgather run as a binomial tree"};
    case Collective::Reduce:
      return {Algorithm::Binomial, has("binomial") ? nullptr : "reduce-scatter + gather run as a binomial tree"};
    case Collective::AllReduce:
      if (has("recursive_doubling"))
        return {Algorithm::RecursiveDoubling, nullptr};
      return {Algorithm::Rabenseifner, nullptr};
    case Collective::Gather: return {Algorithm::Binomial, nullptr};
    case Collective::Scatter: return {Algorithm::Flat, "binomial tree run as linear (no binomial scatter schedule yet)"};
    case Collective::AllGather:
      if (has("recursive_doubling"))
        return {Algorithm::RecursiveDoubling, nullptr};
      if (has("ring"))
        return {Algorithm::Ring, nullptr};
      return {Algorithm::Ring, "Bruck run as a ring"};
    case Collective::AllToAll:
      if (has("pairwise"))
        return {Algorithm::Pairwise, nullptr};
      return {Algorithm::Flat, has("scattered") ? "scattered (windowed linear) run as linear" : "Bruck run as linear"};
    case Collective::ReduceScatter:
      return {Algorithm::Ring, has("pairwise") ? "pairwise run as a ring" : "recursive halving run as a ring"};
    case Collective::Barrier: return {Algorithm::Flat, "dissemination run as a linear barrier"};
    default: break;
  }
  throw std::invalid_argument(fmt::format("MPI has no collective for {}", coll::collective_name(c)));
}

} // namespace

std::uint64_t decision_bytes(Library lib, const coll::CollectiveCall& c)
{
  const std::uint64_t block = c.bytes();
  const auto p              = static_cast<std::uint64_t>(c.size);
  switch (c.collective) {
    case Collective::ReduceScatter: return block * p;
    case Collective::AllGather: return lib == Library::Mpich ? block * p : block;
    default: return block;
  }
}

MpiPlan plan_collective(Library lib, const coll::CollectiveCall& c)
{
  MpiPlan plan;
  switch (c.collective) {
    case Collective::Send:
    case Collective::Recv: plan.algorithm = Algorithm::Direct; plan.library_algorithm = "point-to-point"; return plan;
    case Collective::Nop:
    case Collective::Copy:
    case Collective::Combine:
      throw std::invalid_argument(
          fmt::format("MPI has no collective for {} (a CCLO-only operation)", coll::collective_name(c.collective)));
    default: break;
  }
  const auto ranks   = static_cast<unsigned>(c.size);
  const auto bytes   = decision_bytes(lib, c);
  Mapping m{};
  if (lib == Library::OpenMpi) {
    plan.library_algorithm = ompi_tuned_select(c.collective, ranks, bytes).name;
    m                      = ompi_mapping(c.collective, plan.library_algorithm);
  } else {
    MpichCall mc;
    mc.collective = c.collective;
    mc.ranks      = ranks;
    mc.bytes      = bytes;
    mc.elements   = c.count;
    plan.library_algorithm = mpich_select(mc);
    m                      = mpich_mapping(c.collective, plan.library_algorithm);
  }
  plan.algorithm = m.algorithm;
  if (m.substitution)
    plan.substitution = m.substitution;
  // The libraries run recursive doubling / halving on any size (extra steps fold the ranks above the
  // largest power of two in); nafsim's schedules need a power of two, so other sizes run a ring.
  if ((plan.algorithm == Algorithm::RecursiveDoubling || plan.algorithm == Algorithm::Rabenseifner) && !pof2(c.size)) {
    plan.substitution = fmt::format("{} on {} ranks (not a power of two) run as a ring",
                                    coll::algorithm_name(plan.algorithm), c.size);
    plan.algorithm    = Algorithm::Ring;
  }
  if (c.size == 1 && c.collective == Collective::Barrier)
    plan.algorithm = Algorithm::Flat;
  // Composites: OpenMPI's nonoverlapping allreduce = its own reduce + bcast decisions; basic_linear =
  // linear reduce + linear bcast; reduce-scatter non-overlapping = reduce + scatter (linear).
  if (plan.algorithm == Algorithm::ReduceBcast || plan.algorithm == Algorithm::ReduceScatterComposite) {
    if (lib == Library::OpenMpi && plan.library_algorithm == "nonoverlapping") {
      coll::CollectiveCall r = c;
      r.collective           = Collective::Reduce;
      plan.options.reduce_sub = plan_collective(lib, r).algorithm;
      r.collective            = Collective::Bcast;
      plan.options.bcast_sub  = plan_collective(lib, r).algorithm;
    } else {
      plan.options.reduce_sub = Algorithm::Flat;
      plan.options.bcast_sub  = Algorithm::Flat;
    }
  }
  if (auto why = coll::check_applicable(c, plan.algorithm); !why.empty())
    throw std::logic_error("MPI plan not runnable: " + why);
  return plan;
}

} // namespace nafsim::mpi
