#include "workloads/dlrm/Dlrm.hpp"

#include "nodes/fpga/FpgaCluster.hpp"
#include "workloads/CriticalPath.hpp"

#include "nodes/cclo/Cclo.hpp"
#include "simcore/config/ConfigError.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace nafsim::workloads {

namespace {

const char* kind_name(DlrmOpKind k)
{
  switch (k) {
    case DlrmOpKind::Lookup: return "lookup";
    case DlrmOpKind::Compute: return "compute";
    case DlrmOpKind::Send: return "send";
    case DlrmOpKind::Recv: return "recv";
    case DlrmOpKind::Reduce: return "reduce";
  }
  return "?";
}

bool is_call(DlrmOpKind k)
{
  return k == DlrmOpKind::Send || k == DlrmOpKind::Recv || k == DlrmOpKind::Reduce;
}

} // namespace

Dlrm::Dlrm(const DlrmConfig& cfg) : cfg_(cfg) {}

std::string Dlrm::unread_reason(std::string_view key) const
{
  if (key == "kernel.dsps")
    return "each layer's kernel takes its DSPs from workload.dsps";
  if (key == "model.embedding_bytes" && !cfg_.model.table_bytes.empty())
    return "workload.model.table_bytes gives each table's size";
  return {};
}

void Dlrm::start(nodes::Cluster& c)
{
  auto const& fpga = nodes::fpga_config(c.config().node);
  plan_            = make_dlrm_plan(cfg_, fpga.fabric);
  auto fpgas       = c.positions(nodes::FpgaNode::kKind);
  if (plan_.nodes.size() > fpgas.size())
    throw config::ConfigError(
        "", "/workload/partition",
        fmt::format("the partition needs {} FPGAs ({} embedding nodes x {} FC1 column blocks + {} layer node(s)), the "
                    "platform has {}: use fewer nodes per layer or a bigger platform (topology.hosts)",
                    plan_.nodes.size(), cfg_.partition.embedding_nodes, cfg_.partition.fc1_column_blocks,
                    cfg_.model.fc.size() - 1, fpgas.size()));
  if (c.transport_kind(fpgas[0]) == nodes::Transport::Connectionless)
    throw config::ConfigError("", "/platform/node/fpga/transport",
                              "the DLRM's kernels talk through the CCLO: run the FPGAs over roce, tcp or udp");
  hosts_.clear();
  for (std::size_t i = 0; i < plan_.nodes.size(); ++i)
    hosts_.push_back(static_cast<net::HostId>(fpgas[i]));
  stats_.assign(plan_.nodes.size(), {});
  consumers_.assign(plan_.nodes.size(), {});
  for (std::size_t n = 0; n < plan_.nodes.size(); ++n) {
    auto const& ops = plan_.nodes[n].ops;
    stats_[n].assign(ops.size(), OpStats{});
    consumers_[n].assign(ops.size(), {});
    for (unsigned j = 0; j < ops.size(); ++j)
      for (auto d : ops[j].deps)
        consumers_[n][d].push_back(j);
  }
  receiver_.assign(plan_.nodes.size(), {});
  for (unsigned n = 0; n < plan_.nodes.size(); ++n)
    for (auto const& op : plan_.nodes[n].ops) {
      std::pair<unsigned, int> r{0, -1};
      if (op.kind == DlrmOpKind::Send) {
        auto const& peer_ops = plan_.nodes[op.peer].ops;
        for (unsigned j = 0; j < peer_ops.size(); ++j)
          if (peer_ops[j].kind == DlrmOpKind::Recv && peer_ops[j].peer == n && peer_ops[j].tag == op.tag)
            r = {op.peer, static_cast<int>(j)};
      } else if (op.kind == DlrmOpKind::Reduce && op.group.back() != n) {
        // A reduce's eager messages run ahead of the root just as sends do: credit from the root's reduce.
        auto const& root_ops = plan_.nodes[op.group.back()].ops;
        for (unsigned j = 0; j < root_ops.size(); ++j)
          if (root_ops[j].kind == DlrmOpKind::Reduce)
            r = {op.group.back(), static_cast<int>(j)};
      }
      receiver_[n].push_back(r);
    }
  released_at_.assign(total(), SimTime{});
  done_at_.assign(total(), SimTime{});
  done_cause_.assign(total(), 0);
  sched_ = &c.scheduler();
  nodes::check_communicator(c, hosts_);
  streams_.clear();
  for (unsigned n = 0; n < plan_.nodes.size(); ++n) {
    nodes::cclo_of(c, hosts_[n]);
    // One process per command stream (a node's sends to one peer in one, its receives from one peer in another:
    // the hardware takes a peer's messages in the order sent), spawned in the order of their first ops.
    for (auto& ops : dlrm_streams(plan_.nodes[n])) {
      auto const& stream = streams_.emplace_back(std::move(ops));
      c.scheduler().spawn(fmt::format("dlrm-n{}-op{}", n, fmt::join(stream, "+op")),
                          c.at<nodes::FpgaNode>(hosts_[n]).host(),
                          [this, &c, n, &stream](ActorContext& ctx) { run_stream(ctx, c, n, stream); });
    }
  }
  c.scheduler().spawn("dlrm-driver", c.at<nodes::FpgaNode>(hosts_[0]).host(), [this](ActorContext& ctx) { run_driver(ctx); });
  note_rx_buffers(c);
}

void Dlrm::note_rx_buffers(nodes::Cluster& c)
{
  // The credits bound each send, not each receiver: a node that several kernels send to may hold credits x (its
  // messages per inference, in Rx buffers) eager messages not yet taken, and its reduce's move, which holds every Rx
  // buffer of its block at once, then finds too few: the CCLO's Rx-buffer deadlock. Its diagnosis names the CCLO's
  // settings; this names the workload's.
  std::vector<std::string> over;
  for (unsigned n = 0; n < plan_.nodes.size(); ++n) {
    auto const& rx          = nodes::cclo_of(c, hosts_[n]).config().rx_buffers;
    const std::uint64_t per = std::max<std::uint64_t>(rx.size.count, 1);
    std::uint64_t per_credit = 0, reduce = 0; // Rx buffers: one inference's messages into n; n's reduce block
    for (unsigned m = 0; m < plan_.nodes.size(); ++m)
      for (auto const& op : plan_.nodes[m].ops)
        if (op.kind == DlrmOpKind::Send && op.peer == n)
          per_credit += (op.bytes + per - 1) / per;
        else if (op.kind == DlrmOpKind::Reduce && m == n)
          reduce = std::max(reduce, (op.bytes + per - 1) / per);
    const std::uint64_t held = per_credit * cfg_.credits;
    if (per_credit == 0 || held + reduce <= rx.count)
      continue;
    const std::uint64_t fit = rx.count > reduce ? (rx.count - reduce) / per_credit : 0;
    over.push_back(fmt::format(
        "host {} (plan node {}, {}) may hold {} Rx buffers of messages its kernels have not taken (workload.credits {} "
        "x {} per inference) beside the {} its reduce's block takes, of its {}: {}raise "
        "platform.node.fpga.cclo.rx_buffers.count to {}",
        hosts_[n], n, plan_.nodes[n].role, held, cfg_.credits, per_credit, reduce, rx.count,
        fit >= 1 ? fmt::format("lower workload.credits to {}, or ", fit) : "", held + reduce));
  }
  if (!over.empty())
    c.scheduler().add_failure_note([over](const std::string& failure) {
      if (failure.find("Rx-buffer deadlock") == std::string::npos)
        return std::string();
      return fmt::format("DLRM: {}", fmt::join(over, "; "));
    });
}

void Dlrm::notify()
{
  // Woken in the order the operations were spawned, node by node in the plan's order: operations of one node that
  // become ready at the same instant reach its CCLO in the order of its program (the slice's receive before the
  // partials', as a kernel that needs the slice first issues them). Woken in the order they had blocked, they took
  // turns: a probe whose partial receive went first held the CCLO until the previous column's FC1 was done (46.245
  // against 40.140 us, probe after probe, so the mean moved with the number of probes).
  auto w = std::move(waiters_);
  waiters_.clear();
  std::sort(w.begin(), w.end());
  for (auto a : w)
    sched_->wake(a);
}

bool Dlrm::ready(unsigned node, unsigned op, std::uint64_t k) const
{
  if (released_ <= k)
    return false;
  auto const& s = stats_[node];
  for (auto d : plan_.nodes[node].ops[op].deps)
    if (s[d].done <= k)
      return false;
  // Back-pressure: at most stream_depth results not yet taken by each consumer.
  for (auto c : consumers_[node][op])
    if (s[c].done + cfg_.stream_depth <= k)
      return false;
  // Across the network: a send (a reduce contribution) waits for credit from the receiving kernel (the
  // reduce's root): at most `credits` messages it has not taken yet, or eager messages would pile up
  // in the receiver's Rx buffers.
  if (auto const& [peer, recv] = receiver_[node][op]; recv >= 0)
    if (stats_[peer][static_cast<unsigned>(recv)].done + cfg_.credits <= k)
      return false;
  return true;
}

nodes::CcloCall Dlrm::make_call(unsigned node, const DlrmOp& op) const
{
  nodes::CcloCall cc;
  cc.call.elem_bytes = 4;
  cc.call.count      = op.bytes / 4;
  cc.call.func       = coll::ReduceFunc::Sum;
  cc.dtype           = nodes::DataType::Int32; // 32-bit fixed point
  cc.location        = nodes::DataLocation::Stream;
  cc.path            = nodes::InvocationPath::Kernel;
  cc.src_addr        = nodes::Cclo::kUserBase;
  cc.dst_addr        = nodes::Cclo::kUserBase + (1ULL << 30);
  cc.tag             = op.tag;
  switch (op.kind) {
    case DlrmOpKind::Send:
      cc.call.collective = coll::Collective::Send;
      cc.comm            = {hosts_[node], hosts_[op.peer]};
      cc.rank            = 0;
      cc.call.root       = 1;
      break;
    case DlrmOpKind::Recv:
      cc.call.collective = coll::Collective::Recv;
      cc.comm            = {hosts_[op.peer], hosts_[node]};
      cc.rank            = 1;
      cc.call.root       = 0;
      break;
    default: {
      cc.call.collective = coll::Collective::Reduce;
      for (auto g : op.group) {
        if (g == node)
          cc.rank = static_cast<int>(cc.comm.size());
        cc.comm.push_back(hosts_[g]);
      }
      cc.call.root = static_cast<int>(op.group.size() - 1);
      break;
    }
  }
  cc.call.size = static_cast<int>(cc.comm.size());
  return cc;
}

void Dlrm::run_stream(ActorContext& ctx, nodes::Cluster& c, unsigned node, const std::vector<unsigned>& stream)
{
  std::vector<nodes::CcloCall> calls;
  std::vector<CauseLabel> kernels;
  for (auto j : stream) {
    auto const& op = plan_.nodes[node].ops[j];
    calls.push_back(is_call(op.kind) ? make_call(node, op) : nodes::CcloCall{});
    kernels.push_back(c.scheduler().causes() ? CauseLabel::at_host(cause_what("FPGA kernel", op.name), hosts_[node])
                                             : CauseLabel{});
  }
  for (std::uint64_t k = 0; k < total(); ++k)
    for (std::size_t i = 0; i < stream.size(); ++i)
      run_op(ctx, c, node, stream[i], k, calls[i], kernels[i]);
}

void Dlrm::run_op(ActorContext& ctx, nodes::Cluster& c, unsigned node, unsigned j, std::uint64_t k,
                  const nodes::CcloCall& call, const CauseLabel& kernel)
{
  auto const& op = plan_.nodes[node].ops[j];
  while (!ready(node, j, k)) {
    waiters_.push_back(ctx.id());
    ctx.block(WaitReason([&] { return fmt::format("DLRM {} ({}) waits to start '{}' of inference {}", plan_.nodes[node].role,
                          node, op.name, k); }));
  }
  const bool streaming = k >= cfg_.latency_probes;
  OpStats& s           = stats_[node][j];
  if (is_call(op.kind)) {
    auto res = nodes::cclo_of(c, hosts_[node]).call(ctx, call);
    if (!res.error.empty())
      throw SimulationError(fmt::format("DLRM {}: '{}' of inference {}: {}", plan_.nodes[node].role, op.name, k,
                                        res.error));
    if (streaming) {
      s.busy += res.finished - res.started;
      s.shortest = std::min(s.shortest, res.finished - res.started);
    }
  } else {
    ctx.sleep_for(op.duration, kernel);
    if (streaming)
      s.busy += op.duration;
  }
  s.done = k + 1;
  if (node == plan_.final_node && j == plan_.final_op) {
    done_at_[k]    = ctx.now();
    done_cause_[k] = ctx.scheduler().cause_mark();
  }
  notify();
}

void Dlrm::run_driver(ActorContext& ctx)
{
  auto last_done = [&] { return stats_[plan_.final_node][plan_.final_op].done; };
  for (std::uint64_t k = 0; k < cfg_.latency_probes; ++k) {
    released_at_[k] = ctx.now();
    released_       = k + 1;
    notify();
    while (last_done() <= k) {
      waiters_.push_back(ctx.id());
      ctx.block(WaitReason([&] { return fmt::format("the DLRM driver waits for inference {} to leave the last layer", k); }));
    }
  }
  stream_start_ = ctx.now();
  for (std::uint64_t k = cfg_.latency_probes; k < total(); ++k)
    released_at_[k] = ctx.now();
  released_ = total();
  notify();
}

void Dlrm::report(const nodes::Cluster& c, results::ResultSink& sink, std::vector<std::string>& summary) const
{
  const double latency_us = report_inferences(sink);
  // Throughput in steady state: over the middle half of the stream. The first inferences fill the pipeline, and
  // the last ones drain it: with nothing issued behind them, their calls do not queue behind the next inference's
  // (the FC2 node's reduce for k + 1 is ahead of its send for k in steady state), so they complete early (a window
  // ending at the last inference gave more than the bottleneck allows). At least one interval: with 2 inferences
  // (the fewest), the whole stream.
  const std::uint64_t p = cfg_.latency_probes, n = cfg_.inferences;
  const std::uint64_t from = p + n / 4, to = p + (3 * n) / 4;
  const double throughput  = static_cast<double>(to - from) / (done_at_[to] - done_at_[from]).seconds();
  const SimTime elapsed    = done_at_[total() - 1] - stream_start_;

  Bottleneck worst = report_stages(sink, elapsed);
  if (const Bottleneck link = link_demand(c); link.us > worst.us)
    worst = link;
  const double bound     = worst.us > 0 ? 1e6 / worst.us : 0; // what the bottleneck alone would allow, per second
  const std::vector<DlrmCpuBatch> cpu = report_systems(sink, latency_us, throughput, worst, bound);

  summary.push_back(fmt::format("dlrm: {} tables, FC {}, on {} FPGAs ({} embedding x {} FC1 column blocks + {} layer "
                                "node(s)); {} probe(s), {} streamed inferences",
                                cfg_.model.tables, fmt::join(cfg_.model.fc, "/"), plan_.nodes.size(),
                                cfg_.partition.embedding_nodes, cfg_.partition.fc1_column_blocks,
                                cfg_.model.fc.size() - 1, cfg_.latency_probes, cfg_.inferences));
  summary.push_back(fmt::format("  FPGA: latency {:.3f} us, throughput {:.0f} inferences/s", latency_us, throughput));
  report_critical_paths(c, sink, summary);
  summary.push_back(fmt::format("  bottleneck (largest demand per inference): {}; alone it would allow {:.0f}/s", worst.what,
                                bound));
  if (bound > 0 && throughput > bound * (1 + 1e-9)) // (a steady state cannot: one stage serves one inference at a time)
    summary.push_back(fmt::format("  the stream is too short for a steady state: its {} inferences ran faster than the "
                                  "bottleneck allows, overlapping the pipeline's fill and drain; raise "
                                  "workload.inferences (e.g. to {}) for a throughput",
                                  cfg_.inferences, std::max<std::uint64_t>(200, 5 * std::uint64_t{cfg_.inferences})));
  else if (cfg_.credits == 1) // (the coupling note below does not fire: the bound was measured with the waits in it)
    summary.push_back("  with credits 1 a sender may be one message ahead of its receiver, so its next call waits for "
                      "the receiver to take the previous one and the calls' shortest runs include that wait: the bound "
                      "is the credit loop's, not one stage's (raise workload.credits to see the stages' own demands)");
  else if (throughput < 0.95 * bound)
    summary.push_back("  the stream runs below that bound: the stages' coupling (the CCLO calls waiting on each other: the "
                      "reduce at its root, the credit loop between kernels; messages sharing links) limits it, not one "
                      "stage or link alone");
  summary.push_back(fmt::format("  {:>8} {:>14} {:>18} {:>16} {:>18}", "cpu batch", "latency_us", "inferences/s",
                                "fpga_lat_ratio", "fpga_thru_ratio"));
  for (auto const& r : cpu)
    summary.push_back(fmt::format("  {:>8} {:>14.3f} {:>18.0f} {:>16.1f} {:>18.1f}", r.batch, r.total.us(),
                                  r.throughput, r.total.us() / latency_us, throughput / r.throughput));
}

double Dlrm::report_inferences(results::ResultSink& sink) const
{
  results::Table inf("dlrm", {"workload", "inference", "phase", "released_us", "done_us", "latency_us"});
  double probe_sum = 0;
  for (std::uint64_t k = 0; k < total(); ++k) {
    const bool probe = k < cfg_.latency_probes;
    const SimTime lat = done_at_[k] - released_at_[k];
    if (probe)
      probe_sum += lat.us();
    inf.row()
        .add("dlrm")
        .add(k)
        .add(probe ? "latency" : "stream")
        .add(released_at_[k].us(), 4)
        .add(done_at_[k].us(), 4)
        .add(lat.us(), 4);
  }
  sink.add(std::move(inf));
  return probe_sum / cfg_.latency_probes;
}

Dlrm::Bottleneck Dlrm::link_demand(const nodes::Cluster& c) const
{
  // Every inference moves the same messages, so a cable direction's wire bytes (frames, headers, the transport's
  // acknowledgements) over all inferences are its load per inference; at its line rate that is a demand like a
  // stage's (a slow network makes a link the bottleneck before any kernel or CCLO).
  Bottleneck worst;
  auto const& topo = c.topology();
  for (auto const& port : c.fabric().ports()) {
    if (port.tx_bytes == 0 || port.rate.bps <= 0)
      continue;
    const double bytes = static_cast<double>(port.tx_bytes) / static_cast<double>(total());
    const double us    = bytes * 8 / port.rate.bps * 1e6;
    if (us > worst.us) {
      worst.us   = us;
      worst.what = fmt::format("the link {} -> {}: {:.0f} B on the wire per inference at {}, {:.3f} us",
                               topo.info(port.vertex).name, topo.info(port.peer).name, bytes, format_rate(port.rate),
                               us);
    }
  }
  return worst;
}

Dlrm::Bottleneck Dlrm::report_stages(results::ResultSink& sink, SimTime elapsed) const
{
  // Per op: its demand per inference (kernels: their time; CCLO calls: the shortest run, when their
  // data was already there) and its occupancy during the stream; per node the CCLO's demand adds up
  // its calls (one call at a time). The bottleneck is the largest demand.
  results::Table st("dlrm_stages", {"workload", "node", "role", "op", "kind", "bytes", "per_inference_us",
                                    "occupancy"});
  Bottleneck worst;
  for (unsigned n = 0; n < plan_.nodes.size(); ++n) {
    auto const& node = plan_.nodes[n];
    double cclo_us = 0, cclo_busy = 0;
    for (unsigned j = 0; j < node.ops.size(); ++j) {
      auto const& op = node.ops[j];
      auto const& s  = stats_[n][j];
      const double per = is_call(op.kind) ? (s.shortest == SimTime::max() ? 0.0 : s.shortest.us()) : op.duration.us();
      st.row()
          .add("dlrm")
          .add(n)
          .add(node.role)
          .add(op.name)
          .add(kind_name(op.kind))
          .add(op.bytes)
          .add(per, 4)
          .add(s.busy.seconds() / elapsed.seconds(), 4);
      if (is_call(op.kind)) {
        cclo_us += per;
        cclo_busy += s.busy.seconds();
      } else if (per > worst.us) {
        worst.us   = per;
        worst.what = fmt::format("node {} ({}) kernel '{}': {:.3f} us per inference", n, node.role, op.name, per);
      }
    }
    st.row().add("dlrm").add(n).add(node.role).add("CCLO (all calls)").add("cclo").add(0).add(cclo_us, 4).add(
        cclo_busy / elapsed.seconds(), 4);
    if (cclo_us > worst.us) {
      worst.us   = cclo_us;
      worst.what = fmt::format("node {} ({}) CCLO: {:.3f} us of calls per inference", n, node.role, cclo_us);
    }
  }
  sink.add(std::move(st));
  return worst;
}

std::vector<DlrmCpuBatch> Dlrm::report_systems(results::ResultSink& sink, double latency_us, double throughput,
                                               const Bottleneck& worst, double bound) const
{
  results::Table sys("dlrm_systems", {"workload", "system", "batch", "nodes", "latency_us", "throughput_per_s",
                                      "overhead_us", "lookups_us", "fc_us", "bottleneck", "bottleneck_bound_per_s"});
  sys.row()
      .add("dlrm")
      .add("fpga")
      .add(1)
      .add(plan_.nodes.size())
      .add(latency_us, 4)
      .add(throughput, 1)
      .add(0.0, 4)
      .add(0.0, 4)
      .add(0.0, 4)
      .add(worst.what)
      .add(bound, 1);
  std::vector<DlrmCpuBatch> cpu;
  for (auto b : cfg_.cpu_baseline.batch_sizes) {
    cpu.push_back(dlrm_cpu_batch(cfg_, b));
    auto const& r = cpu.back();
    sys.row()
        .add("dlrm")
        .add("cpu")
        .add(b)
        .add(1)
        .add(r.total.us(), 4)
        .add(r.throughput, 1)
        .add(r.overhead.us(), 4)
        .add(r.lookups.us(), 4)
        .add(r.fc.us(), 4)
        .add("-")
        .add(0.0, 1);
  }
  sink.add(std::move(sys));
  return cpu;
}

void Dlrm::report_critical_paths(const nodes::Cluster& c, results::ResultSink& sink,
                                 std::vector<std::string>& summary) const
{
  const CausalGraph* g = c.scheduler().causes();
  if (!g)
    return;
  const auto node_of = rank_in(hosts_);
  CriticalPathTable table({"inference", "phase"});
  std::vector<CriticalPath> probes;
  for (std::uint64_t k = 0; k < total(); ++k) {
    auto p = CriticalPath::walk(*g, done_cause_[k], released_at_[k], done_at_[k]);
    table.add({std::to_string(k), k < cfg_.latency_probes ? "latency" : "stream"}, p, node_of);
    if (k < cfg_.latency_probes)
      probes.push_back(std::move(p));
  }
  table.write(sink);
  auto const& median = median_path(probes);
  summary.push_back(fmt::format("  latency breakdown (critical path of the median probe; places: rank = DLRM node): {}",
                                median.summary()));
  summary.push_back(fmt::format("  latency {}", median.bottleneck(*g, node_of)));
}

} // namespace nafsim::workloads
