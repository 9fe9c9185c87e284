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

  // Per-block statistics of every CCLO that took part in the run.
  const double elapsed_us = c.scheduler().now().us();
  auto util               = [&](SimTime busy) { return elapsed_us > 0 ? busy.us() / elapsed_us : 0.0; };
  results::Table cclo("cclo", {"node", "calls", "max_calls_queued", "uc_busy_us", "uc_utilization", "polls",
                               "dmp_moves", "dmp_bytes", "dmp_busy_us", "dmp_utilization", "dmp_rx_wait_us",
                               "dmp_max_queue", "tx_eager_messages", "tx_rendezvous_writes", "tx_notifications",
                               "rx_eager_messages", "rx_notifications", "rx_buffers", "rx_buffers_max_used",
                               "rx_refusals"});
  for (std::size_t i = 0; i < c.size(); ++i) {
    const Cclo* e = c.node(i).cclo();
    if (!e)
      continue;
    auto k        = e->counters();
    auto const& d = e->dmp().counters();
    cclo.row()
        .add(i)
        .add(k.calls)
        .add(k.max_calls_queued)
        .add(k.uc_busy.us(), 3)
        .add(util(k.uc_busy), 4)
        .add(k.polls)
        .add(d.moves)
        .add(d.bytes)
        .add(d.busy.us(), 3)
        .add(util(d.busy), 4)
        .add(d.rx_waits.us(), 3)
        .add(d.max_queue)
        .add(k.eager_messages)
        .add(k.rendezvous_writes)
        .add(k.notifications_sent)
        .add(k.eager_received)
        .add(k.notifications_received)
        .add(e->config().rx_buffers.count)
        .add(k.rx_buffers_max_used)
        .add(k.rx_refusals);
  }
  if (!cclo.rows().empty())
    sink.add(std::move(cclo));
}

} // namespace nafsim::nodes
