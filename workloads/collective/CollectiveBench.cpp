#include "workloads/collective/CollectiveBench.hpp"

#include "simcore/config/ConfigError.hpp"
#include "workloads/collective/Verify.hpp"

#include <algorithm>
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
  c.comm            = comm_;
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

void CollectiveBench::start(nodes::Cluster& c)
{
  auto fpgas = c.positions(nodes::NodeKind::Fpga);
  if (cfg_.ranks > fpgas.size())
    throw config::ConfigError("", "/workload/ranks",
                              fmt::format("{} ranks requested, but the platform has {} FPGA node(s){}", cfg_.ranks,
                                          fpgas.size(),
                                          fpgas.size() < c.size() ? " (the others are CPU hosts: see platform.node.kinds)"
                                                                  : ""));
  if (cfg_.collective == BenchOp::SendRecv && cfg_.ranks != 2)
    throw config::ConfigError("", "/workload/ranks", "sendrecv runs between ranks 0 and 1: set ranks to 2");
  if (cfg_.root >= cfg_.ranks)
    throw config::ConfigError("", "/workload/root",
                              fmt::format("root {} is not one of the {} ranks", cfg_.root, cfg_.ranks));
  comm_.clear();
  for (unsigned r = 0; r < cfg_.ranks; ++r)
    comm_.push_back(static_cast<net::HostId>(fpgas[r])); // a mixed cluster's FPGAs, in order
  // A forced algorithm must be able to run every call of the benchmark.
  for (auto bytes : sizes_) {
    auto call = make_call(0, bytes);
    if (call.algorithm)
      if (auto why = coll::check_applicable(call.call, *call.algorithm); !why.empty())
        throw config::ConfigError("", "/workload/algorithm", why);
  }
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
  unsigned participants = cfg_.collective == BenchOp::Nop ? 1 : cfg_.ranks;
  results_.assign(sizes_.size() * cfg_.iterations, std::vector<nodes::CcloResult>(participants));
  for (unsigned r = 0; r < participants; ++r) {
    c.cclo(comm_[r]);
    c.scheduler().spawn(fmt::format("bench-rank-{}", r), c.node(comm_[r]).host(),
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
      auto res = c.cclo(comm_[rank]).call(ctx, call);
      if (!res.error.empty())
        throw SimulationError(fmt::format("{} of {} on rank {}: {}", config::enum_name(cfg_.collective),
                                          format_bytes(Bytes{bytes}), rank, res.error));
      if (cfg_.verify)
        check_data(c, call, it);
      results_[sample][rank] = res;
    }
  }
}

void CollectiveBench::report(const nodes::Cluster&, results::ResultSink& sink, std::vector<std::string>& summary) const
{
  results::Table t("collective", {"workload", "collective", "algorithm", "protocol", "ranks", "root", "bytes", "count",
                                  "dtype", "location", "invocation", "iteration", "latency_us", "host_latency_us",
                                  "throughput_gbps", "verified"});
  std::map<std::uint64_t, std::vector<double>> by_size;
  std::map<std::uint64_t, std::string> how;
  std::size_t sample = 0;
  for (auto bytes : sizes_) {
    for (unsigned it = 0; it < cfg_.iterations; ++it, ++sample) {
      SimTime cclo, host;
      for (auto const& r : results_[sample]) {
        cclo = std::max(cclo, r.finished - r.started);
        host = std::max(host, r.returned - r.invoked);
      }
      auto const& r0 = results_[sample][0];
      double us      = cclo.us();
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
          .add(host.us(), 4)
          .add(us > 0 ? static_cast<double>(bytes) * 8 / (us * 1e3) : 0.0, 3)
          .add(cfg_.verify ? "yes" : "-");
      by_size[bytes].push_back(us);
      how[bytes] = fmt::format("{}/{}", coll::protocol_name(r0.protocol), coll::algorithm_name(r0.algorithm));
    }
  }
  sink.add(std::move(t));
  summary.push_back(fmt::format("collective: {} on {} ranks, {} data, {} invocation, {} size(s) x {} iteration(s)",
                                config::enum_name(cfg_.collective), cfg_.ranks, config::enum_name(cfg_.location),
                                config::enum_name(cfg_.invocation), sizes_.size(), cfg_.iterations));
  if (cfg_.verify)
    summary.push_back("  every output checked against the collective's definition (verify): all correct");
  summary.push_back(fmt::format("  {:>10}  {:>24}  {:>12}", "bytes", "protocol/algorithm", "latency_us"));
  for (auto& [bytes, v] : by_size) {
    std::sort(v.begin(), v.end());
    summary.push_back(fmt::format("  {:>10}  {:>24}  {:>12.3f}", bytes, how[bytes], v[v.size() / 2]));
  }
}

} // namespace nafsim::workloads
