#pragma once
// From a software-MPI library's algorithm choice to a schedule nafsim can run: the library's own
// decision (TunedSelection / MpichSelection), then the schedule builder that implements that
// algorithm, or, where nafsim has no builder for it yet, the closest one (reported as a
// substitution, never silently). The table is in protocols/mpi/README.md.

#include "protocols/collectives/Algorithms.hpp"

#include <optional>
#include <string>

namespace nafsim::mpi {

/// OpenMpi: Open MPI 4.1's tuned tables (the ACCL+ baseline); OpenMpi20: Open MPI 2.0's (2016) classic tuned rules
/// (ClassicSelection.hpp: the PAC paper's MPI); Mpich: MPICH's selection.
enum class Library { OpenMpi, Mpich, OpenMpi20 };

struct MpiPlan {
  std::string library_algorithm; ///< the library's name for its choice ("binomial", "MPIR_Bcast_intra_binomial")
  coll::Algorithm algorithm = coll::Algorithm::Flat; ///< the schedule that runs
  coll::AlgorithmOptions options;
  /// Empty when the schedule is the library's algorithm; otherwise what differs (e.g. "binary tree
  /// run as a binomial tree").
  std::string substitution;
  /// False when the library returns at once, before its collective component (a count of 0): no schedule runs.
  bool runs = true;
};

/// Whether the libraries return before their collective component, sending nothing: a collective of count 0 but a
/// barrier (Open MPI 4.1 ompi/mpi/c: bcast.c, reduce.c, allreduce.c `if (0 == count) return MPI_SUCCESS`, gather.c,
/// scatter.c, allgather.c, alltoall.c on their counts, reduce_scatter.c when every count is 0; MPICH's
/// MPIR_*_intra_auto alike). A send or receive of 0 bytes is still a message (ob1 sends its header).
bool returns_at_once(const coll::CollectiveCall& call);

/// The plan of `lib` for `call` (CollectiveCall counts as the collective workload does: elements
/// per rank's block). Throws std::invalid_argument for calls MPI has no collective for (copy, ...).
MpiPlan plan_collective(Library lib, const coll::CollectiveCall& call);

/// Open MPI's algorithm `name` (coll/tuned's name, as coll_tuned_<collective>_algorithm forces it) for
/// `call`, as Open MPI `lib` runs it (a composite's parts are `lib`'s own decisions), or nullopt if nafsim does not
/// model that algorithm. `segment_bytes`: the segment size forced with it (coll_tuned_<collective>_algorithm_
/// segmentsize; 0: unsegmented), which decides where the algorithm hands the call to another (a segmented ring whose
/// segments are not smaller than a ring block runs the ring).
std::optional<MpiPlan> plan_openmpi(const coll::CollectiveCall& call, const std::string& name,
                                    Library lib = Library::OpenMpi, std::uint64_t segment_bytes = 0);

/// The schedule that runs, for tables: an algorithm name, "openmpi:<name>" for Open MPI's own algorithm, or "none"
/// when the library returns at once.
std::string schedule_name(const MpiPlan& plan);

/// The message size the library's decision looks at, for `call` (see TunedSelection.hpp).
std::uint64_t decision_bytes(Library lib, const coll::CollectiveCall& call);

} // namespace nafsim::mpi
