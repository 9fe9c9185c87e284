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
int run_bench_collectives(const std::vector<unsigned>& ranks, const std::vector<std::string>& collectives,
                          const std::string& size, const std::vector<std::string>& fidelities, unsigned repeat,
                          const std::filesystem::path& out,
                          const workloads::WorkloadRegistry& reg);

} // namespace nafsim::app
