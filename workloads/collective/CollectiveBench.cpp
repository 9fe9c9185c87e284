#include "workloads/collective/CollectiveBench.hpp"

#include "nodes/cclo/CallPlan.hpp"
#include "nodes/cclo/CcloBuild.hpp"
#include "nodes/fpga/FpgaCluster.hpp"
#include "simcore/config/ConfigError.hpp"
#include "workloads/CriticalPath.hpp"
#include "workloads/collective/Verify.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <map>

namespace nafsim::workloads {

coll::Collective collective_of(BenchOp op, unsigned rank)
{
  switch (op) {
    case BenchOp::SendRecv: return rank == 0 ? coll::Collective::Send : coll::Collective::Recv;
    case BenchOp::Nop: return coll::Collective::Nop;
    case BenchOp::Bcast: return coll::Collective::Bcast;
    case BenchOp::Scatter: return coll::Collective::Scatter;
    case BenchOp::Gather: return coll::Collective::Gather;
    case BenchOp::AllGather: return coll::Collective::AllGather;
    case BenchOp::Reduce: return coll::Collective::Reduce;
    case BenchOp::AllReduce: return coll::Collective::AllReduce;
    case BenchOp::ReduceScatter: return coll::Collective::ReduceScatter;
    case BenchOp::AllToAll: return coll::Collective::AllToAll;
    case BenchOp::Barrier: return coll::Collective::Barrier;
    case BenchOp::Copy: return coll::Collective::Copy;
    case BenchOp::Combine: return coll::Collective::Combine;
  }
  return coll::Collective::Nop;
}

std::optional<coll::Algorithm> algorithm_of(AlgorithmChoice a)
{
  switch (a) {
    case AlgorithmChoice::Auto: return std::nullopt;
    case AlgorithmChoice::Flat: return coll::Algorithm::Flat;
    case AlgorithmChoice::Binomial: return coll::Algorithm::Binomial;
    case AlgorithmChoice::Ring: return coll::Algorithm::Ring;
    case AlgorithmChoice::ReduceBcast: return coll::Algorithm::ReduceBcast;
    case AlgorithmChoice::ReduceScatterComposite: return coll::Algorithm::ReduceScatterComposite;
    case AlgorithmChoice::RecursiveDoubling: return coll::Algorithm::RecursiveDoubling;
    case AlgorithmChoice::Rabenseifner: return coll::Algorithm::Rabenseifner;
    case AlgorithmChoice::Pairwise: return coll::Algorithm::Pairwise;
  }
  return std::nullopt;
}

namespace {

constexpr std::uint64_t kDstOffset = 1ULL << 34; // result buffers 16 GiB above the operands

} // namespace

CollectiveBench::CollectiveBench(const CollectiveBenchConfig& cfg) : cfg_(cfg), elem_bytes_(nodes::dtype_bytes(cfg.dtype))
{
  if (cfg_.collective == BenchOp::Nop || cfg_.collective == BenchOp::Barrier) {
    sizes_ = {0};
  } else {
    sizes_ = message_sizes(cfg_.sizes, cfg_.min_size, cfg_.max_size, elem_bytes_);
  }
  for (auto s : sizes_)
    if (s % elem_bytes_ != 0)
      throw config::ConfigError("", cfg_.sizes.empty() ? "/workload/min_size" : "/workload/sizes",
                                fmt::format("{} is not a whole number of {}-byte {} elements", format_bytes(Bytes{s}),
                                            elem_bytes_, config::enum_name(cfg_.dtype)));
}

nodes::CcloCall CollectiveBench::make_call(unsigned rank, std::uint64_t bytes) const
{
  nodes::CcloCall c;
  c.call.collective = collective_of(cfg_.collective, rank);
  c.call.size       = static_cast<int>(comm_.size());
  c.call.root       = cfg_.collective == BenchOp::SendRecv ? static_cast<int>(1 - rank) : static_cast<int>(cfg_.root);
  c.call.count      = bytes / elem_bytes_;
  c.call.elem_bytes = elem_bytes_;
  c.call.func       = cfg_.func;
  c.comm            = shared_comm_;
  c.rank            = static_cast<int>(rank);
  c.location        = cfg_.location;
  c.path            = cfg_.invocation;
  std::uint64_t base = cfg_.location == nodes::DataLocation::Host ? nodes::kHostMemory : nodes::Cclo::kUserBase;
  c.src_addr        = base;
  c.dst_addr        = base + kDstOffset;
  if (cfg_.protocol != ProtocolChoice::Auto)
    c.protocol = cfg_.protocol == ProtocolChoice::Eager ? coll::Protocol::Eager : coll::Protocol::Rendezvous;
  c.algorithm = algorithm_of(cfg_.algorithm);
  c.dtype     = cfg_.dtype;
  c.compress  = cfg_.compress;
  return c;
}


DataPattern CollectiveBench::pattern() const
{
  return DataPattern{cfg_.dtype, cfg_.dtype == DataType::Float16 || cfg_.compress, cfg_.ranks};
}

void CollectiveBench::prepare_data(nodes::Cluster& c, const nodes::CcloCall& call, unsigned iteration) const
{
  auto& mem = c.data()->memory.at(static_cast<std::size_t>(comm_.at(call.rank)));
  const DataPattern pat = pattern();
  const auto rank       = static_cast<unsigned>(call.rank);
  mem.write(call.src_addr, pat.input(call.call, rank, iteration));
  std::vector<std::byte> out(coll::output_elements(call.call, call.rank) * elem_bytes_, std::byte{0xFF}); // poison
  if (cfg_.collective == BenchOp::Combine) // combine accumulates into the output: give it a second operand
    for (std::uint64_t i = 0; i < out.size() / elem_bytes_; ++i)
      nodes::set_element(cfg_.dtype, out, i, pat(rank + cfg_.ranks, i, iteration));
  mem.write(call.dst_addr, out);
}

void CollectiveBench::check_data(nodes::Cluster& c, const nodes::CcloCall& call, unsigned iteration) const
{
  const std::uint64_t elems = coll::output_elements(call.call, call.rank);
  auto out = c.data()->memory.at(static_cast<std::size_t>(comm_.at(call.rank))).read(call.dst_addr, elems * elem_bytes_);
  check_output(call.call, static_cast<unsigned>(call.rank), iteration, pattern(), out,
               config::enum_name(cfg_.collective), "CCLO");
}

std::vector<net::HostId> CollectiveBench::place(const nodes::Cluster& c, const std::vector<std::size_t>& fpgas) const
{
  std::vector<net::HostId> comm;
  if (!cfg_.positions.empty()) {
    if (cfg_.positions.size() != cfg_.ranks)
      throw config::ConfigError("", "/workload/positions",
                                fmt::format("{} positions listed for {} ranks: give one FPGA position per rank",
                                            cfg_.positions.size(), cfg_.ranks));
    for (std::size_t r = 0; r < cfg_.positions.size(); ++r) {
      unsigned pos = cfg_.positions[r];
      if (pos >= c.size() || !c.find<nodes::FpgaNode>(pos))
        throw config::ConfigError("", fmt::format("/workload/positions/{}", r),
                                  fmt::format("position {} is not an FPGA node of the platform ({} positions{})", pos,
                                              c.size(), fpgas.size() < c.size() ? ", see platform.node.kinds" : ""));
      if (std::find(comm.begin(), comm.end(), static_cast<net::HostId>(pos)) != comm.end())
        throw config::ConfigError("", fmt::format("/workload/positions/{}", r),
                                  fmt::format("position {} is listed twice: each rank needs its own FPGA", pos));
      comm.push_back(static_cast<net::HostId>(pos));
    }
    return comm;
  }
  if (cfg_.placement == Placement::Packed) {
    for (unsigned r = 0; r < cfg_.ranks; ++r)
      comm.push_back(static_cast<net::HostId>(fpgas[r])); // a mixed cluster's FPGAs, in order
    return comm;
  }
  // Round robin over the edge switches: group the FPGA positions by the switch their cable reaches.
  auto const& topo = c.topology();
  std::vector<std::pair<topo::Vertex, std::vector<std::size_t>>> leaves;
  for (auto pos : fpgas) {
    topo::Vertex edge = topo.ports(topo.host_vertex(pos)).front().peer;
    auto it = std::find_if(leaves.begin(), leaves.end(), [&](auto const& l) { return l.first == edge; });
    if (it == leaves.end())
      leaves.push_back({edge, {pos}});
    else
      it->second.push_back(pos);
  }
  for (std::size_t k = 0; comm.size() < cfg_.ranks; ++k)
    for (auto const& l : leaves)
      if (k < l.second.size() && comm.size() < cfg_.ranks)
        comm.push_back(static_cast<net::HostId>(l.second[k]));
  return comm;
}

std::string bench_role(BenchOp op, unsigned rank, unsigned root)
{
  switch (op) {
    case BenchOp::SendRecv: return rank == 0 ? "sender" : "receiver";
    case BenchOp::Bcast:
    case BenchOp::Scatter:
    case BenchOp::Gather:
    case BenchOp::Reduce: return rank == root ? "root" : "non-root";
    case BenchOp::Barrier: return rank == 0 ? "root" : "non-root";
    case BenchOp::Copy:
    case BenchOp::Combine:
    case BenchOp::Nop: return "local";
    default: return "peer";
  }
}

std::string bench_unread_reason(BenchOp op, const std::vector<Bytes>& sizes, std::string_view key)
{
  const std::string_view top = key_head(key);
  const std::string name     = std::string(config::enum_name(op));
  if (top == "func" && op != BenchOp::Reduce && op != BenchOp::AllReduce && op != BenchOp::ReduceScatter &&
      op != BenchOp::Combine)
    return fmt::format("{} reduces nothing (reduce, allreduce, reduce-scatter and combine read it)", name);
  if ((top == "sizes" || top == "min_size" || top == "max_size") &&
      (op == BenchOp::Barrier || op == BenchOp::Nop))
    return fmt::format("{} moves no data (its calls are made with 0 bytes)", name);
  if (top == "protocol" && (op == BenchOp::Barrier || op == BenchOp::Nop))
    return fmt::format("{} has one way whatever the protocol (the firmware's barrier sends its notifications through "
                       "the rendezvous path; a nop moves nothing)",
                       name);
  return size_bounds_unread(top, !sizes.empty());
}

std::string CollectiveBench::unread_reason(std::string_view key) const
{
  const std::string_view top = key_head(key);
  if (top == "mpi_message_latency" && cfg_.pre_barrier == PreBarrier::None)
    return "no barrier runs before the calls (pre_barrier none; pre_barrier mpi or cclo times its messages with it)";
  if (top == "placement" && !cfg_.positions.empty())
    return "workload.positions places the ranks (placement applies only when positions is empty)";
  return bench_unread_reason(cfg_.collective, cfg_.sizes, key);
}

SimTime CollectiveBench::mpi_barrier_exit(unsigned rank) const
{
  // When each host leaves MPI_Barrier, after the first, in messages of L = mpi_message_latency: Open MPI 4.1's tuned
  // barrier (coll_tuned_decision_fixed.c 482-487: recursive doubling below 4 ranks and from 8 to 63, linear from 4
  // to 7; coll_base_barrier.c; protocols/mpi/README.md).
  // - linear: every rank sends to rank 0, which then sends to each: rank 0 leaves first, the others a message later
  //   (ASSUMPTION: the root's per-send CPU time, which orders them, is small against L);
  // - recursive doubling: the ranks below the largest power of two q leave together; a rank beyond q is released by
  //   its partner (rank - q) a message later, with a synchronous send, and the partner leaves when the
  //   acknowledgement is back, a message after that.
  const unsigned p = cfg_.ranks;
  const SimTime l  = cfg_.mpi_message_latency;
  if (p >= 4 && p < 8)
    return rank == 0 ? SimTime{} : l;
  unsigned q = 1;
  while (q * 2 <= p)
    q *= 2;
  if (rank >= q)
    return l;
  return rank < p - q ? l + l : SimTime{};
}

void CollectiveBench::pre_barrier(ActorContext& ctx, nodes::Cluster& c, unsigned rank, std::uint64_t bytes) const
{
  if (cfg_.pre_barrier == PreBarrier::None)
    return;
  static const std::uint32_t skew = cause_what("workload", "MPI barrier release skew");
  ctx.sleep_for(mpi_barrier_exit(rank), CauseLabel::at_host(skew, comm_[rank]));
  if (cfg_.pre_barrier == PreBarrier::Mpi)
    return;
  nodes::CcloCall b = make_call(rank, 0);
  b.call.collective = coll::Collective::Barrier;
  b.call.count      = 0;
  b.invocation_key  = bytes + 1; // its host-side draw follows the call it comes before (HostInvocation::latencies)
  b.call.root       = 0;
  b.protocol.reset();
  b.algorithm.reset();
  b.compress = false;
  // A barrier moves no data: ACCL's barrier() names no stream.
  if (b.location == nodes::DataLocation::Stream)
    b.location = nodes::DataLocation::Device;
  if (b.result_location == nodes::DataLocation::Stream)
    b.result_location.reset();
  auto res   = nodes::cclo_of(c, comm_[rank]).call(ctx, b);
  if (!res.error.empty())
    throw SimulationError(fmt::format("the CCLO barrier before {} on rank {}: {}",
                                      config::enum_name(cfg_.collective), rank, res.error));
}

void CollectiveBench::check_buffers(const nodes::Cluster& c) const
{
  // Over the connectionless transport an eager segment (up to one Rx buffer, plus the header) is a placed message
  // and must fit the registration range (cclo_of checks max_eager_size; a forced eager protocol goes past it).
  auto const& fpga = nodes::fpga_config(c.config().node);
  if (fpga.transport == nodes::Transport::Connectionless) // one rank's block moves as one command (a rendezvous write)
    for (std::size_t i = 0; i < sizes_.size(); ++i)
      if (auto why = fpga.connectionless.transport.command_size_problem(sizes_[i]); sizes_[i] > 0 && !why.empty())
        throw config::ConfigError("", size_path(cfg_.sizes, i),
                                  fmt::format("size {}: over the connectionless transport one block is one command: {}",
                                              format_bytes(Bytes{sizes_[i]}), why));
  // Streamed operands travel eager whatever their size (the firmware never uses rendezvous for streams).
  const bool stream = cfg_.location == nodes::DataLocation::Stream;
  if (fpga.transport == nodes::Transport::Connectionless && (cfg_.protocol == ProtocolChoice::Eager || stream)) {
    auto const& tc = fpga.connectionless.transport;
    for (std::size_t i = 0; i < sizes_.size(); ++i) {
      const std::uint64_t seg = std::min(sizes_[i], fpga.cclo.rx_buffers.size.count) + fpga.cclo.txrx.header.count;
      if (!tc.registrable(seg) && sizes_[i] > 0)
        throw config::ConfigError(
            "", stream ? "/workload/location" : "/workload/protocol",
            fmt::format("size {}: eager segments of {} (one Rx buffer and the header{}) cannot be placed by the "
                        "connectionless transport, whose registration range ends at {}; {}a smaller "
                        "platform.node.fpga.cclo.rx_buffers.size, or wider connectionless.transport.bitmask_bits",
                        format_bytes(Bytes{sizes_[i]}), format_bytes(Bytes{seg}),
                        stream ? "; streamed operands always travel eager" : "",
                        format_bytes(Bytes{tc.max_registered()}),
                        stream ? "use device or host memory, "
                               : "use protocol auto (the firmware's max_eager_size, which must be at least "
                                 "rx_buffers.size), "));
    }
  }
  // make_call lays out each rank's operand at its base and its result kDstOffset above: a buffer past that
  // would overlap the other (and the U55C's HBM holds 16 GiB, FpgaKernel.hpp), so refuse it.
  for (std::size_t i = 0; i < sizes_.size(); ++i) {
    std::uint64_t most = 0;
    for (unsigned r = 0; r < cfg_.ranks; ++r) {
      auto call             = make_call(r, sizes_[i]).call;
      const std::uint64_t in  = coll::input_elements(call, static_cast<int>(r)) * elem_bytes_;
      const std::uint64_t out = coll::output_elements(call, static_cast<int>(r)) * elem_bytes_;
      if (std::max(in, out) > kDstOffset)
        throw config::ConfigError(
            "", size_path(cfg_.sizes, i),
            fmt::format("size {}: rank {} would hold a {} {} buffer, but the benchmark places each rank's result {} "
                        "above its operand (the U55C's HBM is 16 GiB), so no buffer may exceed that; use smaller sizes",
                        format_bytes(Bytes{sizes_[i]}), r, format_bytes(Bytes{std::max(in, out)}),
                        in > out ? "operand" : "result", format_bytes(Bytes{kDstOffset})));
      most = std::max(most, in + out);
    }
    if (cfg_.verify)
      check_verify_budget(size_path(cfg_.sizes, i), sizes_[i], most, cfg_.ranks);
  }
}

void CollectiveBench::start(nodes::Cluster& c)
{
  auto fpgas = c.positions(nodes::FpgaNode::kKind);
  if (cfg_.ranks > fpgas.size())
    throw config::ConfigError("", "/workload/ranks",
                              fmt::format("{} ranks requested, but the platform has {} FPGA node(s): {}", cfg_.ranks,
                                          fpgas.size(), c.more_nodes_advice(nodes::FpgaNode::kKind, cfg_.ranks)));
  if (cfg_.collective == BenchOp::SendRecv && cfg_.ranks != 2)
    throw config::ConfigError("", "/workload/ranks", "sendrecv runs between ranks 0 and 1: set ranks to 2");
  if (cfg_.root >= cfg_.ranks)
    throw config::ConfigError("", "/workload/root",
                              fmt::format("root {} is not one of the {} ranks", cfg_.root, cfg_.ranks));
  comm_        = place(c, fpgas);
  shared_comm_ = nodes::Communicator(comm_);
  check_buffers(c);
  if (cfg_.compress && cfg_.dtype != DataType::Float32)
    throw config::ConfigError("", "/workload/compress",
                              fmt::format("compression turns float32 into float16 on the wire; dtype is {} (set dtype "
                                          "to float32 or compress to false)",
                                          config::enum_name(cfg_.dtype)));
  if (cfg_.compress && cfg_.protocol == ProtocolChoice::Rendezvous)
    throw config::ConfigError("", "/workload/compress",
                              "compressed data travels eager only: set protocol to auto or eager");
  if (cfg_.verify)
    c.carry_data();
  // Every call the benchmark makes, planned as the firmware will plan it (nodes/cclo/CallPlan.hpp: the same code):
  // a setting that cannot work fails here, before the run and under --check-only, saying what to change. The ranks
  // of distinct roles suffice (the first, the second, the root, the last).
  std::vector<unsigned> probes{0, 1, cfg_.root, cfg_.ranks - 1};
  std::sort(probes.begin(), probes.end());
  probes.erase(std::unique(probes.begin(), probes.end()), probes.end());
  const unsigned callers = cfg_.collective == BenchOp::Nop ? 1 : cfg_.ranks;
  for (std::size_t i = 0; i < sizes_.size(); ++i)
    for (unsigned r : probes) {
      if (r >= callers)
        continue;
      auto const& cclo = nodes::cclo_of(c, comm_[r]);
      auto plan        = nodes::plan_call(make_call(r, sizes_[i]), cclo.config(), cclo.link());
      if (plan.error.empty())
        continue;
      const std::string path = plan.stream_refused                            ? "/workload/location"
                               : plan.count_refused || plan.write_refused
                                   ? (!cfg_.sizes.empty() ? size_path(cfg_.sizes, i)
                                                       : sizes_[i] == 0 ? std::string("/workload/min_size")
                                                                        : std::string("/workload/max_size"))
                               : cfg_.compress                                ? "/workload/compress"
                               : cfg_.algorithm != AlgorithmChoice::Auto      ? "/workload/algorithm"
                               : cfg_.protocol != ProtocolChoice::Auto      ? "/workload/protocol"
                               : cfg_.location == nodes::DataLocation::Stream ? "/workload/location"
                                                                              : "/workload/collective";
      throw config::ConfigError("", path, sizes_.size() > 1 || cfg_.ranks > 2
                                              ? fmt::format("size {}, rank {}: {}", format_bytes(Bytes{sizes_[i]}), r,
                                                            plan.error)
                                              : plan.error);
    }
  unsigned participants = cfg_.collective == BenchOp::Nop ? 1 : cfg_.ranks;
  results_.assign(sizes_.size() * cfg_.iterations, std::vector<nodes::CcloResult>(participants));
  nodes::check_communicator(c, comm_);
  for (unsigned r = 0; r < participants; ++r) {
    nodes::cclo_of(c, comm_[r]);
    c.scheduler().spawn(fmt::format("bench-rank-{}", r), c.at<nodes::FpgaNode>(comm_[r]).host(),
                        [this, &c, r](ActorContext& ctx) { run_rank(ctx, c, r); });
  }
}

void CollectiveBench::run_rank(ActorContext& ctx, nodes::Cluster& c, unsigned rank)
{
  const unsigned participants = static_cast<unsigned>(results_.front().size());
  std::size_t sample          = 0;
  for (auto bytes : sizes_) {
    for (unsigned it = 0; it < cfg_.iterations; ++it, ++sample) {
      auto call = make_call(rank, bytes);
      if (cfg_.verify)
        prepare_data(c, call, it);
      start_line_.arrive(ctx, participants);
      if (participants > 1)
        pre_barrier(ctx, c, rank, bytes);
      auto res = nodes::cclo_of(c, comm_[rank]).call(ctx, call);
      if (!res.error.empty())
        throw SimulationError(fmt::format("{} of {} on rank {}: {}", config::enum_name(cfg_.collective),
                                          format_bytes(Bytes{bytes}), rank, res.error));
      if (cfg_.verify)
        check_data(c, call, it);
      results_[sample][rank] = res;
      ++calls_done_;
    }
  }
}

void CollectiveBench::report(const nodes::Cluster& c, results::ResultSink& sink, std::vector<std::string>& summary) const
{
  const BySize by_size = report_tables(sink);
  report_summary(c, by_size, summary);
  report_critical_paths(c, sink, summary);
}

CollectiveBench::BySize CollectiveBench::report_tables(results::ResultSink& sink) const
{
  results::Table t("collective", {"workload", "collective", "algorithm", "protocol", "ranks", "root", "bytes", "count",
                                  "dtype", "location", "invocation", "iteration", "latency_us", "latency_min_us",
                                  "latency_mean_us", "root_latency_us", "host_latency_us", "throughput_gbps",
                                  "verified"});
  results::Table pr("collective_ranks", {"collective", "bytes", "iteration", "rank", "position", "role", "protocol",
                                         "algorithm", "location", "start_us", "end_us", "latency_us",
                                         "host_latency_us"});
  BySize by_size;
  std::size_t sample = 0;
  for (auto bytes : sizes_) {
    for (unsigned it = 0; it < cfg_.iterations; ++it, ++sample) {
      auto const& rs = results_[sample];
      SimTime host, lo = SimTime::max(), hi, origin = SimTime::max(), sum;
      for (auto const& r : rs) {
        SimTime counter = r.finished - r.started;
        hi              = std::max(hi, counter);
        lo              = std::min(lo, counter);
        sum += counter;
        host   = std::max(host, r.returned - r.invoked);
        origin = std::min(origin, r.started);
      }
      const double mean = sum.us() / static_cast<double>(rs.size());
      const unsigned root_rank = std::min<unsigned>(cfg_.root, static_cast<unsigned>(rs.size()) - 1);
      auto const& r0 = rs[0];
      double us      = hi.us();
      t.row()
          .add("collective")
          .add(config::enum_name(cfg_.collective))
          .add(coll::algorithm_name(r0.algorithm))
          .add(coll::protocol_name(r0.protocol))
          .add(cfg_.ranks)
          .add(cfg_.root)
          .add(bytes)
          .add(bytes / elem_bytes_)
          .add(config::enum_name(cfg_.dtype))
          .add(config::enum_name(cfg_.location))
          .add(config::enum_name(cfg_.invocation))
          .add(it)
          .add(us, 4)
          .add(lo.us(), 4)
          .add(mean, 4)
          .add((rs[root_rank].finished - rs[root_rank].started).us(), 4)
          .add(host.us(), 4)
          .add(us > 0 ? static_cast<double>(bytes) * 8 / (us * 1e3) : 0.0, 3)
          .add(cfg_.verify ? "yes" : "-");
      for (unsigned rank = 0; rank < rs.size(); ++rank) {
        auto const& r = rs[rank];
        pr.row()
            .add(config::enum_name(cfg_.collective))
            .add(bytes)
            .add(it)
            .add(rank)
            .add(comm_[rank])
            .add(bench_role(cfg_.collective, rank, cfg_.root))
            .add(coll::protocol_name(r.protocol))
            .add(coll::algorithm_name(r.algorithm))
            .add(config::enum_name(cfg_.location))
            .add((r.started - origin).us(), 4)
            .add((r.finished - origin).us(), 4)
            .add((r.finished - r.started).us(), 4)
            .add((r.returned - r.invoked).us(), 4);
      }
      auto& s = by_size[bytes];
      s.min.push_back(lo.us());
      s.mean.push_back(mean);
      s.max.push_back(us);
      s.host.push_back(host.us());
      s.how = fmt::format("{}/{}", coll::protocol_name(r0.protocol), coll::algorithm_name(r0.algorithm));
    }
  }
  sink.add(std::move(t));
  sink.add(std::move(pr));
  return by_size;
}

void CollectiveBench::report_summary(const nodes::Cluster& c, const BySize& by_size,
                                     std::vector<std::string>& summary) const
{
  // (a NOP is one CCLO's own call: rank 0 alone makes it, whatever `ranks` says)
  summary.push_back(fmt::format("collective: {} on {}, {} data, {} invocation, {} size(s) x {} iteration(s){}",
                                config::enum_name(cfg_.collective),
                                cfg_.collective == BenchOp::Nop ? std::string("rank 0 alone (one CCLO's own call)")
                                                                : fmt::format("{} ranks", cfg_.ranks),
                                config::enum_name(cfg_.location),
                                config::enum_name(cfg_.invocation), sizes_.size(), cfg_.iterations,
                                cfg_.pre_barrier == PreBarrier::None
                                    ? std::string()
                                    : fmt::format(", {} barrier before each call", config::enum_name(cfg_.pre_barrier))));
  if (cfg_.verify)
    summary.push_back("  every output checked against the collective's definition (verify): all correct");
  summary.push_back("  CCLO cycle counter per rank, us (median over iterations): fastest, mean and slowest rank");
  summary.push_back(fmt::format("  {:>10}  {:>24}  {:>10}  {:>10}  {:>10}", "bytes", "protocol/algorithm", "min", "mean",
                                "max"));
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  for (auto& [bytes, s] : by_size)
    summary.push_back(fmt::format("  {:>10}  {:>24}  {:>10.3f}  {:>10.3f}  {:>10.3f}", bytes, s.how, median(s.min),
                                  median(s.mean), median(s.max)));
  std::uint64_t largest_eager = 0; // a size that ran eager, the largest (a local copy or combine sends nothing)
  const bool sends = cfg_.ranks > 1 && cfg_.collective != BenchOp::Copy && cfg_.collective != BenchOp::Combine;
  for (auto const& [bytes, s] : by_size)
    if (sends && s.how.rfind("eager/", 0) == 0)
      largest_eager = std::max(largest_eager, bytes);
  // (A barrier or a nop ignores a forced protocol: no note about a forced one for them.)
  const bool forced = cfg_.collective != BenchOp::Barrier && cfg_.collective != BenchOp::Nop;
  if (auto note = nodes::segmentation_note(nodes::fpga_config(c.config().node).cclo, largest_eager,
                                           forced && cfg_.protocol == ProtocolChoice::Eager);
      !note.empty())
    summary.push_back("  " + note);
  if (forced && cfg_.protocol == ProtocolChoice::Rendezvous)
    if (auto note = nodes::forced_rendezvous_note(nodes::fpga_config(c.config().node).cclo); !note.empty())
      summary.push_back("  " + note);
  if (cfg_.invocation == nodes::InvocationPath::Kernel)
    return;
  // Host invocations vary from call to call (platform.node.fpga.cclo.invocation.jitter): their spread.
  summary.push_back(fmt::format("  host latency (invocation to return, slowest rank), us over iterations: mean, std, "
                                "min, max"));
  for (auto& [bytes, s] : by_size) {
    const double n = static_cast<double>(s.host.size());
    double sum = 0, sq = 0;
    for (double x : s.host)
      sum += x;
    for (double x : s.host)
      sq += (x - sum / n) * (x - sum / n);
    summary.push_back(fmt::format("  {:>10}  {:>10.3f}  {:>10.3f}  {:>10.3f}  {:>10.3f}", bytes, sum / n,
                                  std::sqrt(sq / n), *std::min_element(s.host.begin(), s.host.end()),
                                  *std::max_element(s.host.begin(), s.host.end())));
  }
}

void CollectiveBench::report_critical_paths(const nodes::Cluster& c, results::ResultSink& sink,
                                            std::vector<std::string>& summary) const
{
  const CausalGraph* g = c.scheduler().causes();
  if (!g)
    return;
  auto slowest = [this](std::size_t sample) {
    // The slowest rank's counter is the call's latency (collective.csv): its path, from its start to its finalize.
    auto const& rs   = results_[sample];
    std::size_t slow = 0;
    for (std::size_t r = 1; r < rs.size(); ++r)
      if (rs[r].finished - rs[r].started > rs[slow].finished - rs[slow].started)
        slow = r;
    return SlowestCall{rs[slow].end_cause, rs[slow].started, rs[slow].finished, slow};
  };
  report_bench_paths(*g, comm_, std::string(config::enum_name(cfg_.collective)), sizes_, cfg_.iterations, slowest, true,
                     sink, summary);
}

} // namespace nafsim::workloads
