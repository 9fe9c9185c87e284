#pragma once
// Tables describing what the platform did in a run: one row per port (ports.csv), one per node
// (nodes.csv), the TCP / UDP engines' counters, and each registered node kind's own tables.

#include "nodes/platform/Cluster.hpp"
#include "simcore/results/ResultSink.hpp"

#include <string>
#include <vector>

namespace nafsim::nodes {

void add_cluster_tables(const Cluster& c, results::ResultSink& sink);
/// Of those, the tables of the engines every node offers (nodes/transport/EngineTables.cpp, so that the hub includes
/// no engine): nodes.csv (each node's RDMA engine and memory), tcp_nodes.csv and udp_nodes.csv (where they run).
void add_node_table(const Cluster& c, results::ResultSink& sink);
void add_transport_tables(const Cluster& c, results::ResultSink& sink);
/// The summary's lines on what the TCP engines' own stacks dropped and the timers that resent it (empty when none
/// fired): a run whose time went to retransmission timers says so, with the settings that size what overflowed.
std::vector<std::string> transport_notes(const Cluster& c);

/// Busy time as a fraction of the run's simulated time (a kind's utilization columns).
inline double busy_fraction(const Cluster& c, SimTime busy)
{
  const double elapsed_us = c.scheduler().now().us();
  return elapsed_us > 0 ? busy.us() / elapsed_us : 0.0;
}

} // namespace nafsim::nodes
