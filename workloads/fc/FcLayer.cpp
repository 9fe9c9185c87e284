#include "workloads/fc/FcLayer.hpp"

#include "nodes/fpga/FpgaCluster.hpp"
#include "nodes/host/HostCluster.hpp"
#include "workloads/CriticalPath.hpp"

#include "nodes/cclo/CallPlan.hpp"
#include "nodes/cclo/Cclo.hpp"
#include "nodes/host/MpiProcess.hpp"
#include "simcore/config/ConfigError.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <tuple>

namespace nafsim::workloads {

namespace {
constexpr std::uint64_t kResultOffset = 1ULL << 34; // ACCL+ result buffer, 16 GiB above the operand
} // namespace

std::string FcLayer::unread_reason(std::string_view key) const
{
  return key_head(key) == "extra_copy" && cfg_.reduction == FcReduction::Mpi
             ? "software MPI reduces (reduction mpi); extra_copy is the ACCL reduction's copy"
             : std::string();
}

FcLayer::FcLayer(const FcLayerConfig& cfg) : cfg_(cfg)
{
  if (cfg_.sizes.empty())
    throw config::ConfigError("", "/workload/sizes", "no FC size given: list at least one input length N");
  for (std::size_t i = 0; i < cfg_.sizes.size(); ++i)
    if (cfg_.sizes[i] < cfg_.ranks)
      throw config::ConfigError("", fmt::format("/workload/sizes/{}", i),
                                fmt::format("an input of {} elements cannot be split over {} ranks: give every rank at "
                                            "least one column (N >= ranks)",
                                            cfg_.sizes[i], cfg_.ranks));
}

std::uint64_t FcLayer::columns(unsigned rank, std::uint64_t in) const
{
  // Column blocks as even as possible; the first `in % ranks` ranks take one more.
  return in / cfg_.ranks + (rank < in % cfg_.ranks ? 1 : 0);
}

unsigned FcLayer::threads(const nodes::Cluster& c) const
{
  auto cores = nodes::host_config(c.config().node).compute.cores;
  return cfg_.threads == 0 ? cores : std::min(cfg_.threads, cores);
}

coll::CollectiveCall FcLayer::reduce_call(std::uint64_t out) const
{
  coll::CollectiveCall call;
  call.collective = coll::Collective::Reduce;
  call.size       = static_cast<int>(cfg_.ranks);
  call.root       = 0;
  call.count      = out;
  call.elem_bytes = 4;
  call.func       = coll::ReduceFunc::Sum;
  return call;
}

nodes::CcloCall FcLayer::cclo_call(unsigned rank, std::uint64_t out) const
{
  nodes::CcloCall cc;
  cc.call     = reduce_call(out);
  cc.comm     = comm_;
  cc.rank     = static_cast<int>(rank);
  cc.location = nodes::DataLocation::Host;
  cc.path     = nodes::InvocationPath::Coyote;
  cc.src_addr = nodes::kHostMemory;
  cc.dst_addr = nodes::kHostMemory + kResultOffset;
  return cc;
}

void FcLayer::start(nodes::Cluster& c)
{
  const bool accl = cfg_.reduction == FcReduction::Accl;
  auto nodes      = c.positions(accl ? nodes::FpgaNode::kKind : nodes::HostNode::kKind);
  if (cfg_.ranks > nodes.size())
    throw config::ConfigError(
        "", "/workload/ranks",
        fmt::format("{} ranks requested, but the platform has {} {} node(s) (reduction = {} runs on {}): {}",
                    cfg_.ranks, nodes.size(), accl ? "FPGA" : "host", config::enum_name(cfg_.reduction),
                    accl ? "FPGA nodes (a host driving its FPGA's CCLO)" : "host nodes (software MPI)",
                    c.more_nodes_advice(accl ? nodes::FpgaNode::kKind : nodes::HostNode::kKind, cfg_.ranks)));
  // (more threads than cores had run as every core, unsaid)
  if (const unsigned cores = nodes::host_config(c.config().node).compute.cores; cfg_.threads > cores)
    throw config::ConfigError("", "/workload/threads",
                              fmt::format("{} threads per rank's GEMV, but the hosts (platform.node.host.compute) have "
                                          "{} cores: give at most {} (0: all of them)",
                                          cfg_.threads, cores, cores));
  comm_.clear();
  for (unsigned r = 0; r < cfg_.ranks; ++r)
    comm_.push_back(static_cast<net::HostId>(nodes[r]));
  for (std::uint64_t n : cfg_.sizes) {
    const std::uint64_t m = cfg_.outputs == 0 ? n : cfg_.outputs;
    if (!accl && cfg_.ranks > 1)
      plans_.push_back(mpi::plan_collective(nodes::host_config(c.config().node).mpi.library, reduce_call(m)));
    // The single-node reference: the whole layer, iteration after iteration, on one node's CPU.
    nodes::CpuCompute cpu(nodes::host_config(c.config().node).compute);
    nodes::CpuCache cache;
    for (unsigned it = 0; it < cfg_.iterations; ++it) {
      auto k = cpu.gemv(cache, "W", m, n, threads(c));
      Sample s;
      s.in = n, s.out = m, s.iteration = it;
      s.single_node  = k.total;
      s.single_level = nodes::level_name(k.weights);
      s.ranks.resize(cfg_.ranks);
      samples_.push_back(std::move(s));
    }
  }
  if (accl) {
    nodes::check_communicator(c, comm_);
    // What the firmware cannot run is said before the run, at the setting that makes it (as the collective
    // workload does): the reduce's size comes from `outputs`, or from the size when outputs is 0.
    for (std::size_t i = 0; i < cfg_.sizes.size() && cfg_.ranks > 1; ++i) {
      const std::uint64_t m = cfg_.outputs == 0 ? cfg_.sizes[i] : cfg_.outputs;
      for (unsigned r = 0; r < cfg_.ranks; ++r) {
        auto const& cclo = nodes::cclo_of(c, comm_[r]);
        auto plan        = nodes::plan_call(cclo_call(r, m), cclo.config(), cclo.link());
        if (!plan.error.empty())
          throw config::ConfigError("", cfg_.outputs == 0 ? fmt::format("/workload/sizes/{}", i) : "/workload/outputs",
                                    fmt::format("the reduce of {} outputs ({}) on rank {}: {}", m,
                                                format_bytes(Bytes{m * 4}), r, plan.error));
      }
    }
  }
  for (unsigned r = 0; r < cfg_.ranks; ++r) {
    if (accl)
      nodes::cclo_of(c, comm_[r]);
    else
      nodes::mpi_of(c, comm_[r]);
    auto* host = accl ? c.at<nodes::FpgaNode>(comm_[r]).host() : c.at<nodes::HostNode>(comm_[r]).host();
    c.scheduler().spawn(fmt::format("fc-rank-{}", r), host, [this, &c, r](ActorContext& ctx) { run_rank(ctx, c, r); });
  }
}

void FcLayer::pollute_with_mpi(nodes::CpuCache& cache, const coll::Schedule& s, std::uint64_t call_index,
                               std::uint64_t eager_threshold) const
{
  // What the MPI library's reduce brings into this CPU's caches: every message it receives is read by
  // the CPU (to combine it), from a bounce buffer for eager messages (the receive pool rotates, so each
  // call touches fresh buffers) or from its scratch buffer for rendezvous ones (the NIC READs into it),
  // and the scratch buffers its algorithm combines in.
  std::uint64_t received = 0;
  for (auto const& op : s.ops)
    switch (op.kind) {
      case coll::OpKind::Recv:
      case coll::OpKind::RecvReduce:
      case coll::OpKind::RecvReduceSend:
      case coll::OpKind::RecvSend:
        received += std::max(op.dst.count, op.a.count) * s.call.elem_bytes;
        break;
      default: break;
    }
  const std::uint64_t l2 = 0, l3 = 0; // only the LRU order matters for a buffer touched for the first time
  std::uint64_t scratch  = (s.scratch[0] + s.scratch[1] + s.scratch[2]) * s.call.elem_bytes;
  bool eager             = s.call.bytes() <= eager_threshold;
  if (received > 0)
    cache.access(eager ? fmt::format("mpi.bounce.{}", call_index) : "mpi.rendezvous", received, l2, l3);
  if (scratch > 0)
    cache.access("mpi.scratch", scratch, l2, l3);
}

void FcLayer::run_rank(ActorContext& ctx, nodes::Cluster& c, unsigned rank)
{
  const bool accl = cfg_.reduction == FcReduction::Accl;
  nodes::CpuCompute cpu(nodes::host_config(c.config().node).compute);
  nodes::CpuCache cache;
  std::size_t sample = 0;
  std::uint64_t calls = 0;
  for (std::size_t si = 0; si < cfg_.sizes.size(); ++si) {
    cache.clear(); // a new layer: a fresh process
    const std::uint64_t n = cfg_.sizes[si];
    const std::uint64_t m = cfg_.outputs == 0 ? n : cfg_.outputs;
    const coll::CollectiveCall call = reduce_call(m);
    coll::Schedule mpi_schedule;
    if (!accl && cfg_.ranks > 1)
      mpi_schedule = coll::build_schedule(call, plans_[si].algorithm, coll::Protocol::Eager, static_cast<int>(rank),
                                          plans_[si].options);
    for (unsigned it = 0; it < cfg_.iterations; ++it, ++sample, ++calls) {
      RankTimes& t = samples_[sample].ranks[rank];
      start_line_.arrive(ctx, cfg_.ranks);
      const SimTime t0 = ctx.now();
      auto k  = cpu.gemv(cache, "W", m, columns(rank, n), threads(c));
      t.level = nodes::level_name(k.weights);
      t.start = t0;
      static const std::uint32_t gemv = cause_what("host CPU", "GEMV (its share of W x)");
      static const std::uint32_t copy = cause_what("host CPU", "copy between application and ACCL+ buffers");
      ctx.sleep_for(k.total, CauseLabel::at_host(gemv, comm_[rank]));
      t.compute = k.total;
      if (cfg_.ranks > 1 && accl) {
        if (cfg_.extra_copy) {
          auto cp = cpu.copy(cache, "W.out", "accl.operand", m * 4);
          ctx.sleep_for(cp.total, CauseLabel::at_host(copy, comm_[rank]));
          t.copies += cp.total;
        }
        auto res = nodes::cclo_of(c, comm_[rank]).call(ctx, cclo_call(rank, m));
        if (!res.error.empty())
          throw SimulationError(fmt::format("fc: reduce of {} on rank {}: {}", format_bytes(Bytes{m * 4}), rank,
                                            res.error));
        if (rank == 0)
          samples_[sample].algorithm =
              fmt::format("{}/{}", coll::protocol_name(res.protocol), coll::algorithm_name(res.algorithm));
        if (cfg_.extra_copy && rank == 0) {
          auto cp = cpu.copy(cache, "accl.result", "y", m * 4);
          ctx.sleep_for(cp.total, CauseLabel::at_host(copy, comm_[rank]));
          t.copies += cp.total;
        }
      } else if (cfg_.ranks > 1) {
        nodes::mpi_of(c, comm_[rank]).run(ctx, mpi_schedule, comm_, nodes::DataType::Float32, nullptr);
        pollute_with_mpi(cache, mpi_schedule, calls, nodes::host_config(c.config().node).mpi.eager_threshold.count);
        if (rank == 0)
          samples_[sample].algorithm = fmt::format("{} ({})", plans_[si].library_algorithm, mpi::schedule_name(plans_[si]));
      }
      t.end       = ctx.now() - t0;
      t.end_cause = ctx.scheduler().cause_mark();
    }
  }
}

void FcLayer::report(const nodes::Cluster& c, results::ResultSink& sink, std::vector<std::string>& summary) const
{
  // A sample over its ranks: the longest compute, the longest copies, the last end.
  auto longest = [](const Sample& s) {
    SimTime compute, copies, end;
    for (auto const& r : s.ranks) {
      compute = std::max(compute, r.compute);
      copies  = std::max(copies, r.copies);
      end     = std::max(end, r.end);
    }
    return std::tuple{compute, copies, end};
  };
  results::Table t("fc", {"workload", "reduction", "algorithm", "ranks", "in", "out", "weight_bytes",
                          "partition_bytes", "iteration", "weights_from", "compute_us", "copy_us", "reduction_us",
                          "total_us", "single_node_us", "single_node_weights_from", "speedup"});
  std::map<std::uint64_t, std::vector<const Sample*>> by_size;
  for (auto const& s : samples_) {
    auto const [compute, copies, end] = longest(s);
    t.row()
        .add("fc")
        .add(config::enum_name(cfg_.reduction))
        .add(cfg_.ranks > 1 ? s.algorithm : std::string("-"))
        .add(cfg_.ranks)
        .add(s.in)
        .add(s.out)
        .add(s.in * s.out * 4)
        .add(columns(0, s.in) * s.out * 4)
        .add(s.iteration)
        .add(s.ranks[0].level)
        .add(compute.us(), 4)
        .add(copies.us(), 4)
        .add((end - compute).us(), 4)
        .add(end.us(), 4)
        .add(s.single_node.us(), 4)
        .add(s.single_level)
        .add(s.single_node.seconds() / end.seconds(), 4);
    by_size[s.in].push_back(&s);
  }
  sink.add(std::move(t));
  summary.push_back(fmt::format("fc: y = W x, W column-partitioned over {} rank(s), reduce by {}{}, {} size(s) x {} "
                                "iteration(s) (the first with cold caches; below, the last: fc.csv has each)",
                                cfg_.ranks, config::enum_name(cfg_.reduction),
                                cfg_.reduction == FcReduction::Accl && cfg_.extra_copy ? " with the extra copies" : "",
                                cfg_.sizes.size(), cfg_.iterations));
  summary.push_back(fmt::format("  {:>7} {:>7} {:>10} {:>12} {:>12} {:>12} {:>14} {:>8}", "in", "out", "weights_in",
                                "compute_us", "reduce_us", "total_us", "one_node_us", "speedup"));
  for (auto const& [n, v] : by_size) {
    const Sample& s = *v.back(); // the last iteration: caches as the layer leaves them in steady state
    auto const [compute, copies, end] = longest(s);
    summary.push_back(fmt::format("  {:>7} {:>7} {:>10} {:>12.3f} {:>12.3f} {:>12.3f} {:>14.3f} {:>8.2f}", s.in, s.out,
                                  s.ranks[0].level, compute.us(), (end - compute).us(), end.us(), s.single_node.us(),
                                  s.single_node.seconds() / end.seconds()));
  }
  report_critical_paths(c, sink, summary);
}

void FcLayer::report_critical_paths(const nodes::Cluster& c, results::ResultSink& sink,
                                    std::vector<std::string>& summary) const
{
  const CausalGraph* g = c.scheduler().causes();
  if (!g)
    return;
  const auto rank_of = rank_in(comm_);
  CriticalPathTable table({"in", "out", "iteration", "rank"});
  std::map<std::uint64_t, CriticalPath> last; // per size: its last iteration (as the summary above)
  for (auto const& s : samples_) {
    std::size_t slow = 0;
    for (std::size_t r = 1; r < s.ranks.size(); ++r)
      if (s.ranks[r].end > s.ranks[slow].end)
        slow = r;
    auto const& rt = s.ranks[slow];
    auto p         = CriticalPath::walk(*g, rt.end_cause, rt.start, rt.start + rt.end);
    table.add({std::to_string(s.in), std::to_string(s.out), std::to_string(s.iteration), std::to_string(slow)}, p,
              rank_of);
    last[s.in] = std::move(p);
  }
  table.write(sink);
  summary.push_back("  critical path of each size's last iteration (critical_path.csv has every one's):");
  for (auto const& [in, p] : last) {
    summary.push_back(fmt::format("  {:>7}  {}", in, p.summary()));
    summary.push_back(fmt::format("  {:>7}  {}", "", p.bottleneck(*g, rank_of)));
  }
}

} // namespace nafsim::workloads
