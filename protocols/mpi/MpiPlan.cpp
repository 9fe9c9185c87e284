#include "protocols/mpi/MpiPlan.hpp"

#include "protocols/collectives/OmpiAlgorithms.hpp"
#include "protocols/collectives/OmpiTopology.hpp"
#include "protocols/mpi/ClassicSelection.hpp"
#include "protocols/mpi/MpichSelection.hpp"
#include "protocols/mpi/TunedSelection.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <optional>
#include <stdexcept>

namespace nafsim::mpi {

using coll::Algorithm;
using coll::Collective;

namespace {

struct Mapping {
  Algorithm algorithm;
  const char* substitution; ///< nullptr: nafsim runs the library's algorithm itself
};

/// The nafsim schedule `m` for the library's algorithm `library_algorithm` (one it does not model as itself).
MpiPlan mapped(const coll::CollectiveCall& c, const std::string& library_algorithm, Mapping m);

bool pof2(int p)
{
  return p > 0 && (p & (p - 1)) == 0;
}

/// OpenMPI's algorithms nafsim does not model (none of them picked for 2-16 ranks but the Rabenseifner reduce
/// on >= p' elements) as the closest nafsim schedule; the others run as themselves (plan_openmpi).
Mapping ompi_mapping(Collective c, const std::string& name)
{
  switch (c) {
    case Collective::Reduce:
      if (name == "rabenseifner")
        return {Algorithm::Binomial, "Rabenseifner (reduce-scatter + gather) run as a binomial tree"};
      break;
    case Collective::AllReduce:
      if (name == "nonoverlapping") // one of its parts (the library's own decisions) is not modeled
        return {Algorithm::ReduceBcast, "reduce + bcast whose parts are not all modeled run as binomial trees"};
      break;
    case Collective::AllGather:
      if (name == "linear")
        return {Algorithm::Ring, "run as a ring"};
      break;
    default: break;
  }
  throw std::logic_error(fmt::format("OpenMPI's {} algorithm '{}' is neither modeled nor mapped",
                                     coll::collective_name(c), name));
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

/// OpenMPI's choice `name` (with its segment size) as its own algorithm (Algorithm::OpenMpi), when nafsim has it;
/// the parts of the composites are the library's own decisions for them (`lib`'s rules, with their segment sizes).
/// nullopt: not modeled (a substitution follows).
std::optional<coll::OmpiOptions> ompi_own(const coll::CollectiveCall& c, const std::string& name,
                                          std::uint64_t segment_bytes = 0, Library lib = Library::OpenMpi)
{
  coll::OmpiOptions o;
  o.name          = name;
  o.segment_bytes = segment_bytes;
  const auto ranks = static_cast<unsigned>(c.size);
  auto part        = [&](Collective coll, std::uint64_t bytes) {
    return lib == Library::OpenMpi20 ? ompi_classic_select(coll, ranks, bytes, c.count)
                                     : ompi_tuned_select(coll, ranks, bytes);
  };
  auto reduce_part = [&](std::uint64_t bytes) {
    const auto ch               = part(Collective::Reduce, bytes);
    o.reduce_part               = ch.name;
    o.reduce_part_segment_bytes = ch.segment_bytes;
  };
  if (c.collective == Collective::Reduce && name == "rabenseifner") {
    // ompi_coll_base_reduce_intra_redscat_gather hands fewer elements than p' to the linear reduce.
    if (c.count >= static_cast<std::uint64_t>(coll::ompi::floor_power_of_two(std::max(c.size, 1))))
      return std::nullopt;
    o.name = "linear";
  }
  if (c.collective == Collective::AllReduce && name == "nonoverlapping") {
    reduce_part(c.bytes());
    const auto bcast_part      = part(Collective::Bcast, c.bytes());
    o.bcast_part               = bcast_part.name;
    o.bcast_part_segment_bytes = bcast_part.segment_bytes;
  }
  if (c.collective == Collective::ReduceScatter && name == "non-overlapping")
    reduce_part(c.bytes() * static_cast<std::uint64_t>(c.size));
  if (!coll::ompi_has(c.collective, o.name) || (o.name == "two_proc" && c.size != 2) ||
      !coll::ompi_has(Collective::Reduce, o.reduce_part) || !coll::ompi_has(Collective::Bcast, o.bcast_part))
    return std::nullopt;
  o.name = coll::ompi_effective(c, o);
  return o;
}

} // namespace

std::uint64_t decision_bytes(Library lib, const coll::CollectiveCall& c)
{
  const std::uint64_t block = c.bytes();
  const auto p              = static_cast<std::uint64_t>(c.size);
  switch (c.collective) {
    case Collective::ReduceScatter: return block * p;
    case Collective::AllGather: return lib == Library::OpenMpi ? block : block * p; // 4.1: one block; classic: all
    default: return block;
  }
}

std::optional<MpiPlan> plan_openmpi(const coll::CollectiveCall& c, const std::string& name, Library lib,
                                    std::uint64_t segment_bytes)
{
  auto own = ompi_own(c, name, segment_bytes, lib);
  if (!own) {
    // nonoverlapping whose part (the library's own decision) nafsim does not model runs as the library's choice of
    // it does (plan_collective), said as a substitution.
    if (c.collective == Collective::AllReduce && name == "nonoverlapping" && c.size > 1)
      return mapped(c, name, ompi_mapping(c.collective, name));
    return std::nullopt;
  }
  MpiPlan plan;
  plan.library_algorithm = name;
  plan.algorithm         = Algorithm::OpenMpi;
  plan.options.ompi      = *own;
  return plan;
}

std::string schedule_name(const MpiPlan& plan)
{
  if (!plan.runs)
    return "none";
  if (plan.algorithm == Algorithm::OpenMpi)
    return "openmpi:" + plan.options.ompi.name;
  return coll::algorithm_name(plan.algorithm);
}

namespace {
/// The library's own choice for `call` (its tables, its algorithm or nafsim's closest schedule).
MpiPlan library_plan(Library lib, const coll::CollectiveCall& c)
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
  if (lib == Library::OpenMpi20) {
    const auto ch          = ompi_classic_select(c.collective, ranks, bytes, c.count);
    plan.library_algorithm = ch.name;
    if (auto own = ompi_own(c, ch.name, ch.segment_bytes, lib)) {
      plan.algorithm    = Algorithm::OpenMpi;
      plan.options.ompi = *own;
      return plan;
    }
    m = ompi_mapping(c.collective, plan.library_algorithm);
  } else if (lib == Library::OpenMpi) {
    plan.library_algorithm = ompi_tuned_select(c.collective, ranks, bytes).name;
    if (auto own = plan_openmpi(c, plan.library_algorithm, lib))
      return *own;
    m = ompi_mapping(c.collective, plan.library_algorithm);
  } else {
    MpichCall mc;
    mc.collective = c.collective;
    mc.ranks      = ranks;
    mc.bytes      = bytes;
    mc.elements   = c.count;
    plan.library_algorithm = mpich_select(mc);
    m                      = mpich_mapping(c.collective, plan.library_algorithm);
  }
  return mapped(c, plan.library_algorithm, m);
}
} // namespace

bool returns_at_once(const coll::CollectiveCall& c)
{
  return c.count == 0 && c.collective != Collective::Barrier && c.collective != Collective::Send &&
         c.collective != Collective::Recv;
}

MpiPlan plan_collective(Library lib, const coll::CollectiveCall& c)
{
  MpiPlan plan = library_plan(lib, c);
  // The schedule is not run (MpiProcess::run), and the tables say so.
  if (returns_at_once(c)) {
    plan.library_algorithm = "none: count 0 (the library returns at once)";
    plan.substitution.clear();
    plan.runs = false;
  }
  return plan;
}

namespace {

MpiPlan mapped(const coll::CollectiveCall& c, const std::string& library_algorithm, Mapping m)
{
  MpiPlan plan;
  plan.library_algorithm = library_algorithm;
  plan.algorithm         = m.algorithm;
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
  // OpenMPI's nonoverlapping allreduce whose parts are not all modeled runs binomial trees.
  if (plan.algorithm == Algorithm::ReduceBcast) {
    plan.options.reduce_sub = Algorithm::Binomial;
    plan.options.bcast_sub  = Algorithm::Binomial;
  }
  if (auto why = coll::check_applicable(c, plan.algorithm); !why.empty())
    throw std::logic_error("MPI plan not runnable: " + why);
  return plan;
}

} // namespace

} // namespace nafsim::mpi
