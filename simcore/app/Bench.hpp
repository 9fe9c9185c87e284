#pragma once
#include "workloads/WorkloadRegistry.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace nafsim::app {

/// `nafsim bench` (suite `hops`): simulator speed on a busy packet network. For each cluster size, in its
/// own process: a k-ary fat-tree (dmodk routing, contention-free) where every node streams RDMA WRITEs
/// to node i + n/2 through the core; the same total traffic at every size. Reports packet-hops per
/// wall second (median of `repeat` runs; wall times on a shared machine vary by tens of per cent),
/// the wall time per hop, events, peak memory and bytes per node; writes <out>/bench.csv.
int run_bench(const std::vector<unsigned>& sizes, std::uint64_t total_bytes, unsigned repeat,
              const std::filesystem::path& out, const workloads::WorkloadRegistry& reg);

/// `nafsim bench --suite collectives`: what users run at scale. For each collective and rank count, in its
/// own process: one call of `size` on the CCLOs of that many ACCL+ testbed FPGAs (accl-coyote-u55c) in a
/// fat-tree just large enough, packet network, the firmware's own protocol and algorithm choice, no data
/// verification. Reports the collective's latency, wall time (median of `repeat`), events, packet-hops, peak
/// memory and bytes per node; writes <out>/bench_collectives.csv.
/// One point of the suite: a collective of `size` (per rank's block; all-to-all: to each peer) on `ranks` ranks
/// at network `fidelity`.
struct BenchPoint {
  std::string collective;
  std::string fidelity;
  unsigned ranks = 0;
  std::string size;
  double resolve = 0; ///< flow fidelity: platform.network.flow_resolve_fraction (0: exact)
  /// The eager protocol and the ring algorithm forced (issue 53's heaviest case: one message per Rx-buffer segment
  /// per ring step), not the firmware's choice.
  bool eager_ring = false;
  const char* size_option = "--size"; ///< the option its size came from (the all-to-all study's: --alltoall-size)
};
/// The suite's points: each collective at each fidelity and rank count at `size`, then the all-to-all study
/// (issue 32: flow fidelity under all-to-all's contention) at `alltoall_size` per peer on `alltoall_ranks`, at
/// packet and flow fidelity both, and at flow fidelity with `alltoall_resolve` as the resolve fraction (if > 0),
/// then the allreduce of `size` with the eager protocol and the ring forced on each of `eager_ring_ranks` (packet).
std::vector<BenchPoint> bench_points(const std::vector<unsigned>& ranks, const std::vector<std::string>& collectives,
                                     const std::string& size, const std::vector<std::string>& fidelities,
                                     const std::vector<unsigned>& alltoall_ranks, const std::string& alltoall_size,
                                     double alltoall_resolve = 0, const std::vector<unsigned>& eager_ring_ranks = {});
/// Every point's scenario checked before any runs: a config::ConfigError naming --size or --alltoall-size and the
/// point (a size no rank's memory holds, an all-to-all of nothing), as `run` would give it.
void check_bench_points(const std::vector<BenchPoint>& points, const workloads::WorkloadRegistry& reg);
int run_bench_collectives(const std::vector<BenchPoint>& points, unsigned repeat, const std::filesystem::path& out,
                          const workloads::WorkloadRegistry& reg);

} // namespace nafsim::app
