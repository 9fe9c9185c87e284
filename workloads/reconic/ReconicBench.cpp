#include "workloads/reconic/ReconicBench.hpp"

#include "nodes/fpga/FpgaCluster.hpp"
#include "nodes/platform/Cluster.hpp"
#include "nodes/reconic/Ernic.hpp"
#include "nodes/reconic/Lookaside.hpp"
#include "simcore/config/ConfigError.hpp"

#include <cstring>
#include <fmt/format.h>
#include <map>

namespace nafsim::workloads {

std::string ReconicBench::unread_reason(std::string_view key) const
{
  const std::string_view k = key_head(key);
  const ReconicTest t      = cfg_.test;
  const bool doorbells     = t == ReconicTest::Rdma || t == ReconicTest::Classifier;
  if ((k == "mode" || k == "batch") && !doorbells)
    return "only the rdma and classifier tests put one or several work requests behind a doorbell (test " +
           std::string(config::enum_name(t)) + ")";
  if (k == "batch" && cfg_.mode == ReconicMode::Single)
    return "one work request per doorbell (mode single)";
  if ((k == "mm_rows" || k == "mm_inner" || k == "mm_cols" || k == "completion") && t != ReconicTest::LookasideMm)
    return "only the lookaside matrix multiply reads it (test lookaside_mm)";
  if (k == "queue_pairs" && (t == ReconicTest::Dma || t == ReconicTest::HostAccess))
    return "no queue pair is used (test " + std::string(config::enum_name(t)) + ")";
  if ((k == "sizes" || k == "min_size" || k == "max_size") && t == ReconicTest::LookasideMm)
    return "the matrices' tiles set the bytes (test lookaside_mm)";
  if (k == "op" && t == ReconicTest::LookasideMm)
    return "the lookaside kernel READs its operands whatever op says (test lookaside_mm)";
  if ((k == "queues" || k == "buffers") && (t == ReconicTest::Dma || t == ReconicTest::HostAccess))
    return "no RDMA queue or buffer is used (test " + std::string(config::enum_name(t)) + ")";
  if (k == "queue_pairs" && doorbells && cfg_.mode == ReconicMode::Single)
    return "one work request per doorbell goes on one queue pair (mode single)";
  return size_bounds_unread(k, !cfg_.sizes.empty());
}

ReconicBench::ReconicBench(const ReconicBenchConfig& cfg)
    : cfg_(cfg), sizes_(message_sizes(cfg.sizes, cfg.min_size, cfg.max_size, 1))
{
}

void ReconicBench::start(nodes::Cluster& c)
{
  nodes::require_roce(c, "reconic workload");
  check_node(c, cfg_.client, "client");
  check_node(c, cfg_.server, "server");
  if (cfg_.client == cfg_.server)
    throw config::ConfigError("", "/workload/server", "client and server must be different nodes");
  for (std::size_t i = 0; i < sizes_.size(); ++i)
    if (sizes_[i] > (1ULL << 31))
      throw config::ConfigError("", size_path(cfg_.sizes, i),
                                fmt::format("{} is more than one RDMA operation carries here (2 "
                                            "GiB): give smaller sizes",
                                            format_bytes(Bytes{sizes_[i]})));
  auto const& ernic = c.at<nodes::FpgaNode>(cfg_.client).config().ernic;
  if (cfg_.queue_pairs > ernic.qps)
    throw config::ConfigError("", "/workload/queue_pairs",
                              fmt::format("{} queue pairs, but the engine is built with {} "
                                          "(platform.node.fpga.ernic.qps): lower queue_pairs or raise qps",
                                          cfg_.queue_pairs, ernic.qps));
  if (drives_rdma() && cfg_.mode == ReconicMode::Batch && cfg_.batch > ernic.sq_depth)
    throw config::ConfigError("", "/workload/batch",
                              fmt::format("a batch of {} WQEs does not fit the send queue ({} entries, "
                                          "platform.node.fpga.ernic.sq_depth): lower batch or raise sq_depth",
                                          cfg_.batch, ernic.sq_depth));
  if (!drives_rdma() && cfg_.background_dma != BackgroundDma::None)
    throw config::ConfigError("", "/workload/background_dma",
                              "a background DMA runs beside the rdma and classifier tests only: set test to one of "
                              "them or background_dma to none");
  if (drives_rdma() || cfg_.test == ReconicTest::LookasideMm) {
    qps_.push_back(c.qp(cfg_.client, cfg_.server));
    for (unsigned k = 1; k < cfg_.queue_pairs; ++k)
      qps_.push_back(c.add_qp(cfg_.client, cfg_.server));
  }
  if (cfg_.test == ReconicTest::LookasideMm) {
    auto const& fc = c.at<nodes::FpgaNode>(cfg_.client).config();
    nodes::LookasideMatmul k(fc.lookaside, fc.clock);
    if (auto why = k.check(cfg_.mm_rows, cfg_.mm_inner, cfg_.mm_cols); !why.empty())
      throw config::ConfigError("", "/workload/mm_rows", why + ": give mm_rows, mm_inner and mm_cols within it");
    c.carry_data();
    c.scheduler().spawn("reconic-lookaside", c.at<nodes::FpgaNode>(cfg_.client).host(),
                        [this, &c](ActorContext& ctx) { run_lookaside(ctx, c); });
    return;
  }
  if (!drives_rdma()) {
    c.scheduler().spawn("reconic-memory", c.at<nodes::FpgaNode>(cfg_.client).host(),
                        [this, &c](ActorContext& ctx) { run_memory(ctx, c); });
    return;
  }
  if (cfg_.test == ReconicTest::Classifier) {
    for (unsigned n : {cfg_.client, cfg_.server})
      if (!c.at<nodes::FpgaNode>(n).classifier())
        throw config::ConfigError("", "/platform/node/fpga/classifier/enabled",
                                  fmt::format("the classifier test needs RecoNIC's packet classifier on node {}: set "
                                              "platform.node.fpga.classifier.enabled to true (preset reconic-u250 "
                                              "has it)",
                                              n));
    c.scheduler().spawn("reconic-host-stream", c.at<nodes::FpgaNode>(cfg_.server).host(),
                        [this, &c](ActorContext& ctx) { run_host_stream(ctx, c); });
  }
  c.scheduler().spawn("reconic-client", c.at<nodes::FpgaNode>(cfg_.client).host(),
                      [this, &c](ActorContext& ctx) { run_client(ctx, c); });
  if (cfg_.background_dma != BackgroundDma::None)
    c.scheduler().spawn("reconic-background-dma", c.at<nodes::FpgaNode>(cfg_.client).host(), [this, &c](ActorContext& ctx) {
      const SimTime from = ctx.now();
      dma_copy(ctx, c, cfg_.background_dma == BackgroundDma::H2c, Bytes{1ULL << 30}, &client_done_,
               &background_bytes_);
      background_time_ = ctx.now() - from;
    }, ActorRole::Background);
}

void ReconicBench::dma_copy(ActorContext& ctx, nodes::Cluster& c, bool to_card, Bytes b, const bool* stop,
                            std::uint64_t* moved) const
{
  nodes::FpgaNode& node = c.at<nodes::FpgaNode>(cfg_.client);
  auto const& q         = node.config().qdma;
  auto& mem             = node.memory();
  const BitsPerSecond rate = to_card ? q.h2c_rate : q.c2h_rate;
  SimTime last             = ctx.now();
  do {
    for (std::uint64_t off = 0; off < b.count && !(stop && *stop);) {
      const Bytes d{std::min(q.descriptor_bytes.count, b.count - off)};
      auto step = mem.dma_step(to_card, ctx.now(), d, rate);
      last      = std::max(last, step.last);
      off += d.count;
      if (moved)
        *moved += d.count;
      ctx.sleep_until(step.next);
    }
  } while (stop && !*stop);
  ctx.sleep_until(std::max(last, ctx.now()));
}

ReconicBench::Burst ReconicBench::run_burst(ActorContext& ctx, nodes::Cluster& c, const nodes::ErnicTiming& t,
                                            const std::vector<roce::WorkRequest>& wrs,
                                            const std::function<void(std::size_t, const roce::Completion&)>& done)
{
  // The WQEs are in the SQ already (rdma_test writes them before the timed call): the host rings the doorbell
  // now and polls the CQ doorbell from then on; the engine fetches and starts them one after the other.
  nodes::FpgaNode& node = c.at<nodes::FpgaNode>(cfg_.client);
  const std::size_t n   = wrs.size();
  const auto k          = static_cast<unsigned>(std::min(qps_.size(), n));
  Burst b;
  b.rung = ctx.now();
  // Request i is entry i / k of queue pair i mod k's SQ; each SQ's burst is fetched after its doorbell, and the
  // engine starts the fetched WQEs one after the other in the order they came.
  std::vector<SimTime> fetched(n);
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) {
    fetched[i] = t.wqe_fetched(t.doorbell_seen(b.rung, static_cast<unsigned>(i % k)), static_cast<unsigned>(i / k),
                               cfg_.queues);
    order[i]   = i;
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return fetched[x] < fetched[y]; });
  SimTime start = SimTime::zero();
  for (std::size_t i : order) {
    start = t.wqe_started(fetched[i], start);
    if (i == order.front())
      b.first_posted = start;
    c.scheduler().call_at(start, [&node, qp = qps_[i % k], w = wrs[i]] { node.poe().post_send(qp, w); });
  }
  // Completions in the order they come; each queue pair's CQ doorbell advances with its own.
  std::map<std::uint64_t, std::size_t> index;
  for (std::size_t i = 0; i < n; ++i)
    index[wrs[i].wr_id] = i;
  std::vector<SimTime> visible(k);
  for (std::size_t got = 0; got < n; ++got) {
    roce::Completion done_now = node.wait_any_completion(ctx);
    auto it                   = index.find(done_now.wr_id);
    if (it == index.end())
      throw SimulationError(fmt::format("reconic: node {} completed work request {}, which its host never posted",
                                        cfg_.client, done_now.wr_id));
    done(it->second, done_now);
    auto& v = visible[it->second % k];
    v       = std::max(v, t.cqe_visible(ctx.now(), cfg_.queues));
  }
  b.last_completed = ctx.now();
  // The host polls once its last doorbell store is posted (it had been taken from the first: a review of
  // 2026-12-07), each queue pair's CQ doorbell in turn.
  const SimTime polls = t.doorbells_posted(b.rung, k);
  b.seen              = polls;
  for (unsigned j = 0; j < k; ++j)
    b.seen = std::max(b.seen, t.poll_sees(polls, visible[j], j, k));
  ctx.sleep_until(b.seen);
  return b;
}
void ReconicBench::run_client(ActorContext& ctx, nodes::Cluster& c)
{
  nodes::FpgaNode& node = c.at<nodes::FpgaNode>(cfg_.client);
  auto const& fc        = node.config();
  nodes::ErnicTiming t(fc.ernic, fc.clock, fc.device_memory, fc.pcie);
  const std::uint64_t place = cfg_.buffers == nodes::MemPlace::Host ? nodes::kHostMemory : 0;
  const unsigned per        = cfg_.mode == ReconicMode::Batch ? cfg_.batch : 1;
  std::uint64_t wr          = 0;
  for (auto bytes : sizes_)
    for (unsigned it = 0; it < cfg_.iterations; ++it) {
      Record r;
      r.bytes     = bytes;
      r.iteration = it;
      r.ops       = per;
      std::vector<roce::WorkRequest> wrs;
      for (unsigned k = 0; k < per; ++k) { // ASSUMPTION: each WQE its own stretch of the buffers (read_batch.c gives
                                           // every WQE the same local buffer and remote offset; no timing depends on it)
        const std::uint64_t id = ++wr;
        wrs.push_back(roce::WorkRequest{id, cfg_.op == ReconicOp::Write ? roce::Verb::Write : roce::Verb::Read, place + k * bytes, place + k * bytes, bytes, id});
      }
      Burst b          = run_burst(ctx, c, t, wrs, [&](std::size_t, const roce::Completion& done) {
        if (done.status != roce::Status::Success)
          throw SimulationError(fmt::format("reconic: {} of {} from node {} to node {} failed: {}",
                                                     config::enum_name(cfg_.op), format_bytes(Bytes{bytes}), cfg_.client,
                                                     cfg_.server, roce::describe_failure(done)));
      });
      r.rung           = b.rung;
      r.first_posted   = b.first_posted;
      r.last_completed = b.last_completed;
      r.seen           = b.seen;
      records_.push_back(r);
    }
  client_done_ = true;
}

void ReconicBench::run_host_stream(ActorContext& ctx, nodes::Cluster& c)
{
  // The server's host sends each message through its software stack; the client's host receives it through its
  // classifier and stack. One message at a time: the next is sent when the previous one has been received.
  nodes::HostNetStack& tx = *c.at<nodes::FpgaNode>(cfg_.server).host_net();
  nodes::HostNetStack& rx = *c.at<nodes::FpgaNode>(cfg_.client).host_net();
  std::optional<ActorId> waiting;
  rx.set_receive_hook([&](const nodes::HostNetStack::Received&) {
    if (waiting)
      c.scheduler().wake(*std::exchange(waiting, std::nullopt));
  });
  for (auto bytes : sizes_)
    for (unsigned it = 0; it < cfg_.iterations; ++it) {
      const std::size_t before = rx.received().size();
      HostRecord r{bytes, it, ctx.now(), SimTime::zero()};
      tx.send(cfg_.client, bytes);
      while (rx.received().size() == before) {
        waiting = ctx.id();
        ctx.block(WaitReason([this, bytes] {
          return fmt::format("reconic: node {}'s host waits for a {} message from node {} through the classifier's "
                             "non-RDMA path (a lost datagram loses its message)",
                             cfg_.client, format_bytes(Bytes{bytes}), cfg_.server);
        }));
      }
      r.received = rx.received().back().done;
      host_records_.push_back(r);
    }
  rx.set_receive_hook({});
}

void ReconicBench::run_memory(ActorContext& ctx, nodes::Cluster& c)
{
  nodes::FpgaNode& node = c.at<nodes::FpgaNode>(cfg_.client);
  auto const& q         = node.config().qdma;
  auto& mem             = node.memory();
  const bool to_card    = cfg_.op == ReconicOp::Write;
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
        dma_copy(ctx, c, to_card, Bytes{bytes});
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

void ReconicBench::run_lookaside(ActorContext& ctx, nodes::Cluster& c)
{
  // RecoNIC Fig. 6: the matrices are in the server's (peer 1's) memory; the client's host READs them into its
  // card's memory (one READ posted and its CQ polled, then the other), sends the kernel a control message, and learns of
  // the result by polling the status register or by an interrupt.
  nodes::FpgaNode& node = c.at<nodes::FpgaNode>(cfg_.client);
  auto const& fc        = node.config();
  nodes::ErnicTiming t(fc.ernic, fc.clock, fc.device_memory, fc.pcie);
  nodes::LookasideMatmul kernel(fc.lookaside, fc.clock);
  nodes::DataPlane& data   = *c.data();
  nodes::MemoryImage& mine = data.memory.at(cfg_.client);
  nodes::MemoryImage& peer = data.memory.at(cfg_.server);
  const std::uint64_t n = fc.lookaside.array, tile = n * n * 4;
  const std::uint64_t place     = cfg_.buffers == nodes::MemPlace::Host ? nodes::kHostMemory : 0;
  const std::uint64_t remote[2] = {place, place + tile}, local[2] = {place + 4 * tile, place + 5 * tile},
                      out = place + 6 * tile;
  auto element            = [](unsigned m, unsigned it, unsigned i, unsigned j) {
    return static_cast<std::int32_t>((i * 131 + j * 71 + it * 29 + m * 17) % 2001) - 1000;
  };
  std::uint64_t wr = 0;
  for (unsigned it = 0; it < cfg_.iterations; ++it) {
    // The server's matrices, row stride n (the kernel's tile layout), zero outside the used part.
    std::vector<std::byte> mats[2] = {std::vector<std::byte>(tile), std::vector<std::byte>(tile)};
    const unsigned dims[2][2]      = {{cfg_.mm_rows, cfg_.mm_inner}, {cfg_.mm_inner, cfg_.mm_cols}};
    for (unsigned m = 0; m < 2; ++m) {
      for (unsigned i = 0; i < dims[m][0]; ++i)
        for (unsigned j = 0; j < dims[m][1]; ++j) {
          std::int32_t v = element(m, it, i, j);
          std::memcpy(mats[m].data() + 4 * (i * n + j), &v, 4);
        }
      peer.write(remote[m], mats[m]);
    }
    Record r;
    r.bytes     = 2 * tile;
    r.iteration = it;
    r.ops       = 1;
    // 1. The two READs, each posted and polled on its own (network_systolic_mm.c: create_a_wqe and rdma_post_send
    //    for A, then for B); the engine's copies land in this card's memory.
    for (unsigned m = 0; m < 2; ++m) {
      const std::uint64_t id = ++wr;
      const Burst b          = run_burst(ctx, c, t, {roce::WorkRequest{id, roce::Verb::Read, local[m], remote[m], tile, id}},
                                         [&](std::size_t, const roce::Completion& done) {
                                  if (done.status != roce::Status::Success)
                                    throw SimulationError(fmt::format(
                                        "reconic: the READ of matrix {} from node {} failed: {}", m ? 'B' : 'A',
                                        cfg_.server, roce::describe_failure(done)));
                                  // The READ delivered these bytes (the RoCE engine checked their checksum).
                                  mine.write(local[m], peer.read(remote[m], tile));
                                });
      if (m == 0)
        r.rung = b.rung;
    }
    r.first_posted = ctx.now(); // operands in; the host sends the control message
    // 2. The control message: posted register writes, one word per cycle after the first reaches the block.
    const SimTime sent = ctx.now();
    const SimTime cmd  = sent + fc.ernic.doorbell_write + t.cycles(fc.lookaside.control_words);
    // 3. The kernel.
    nodes::MatmulRun run =
        kernel.run(node.memory(), &mine, cmd, local[0], local[1], out, cfg_.mm_rows, cfg_.mm_inner, cfg_.mm_cols);
    r.last_completed = run.finished;
    // 4. The host learns of it.
    r.seen = cfg_.completion == Completion::Poll ? t.poll_sees(sent, run.finished)
                                                 : run.finished + fc.lookaside.interrupt_latency;
    ctx.sleep_until(r.seen);
    // 5. Check C against the definition, from the matrices the server holds.
    auto C = mine.read(out, tile);
    for (unsigned i = 0; i < cfg_.mm_rows; ++i)
      for (unsigned j = 0; j < cfg_.mm_cols; ++j) {
        std::uint32_t want = 0;
        for (unsigned k = 0; k < cfg_.mm_inner; ++k)
          want += static_cast<std::uint32_t>(element(0, it, i, k)) * static_cast<std::uint32_t>(element(1, it, k, j));
        std::int32_t got;
        std::memcpy(&got, C.data() + 4 * (i * n + j), 4);
        if (static_cast<std::uint32_t>(got) != want)
          throw SimulationError(
              fmt::format("reconic: lookaside matrix multiply, iteration {}: C[{}][{}] = {}, expected {}", it, i, j,
                          got, static_cast<std::int32_t>(want)));
      }
    r.verified = true;
    records_.push_back(r);
  }
}

void ReconicBench::report(const nodes::Cluster& c, results::ResultSink& sink, std::vector<std::string>& summary) const
{
  results::Table t("reconic", {"workload", "test", "op", "mode", "batch", "bytes", "iteration", "queues", "buffers",
                               "total_us", "per_op_us", "throughput_gbps", "fetch_us", "engine_us", "verified"});
  struct Sums {
    double per_us = 0, gbps = 0;
    unsigned n = 0; // records of that size: iterations, times how often the size list names it
  };
  std::map<std::uint64_t, Sums> by_size;
  // (the memory tests use no RDMA queue or buffer: their columns say so, as mode's does)
  const bool queues_used = cfg_.test != ReconicTest::Dma && cfg_.test != ReconicTest::HostAccess;
  for (auto const& r : records_) {
    const double total = (r.seen - r.rung).us();
    const double per   = total / r.ops;
    const double gbps  = static_cast<double>(r.bytes) * r.ops * 8.0 / (total * 1e3);
    t.row()
        .add("reconic")
        .add(config::enum_name(cfg_.test))
        .add(cfg_.test == ReconicTest::LookasideMm ? "read" : config::enum_name(cfg_.op)) // (its kernel READs)
        .add(drives_rdma() ? std::string(config::enum_name(cfg_.mode)) : std::string("-"))
        .add(r.ops)
        .add(r.bytes)
        .add(r.iteration)
        .add(queues_used ? std::string(config::enum_name(cfg_.queues)) : "-")
        .add(queues_used ? std::string(config::enum_name(cfg_.buffers)) : "-")
        .add(total, 4)
        .add(per, 4)
        .add(gbps, 3)
        .add((r.first_posted - r.rung).us(), 4)
        .add((r.last_completed - r.first_posted).us(), 4)
        .add(cfg_.test == ReconicTest::LookasideMm ? (r.verified ? "yes" : "no") : "-");
    if (cfg_.test == ReconicTest::LookasideMm)
      summary.push_back(fmt::format(
          "lookaside matrix multiply {}x{} * {}x{}, iteration {}: operands READ in {:.3f} us, kernel done {:.3f} us "
          "after the control message, seen by {} at {:.3f} us; C verified",
          cfg_.mm_rows, cfg_.mm_inner, cfg_.mm_inner, cfg_.mm_cols, r.iteration, (r.first_posted - r.rung).us(),
          (r.last_completed - r.first_posted).us(), config::enum_name(cfg_.completion), total));
    Sums& sz = by_size[r.bytes];
    sz.per_us += per;
    sz.gbps += gbps;
    ++sz.n;
  }
  sink.add(std::move(t));
  if (cfg_.test == ReconicTest::Classifier)
    report_classifier(c, sink, summary);
  if (cfg_.background_dma != BackgroundDma::None)
    report_background(sink, summary);
  for (auto const& [bytes, s] : by_size)
    if (cfg_.test == ReconicTest::LookasideMm)
      continue;
    else if (drives_rdma())
      summary.push_back(fmt::format("RDMA {} {} ({} per doorbell) of {}: {:.3f} us per operation, {:.2f} Gb/s",
                                    config::enum_name(cfg_.op), config::enum_name(cfg_.mode),
                                    cfg_.mode == ReconicMode::Batch ? cfg_.batch : 1, format_bytes(Bytes{bytes}),
                                    s.per_us / s.n, s.gbps / s.n));
    else
      summary.push_back(
          fmt::format("{} of {}: {:.3f} us, {:.2f} GB/s",
                      cfg_.test == ReconicTest::Dma
                          ? (cfg_.op == ReconicOp::Write ? "DMA host -> card" : "DMA card -> host")
                          : (cfg_.op == ReconicOp::Write ? "FPGA write to host memory" : "FPGA read of host memory"),
                      format_bytes(Bytes{bytes}), s.per_us / s.n, s.gbps / s.n / 8));
}

void ReconicBench::report_classifier(const nodes::Cluster& c, results::ResultSink& sink,
                                     std::vector<std::string>& summary) const
{
  results::Table hs("reconic_host_stream", {"bytes", "iteration", "latency_us", "throughput_gbps", "datagrams"});
  const std::uint64_t per = c.at<nodes::FpgaNode>(cfg_.server).host_net()->payload_per_packet();
  std::map<std::uint64_t, std::pair<double, unsigned>> mean; // bytes -> (sum us, records)
  for (auto const& r : host_records_) {
    const double us = (r.received - r.posted).us();
    hs.row()
        .add(r.bytes)
        .add(r.iteration)
        .add(us, 4)
        .add(static_cast<double>(r.bytes) * 8.0 / (us * 1e3), 3)
        .add(r.bytes == 0 ? 1 : (r.bytes + per - 1) / per);
    mean[r.bytes].first += us;
    ++mean[r.bytes].second;
  }
  sink.add(std::move(hs));
  results::Table cl("reconic_classifier", {"node", "to_rdma", "to_host", "from_rdma", "from_host",
                                           "rdma_packets_received", "host_packets_received", "host_packets_sent"});
  for (unsigned n : {cfg_.client, cfg_.server}) {
    auto const& node = c.at<nodes::FpgaNode>(n);
    cl.row()
        .add(n)
        .add(node.classifier()->to_rdma())
        .add(node.classifier()->to_host())
        .add(node.classifier()->from_rdma())
        .add(node.classifier()->from_host())
        .add(node.poe().counters().packets_received)
        .add(node.host_net()->packets_received())
        .add(node.host_net()->packets_sent());
  }
  sink.add(std::move(cl));
  for (auto const& [bytes, us] : mean)
    summary.push_back(fmt::format("non-RDMA {} from node {}'s host to node {}'s, through the classifier and the "
                                  "host stacks, beside the RDMA test: {:.3f} us",
                                  format_bytes(Bytes{bytes}), cfg_.server, cfg_.client, us.first / us.second));
  auto const* k = c.at<nodes::FpgaNode>(cfg_.client).classifier();
  summary.push_back(fmt::format("node {}'s classifier: {} RoCE packets to the RDMA engine, {} to the host", cfg_.client,
                                k->to_rdma(), k->to_host()));
}

void ReconicBench::report_background(results::ResultSink& sink, std::vector<std::string>& summary) const
{
  const double gbytes_s = background_time_ > SimTime::zero()
                              ? static_cast<double>(background_bytes_) / (background_time_.us() * 1e3)
                              : 0.0;
  results::Table bg("reconic_background", {"direction", "bytes", "time_us", "gbytes_per_s"});
  bg.row()
      .add(config::enum_name(cfg_.background_dma))
      .add(background_bytes_)
      .add(background_time_.us(), 3)
      .add(gbytes_s, 3);
  sink.add(std::move(bg));
  summary.push_back(fmt::format("background DMA {} beside the RDMA test: {} in {:.1f} us, {:.2f} GB/s",
                                config::enum_name(cfg_.background_dma), format_bytes(Bytes{background_bytes_}),
                                background_time_.us(), gbytes_s));
}

} // namespace nafsim::workloads
