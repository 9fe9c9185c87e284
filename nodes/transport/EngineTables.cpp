// The engines' tables of a run (nodes/platform/ClusterReport.hpp): each node's RDMA engine and memory (nodes.csv),
// the TCP and UDP engines where nodes run them.
#include "nodes/memory/MemorySystem.hpp"
#include "nodes/platform/ClusterReport.hpp"
#include "nodes/rdma/RdmaPoe.hpp"
#include "nodes/transport/TcpPoe.hpp"
#include "nodes/transport/UdpPoe.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace nafsim::nodes {

void add_node_table(const Cluster& c, results::ResultSink& sink)
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
        .add(std::string(c.at(i).kind()))
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
        .add(c.at(i).device_bytes_read())
        .add(c.at(i).device_bytes_written())
        .add(mem.pcie_read().bytes())
        .add(mem.pcie_write().bytes());
  }
  sink.add(std::move(nodes));
}

// Nodes running the TCP or UDP engine.
void add_transport_tables(const Cluster& c, results::ResultSink& sink)
{
  results::Table tcp("tcp_nodes", {"node", "sessions", "segments_sent", "retransmitted", "acks_sent", "fast_retransmits",
                                   "timeouts", "probes", "duplicate_acks", "duplicates", "out_of_order_held",
                                   "out_of_order_dropped", "window_dropped", "corrupted_dropped", "stale_discarded",
                                   "consumer_stalls", "messages_sent", "messages_received", "failed_sessions",
                                   "write_requests", "refused_writes", "fifo_dropped"});
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
          .add(k.failed_sessions)
          .add(k.write_requests)
          .add(k.refused_writes)
          .add(k.tcp.refused_full);
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

namespace {

/// RoCE: retransmission timeouts and the packets they resent (go-back-N), by the node kinds that had them. A timeout
/// on a network that drops nothing is a queue holding a packet longer than the timer: the resent packets add to the
/// load, unsaid before (the shared-buffer incast: "0 dropped", and 6 timeouts resent 384 packets).
std::string roce_note(const Cluster& c)
{
  std::uint64_t timeouts = 0, resent = 0;
  std::vector<std::string> kinds;
  for (std::size_t i = 0; i < c.size(); ++i) {
    auto const& n = c.at(i);
    if (n.transport_kind() != Transport::Roce)
      continue;
    auto const& k = n.rdma().counters();
    timeouts += k.timeouts;
    resent += k.retransmitted;
    if (k.timeouts > 0 && std::find(kinds.begin(), kinds.end(), std::string(n.kind())) == kinds.end())
      kinds.emplace_back(n.kind());
  }
  // (where the network lost packets, the timeouts recover them, and the summary's drop counts say so)
  const auto net = c.fabric().totals();
  if (timeouts == 0 || net.queue_drops + net.fault_drops + net.corrupted > 0)
    return {};
  std::vector<std::string> keys;
  for (auto const& kind : kinds)
    keys.push_back(fmt::format("platform.node.{}.rdma.timeouts", kind));
  // (the reorder fault holds packets back on purpose: named when it did, a queue blamed otherwise)
  return fmt::format("warning: RoCE: {} retransmission timeout(s) resent {} packet(s) (go back N; nodes.csv "
                     "timeouts, retransmitted) on a network that lost none: {} held a packet (or its acknowledgement) "
                     "longer than the timer ({}), and the resent packets crossed the network again",
                     timeouts, resent,
                     net.held_back > 0 ? fmt::format("the reorder fault (platform.network.faults.reorder_delay, {} "
                                                     "packets held back) or a queue",
                                                     net.held_back)
                                       : std::string("a queue"),
                     fmt::join(keys, ", "));
}

} // namespace

std::vector<std::string> transport_notes(const Cluster& c)
{
  std::uint64_t timeouts = 0, fifo = 0, out_of_order = 0, window = 0, fpgas = 0, hosts = 0, refused = 0;
  std::vector<std::string> fifo_kinds, rooms; // the node kinds whose stacks dropped at their FIFO; their consumers' room
  auto note = [](std::vector<std::string>& v, const std::string& s) {
    if (std::find(v.begin(), v.end(), s) == v.end())
      v.push_back(s);
  };
  for (std::size_t i = 0; i < c.size(); ++i)
    if (const TcpPoe* t = c.tcp(i)) {
      auto const& k = t->counters().tcp;
      timeouts += k.timeouts;
      fifo += k.refused_full;
      if (k.refused_full > 0) {
        note(fifo_kinds, std::string(c.at(i).kind()));
        if (t->counters().consumer_stalls > 0) {
          refused += t->counters().consumer_stalls;
          note(rooms, t->consumer_room_setting());
        }
      }
      out_of_order += k.out_of_order_dropped;
      window += k.window_dropped;
      (c.at(i).kind() == "fpga" ? fpgas : hosts) += k.timeouts + k.refused_full;
    }
  std::vector<std::string> out;
  if (auto roce = roce_note(c); !roce.empty())
    out.push_back(std::move(roce));
  if (timeouts == 0 && fifo == 0)
    return out;
  std::string line = fmt::format("warning: TCP: {} retransmission timeout(s) on the {}", timeouts,
                                 fpgas > 0 && hosts > 0 ? "nodes" : fpgas > 0 ? "FPGAs" : "hosts");
  if (fifo + out_of_order + window > 0)
    line += fmt::format("; the receiving stacks dropped {} segment(s) themselves ({} at a full shared receive FIFO, "
                        "{} out of order, {} beyond the window)",
                        fifo + out_of_order + window, fifo, out_of_order, window);
  line += "; each timeout waits the stack's timer (an FPGA's tcp.rto_steps start at 0.625 s, Linux's RTO at 200 ms), "
          "so the run's time may be mostly waiting (tcp_nodes.csv)";
  if (fifo > 0) {
    std::vector<std::string> keys;
    for (auto const& kind : fifo_kinds)
      keys.push_back(fmt::format("platform.node.{}.tcp.rx_fifo", kind));
    line += fmt::format("; a segment holds the shared receive FIFO from its acceptance until the consumer has taken "
                        "it and written it to memory, while a session's window (tcp.rx_buffer) can be more than the "
                        "FIFO takes{} ({} and rx_fifo_min_free size it, rx_fifo 0B runs without it: "
                        "platforms/README.md)",
                        std::find(fifo_kinds.begin(), fifo_kinds.end(), "fpga") != fifo_kinds.end()
                            ? " (the XRT build's stack keeps no other receive buffer: RX_DDR_BYPASS)"
                            : "",
                        fmt::join(keys, ", "));
  }
  if (refused > 0)
    line += fmt::format("; their consumers had no room for a stream's next message ({} refusal(s), one per "
                        "consumer_poll) while its segments held the FIFO: more room ({}) keeps the streams moving",
                        refused, fmt::join(rooms, ", "));
  out.push_back(std::move(line));
  return out;
}

} // namespace nafsim::nodes
