#include "nodes/platform/ClusterReport.hpp"

namespace nafsim::nodes {

namespace {

void add_ports(const Cluster& c, results::ResultSink& sink)
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
}

void add_nodes(const Cluster& c, results::ResultSink& sink)
{
  results::Table nodes("nodes", {"node", "kind", "queue_pairs", "requests_sent", "retransmitted", "responses_sent",
                                 "acks_sent", "naks_sent", "packets_received", "corrupted_dropped",
                                 "duplicates_received", "out_of_sequence", "timeouts", "naks_received",
                                 "stale_discarded", "device_read_bytes", "device_write_bytes", "pcie_read_bytes",
                                 "pcie_write_bytes"});
  for (std::size_t i = 0; i < c.size(); ++i) {
    auto const& poe = c.poe(i);
    auto const& mem = c.memory(i);
    auto k          = poe.counters();
    nodes.row()
        .add(i)
        .add(c.is_fpga(i) ? "fpga" : "host")
        .add(poe.qp_count())
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
        .add(c.is_fpga(i) ? mem.device_bytes_read() : 0)
        .add(c.is_fpga(i) ? mem.device_bytes_written() : 0)
        .add(mem.pcie_read().bytes())
        .add(mem.pcie_write().bytes());
  }
  sink.add(std::move(nodes));
}

// Nodes running the connectionless transport: every sender, receiver and NI counter.
void add_connectionless_nodes(const Cluster& c, results::ResultSink& sink)
{
  if (c.size() > 0 && c.is_fpga(0) && c.node(0).lant()) {
    results::Table nodes_t("connectionless_nodes",
                           {"node", "commands", "post_waits", "operations", "data_packets_sent", "stale_staged", "control_packets_sent", "packets_sent",
                            "retransmitted", "retransmit_requests", "retransmissions_cancelled", "timeouts",
                            "acks_received", "nacks_received", "stale_acks", "op_table_stalls", "op_table_stall_us",
                            "transaction_table_stalls", "transaction_table_stall_us", "notifications_sent",
                            "notifications_resent", "packets_received", "packets_written", "crc_nacks", "registrations",
                            "duplicates_dropped", "late_duplicates", "registration_full_drops", "not_ready_drops", "out_of_order", "escaped", "escape_drained",
                            "escape_timeouts", "escape_overflow_drops", "notifications_received",
                            "duplicate_notifications", "filter_evictions", "peak_registrations", "peak_escape",
                            "deliveries", "verification_failures"});
    for (std::size_t i = 0; i < c.size(); ++i) {
      if (!c.is_fpga(i))
        continue;
      auto const& ni = *c.node(i).lant();
      auto const& s  = ni.sender().counters();
      auto const& r  = ni.receiver().counters();
      nodes_t.row()
          .add(static_cast<std::uint64_t>(i))
          .add(s.commands_posted)
          .add(ni.counters().post_waits)
          .add(s.operations)
          .add(ni.counters().data_packets_sent)
          .add(ni.counters().stale_staged)
          .add(ni.counters().control_packets_sent)
          .add(s.packets_sent)
          .add(s.retransmitted)
          .add(s.retransmit_requests)
          .add(s.retransmissions_cancelled)
          .add(s.timeouts)
          .add(s.acks_received)
          .add(s.nacks_received)
          .add(s.stale_acks)
          .add(s.op_table_stalls)
          .add(s.op_table_stall_time.us(), 3)
          .add(s.transaction_table_stalls)
          .add(s.transaction_table_stall_time.us(), 3)
          .add(s.notifications_sent)
          .add(s.notifications_resent)
          .add(r.packets_received)
          .add(r.packets_written)
          .add(r.crc_nacks)
          .add(r.registrations)
          .add(r.duplicates_dropped)
          .add(r.late_duplicates)
          .add(r.registration_full_drops)
          .add(r.not_ready_drops)
          .add(r.out_of_order)
          .add(r.escaped)
          .add(r.escape_drained)
          .add(r.escape_timeouts)
          .add(r.escape_overflow_drops)
          .add(r.notifications_received)
          .add(r.duplicate_notifications)
          .add(r.filter_evictions)
          .add(r.peak_registrations)
          .add(r.peak_escape)
          .add(ni.counters().deliveries)
          .add(ni.counters().verification_failures);
    }
    sink.add(std::move(nodes_t));
  }
}

/// Busy time as a fraction of the run's simulated time.
double utilization(const Cluster& c, SimTime busy)
{
  const double elapsed_us = c.scheduler().now().us();
  return elapsed_us > 0 ? busy.us() / elapsed_us : 0.0;
}

// Per-block statistics of every CCLO that took part in the run.
void add_cclo(const Cluster& c, results::ResultSink& sink)
{
  auto util = [&](SimTime busy) { return utilization(c, busy); };
  results::Table cclo("cclo", {"node", "calls", "max_calls_queued", "uc_busy_us", "uc_utilization", "polls",
                               "loop_passes", "retries",
                               "dmp_moves", "dmp_bytes", "dmp_busy_us", "dmp_utilization", "dmp_rx_wait_us",
                               "dmp_max_queue", "tx_eager_messages", "tx_rendezvous_writes", "tx_notifications",
                               "rx_eager_messages", "rx_notifications", "rx_buffers", "rx_buffers_max_used",
                               "rx_refusals", "safety_warnings"});
  for (std::size_t i = 0; i < c.size(); ++i) {
    const Cclo* e = c.is_fpga(i) ? c.node(i).cclo() : nullptr;
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
        .add(k.loop_passes)
        .add(k.retries)
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
        .add(k.rx_refusals)
        .add(k.safety_warnings);
  }
  if (cclo.row_count() != 0)
    sink.add(std::move(cclo));
}

// FPGA nodes whose memory requests pass Coyote's MMU (node.fpga.mmu).
void add_mmu(const Cluster& c, results::ResultSink& sink)
{
  results::Table mmu("mmu", {"node", "requests", "fragments", "page_faults", "machine_wait_us", "lock_wait_us",
                             "slot_wait_us"});
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (!c.is_fpga(i) || !c.memory(i).mmu())
      continue;
    auto const& k = c.memory(i).mmu()->counters();
    mmu.row()
        .add(i)
        .add(k.requests)
        .add(k.fragments)
        .add(k.page_faults)
        .add(k.machine_wait.us(), 3)
        .add(k.lock_wait.us(), 3)
        .add(k.slot_wait.us(), 3);
  }
  if (mmu.row_count() != 0)
    sink.add(std::move(mmu));
}

// Every MPI rank that took part in the run.
void add_mpi(const Cluster& c, results::ResultSink& sink)
{
  auto util = [&](SimTime busy) { return utilization(c, busy); };
  results::Table mpi("mpi_counters", {"node", "calls", "eager_sent", "rendezvous_sent", "eager_received", "unexpected",
                                   "reads", "bytes_sent", "bytes_copied", "bytes_reduced", "cpu_busy_us",
                                   "cpu_utilization", "bounce_max_used", "bounce_refusals"});
  for (std::size_t i = 0; i < c.size(); ++i) {
    const MpiProcess* p = c.is_fpga(i) ? nullptr : c.host_node(i).mpi();
    if (!p)
      continue;
    auto const& k = p->counters();
    mpi.row()
        .add(i)
        .add(k.calls)
        .add(k.eager_sent)
        .add(k.rendezvous_sent)
        .add(k.eager_received)
        .add(k.unexpected)
        .add(k.reads)
        .add(k.bytes_sent)
        .add(k.bytes_copied)
        .add(k.bytes_reduced)
        .add(k.cpu_busy.us(), 3)
        .add(util(k.cpu_busy), 4)
        .add(k.bounce_max_used)
        .add(k.bounce_refusals);
  }
  if (mpi.row_count() != 0)
    sink.add(std::move(mpi));
}

// Nodes running the TCP or UDP engine.
void add_tcp_udp(const Cluster& c, results::ResultSink& sink)
{
  results::Table tcp("tcp_nodes", {"node", "sessions", "segments_sent", "retransmitted", "acks_sent", "fast_retransmits",
                                   "timeouts", "probes", "duplicate_acks", "duplicates", "out_of_order_held",
                                   "out_of_order_dropped", "window_dropped", "corrupted_dropped", "stale_discarded",
                                   "consumer_stalls", "messages_sent", "messages_received", "failed_sessions"});
  results::Table udp("udp_nodes", {"node", "messages_sent", "datagrams_sent", "datagrams_received", "messages_received",
                                   "duplicates", "corrupted_dropped", "no_buffer_dropped", "incomplete_messages"});
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (const TcpPoe* t = c.tcp(i)) {
      auto k = t->counters();
      tcp.row()
          .add(static_cast<std::uint64_t>(i))
          .add(static_cast<std::uint64_t>(t->session_count()))
          .add(k.tcp.segments_sent)
          .add(k.tcp.retransmitted)
          .add(k.tcp.acks_sent)
          .add(k.tcp.fast_retransmits)
          .add(k.tcp.timeouts)
          .add(k.tcp.probes)
          .add(k.tcp.duplicate_acks)
          .add(k.tcp.duplicates)
          .add(k.tcp.out_of_order_held)
          .add(k.tcp.out_of_order_dropped)
          .add(k.tcp.window_dropped)
          .add(k.corrupted_dropped)
          .add(k.stale_discarded)
          .add(k.consumer_stalls)
          .add(k.records_sent)
          .add(k.records_received)
          .add(k.failed_sessions);
    }
    if (const UdpPoe* u = c.udp(i)) {
      auto const& k = u->counters();
      udp.row()
          .add(static_cast<std::uint64_t>(i))
          .add(k.messages_sent)
          .add(k.datagrams_sent)
          .add(k.datagrams_received)
          .add(k.messages_received)
          .add(k.duplicates)
          .add(k.corrupted_dropped)
          .add(k.no_buffer_dropped)
          .add(static_cast<std::uint64_t>(u->incomplete_count()));
    }
  }
  if (tcp.row_count() != 0)
    sink.add(std::move(tcp));
  if (udp.row_count() != 0)
    sink.add(std::move(udp));
}

} // namespace

void add_cluster_tables(const Cluster& c, results::ResultSink& sink)
{
  add_ports(c, sink);
  add_nodes(c, sink);
  add_connectionless_nodes(c, sink);
  add_cclo(c, sink);
  add_mmu(c, sink);
  add_mpi(c, sink);
  add_tcp_udp(c, sink);
}

} // namespace nafsim::nodes
