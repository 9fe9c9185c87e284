#include "workloads/reconic/ReconicBench.hpp"

#include "nodes/platform/Cluster.hpp"
#include "nodes/reconic/Ernic.hpp"
#include "simcore/config/ConfigError.hpp"

#include <fmt/format.h>
#include <map>

namespace nafsim::workloads {

ReconicBench::ReconicBench(const ReconicBenchConfig& cfg)
    : cfg_(cfg), sizes_(message_sizes(cfg.sizes, cfg.min_size, cfg.max_size, 1))
{
}

void ReconicBench::start(nodes::Cluster& c)
{
  c.require_roce("reconic workload");
  auto check = [&](unsigned v, const char* key) {
    if (v >= c.size())
      throw config::ConfigError(
          "", std::string("/workload/") + key,
          fmt::format("node {} does not exist: the platform has {} hosts (0..{})", v, c.size(), c.size() - 1));
  };
  check(cfg_.client, "client");
  check(cfg_.server, "server");
  if (cfg_.client == cfg_.server)
    throw config::ConfigError("", "/workload/server", "client and server must be different nodes");
  if (cfg_.op == roce::Verb::Send)
    throw config::ConfigError("", "/workload/op", "the RecoNIC RDMA test measures read or write (send is not timed)");
  for (std::size_t i = 0; i < sizes_.size(); ++i)
    if (sizes_[i] > (1ULL << 31))
      throw config::ConfigError("", size_path(cfg_.sizes, i),
                                fmt::format("{} is more than one RDMA operation carries here (2 "
                                            "GiB): give smaller sizes",
                                            format_bytes(Bytes{sizes_[i]})));
  auto const& ernic = c.node(cfg_.client).config().ernic;
  if (cfg_.test == ReconicTest::Rdma && cfg_.mode == ReconicMode::Batch && cfg_.batch > ernic.sq_depth)
    throw config::ConfigError("", "/workload/batch",
                              fmt::format("a batch of {} WQEs does not fit the send queue ({} entries, "
                                          "platform.node.fpga.ernic.sq_depth): lower batch or raise sq_depth",
                                          cfg_.batch, ernic.sq_depth));
  if (cfg_.test != ReconicTest::Rdma) {
    c.scheduler().spawn("reconic-memory", c.node(cfg_.client).host(),
                        [this, &c](ActorContext& ctx) { run_memory(ctx, c); });
    return;
  }
  c.scheduler().spawn("reconic-client", c.node(cfg_.client).host(),
                      [this, &c](ActorContext& ctx) { run_client(ctx, c); });
}

void ReconicBench::run_client(ActorContext& ctx, nodes::Cluster& c)
{
  nodes::FpgaNode& node = c.node(cfg_.client);
  auto const& fc        = node.config();
  nodes::ErnicTiming t(fc.ernic, fc.clock, fc.device_memory, fc.pcie);
  const nodes::QpId qp      = c.qp(cfg_.client, cfg_.server);
  const std::uint64_t place = cfg_.buffers == nodes::MemPlace::Host ? nodes::kHostMemory : 0;
  const unsigned per        = cfg_.mode == ReconicMode::Batch ? cfg_.batch : 1;
  std::uint64_t wr          = 0;
  for (auto bytes : sizes_)
    for (unsigned it = 0; it < cfg_.iterations; ++it) {
      Record r;
      r.bytes     = bytes;
      r.iteration = it;
      r.ops       = per;
      // The WQEs were written into the SQ beforehand (rdma_test creates them
      // before the timed call): the host rings the doorbell now and polls the
      // CQ doorbell from then on.
      r.rung        = ctx.now();
      SimTime seen  = r.rung + fc.ernic.doorbell_write;
      SimTime start = SimTime::zero();
      std::vector<std::uint64_t> ids;
      for (unsigned i = 0; i < per; ++i) {
        start = t.wqe_started(t.wqe_fetched(seen, i, cfg_.queues), start);
        if (i == 0)
          r.first_posted = start;
        const std::uint64_t id = ++wr;
        ids.push_back(id);
        // Each WQE of a batch names its own stretch of the buffers (rdma_test:
        // wqe_idx * payload).
        roce::WorkRequest w{id, cfg_.op, place + i * bytes, place + i * bytes, bytes, id};
        c.scheduler().call_at(start, [&node, qp, w] { node.poe().post_send(qp, w); });
      }
      SimTime visible;
      for (auto id : ids) {
        roce::Completion done = node.wait_completion(ctx, id);
        if (done.status != roce::Status::Success)
          throw SimulationError(fmt::format("reconic: {} of {} from node {} to node {} failed: {}",
                                            config::enum_name(cfg_.op), format_bytes(Bytes{bytes}), cfg_.client,
                                            cfg_.server, roce::describe_failure(done)));
        visible = std::max(visible, t.cqe_visible(ctx.now(), cfg_.queues));
      }
      r.last_completed = ctx.now();
      r.seen           = t.poll_sees(r.rung, visible);
      ctx.sleep_until(r.seen);
      records_.push_back(r);
    }
}

void ReconicBench::run_memory(ActorContext& ctx, nodes::Cluster& c)
{
  nodes::FpgaNode& node = c.node(cfg_.client);
  auto const& q         = node.config().qdma;
  auto& mem             = node.memory();
  const bool to_card    = cfg_.op == roce::Verb::Write;
  for (auto bytes : sizes_)
    for (unsigned it = 0; it < cfg_.iterations; ++it) {
      Record r;
      r.bytes     = bytes;
      r.iteration = it;
      r.ops       = 1;
      r.rung      = ctx.now();
      if (cfg_.test == ReconicTest::Dma) {
        // The host's call (reconic-mm pwrite / pread): its fixed cost, then the DMA over PCIe at the QDMA's rate.
        ctx.sleep_for(q.call_overhead);
        r.first_posted = ctx.now();
        ctx.sleep_until(to_card ? mem.dma_to_device(ctx.now(), Bytes{bytes}, q.h2c_rate)
                                : mem.dma_to_host(ctx.now(), Bytes{bytes}, q.c2h_rate));
      } else {
        // FPGA logic accessing host memory through the slave bridge: the PCIe latency, then the access's bytes.
        r.first_posted = ctx.now();
        auto s = to_card ? mem.write(nodes::Engine::Op0Read, ctx.now(), nodes::kHostMemory, Bytes{bytes}, q.bridge_rate)
                         : mem.read(nodes::Engine::Op0Read, ctx.now(), nodes::kHostMemory, Bytes{bytes}, q.bridge_rate);
        ctx.sleep_until(s.last);
      }
      r.last_completed = ctx.now();
      r.seen           = ctx.now();
      records_.push_back(r);
    }
}

void ReconicBench::report(const nodes::Cluster&, results::ResultSink& sink, std::vector<std::string>& summary) const
{
  results::Table t("reconic", {"workload", "test", "op", "mode", "batch", "bytes", "iteration", "queues", "buffers", "total_us",
                               "per_op_us", "throughput_gbps", "fetch_us", "engine_us"});
  std::map<std::uint64_t, std::pair<double, double>> by_size; // bytes -> (sum per-op us, sum gbps)
  for (auto const& r : records_) {
    const double total = (r.seen - r.rung).us();
    const double per   = total / r.ops;
    const double gbps  = static_cast<double>(r.bytes) * r.ops * 8.0 / (total * 1e3);
    t.row()
        .add("reconic")
        .add(config::enum_name(cfg_.test))
        .add(config::enum_name(cfg_.op))
        .add(cfg_.test == ReconicTest::Rdma ? std::string(config::enum_name(cfg_.mode)) : std::string("-"))
        .add(r.ops)
        .add(r.bytes)
        .add(r.iteration)
        .add(config::enum_name(cfg_.queues))
        .add(config::enum_name(cfg_.buffers))
        .add(total, 4)
        .add(per, 4)
        .add(gbps, 3)
        .add((r.first_posted - r.rung).us(), 4)
        .add((r.last_completed - r.first_posted).us(), 4);
    by_size[r.bytes].first += per;
    by_size[r.bytes].second += gbps;
  }
  sink.add(std::move(t));
  for (auto const& [bytes, s] : by_size)
    if (cfg_.test == ReconicTest::Rdma)
      summary.push_back(fmt::format("RDMA {} {} ({} per doorbell) of {}: {:.3f} us per operation, {:.2f} Gb/s",
                                    config::enum_name(cfg_.op), config::enum_name(cfg_.mode),
                                    cfg_.mode == ReconicMode::Batch ? cfg_.batch : 1, format_bytes(Bytes{bytes}),
                                    s.first / cfg_.iterations, s.second / cfg_.iterations));
    else
      summary.push_back(fmt::format("{} of {}: {:.3f} us, {:.2f} GB/s",
                                    cfg_.test == ReconicTest::Dma
                                        ? (cfg_.op == roce::Verb::Write ? "DMA host -> card" : "DMA card -> host")
                                        : (cfg_.op == roce::Verb::Write ? "FPGA write to host memory"
                                                                        : "FPGA read of host memory"),
                                    format_bytes(Bytes{bytes}), s.first / cfg_.iterations,
                                    s.second / cfg_.iterations / 8));
}

} // namespace nafsim::workloads
