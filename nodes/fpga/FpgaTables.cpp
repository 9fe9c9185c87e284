#include "nodes/fpga/FpgaTables.hpp"

#include "nodes/fpga/FpgaCluster.hpp"
#include "nodes/platform/ClusterReport.hpp"

namespace nafsim::nodes {

namespace {

// Nodes running the connectionless transport: every sender, receiver and NI counter.
void add_connectionless_nodes(const Cluster& c, const std::vector<std::size_t>& at, results::ResultSink& sink)
{
  if (c.at<FpgaNode>(at.front()).lant()) {
    results::Table nodes_t("connectionless_nodes",
                           {"node", "commands", "post_waits", "operations", "data_packets_sent", "stale_staged", "control_packets_sent", "packets_sent",
                            "retransmitted", "retransmit_requests", "retransmit_on_timeout", "retransmit_on_nack",
                            "retransmissions_cancelled", "timeouts",
                            "acks_received", "nacks_received", "stale_acks", "op_table_stalls", "op_table_stall_us",
                            "transaction_table_stalls", "transaction_table_stall_us", "notifications_sent",
                            "notifications_resent", "packets_received", "packets_written", "crc_nacks", "registrations",
                            "duplicates_dropped", "late_duplicates", "registration_full_drops", "not_ready_drops", "out_of_order", "escaped", "escape_drained",
                            "escape_timeouts", "escape_overflow_drops", "notifications_received",
                            "duplicate_notifications", "filter_evictions", "peak_registrations", "peak_escape",
                            "deliveries", "verification_failures"});
    for (std::size_t i : at) {
      auto const& ni = *c.at<FpgaNode>(i).lant();
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
          .add(s.retransmit_on_timeout)
          .add(s.retransmit_on_nack)
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

// Per-block statistics of every CCLO that took part in the run.
void add_cclo(const Cluster& c, const std::vector<std::size_t>& at, results::ResultSink& sink)
{
  auto util = [&](SimTime busy) { return busy_fraction(c, busy); };
  results::Table cclo("cclo", {"node", "calls", "max_calls_queued", "uc_busy_us", "uc_utilization", "polls",
                               "loop_passes", "retries", "max_moves_pending",
                               "dmp_moves", "dmp_bytes", "dmp_busy_us", "dmp_utilization", "dmp_rx_wait_us",
                               "dmp_max_queue", "tx_eager_messages", "tx_rendezvous_writes", "tx_notifications",
                               "rx_eager_messages", "rx_notifications", "rx_buffers", "rx_buffers_max_used",
                               "rx_refusals", "safety_warnings"});
  for (std::size_t i : at) {
    const Cclo* e = c.at<FpgaNode>(i).cclo();
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
        .add(k.max_moves_pending)
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
void add_mmu(const Cluster& c, const std::vector<std::size_t>& at, results::ResultSink& sink)
{
  results::Table mmu("mmu", {"node", "requests", "fragments", "page_faults", "machine_wait_us", "lock_wait_us",
                             "slot_wait_us"});
  for (std::size_t i : at) {
    if (!c.memory(i).mmu())
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

} // namespace

std::uint64_t cclo_messages(const Cluster& c)
{
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < c.size(); ++i)
    if (const Cclo* e = c.find<FpgaNode>(i) ? c.find<FpgaNode>(i)->cclo() : nullptr) {
      auto k = e->counters();
      n += k.eager_messages + k.rendezvous_writes + k.notifications_sent;
    }
  return n;
}

void add_fpga_tables(const Cluster& c, const std::vector<std::size_t>& at, results::ResultSink& sink)
{
  add_connectionless_nodes(c, at, sink);
  add_cclo(c, at, sink);
  add_mmu(c, at, sink);
}

} // namespace nafsim::nodes
