#include "workloads/mpi/MpiBench.hpp"

#include "nodes/host/HostCluster.hpp"
#include "workloads/CriticalPath.hpp"

#include "nodes/fpga/FpgaNode.hpp"
#include "protocols/collectives/OmpiAlgorithms.hpp"
#include "protocols/mpi/ClassicSelection.hpp"
#include "simcore/config/ConfigError.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>

namespace nafsim::workloads {

using coll::Collective;

void check_mpi_platform(const nodes::Cluster& c)
{
  // The largest single SEND of an eager message must fit one bounce buffer: a fragment (mpi.fragment), or, when
  // messages are not fragmented, a whole eager message.
  auto const& mc       = nodes::host_config(c.config().node).mpi;
  const bool fragments = mc.fragment.count > 0;
  const Bytes largest  = fragments ? mc.fragment : mc.eager_threshold;
  const char* knob     = fragments ? "fragment" : "eager_threshold";
  if (largest.count + mc.header.count > mc.eager_buffer.count)
    throw config::ConfigError("", "/platform/node/host/mpi/eager_buffer",
                              fmt::format("an eager {} ({} {} + header {}) must fit one bounce buffer ({}): raise "
                                          "eager_buffer or lower {}",
                                          fragments ? "fragment" : "message", knob, format_bytes(largest),
                                          format_bytes(mc.header), format_bytes(mc.eager_buffer), knob));
}

MpiBench::MpiBench(const MpiBenchConfig& cfg) : cfg_(cfg), elem_bytes_(nodes::dtype_bytes(cfg.dtype))
{
  switch (cfg_.collective) {
    case BenchOp::Nop:
    case BenchOp::Copy:
    case BenchOp::Combine:
      throw config::ConfigError("", "/workload/collective",
                                fmt::format("{} is a CCLO operation, not an MPI call: use the 'collective' workload, or "
                                            "one of sendrecv, bcast, scatter, gather, allgather, reduce, allreduce, "
                                            "reduce-scatter, alltoall, barrier",
                                            config::enum_name(cfg_.collective)));
    default: break;
  }
  sizes_ = cfg_.collective == BenchOp::Barrier ? std::vector<std::uint64_t>{0}
                                               : message_sizes(cfg_.sizes, cfg_.min_size, cfg_.max_size, elem_bytes_);
  for (auto s : sizes_)
    if (s % elem_bytes_ != 0)
      throw config::ConfigError("", cfg_.sizes.empty() ? "/workload/min_size" : "/workload/sizes",
                                fmt::format("{} is not a whole number of {}-byte {} elements", format_bytes(Bytes{s}),
                                            elem_bytes_, config::enum_name(cfg_.dtype)));
}

coll::CollectiveCall MpiBench::make_call(unsigned rank, std::uint64_t bytes) const
{
  coll::CollectiveCall c;
  c.collective = collective_of(cfg_.collective, rank);
  c.size       = static_cast<int>(comm_.size());
  c.root       = cfg_.collective == BenchOp::SendRecv ? static_cast<int>(1 - rank) : static_cast<int>(cfg_.root);
  c.count      = bytes / elem_bytes_;
  c.elem_bytes = elem_bytes_;
  c.func       = cfg_.func;
  return c;
}

bool MpiBench::stages_in(const coll::CollectiveCall& cc, unsigned rank) const
{
  if (coll::input_elements(cc, static_cast<int>(rank)) == 0)
    return false;
  bool rooted_source = cc.collective == Collective::Bcast || cc.collective == Collective::Scatter;
  return !rooted_source || rank == static_cast<unsigned>(cc.root);
}

bool MpiBench::stages_out(const coll::CollectiveCall& cc, unsigned rank) const
{
  if (coll::output_elements(cc, static_cast<int>(rank)) == 0)
    return false;
  bool rooted_sink = cc.collective == Collective::Gather || cc.collective == Collective::Reduce;
  bool bcast_root  = cc.collective == Collective::Bcast && rank == static_cast<unsigned>(cc.root);
  return (!rooted_sink || rank == static_cast<unsigned>(cc.root)) && !bcast_root;
}

SimTime MpiBench::kernel_invocation(const nodes::Cluster& c) const
{
  // ACCL+ section 5 approximates the invocation of the next computation kernel by the CCLO's own
  // host invocation (a NOP through the Coyote driver): request + firmware call/finalize + response.
  auto const& f = nodes::fpga_config(c.config().node);
  return f.cclo.invocation.coyote_request + f.cclo.invocation.coyote_response +
         cycles_time(Cycles{f.cclo.firmware.call + f.cclo.firmware.finalize}, f.clock);
}

mpi::MpiPlan MpiBench::plan_for(const coll::CollectiveCall& call, std::size_t si) const
{
  if (auto forced = algorithm_of(cfg_.algorithm)) {
    if (auto why = coll::check_applicable(call, *forced); !why.empty())
      throw config::ConfigError("", "/workload/algorithm", why);
    mpi::MpiPlan plan;
    plan.library_algorithm = "forced";
    plan.algorithm         = *forced;
    return plan;
  }
  if (cfg_.library_algorithm.empty()) {
    auto plan = mpi::plan_collective(library_, call);
    // coll_tuned_bcast_algorithm_knomial_radix is one MCA parameter: it reaches the k-nomial broadcasts the rules
    // pick too.
    plan.options.ompi.knomial_radix = static_cast<int>(cfg_.knomial_radix);
    return plan;
  }
  if (library_ == mpi::Library::OpenMpi20 && mpi::ompi_after_2_0(call.collective, cfg_.library_algorithm))
    throw config::ConfigError(
        "", "/workload/library_algorithm",
        fmt::format("Open MPI 2.0 (platform.node.host.mpi.library openmpi-2.0) has no {} algorithm '{}': it came to "
                    "coll/tuned after 2.0. Set the library to openmpi (4.1), or force one 2.0 has",
                    config::enum_name(cfg_.collective), cfg_.library_algorithm));
  auto plan = mpi::plan_openmpi(call, cfg_.library_algorithm, library_, cfg_.segment_size.count);
  if (!plan) {
    std::string names;
    for (auto const& n : coll::ompi_algorithms(call.collective))
      names += (names.empty() ? "" : ", ") + n;
    throw config::ConfigError("", "/workload/library_algorithm",
                              fmt::format("Open MPI's {} has no modeled algorithm '{}'; the modeled ones are: {}",
                                          config::enum_name(cfg_.collective), cfg_.library_algorithm, names));
  }
  plan->options.ompi.segment_bytes = cfg_.segment_size.count;
  plan->options.ompi.chain_fanout  = static_cast<int>(cfg_.chain_fanout);
  plan->options.ompi.knomial_radix = static_cast<int>(cfg_.knomial_radix);
  plan->options.ompi.name          = coll::ompi_effective(call, plan->options.ompi);
  plan->library_algorithm          = "forced " + cfg_.library_algorithm;
  if (plan->options.ompi.name == "two_proc" && call.size != 2)
    throw config::ConfigError("", size_path(cfg_.sizes, si),
                              fmt::format("Open MPI's two_proc algorithms run on exactly 2 ranks, not {}", call.size));
  return *plan;
}

std::string MpiBench::unread_reason(std::string_view key) const
{
  const std::string_view top = key_head(key);
  const bool segment = top == "segment_size", fanout = top == "chain_fanout", radix = top == "knomial_radix";
  if ((segment || fanout) && cfg_.library_algorithm.empty())
    return fmt::format("no Open MPI algorithm is forced (library_algorithm empty: the library's fixed rules give "
                       "each algorithm its {}, as coll/tuned's do)",
                       segment ? "segment size (4.1's: 0)" : "faninout (0: one chain)");
  // Which of coll/tuned's parameters the algorithms of this run read. A forced algorithm's segment size and fanout
  // are its own to read; the k-nomial broadcasts come from the plans (the library's choices, made at the start).
  const bool started = plans_.size() == sizes_.size();
  if ((segment || fanout || radix) && cfg_.ranks <= 1)
    return "one rank runs no algorithm (Open MPI's collectives on one rank copy their buffers)";
  if (segment || fanout || (radix && started)) {
    bool read = false;
    for (std::size_t si = 0; si < sizes_.size() && !read; ++si) {
      coll::OmpiOptions opt;
      if (started) {
        if (plans_[si].algorithm != coll::Algorithm::OpenMpi)
          continue;
        opt = plans_[si].options.ompi;
      }
      if (!cfg_.library_algorithm.empty())
        opt.name = cfg_.library_algorithm; // the forced name, before a hand-over (the segmented ring's to the ring)
      coll::CollectiveCall call = make_call(0, sizes_[si]);
      call.size                 = static_cast<int>(cfg_.ranks);
      const auto r              = coll::ompi_reads(call, opt);
      read                      = segment ? r.segment_size : fanout ? r.chain_fanout : r.knomial_radix;
    }
    if (!read && segment)
      return fmt::format("Open MPI's {} {} reads no segment size (the tree broadcasts and reductions, the "
                         "synchronised linear gather and the segmented ring do; a composite's parts run with the "
                         "library's own decisions)",
                         config::enum_name(cfg_.collective), cfg_.library_algorithm);
    if (!read && fanout)
      return fmt::format("Open MPI's {} {} runs no chain of its own (only a forced chain broadcast or reduction reads "
                         "it; a composite's parts are the library's own decisions, called with faninout 0: one chain)",
                         config::enum_name(cfg_.collective), cfg_.library_algorithm);
    if (!read)
      return "no k-nomial broadcast ran (neither the algorithm of a call nor a composite's broadcast part)";
  }
  return bench_unread_reason(cfg_.collective, cfg_.sizes, key);
}

void MpiBench::start(nodes::Cluster& c)
{
  auto hosts = c.positions(nodes::HostNode::kKind);
  if (cfg_.ranks > hosts.size())
    throw config::ConfigError("", "/workload/ranks",
                              fmt::format("{} MPI ranks requested, but the platform has {} host (CPU) node(s): {}",
                                          cfg_.ranks, hosts.size(),
                                          c.more_nodes_advice(nodes::HostNode::kKind, cfg_.ranks)));
  if (cfg_.collective == BenchOp::SendRecv && cfg_.ranks != 2)
    throw config::ConfigError("", "/workload/ranks", "sendrecv runs between ranks 0 and 1: set ranks to 2");
  if (cfg_.root >= cfg_.ranks)
    throw config::ConfigError("", "/workload/root",
                              fmt::format("root {} is not one of the {} ranks", cfg_.root, cfg_.ranks));
  check_mpi_platform(c);
  library_ = nodes::host_config(c.config().node).mpi.library;
  comm_.clear();
  for (unsigned r = 0; r < cfg_.ranks; ++r)
    comm_.push_back(static_cast<net::HostId>(hosts[r]));
  if (!cfg_.library_algorithm.empty() && library_ == mpi::Library::Mpich)
    throw config::ConfigError("", "/workload/library_algorithm",
                              "forcing a library algorithm is modeled for Open MPI only: set "
                              "platform.node.host.mpi.library to openmpi, or leave library_algorithm empty");
  if (!cfg_.library_algorithm.empty() && cfg_.algorithm != AlgorithmChoice::Auto)
    throw config::ConfigError("", "/workload/library_algorithm",
                              "library_algorithm (Open MPI's algorithm) and algorithm (a nafsim schedule) both force "
                              "the algorithm: set one of them");
  if (cfg_.library_algorithm.empty() && cfg_.segment_size.count > 0)
    throw config::ConfigError("", "/workload/segment_size",
                              "a segment size applies to a forced algorithm (as coll_tuned_<collective>_algorithm_"
                              "segmentsize does): set library_algorithm too, or segment_size to 0");
  // The plan per size (the same on every rank: the decision depends on sizes only).
  for (std::size_t si = 0; si < sizes_.size(); ++si)
    plans_.push_back(plan_for(make_call(0, sizes_[si]), si));
  coll::CollectiveCall barrier;
  barrier.collective = Collective::Barrier;
  barrier.size       = static_cast<int>(comm_.size());
  barrier_plan_      = mpi::plan_collective(library_, barrier);
  invocation_ = kernel_invocation(c);
  if (cfg_.verify) {
    for (std::size_t i = 0; i < sizes_.size(); ++i) {
      std::uint64_t most = 0;
      for (unsigned r = 0; r < cfg_.ranks; ++r) {
        const auto call = make_call(r, sizes_[i]);
        most = std::max(most, (coll::input_elements(call, static_cast<int>(r)) +
                               coll::output_elements(call, static_cast<int>(r))) * elem_bytes_);
      }
      check_verify_budget(size_path(cfg_.sizes, i), sizes_[i], most, cfg_.ranks);
    }
    c.carry_data();
  }
  times_.assign(sizes_.size() * cfg_.iterations, std::vector<RankTimes>(cfg_.ranks));
  for (unsigned r = 0; r < cfg_.ranks; ++r) {
    nodes::mpi_of(c, comm_[r]);
    c.scheduler().spawn(fmt::format("mpi-rank-{}", r), c.at<nodes::HostNode>(comm_[r]).host(),
                        [this, &c, r](ActorContext& ctx) { run_rank(ctx, c, r); });
  }
}

void MpiBench::run_rank(ActorContext& ctx, nodes::Cluster& c, unsigned rank)
{
  nodes::HostNode& host = c.at<nodes::HostNode>(comm_[rank]);
  nodes::MpiProcess& mpi = nodes::mpi_of(c, comm_[rank]);
  const DataPattern pattern{cfg_.dtype, cfg_.dtype == DataType::Float16, cfg_.ranks};
  coll::CollectiveCall bc;
  bc.collective = Collective::Barrier;
  bc.size       = static_cast<int>(comm_.size());
  const coll::Schedule barrier =
      coll::build_schedule(bc, barrier_plan_.algorithm, coll::Protocol::Eager, static_cast<int>(rank), barrier_plan_.options);
  std::size_t sample = 0;
  for (std::size_t si = 0; si < sizes_.size(); ++si) {
    const std::uint64_t bytes = sizes_[si];
    const auto call           = make_call(rank, bytes);
    auto const& plan = plans_[si];
    const coll::Schedule s =
        coll::build_schedule(call, plan.algorithm, coll::Protocol::Eager, static_cast<int>(rank), plan.options);
    for (unsigned it = 0; it < cfg_.iterations; ++it, ++sample) {
      nodes::RankBuffers bufs;
      if (cfg_.verify) {
        bufs.buf[static_cast<int>(coll::Buf::Input)] = pattern.input(call, rank, it);
        bufs.buf[static_cast<int>(coll::Buf::Output)].assign(coll::output_elements(call, static_cast<int>(rank)) *
                                                                 elem_bytes_,
                                                             std::byte{0xFF}); // poison
      }
      start_line_.arrive(ctx, cfg_.ranks);
      if (cfg_.pre_barrier == MpiPreBarrier::Mpi)
        mpi.run(ctx, barrier, comm_, cfg_.dtype, nullptr);
      const SimTime t0 = ctx.now();
      RankTimes& t     = times_[sample][rank];
      t.start          = t0;
      auto const& drv  = host.attached_fpga_config().host_driver;
      if (cfg_.data == MpiData::Fpga && stages_in(call, rank))
        nodes::host_driver_copy(ctx, host.attached_fpga(), drv, coll::input_elements(call, static_cast<int>(rank)) * elem_bytes_, true);
      t.staged_in = ctx.now() - t0;
      mpi.run(ctx, s, comm_, cfg_.dtype, cfg_.verify ? &bufs : nullptr);
      t.collective = ctx.now() - t0;
      if (cfg_.data == MpiData::Fpga && stages_out(call, rank))
        nodes::host_driver_copy(ctx, host.attached_fpga(), drv,
                                coll::output_elements(call, static_cast<int>(rank)) * elem_bytes_, false);
      t.staged_out = ctx.now() - t0;
      static const std::uint32_t next_kernel = cause_what("invocation", "the next kernel's invocation");
      if (cfg_.data == MpiData::Fpga)
        ctx.sleep_for(invocation_, CauseLabel::at_host(next_kernel, comm_[rank]));
      t.end       = ctx.now() - t0;
      t.end_cause = ctx.scheduler().cause_mark();
      ++calls_done_;
      if (cfg_.verify)
        check_output(call, rank, it, pattern, bufs.buf[static_cast<int>(coll::Buf::Output)],
                     fmt::format("MPI {}", config::enum_name(cfg_.collective)), "MPI library");
    }
  }
}

void MpiBench::report(const nodes::Cluster& c, results::ResultSink& sink, std::vector<std::string>& summary) const
{
  auto by_size = report_tables(sink);
  summary.push_back(fmt::format("mpi: {} on {} ranks ({}), {} data, {} size(s) x {} iteration(s){}",
                                config::enum_name(cfg_.collective), cfg_.ranks, config::enum_name(library_),
                                config::enum_name(cfg_.data), sizes_.size(), cfg_.iterations,
                                cfg_.pre_barrier == MpiPreBarrier::Mpi
                                    ? fmt::format(", MPI_Barrier ({}) before each call", mpi::schedule_name(barrier_plan_))
                                    : std::string()));
  if (cfg_.verify)
    summary.push_back("  every output checked against the collective's definition (verify): all correct");
  // Arrivals the NICs refused for want of a posted receive: the latencies then carry RNR waits, and a reader should
  // know what drove them and what the model leaves out there.
  std::uint64_t refused = 0;
  for (auto h : comm_)
    if (const nodes::MpiProcess* p = c.at<nodes::HostNode>(h).mpi())
      refused += p->counters().bounce_refusals;
  if (refused > 0) {
    const nodes::HostNodeConfig& hc = c.at<nodes::HostNode>(comm_[0]).config();
    if (hc.transport == nodes::Transport::Tcp) // the stream stalls and is polled again
      summary.push_back(fmt::format(
          "  note: {} poll(s) of a TCP stream found no free receive buffer (node.host.mpi.eager_buffers {}): the "
          "stream stalled until one was handed back: mpi_counters.csv bounce_refusals, workloads/mpi/README.md",
          refused, hc.mpi.eager_buffers));
    else
      summary.push_back(fmt::format(
          "  note: {} arrival(s) refused with an RNR NAK (receive queue empty: node.host.mpi.eager_buffers {}), "
          "each resent after node.host.rdma.rnr_timeout ({:g} us); UCX's credit flow control (each sender "
          "min(512, queue) messages between grants) is not modeled: mpi_counters.csv bounce_refusals, "
          "workloads/mpi/README.md",
          refused, hc.mpi.eager_buffers, hc.rdma.rnr_timeout.us()));
  }
  summary.push_back(fmt::format("  {:>10}  {:>28}  {:>12}", "bytes", "library algorithm (schedule)", "median_us"));
  for (std::size_t si = 0; si < sizes_.size(); ++si) {
    auto v = by_size[sizes_[si]];
    std::sort(v.begin(), v.end());
    summary.push_back(fmt::format("  {:>10}  {:>28}  {:>12.3f}", sizes_[si],
                                  fmt::format("{} ({})", plans_[si].library_algorithm,
                                              mpi::schedule_name(plans_[si])), v[v.size() / 2]));
  }
  report_critical_paths(c, sink, summary);
}

namespace {

/// One call's milestones over its ranks, each rank's times taken from its own start.
struct Milestones {
  SimTime in, coll_end, out_end, end, lo = SimTime::max(), sum, origin = SimTime::max();
};

/// Each rank times its own call from its start (after the pre-call barrier, if any). With FPGA data the phases add up
/// to the total along the chain that ends last: the last copy-in done, then the rank whose copy-out ended last: its
/// exit from MPI, its copy-out (a copy's own duration), then the last next-kernel invocation. (Between milestones of
/// the whole communicator instead, the copy-out phase had run from the last rank out of MPI, the broadcast's root,
/// and came out 2.5 us shorter than the copy it names at 256 KiB to 4 MiB on 8 ranks, the broadcast phase as much
/// longer.) `Times`: the ranks' own times (MpiBench::RankTimes).
template <class Times> Milestones milestones(const Times& times, bool f2f)
{
  Milestones m;
  std::size_t last_out = 0; // the rank whose copy-out ended last (the first of a tie)
  for (std::size_t k = 0; k < times.size(); ++k) {
    auto const& r = times[k];
    m.in       = std::max(m.in, r.staged_in);
    m.coll_end = std::max(m.coll_end, r.collective);
    if (r.staged_out > m.out_end) {
      m.out_end = r.staged_out;
      last_out  = k;
    }
    m.end    = std::max(m.end, r.end);
    m.lo     = std::min(m.lo, r.end);
    m.sum    = m.sum + r.end;
    m.origin = std::min(m.origin, r.start);
  }
  if (f2f && !times.empty())
    m.coll_end = std::max(m.in, times[last_out].collective);
  return m;
}

} // namespace

std::map<std::uint64_t, std::vector<double>> MpiBench::report_tables(results::ResultSink& sink) const
{
  const bool f2f = cfg_.data == MpiData::Fpga;
  results::Table t("mpi", {"workload", "library", "collective", "library_algorithm", "algorithm", "substitution",
                           "ranks", "root", "bytes", "count", "dtype", "data", "iteration", "latency_us",
                           "latency_min_us", "latency_mean_us", "root_latency_us", "throughput_gbps", "to_host_us",
                           "collective_us", "to_device_us", "invocation_us", "verified"});
  results::Table pr("mpi_ranks", {"collective", "bytes", "iteration", "rank", "host", "role", "library_algorithm",
                                  "algorithm", "start_us", "end_us", "latency_us"});
  std::map<std::uint64_t, std::vector<double>> by_size;
  std::size_t sample = 0;
  for (std::size_t si = 0; si < sizes_.size(); ++si) {
    const std::uint64_t bytes = sizes_[si];
    for (unsigned it = 0; it < cfg_.iterations; ++it, ++sample) {
      const auto [in, coll_end, out_end, end, lo, sum, origin] = milestones(times_[sample], f2f);
      const SimTime out = out_end - coll_end;
      const double us = end.us();
      const auto& plan = plans_[si];
      t.row()
          .add("mpi")
          .add(config::enum_name(library_))
          .add(config::enum_name(cfg_.collective))
          .add(plan.library_algorithm)
          .add(mpi::schedule_name(plan))
          .add(plan.substitution.empty() ? "-" : plan.substitution)
          .add(cfg_.ranks)
          .add(cfg_.root)
          .add(bytes)
          .add(bytes / elem_bytes_)
          .add(config::enum_name(cfg_.dtype))
          .add(config::enum_name(cfg_.data))
          .add(it)
          .add(us, 4)
          .add(lo.us(), 4)
          .add(sum.us() / static_cast<double>(cfg_.ranks), 4)
          .add(times_[sample][cfg_.root].end.us(), 4)
          .add(us > 0 ? static_cast<double>(bytes) * 8 / (us * 1e3) : 0.0, 3)
          .add(f2f ? in.us() : 0.0, 4)
          .add((coll_end - in).us(), 4)
          .add(f2f ? out.us() : 0.0, 4)
          .add(f2f ? (end - out_end).us() : 0.0, 4)
          .add(cfg_.verify ? "yes" : "-");
      for (unsigned rank = 0; rank < cfg_.ranks; ++rank) {
        auto const& r = times_[sample][rank];
        pr.row()
            .add(config::enum_name(cfg_.collective))
            .add(bytes)
            .add(it)
            .add(rank)
            .add(comm_[rank])
            .add(bench_role(cfg_.collective, rank, cfg_.root))
            .add(plan.library_algorithm)
            .add(mpi::schedule_name(plan))
            .add((r.start - origin).us(), 4)
            .add((r.start + r.end - origin).us(), 4)
            .add(r.end.us(), 4);
      }
      by_size[bytes].push_back(us);
    }
  }
  sink.add(std::move(t));
  sink.add(std::move(pr));
  return by_size;
}

void MpiBench::report_critical_paths(const nodes::Cluster& c, results::ResultSink& sink,
                                     std::vector<std::string>& summary) const
{
  const CausalGraph* g = c.scheduler().causes();
  if (!g)
    return;
  auto slowest = [this](std::size_t sample) {
    auto const& ts   = times_[sample];
    std::size_t slow = 0;
    for (std::size_t r = 1; r < ts.size(); ++r)
      if (ts[r].end > ts[slow].end)
        slow = r;
    return SlowestCall{ts[slow].end_cause, ts[slow].start, ts[slow].start + ts[slow].end, slow};
  };
  report_bench_paths(*g, comm_, std::string(config::enum_name(cfg_.collective)), sizes_, cfg_.iterations, slowest,
                     false, sink, summary);
}

} // namespace nafsim::workloads
