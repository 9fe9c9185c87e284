#include "simcore/app/Runner.hpp"

#include "nodes/cclo/CcloBuild.hpp"
#include "nodes/cclo/TagOrderWatch.hpp"
#include "nodes/fpga/FpgaCluster.hpp"
#include "nodes/fpga/FpgaNodeConfig.hpp"
#include "nodes/fpga/FpgaTables.hpp"
#include "nodes/platform/ClusterReport.hpp"
#include "simcore/app/Progress.hpp"
#include "simcore/app/UnreadSettings.hpp"
#include "simcore/engine/Simulation.hpp"

#include <algorithm>
#include <ctime>
#include <fmt/format.h>
#include <iostream>
#include <optional>
#include <unistd.h>
#include <xbt/log.h>

/// The commit the build was made from (GitRevision.cmake, at every build).
const char* nafsim_git_revision();
#ifndef NAFSIM_VERSION
#define NAFSIM_VERSION "0"
#endif

namespace nafsim::app {

namespace {
/// Above this many re-solves per flow the run summary suggests packet fidelity: the 64-rank all-to-all, 10x slower at
/// flow fidelity than at packet fidelity, re-solves each flow about 1,060 times; a gather 19, trees and rings 1-3.
constexpr std::uint64_t kResolvesHint = 200;
/// With the solves spaced by a resolve fraction f, a flow is in about 2 / f solves when every solve takes nearly all
/// flows in progress (one component), fewer as the components are smaller: above this share of 2 / f the summary
/// says the flows contend as in an all-to-all. Measured (64 ranks, 64 KiB; simcore/net/README.md's table): the
/// all-to-all 0.82 of 2 / f at f = 0.05 and 0.70 at 0.02 (256 ranks: 0.98 and 0.94); the permutation on the 4:1
/// leaf-spine 0.38 and 0.26, the gather 0.28 and 0.17, the other collectives and the incast at most 0.11. With f so
/// coarse that 2 / f is a handful, the count tells nothing: below kOneComponentSolves solves per flow (a scatter has
/// 4.3, any f) no claim is made.
constexpr double kOneComponentShare  = 0.5;
constexpr double kOneComponentSolves = 5;
/// What the all-to-alls measured at both fidelities say of flow fidelity's error (simcore/net/README.md).
constexpr const char* kAllToAllError =
    "the CCLO all-to-alls in simcore/net/README.md: flow within 5.2 % of packet up to 64 KiB per peer on 8 to 256 "
    "ranks, -20 % and beyond once the lossless switches' queues fill and pause senders: head-of-line blocking, which "
    "a fluid lacks; -5 to -7 % there with the switches' buffer shared, switch.shared_buffer";
} // namespace

using config::Json;

namespace {
/// The run's metadata.json (without its trace entry): the scenario, the engine's counts, the network's totals and
/// flows, the memory, the tables written.
Json run_metadata(const Scenario& sc, Simulation& sim, const nodes::Cluster& cluster, const net::FabricTotals& totals,
                  const net::Fabric::FlowWork& work, const std::vector<std::string>& command_line, const RunReport& rep,
                  const results::ResultSink& sink)
{
  Json meta;
  meta["nafsim_version"] = NAFSIM_VERSION;
  meta["git_revision"]   = nafsim_git_revision();
  meta["command"]        = command_line;
  meta["started_at"]     = static_cast<std::int64_t>(std::time(nullptr));
  meta["scenario"]       = sc.resolved;
  meta["platform_sources"] = sc.platform_sources;
  meta["seed"]           = sc.header.seed;
  meta["wall_seconds"]   = rep.wall_seconds;
  meta["simulated_seconds"] = rep.simulated_seconds;
  meta["events"]         = sim.scheduler().events_processed();
  meta["actor_wakeups"]  = sim.scheduler().actor_wakeups();
  meta["task_resumes"]   = sim.scheduler().task_resumes(); // firmware primitives resumed as engine events
  meta["peak_pending_events"] = sim.scheduler().peak_pending_events();
  // Events per CCLO message (issue 53's measure of the engine's cost): every event of the run over the messages
  // the CCLOs sent, so the network's and the hosts' events count too.
  const std::uint64_t cclo_messages = nodes::cclo_messages(cluster);
  auto per_message = [&](std::uint64_t events) {
    return static_cast<double>(events) / static_cast<double>(cclo_messages);
  };
  if (cclo_messages > 0)
    meta["cclo"] = {{"messages", cclo_messages},
                    {"events_per_message", per_message(sim.scheduler().events_processed())}};
  if (auto const* prof = sim.scheduler().profile()) {
    Json rows = Json::array();
    for (auto const& r : prof->rows()) {
      Json row = {{"handler", r.handler}, {"kind", r.kind}, {"events", r.events}};
      if (cclo_messages > 0)
        row["per_cclo_message"] = per_message(r.events);
      rows.push_back(std::move(row));
    }
    meta["event_profile"] = std::move(rows);
  }
  if (auto const* g = sim.scheduler().causes())
    meta["causal_records"] = g->size();
  meta["packets"]        = {{"injected", totals.injected},       {"delivered", totals.delivered},
                            {"packet_hops", totals.packet_hops}, {"queue_drops", totals.queue_drops},
                            {"fault_drops", totals.fault_drops}, {"duplicates", totals.duplicates},
                            {"corrupted", totals.corrupted},       {"corrupted_delivered", totals.corrupted_delivered},
                            {"passed_hops", totals.passed_hops}};
  if (sc.platform.network.fast_forward.train > 1) { // (trains count once above)
    meta["packets"]["trains"]        = totals.trains;
    meta["packets"]["train_packets"] = totals.train_packets;
  }
  if (work.flows > 0) {
    meta["flows"] = {{"started", work.flows},
                     {"rates_solved", work.flows_solved},
                     {"in_solved_components", work.flows_in_components}};
    if (work.drop_tail) { // where the packet fabric's queues would have overflowed (net/DropTailWatch.hpp)
      meta["flows"]["drop_tail_ports_over_buffer"]       = work.over_buffer.ports;
      meta["flows"]["drop_tail_worst_queue_over_buffer"] = work.over_buffer.worst; // the largest estimate / buffer
      meta["flows"]["drop_tail_ports_of_few_segments"]   = work.over_buffer.small_buffer_ports;
    }
  }
  meta["peak_rss_bytes"] = Simulation::peak_rss_bytes();
  // The whole process's peak (SimGrid, actors' stacks, the platform, the run's state) over the simulated nodes.
  meta["bytes_per_node"] = Simulation::peak_rss_bytes() / std::max<std::size_t>(1, cluster.size());
  meta["nodes"]          = cluster.size();
  meta["routing_table_bytes"] = cluster.fabric().routes().memory_bytes();
  if (auto w = sc.workload->metadata(); !w.is_null())
    meta["workload"] = std::move(w);
  Json tables            = Json::array();
  for (auto const& t : sink.tables())
    tables.push_back({{"file", t.name() + ".csv"}, {"columns", t.columns()}, {"rows", t.row_count()}});
  meta["tables"] = tables;
  return meta;
}

/// The summary's lines on the run as a whole: the scenario, the platform and the transports its nodes run, the CCLO
/// build, what crossed the network.
void summarize_platform(const Scenario& sc, Simulation& sim, const nodes::Cluster& cluster,
                        const net::FabricTotals& totals, std::vector<std::string>& out)
{
  auto const& topo = cluster.topology();
  out.push_back(fmt::format("scenario {} (seed {})", sc.header.name, sc.header.seed));
  // The transports the nodes run, per kind of node present ("roce on FPGAs, tcp on hosts").
  std::string transports;
  for (auto const& k : cluster.kinds_known().entries())
    if (auto at = cluster.positions(k.name); !at.empty())
      transports += fmt::format("{}{} on {}", transports.empty() ? "" : ", ",
                                config::enum_name(cluster.at(at.front()).transport_kind()), k.plural);
  if (totals.injected == 0)
    transports += " (unused: no packet crossed the network)";
  out.push_back(fmt::format("platform {}: {} {}; transport {}", sc.platform.name,
                            config::enum_name(sc.platform.topology.kind), topo.describe(), transports));
  // The CCLO build, where a CCLO ran (a cluster of MPI hosts has none, whatever the fpga section says).
  if (auto const& fpga = nodes::fpga_config(sc.platform.node); nodes::cclos_made(cluster) > 0)
    if (auto build = nodes::describe_build(fpga.cclo, fpga.transport); !build.empty())
      out.push_back("  " + build);
  if (sc.platform.network.fidelity == net::Fidelity::Flow) // (its packets are flows: one per message the engines send)
    out.push_back(fmt::format("simulated {}: {} flows, {} flow-hops (flow fidelity: a message crosses its path "
                              "as one flow; nothing is queued or dropped)",
                              format_time(sim.scheduler().now()), totals.injected, totals.packet_hops));
  else
    out.push_back(fmt::format("simulated {}: {} packets, {} packet-hops, {} dropped ({} queue, {} faults)",
                              format_time(sim.scheduler().now()), totals.injected, totals.packet_hops,
                              totals.queue_drops + totals.fault_drops, totals.queue_drops, totals.fault_drops));
  // Per FPGA, by its shell: a SEND resent by a timeout on a RoCE engine of Coyote's shell (its MMU on: the model's
  // timer covers it, Coyote's does not); host data reached by the CCLO itself without Coyote's unified memory (the
  // MMU off: of ACCL's builds only Coyote's lets the CCLO reach host memory; its XRT build migrates host buffers
  // around each call).
  std::uint64_t send_timeouts = 0, direct_host = 0;
  for (std::size_t i = 0; i < cluster.size(); ++i)
    if (auto const* f = cluster.find<nodes::FpgaNode>(i); f && f->config().mmu.enabled) {
      if (f->transport_kind() == nodes::Transport::Roce)
        send_timeouts += f->poe().counters().send_timeouts;
    } else if (f && f->cclo()) {
      direct_host += f->cclo()->counters().direct_host_calls;
    }
  if (send_timeouts > 0)
    out.push_back(fmt::format(
        "warning: {} retransmission timeout(s) on the FPGAs' RoCE engines resent SENDs (eager messages, rendezvous "
        "notices) with no WRITE or READ outstanding; Coyote's RDMA stack (these FPGAs run Coyote's shell: its MMU is "
        "on) arms its timer for WRITEs and READ requests only in the versions read (ib_transport_protocol.cpp "
        "generate_exh), so there those losses are never resent and the call would hang (protocols/roce/README.md)",
        send_timeouts));
  for (auto& line : nodes::transport_notes(cluster))
    out.push_back(std::move(line));
  if (direct_host > 0)
    out.push_back(fmt::format(
        "warning: {} CCLO call(s) read or wrote host buffers themselves (platform.node.fpga.pcie) on FPGAs without "
        "Coyote's unified memory (mmu off); of ACCL's builds only Coyote's lets the CCLO reach host memory (its XRT "
        "build migrates host buffers to the card around each call, as the collective workload's invocation xrt "
        "does), so their host-data timing is that of a build ACCL does not have: use device buffers, a Coyote preset, "
        "or invocation xrt",
        direct_host));
  // Eager messages taken out of the order the hardware's per-peer sequence numbers allow (TagOrderWatch.hpp).
  if (auto const& miss = sim.scheduler().shared<nodes::TagOrderWatch>().miss())
    out.push_back(fmt::format(
        "warning: host {} took eager message {} from host {} under tag {}, where host {} had sent it under tag {}: "
        "nafsim numbers a peer's eager messages per tag, ACCL's data mover per peer with the tag checked "
        "(dma_mover.cpp rxbuf_seek), so on the hardware that receive would wait for ever; receive a peer's messages "
        "in the order they are sent (nodes/README.md, Deviations)",
        miss->to, miss->message, miss->from, miss->taken_tag, miss->from, miss->sent_tag));
  // Fast-forward (opt-in): said whenever it is on, with how much of the traffic it carried.
  if (const unsigned train = sc.platform.network.fast_forward.train; train > 1) {
    const std::uint64_t stood_for = totals.injected - totals.trains + totals.train_packets;
    out.push_back(fmt::format(
        "fast-forward on (platform.network.fast_forward: trains of up to {} packets after {} back to back): {} "
        "trains carried {} of the {} packets the engines sent ({:.1f} %); an approximation (its error against packet by "
        "packet: simcore/net/README.md)",
        train, sc.platform.network.fast_forward.window, totals.trains, totals.train_packets, stood_for,
        stood_for > 0 ? 100.0 * static_cast<double>(totals.train_packets) / static_cast<double>(stood_for) : 0.0));
    // Where few packets rode, it gains nothing, and where a queue cannot hold a train from every input cable it
    // costs: no packet's last switch hop is taken in the hop before (Fabric::pass_last_hop), 2 events more per message.
    if (totals.train_packets * 10 < stood_for)
      out.push_back("  few packets rode in trains (messages of a few packets, or queue pairs taking turns on a NIC): "
                    "the fast-forward gains nothing here and may cost events; set platform.network.fast_forward.train "
                    "0 for this traffic");
  }
}

/// The summary's hints on flow fidelity: its cost where the flows contend in one component, its optimism where
/// drop-tail queues would have overflowed.
void flow_hints(const Scenario& sc, const nodes::Cluster& cluster, const net::Fabric::FlowWork& work,
                std::vector<std::string>& out)
{
  auto const& topo = cluster.topology();
  // Flow fidelity solves a flow's whole component at each start and end (re-filling the flows at or above the
  // change's level, walking the others): when all flows share one (an all-to-all), each is in thousands of solves
  // and packet fidelity is the faster one (unless the solves are spaced by flow_resolve_fraction: then about
  // 2 / fraction per flow).
  const double resolve  = sc.platform.network.flow_resolve_fraction;
  const double per_flow = work.flows > 0 ? static_cast<double>(work.flows_in_components) /
                                               static_cast<double>(work.flows)
                                         : 0;
  if (work.flows > 0 && resolve == 0 && work.flows_in_components > kResolvesHint * work.flows)
    out.push_back(fmt::format(
        "flow fidelity: each of the {} flows was in {:.0f} solves on average and re-solved in {:.0f} (they contend in "
        "one component, as in an all-to-all); packet fidelity is likely faster here and models the switch queues "
        "({}), or set platform.network.flow_resolve_fraction (e.g. 0.02: a solve per 2 % of the flows started or "
        "ended, an approximation, within 1 % of the exact sharing in simcore/net/README.md's all-to-alls)",
        work.flows, per_flow, static_cast<double>(work.flows_solved) / static_cast<double>(work.flows),
        kAllToAllError));
  else if (work.flows > 0 && resolve > 0 && per_flow > std::max(kOneComponentShare * 2 / resolve, kOneComponentSolves))
    out.push_back(fmt::format(
        "flow fidelity: each of the {} flows was in {:.1f} solves on average, {:.0f} % of the 2 / f = {:.0f} that "
        "flow_resolve_fraction f = {} allows (every solve took nearly all flows in progress: they contend in one "
        "component, as in an all-to-all); packet fidelity models the switch queues ({})",
        work.flows, per_flow, 100 * per_flow * resolve / 2, 2 / resolve, resolve, kAllToAllError));
  // Flow fidelity drops nothing: where drop-tail queues would have overflowed its times are optimistic.
  if (work.drop_tail && work.over_buffer.ports > 0) {
    const auto& port = cluster.fabric().ports()[work.over_buffer.worst_port];
    out.push_back(fmt::format(
        "flow fidelity on drop-tail switches: at {} switch port(s), the first at {}, the bytes the senders had handed "
        "over would have overflowed the port's buffer (the worst, port {} of {}, by an estimated {:.2f}x its {} "
        "bytes): the packet fabric drops there and its RoCE engines retransmit, the flow fabric drops nothing, so "
        "these times are optimistic (by 60-80 % in simcore/net/README.md's cases); use packet fidelity, or lossless "
        "switches (platform.network.switch.flow_control)",
        work.over_buffer.ports, format_time(work.over_buffer.first), port.index, topo.info(port.vertex).name,
        work.over_buffer.worst, port.capacity));
  }
  if (work.drop_tail && work.over_buffer.small_buffer_ports > 0)
    out.push_back(fmt::format(
        "flow fidelity on drop-tail switches: {} switch port(s) have buffers (the smallest {} bytes) that hold fewer "
        "than {} of the segments crossing them (up to {} bytes): the packet fabric drops where two packets meet "
        "there, which no fluid resolves; use packet fidelity, or lossless switches "
        "(platform.network.switch.flow_control)",
        work.over_buffer.small_buffer_ports, work.over_buffer.buffer, net::DropTailWatch::kFewSegments,
        work.over_buffer.segment));
}

/// The settings given by path that nothing in the run read (UnreadSettings.hpp), the last given per path.
Json unread_settings(const Scenario& sc, const nodes::Cluster& cluster)
{
  Json out = Json::array();
  for (std::size_t i = 0; i < sc.path_sets.size(); ++i) {
    auto const& ps = sc.path_sets[i];
    const bool later = std::any_of(sc.path_sets.begin() + static_cast<std::ptrdiff_t>(i) + 1, sc.path_sets.end(),
                                   [&](auto const& o) { return o.path == ps.path; });
    if (later)
      continue;
    if (std::string why = unread_reason(cluster, *sc.workload, sc.workload_kind, ps.path); !why.empty())
      out.push_back({{"path", ps.path}, {"set_by", ps.where}, {"why", why}});
  }
  return out;
}

} // namespace

std::string check_scenario(Scenario& sc, const std::vector<std::string>& log_settings)
{
  Simulation sim(log_settings, sc.platform.topology.hosts);
  try {
    nodes::Cluster cluster(sc.platform, sim.scheduler(), sc.header.seed);
    sc.workload->start(cluster);
    // The actors just made never run: SimGrid warns at exit that it skips their clean-up, which is the point.
    xbt_log_control_set("ker_engine.thres:error");
    return fmt::format("scenario {} is valid: platform {} ({}), workload {}", sc.header.name, sc.platform.name,
                       cluster.topology().describe(), sc.workload_kind);
  } catch (const config::ConfigError& e) {
    if (!e.origin().empty())
      throw;
    throw config::ConfigError(sc.origins.of(e.json_path()), e.json_path(), e.message());
  }
}

namespace {

/// The summary's last lines: a critical path asked of a workload that records none, the workload's own lines, and
/// the files written.
void written_summary(const Scenario& sc, const RunOptions& options, const results::ResultSink& sink,
                     std::vector<std::string>& lines, std::vector<std::string>& summary)
{
  const auto& tables = sink.tables();
  if (sc.header.critical_path && std::none_of(tables.begin(), tables.end(), [](auto const& t) {
        return t.name() == "critical_path";
      }))
    summary.push_back(fmt::format("warning: {} asked for critical paths, but the {} workload records none in this run "
                                  "(the collective, mpi, sendrecv, fc, dlrm, program and chakra workloads do, and "
                                  "connectionless in latency mode): none was written",
                                  options.critical_path ? "--critical-path" : "critical_path", sc.workload_kind));
  for (auto& l : lines)
    summary.push_back(std::move(l));
  std::string files;
  for (auto const& t : tables)
    files += t.name() + ".csv, ";
  for (auto const& f : sink.files())
    files += f.first + ", ";
  summary.push_back(fmt::format("results in {}/ ({}metadata.json)", sink.dir().string(), files));
}

} // namespace

RunReport run_scenario(Scenario& sc, const std::filesystem::path& out_dir,
                       const std::vector<std::string>& log_settings, const std::vector<std::string>& command_line,
                       const RunOptions& options)
{
  results::Trace trace(options.trace);
  // --critical-path is the scenario's critical_path: metadata.json records it, so that rerunning it writes the paths.
  if (options.critical_path) {
    sc.header.critical_path     = true;
    sc.resolved["critical_path"] = true;
  }
  Simulation sim(log_settings, sc.platform.topology.hosts);
  sim.scheduler().set_time_limit(sc.header.max_sim_time);
  if (options.wall_limit > 0)
    sim.scheduler().set_wall_limit(options.wall_limit);
  std::unique_ptr<nodes::Cluster> cluster;
  try {
    cluster = std::make_unique<nodes::Cluster>(sc.platform, sim.scheduler(), sc.header.seed);
    if (trace.messages())
      cluster->enable_trace(trace);
    if (sc.header.critical_path)
      sim.scheduler().record_causes();
    if (options.event_profile)
      sim.scheduler().profile_events();
    sc.workload->start(*cluster);
    std::optional<ProgressLine> progress;
    if (!options.quiet) {
      progress.emplace(std::cerr, isatty(2) != 0, [&sc] { return sc.workload->progress(); });
      sim.scheduler().set_progress(
          [&] { progress->tick(sim.scheduler().now(), sim.scheduler().events_processed()); });
    }
    sim.run(cluster->kernel_host()); // some limits are met only as the run opens them (TCP sessions)
    sim.scheduler().set_progress({});
  } catch (const config::ConfigError& e) {
    // Errors found against the built platform: name the file the offending value came from.
    if (!e.origin().empty())
      throw;
    throw config::ConfigError(sc.origins.of(e.json_path()), e.json_path(), e.message());
  } catch (const DeadlockError& e) {
    // A setting of the workload that would avoid this deadlock is named beside it.
    const std::string advice = sc.workload->deadlock_advice();
    if (advice.empty())
      throw;
    throw DeadlockError(std::string(e.what()) + "\n" + advice);
  }

  results::ResultSink sink(out_dir);
  RunReport rep;
  std::vector<std::string> lines;
  sc.workload->report(*cluster, sink, lines);
  nodes::add_cluster_tables(*cluster, sink);

  const auto totals     = cluster->fabric().totals();
  const auto work       = cluster->fabric().flow_work();
  rep.wall_seconds      = sim.wall_seconds();
  rep.simulated_seconds = sim.scheduler().now().seconds();
  rep.packet_hops       = totals.packet_hops;

  Json meta = run_metadata(sc, sim, *cluster, totals, work, command_line, rep, sink);
  const Json unread = unread_settings(sc, *cluster);
  if (!unread.empty())
    meta["unread_settings"] = unread;
  if (trace.messages()) {
    meta["trace"] = {{"file", "trace.json"}, {"events", trace.size()}, {"truncated", trace.truncated()}};
    sink.add_file("trace.json", trace.json());
  }
  sink.set_metadata(meta);
  sink.commit();

  summarize_platform(sc, sim, *cluster, totals, rep.summary);
  for (auto const& u : unread)
    rep.summary.push_back(fmt::format("warning: {} was read by nothing in this run: {}; the results are the same as "
                                      "without it",
                                      u["set_by"].get<std::string>(), u["why"].get<std::string>()));
  flow_hints(sc, *cluster, work, rep.summary);
  written_summary(sc, options, sink, lines, rep.summary);
  return rep;
}

} // namespace nafsim::app
