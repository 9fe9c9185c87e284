#include "nodes/platform/ClusterReport.hpp"

namespace nafsim::nodes {

namespace {

void add_ports(const Cluster& c, results::ResultSink& sink)
{
  auto const& topo = c.topology();
  results::Table ports("ports", {"element", "port", "peer", "rate_gbps", "tx_packets", "tx_bytes", "queue_drops",
                                 "fault_drops", "corrupted", "duplicated", "held_back", "max_queue_bytes", "pauses",
                                 "paused_us"});
  for (auto const& p : c.fabric().ports()) {
    auto const& k = p.counters;
    ports.row()
        .add(topo.info(p.vertex).name)
        .add(p.index)
        .add(topo.info(p.peer).name)
        .add(p.rate.bps / 1e9, 3)
        .add(p.tx_packets)
        .add(p.tx_bytes)
        .add(k.queue_drops)
        .add(k.fault_drops)
        .add(k.corrupted)
        .add(k.duplicated)
        .add(k.held_back)
        .add(p.max_queue_bytes)
        .add(k.pauses)
        .add(k.paused.us(), 3);
  }
  sink.add(std::move(ports));
}

} // namespace

void add_cluster_tables(const Cluster& c, results::ResultSink& sink)
{
  add_ports(c, sink);
  add_node_table(c, sink);
  for (auto const& k : c.kinds_known().entries())
    if (k.report)
      if (auto at = c.positions(k.name); !at.empty())
        k.report(c, at, sink);
  add_transport_tables(c, sink);
}

} // namespace nafsim::nodes
