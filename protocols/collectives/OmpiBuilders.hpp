#pragma once
// Internal to protocols/collectives: the Open MPI coll/base algorithms (OmpiAlgorithms.hpp), one
// function per collective taking coll/tuned's algorithm name. Rooted collectives in OmpiRooted.cpp,
// the others in OmpiSymmetric.cpp, the dispatch and names in OmpiAlgorithms.cpp.

#include "protocols/collectives/Algorithms.hpp"
#include "protocols/collectives/MpiProgram.hpp"
#include "protocols/collectives/OmpiTopology.hpp"

#include <string>

namespace nafsim::coll::detail::ompi_alg {

/// What every builder needs: the program being written, the communicator, this rank, the element
/// size (segment sizes are in bytes) and the options.
struct Ctx {
  MpiProgram& m;
  int p;
  int r;
  unsigned eb;
  const OmpiOptions& opt;
};

/// Broadcast `n` elements from `root` (its data in `src`) into `dst` on the others.
void bcast(Ctx& c, const std::string& name, int root, std::uint64_t n, Slice src, Slice dst);
/// ompi_coll_base_bcast_intra_scatter_allgather(_ring) on at least p elements (OmpiScatterAllgather.cpp).
void bcast_scatter_allgather(Ctx& c, int root, std::uint64_t n, Slice src, Slice dst, bool ring);
/// Reduce `src` (n elements) of every rank into `dst` at `root`.
void reduce(Ctx& c, const std::string& name, int root, std::uint64_t n, Slice src, Slice dst);
/// Gather `n` elements of every rank into the root's output (n * p).
void gather(Ctx& c, const std::string& name, int root, std::uint64_t n);
/// Scatter the root's input (n * p) into every rank's output (n).
void scatter(Ctx& c, const std::string& name, int root, std::uint64_t n, Slice src);

void allreduce(Ctx& c, const std::string& name, std::uint64_t n);
void allgather(Ctx& c, const std::string& name, std::uint64_t n);
void alltoall(Ctx& c, const std::string& name, std::uint64_t n);
void reduce_scatter(Ctx& c, const std::string& name, std::uint64_t n);
void barrier(Ctx& c, const std::string& name);

} // namespace nafsim::coll::detail::ompi_alg
