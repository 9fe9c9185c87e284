#pragma once
// Tables describing what the platform did in a run: one row per port (ports.csv), one per node
// (nodes.csv).

#include "nodes/platform/Cluster.hpp"
#include "simcore/results/ResultSink.hpp"

namespace nafsim::nodes {

void add_cluster_tables(const Cluster& c, results::ResultSink& sink);

} // namespace nafsim::nodes
