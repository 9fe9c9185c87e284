#pragma once
#include "workloads/WorkloadRegistry.hpp"

#include <filesystem>
#include <vector>

namespace nafsim::app {

/// `nafsim bench`: simulator speed on a busy packet network. For each cluster size, in its own
/// process: a k-ary fat-tree (dmodk routing, contention-free) where every node streams RDMA WRITEs
/// to node i + n/2 through the core; the same total traffic at every size. Reports packet-hops per
/// wall second (median of `repeat` runs; wall times on a shared machine vary by tens of per cent),
/// events, and peak memory; writes <out>/bench.csv.
int run_bench(const std::vector<unsigned>& sizes, std::uint64_t total_bytes, unsigned repeat,
              const std::filesystem::path& out, const workloads::WorkloadRegistry& reg);

} // namespace nafsim::app
