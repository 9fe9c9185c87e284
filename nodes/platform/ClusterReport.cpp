#include "nodes/platform/ClusterReport.hpp"

namespace nafsim::nodes {

void add_cluster_tables(const Cluster& c, results::ResultSink& sink)
{
  auto const& topo = c.topology();
  results::Table ports("ports", {"element", "port", "peer", "rate_gbps", "tx_packets", "tx_bytes", "queue_drops",
                                 "fault_drops", "corrupted", "duplicated", "max_queue_bytes"});
  for (auto const& p : c.fabric().ports()) {
    auto const& k = p.counters;
    ports.row()
        .add(topo.info(p.vertex).name)
        .add(p.index)
        .add(topo.info(p.peer).name)
        .add(p.rate.bps / 1e9, 3)
        .add(k.tx_packets)
        .add(k.tx_bytes)
        .add(k.queue_drops)
        .add(k.fault_drops)
        .add(k.corrupted)
        .add(k.duplicated)
        .add(k.max_queue_bytes);
  }
  sink.add(std::move(ports));

  results::Table nodes("nodes", {"node", "queue_pairs", "requests_sent", "retransmitted", "responses_sent",
                                 "acks_sent", "naks_sent", "packets_received", "corrupted_dropped",
                                 "duplicates_received", "out_of_sequence", "timeouts", "naks_received",
                                 "stale_discarded", "device_read_bytes", "device_write_bytes", "pcie_read_bytes",
                                 "pcie_write_bytes"});
  for (std::size_t i = 0; i < c.size(); ++i) {
    auto const& n = c.node(i);
    auto k        = n.poe().counters();
    nodes.row()
        .add(i)
        .add(n.poe().qp_count())
        .add(k.requests_sent)
        .add(k.retransmitted)
        .add(k.responses_sent)
        .add(k.acks_sent)
        .add(k.naks_sent)
        .add(k.packets_received)
        .add(k.corrupted_dropped)
        .add(k.duplicates_received)
        .add(k.out_of_sequence)
        .add(k.timeouts)
        .add(k.naks_received)
        .add(k.stale_discarded)
        .add(n.memory().device_bytes_read())
        .add(n.memory().device_bytes_written())
        .add(n.memory().pcie_read().bytes())
        .add(n.memory().pcie_write().bytes());
  }
  sink.add(std::move(nodes));
}

} // namespace nafsim::nodes
