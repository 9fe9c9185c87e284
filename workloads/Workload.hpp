#pragma once
// What drives the nodes in a run. A workload spawns its actors before the run and reports its
// measurements (tables + a few summary lines) after it.

#include "nodes/platform/Cluster.hpp"
#include "simcore/results/ResultSink.hpp"

#include <string>
#include <vector>

namespace nafsim::workloads {

class Workload {
public:
  virtual ~Workload() = default;
  /// Check the workload against the platform (throw config::ConfigError) and spawn actors.
  virtual void start(nodes::Cluster& cluster) = 0;
  /// After a successful run: add result tables and human summary lines.
  virtual void report(const nodes::Cluster& cluster, results::ResultSink& sink,
                      std::vector<std::string>& summary) const = 0;
};

/// The message sizes of a size sweep: `sizes` if not empty, else `min` doubling up to `max` (the step out of
/// a zero `min` is `first_step`). Throws config::ConfigError at /workload/min_size if min > max.
std::vector<std::uint64_t> message_sizes(const std::vector<Bytes>& sizes, Bytes min, Bytes max,
                                         std::uint64_t first_step);

} // namespace nafsim::workloads
