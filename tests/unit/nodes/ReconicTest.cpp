// RecoNIC's host-driven queues: the doorbell / WQE-fetch / CQ-poll closed
// forms, queues in host vs device memory, batch vs single on the same engine,
// the calibration points of the preset, and exactly-once delivery under loss
// through the shared RoCE engine.
#include "nodes/reconic/Ernic.hpp"
#include "nodes/reconic/Lookaside.hpp"
#include "tests/support/RunScenario.hpp"

#include <cstring>
#include <fmt/format.h>
#include <gtest/gtest.h>

using namespace nafsim;
using namespace nafsim::nodes;
using namespace nafsim::testing;

namespace {

ErnicTiming timing()
{
  ErnicConfig e; // 170 / 10 cycles, register_read 1456 ns, cqe_write 100 ns
  MemoryConfig dev;
  dev.read_latency = SimTime::ns(300);
  PcieConfig pcie;
  pcie.write_latency = SimTime::ns(400);
  return ErnicTiming(e, Hertz{250e6}, dev, pcie);
}

std::string scenario(const std::string& op, const std::string& mode, const std::string& sizes,
                     const std::string& extra = "")
{
  return R"({"name": "reconic-test", "platform": "reconic-u250",
    "workload": {"kind": "reconic", "op": ")" +
         op + R"(", "mode": ")" + mode + R"(", "sizes": [)" + sizes + "]" + extra + "}}";
}

} // namespace

TEST(Ernic, WqeFetchIsOneLongReadThenAPipeline)
{
  auto t = timing();
  // RecoNIC VI-C: the first WQE 170 cycles (680 ns) after the doorbell, the
  // next ones every 10 cycles (40 ns).
  EXPECT_EQ(t.wqe_fetched(SimTime::us(1), 0, MemPlace::Host), SimTime::ns(1680));
  EXPECT_EQ(t.wqe_fetched(SimTime::us(1), 49, MemPlace::Host), SimTime::ns(1680 + 49 * 40));
  // An SQ in device memory: the first WQE after a device-memory read.
  EXPECT_EQ(t.wqe_fetched(SimTime::us(1), 0, MemPlace::Device), SimTime::ns(1300));
  EXPECT_EQ(t.wqe_fetched(SimTime::us(1), 2, MemPlace::Device), SimTime::ns(1380));
  // The engine takes 68 cycles (272 ns) per WQE, one after the other.
  EXPECT_EQ(t.wqe_started(SimTime::ns(1680), SimTime::zero()), SimTime::ns(1952));
  EXPECT_EQ(t.wqe_started(SimTime::ns(1720), SimTime::ns(1952)), SimTime::ns(2224));
  // A CQ in host memory adds the PCIe write.
  EXPECT_EQ(t.cqe_visible(SimTime::us(5), MemPlace::Device), SimTime::ns(5100));
  EXPECT_EQ(t.cqe_visible(SimTime::us(5), MemPlace::Host), SimTime::ns(5500));
}

TEST(Ernic, PollingSeesAnEventAtTheFirstReadSamplingAfterIt)
{
  auto t          = timing(); // R = 1456 ns, each read samples at its middle
  const SimTime s = SimTime::us(10);
  EXPECT_EQ(t.poll_sees(s, s),
            s + SimTime::ns(1456)); // already there: the first read
  EXPECT_EQ(t.poll_sees(s, s + SimTime::ns(728)),
            s + SimTime::ns(1456)); // sampled exactly then
  EXPECT_EQ(t.poll_sees(s, s + SimTime::ns(729)),
            s + SimTime::ns(2912)); // just missed: the second
  EXPECT_EQ(t.poll_sees(s, s + SimTime::ns(5000)), s + SimTime::ns(4 * 1456));
}

TEST(Reconic, QueuesInDeviceMemoryAreFetchedSooner)
{
  // The first WQE is in the engine after the doorbell (300 ns), the fetch (680
  // ns from host memory through the slave bridge, or the 300 ns device-memory
  // read) and the engine's 272 ns.
  for (auto [where, us] : {std::pair{"host", 1.252}, std::pair{"device", 0.872}}) {
    auto r = run_scenario_isolated(scenario("read", "single", "1024", std::string(R"(, "queues": ")") + where + "\""));
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_NEAR(r.tables.at("reconic").num(0, "fetch_us"), us, 1e-4) << where;
  }
}

TEST(Reconic, BatchAmortizesTheDoorbellAndThePollOnTheSameEngine)
{
  auto single = run_scenario_isolated(scenario("read", "single", "1024, 65536"));
  auto batch  = run_scenario_isolated(scenario("read", "batch", "1024, 65536"));
  ASSERT_TRUE(single.ok && batch.ok) << single.error << batch.error;
  auto const& s = single.tables.at("reconic");
  auto const& b = batch.tables.at("reconic");
  EXPECT_EQ(b.num(0, "batch"), 50);
  // A single operation pays a whole doorbell + poll round: its time is a whole
  // number of register reads.
  const double R = 1.456;
  for (std::size_t i = 0; i < 2; ++i) {
    double reads = s.num(i, "total_us") / R;
    EXPECT_NEAR(reads, std::round(reads), 1e-6);
  }
  // Small operations: the batch is several times faster per operation; large
  // ones: both near the wire, the batch closer (64 KiB: 5.2 us of wire at 100
  // Gb/s).
  EXPECT_LT(b.num(0, "per_op_us") * 5, s.num(0, "per_op_us"));
  EXPECT_GT(b.num(1, "throughput_gbps"), 90);
  EXPECT_LT(b.num(1, "throughput_gbps"), 100);
  EXPECT_GT(b.num(1, "throughput_gbps"), s.num(1, "throughput_gbps"));
}

TEST(Reconic, ASizeListedTwiceIsSummarizedAsItsRuns)
{
  // The summary averaged a size's runs over `iterations`, so a size listed twice read twice as slow (14.56 us for
  // two rows of 7.28: an audit of 2026-12-07); its mean is over the runs it has.
  auto r = run_scenario_isolated(scenario("write", "single", "16384, 16384", R"(, "iterations": 1)"));
  ASSERT_TRUE(r.ok) << r.error;
  auto const& t = r.tables.at("reconic");
  ASSERT_EQ(t.rows.size(), 2u);
  const double per = t.num(0, "per_op_us");
  EXPECT_DOUBLE_EQ(per, t.num(1, "per_op_us"));
  bool said = false;
  for (auto const& line : r.summary)
    if (line.find("of 16KiB: ") != std::string::npos) {
      said = true;
      EXPECT_NE(line.find(fmt::format("{:.3f} us per operation", per)), std::string::npos) << line;
    }
  EXPECT_TRUE(said);
}

TEST(Reconic, CalibrationPoints)
{
  // The two statements the preset is calibrated on (RecoNIC VI-C): a single 16
  // KiB READ at 18 Gb/s (7.28 us), batch READs of <= 4 KiB at about 400 ns per
  // operation.
  auto single = run_scenario_isolated(scenario("read", "single", "16384"));
  auto batch  = run_scenario_isolated(scenario("read", "batch", "64, 256, 1024, 4096"));
  ASSERT_TRUE(single.ok && batch.ok) << single.error << batch.error;
  EXPECT_NEAR(single.tables.at("reconic").num(0, "per_op_us"), 7.28, 0.02 * 7.28);
  EXPECT_NEAR(batch.tables.at("reconic").sum("per_op_us") / 4, 0.400, 0.1 * 0.400);
}

TEST(Reconic, ExactlyOnceUnderLossThroughTheSharedRoceEngine)
{
  // 2 % loss: the RoCE engine under the queues retransmits; every READ and
  // WRITE of the batch completes successfully (a failed one ends the run), and
  // the lost packets cost time.
  for (std::string op : {"read", "write"}) {
    auto clean = run_scenario_isolated(scenario(op, "batch", "16384", R"(, "iterations": 3)"));
    auto lossy = run_scenario_isolated(scenario(op, "batch", "16384", R"(, "iterations": 3)"),
                                       {"platform.network.faults.loss_rate=0.02"});
    ASSERT_TRUE(clean.ok) << clean.error;
    ASSERT_TRUE(lossy.ok) << lossy.error;
    EXPECT_GT(lossy.tables.at("reconic").sum("total_us"), clean.tables.at("reconic").sum("total_us")) << op;
    EXPECT_GT(lossy.tables.at("nodes").sum("retransmitted"), 0) << op;
  }
}

TEST(Reconic, QdmaCopiesReachTheStatedRates)
{
  // RecoNIC VI-B1: host -> card 13.07 GB/s, card -> host 13.00 GB/s; a 64 MiB copy is within 0.1 % of them
  // (the call's fixed cost is 2 us of 5 ms).
  for (auto [op, gbs] : {std::pair{"write", 13.07}, std::pair{"read", 13.00}}) {
    auto r = run_scenario_isolated(scenario(op, "single", "67108864", R"(, "test": "dma")"));
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_NEAR(r.tables.at("reconic").num(0, "throughput_gbps") / 8, gbs, 0.001 * gbs) << op;
  }
}

TEST(Reconic, HostMemoryAccessThroughTheSlaveBridge)
{
  // RecoNIC VI-B2: 600 ns (smallest) to 964 ns (2 KiB): the PCIe read latency plus the bytes at 45 Gb/s.
  auto r = run_scenario_isolated(scenario("read", "single", "64, 2048, 65536", R"(, "test": "host_access")"));
  ASSERT_TRUE(r.ok) << r.error;
  auto const& t = r.tables.at("reconic");
  EXPECT_NEAR(t.num(0, "total_us"), 0.600 + 64 * 8 / 45e3, 1e-4);
  EXPECT_NEAR(t.num(1, "total_us"), 0.964, 2e-3);
  EXPECT_NEAR(t.num(2, "total_us"), 0.600 + 65536 * 8 / 45e3, 1e-3);
}

TEST(Lookaside, SystolicMatmulComputesAndTakesItsCycles)
{
  // A (2 x 3) * B (3 x 2) in 16 x 16 tiles (row stride 16, as mmult.cpp copies them).
  LookasideConfig cfg; // 16 x 16 array, 10 pipeline cycles
  LookasideMatmul k(cfg, Hertz{250e6});
  MemoryConfig dev;
  dev.read_bandwidth = dev.write_bandwidth = BitsPerSecond{128e9};
  dev.read_latency                         = SimTime::ns(300);
  dev.write_latency                        = SimTime::ns(100);
  MemorySystem mem(dev, PcieConfig{});
  MemoryImage img;
  auto put = [&](std::uint64_t base, unsigned i, unsigned j, std::int32_t v) {
    std::vector<std::byte> b(4);
    std::memcpy(b.data(), &v, 4);
    img.write(base + 4 * (i * 16 + j), b);
  };
  const std::int32_t A[2][3] = {{1, 2, 3}, {4, 5, -6}}, B[3][2] = {{7, 8}, {9, 10}, {11, -12}};
  for (unsigned i = 0; i < 2; ++i)
    for (unsigned j = 0; j < 3; ++j)
      put(0, i, j, A[i][j]);
  for (unsigned i = 0; i < 3; ++i)
    for (unsigned j = 0; j < 2; ++j)
      put(4096, i, j, B[i][j]);
  auto run = k.run(mem, &img, SimTime::zero(), 0, 4096, 8192, 2, 3, 2);
  auto C   = img.read(8192, 1024);
  auto at  = [&](unsigned i, unsigned j) {
    std::int32_t v;
    std::memcpy(&v, C.data() + 4 * (i * 16 + j), 4);
    return v;
  };
  EXPECT_EQ(at(0, 0), 1 * 7 + 2 * 9 + 3 * 11);
  EXPECT_EQ(at(0, 1), 1 * 8 + 2 * 10 - 3 * 12);
  EXPECT_EQ(at(1, 0), 4 * 7 + 5 * 9 - 6 * 11);
  EXPECT_EQ(at(1, 1), 4 * 8 + 5 * 10 + 6 * 12);
  EXPECT_EQ(at(0, 2), 0); // outside C: the tile's zeros
  // One port: A's 1 KiB tile (64 ns + 300 ns), then B's, then 3 + 10 cycles (52 ns), then C (64 ns + 100 ns).
  EXPECT_EQ(run.inputs_read, SimTime::ns(728));
  EXPECT_EQ(run.computed, SimTime::ns(780));
  EXPECT_EQ(run.finished, SimTime::ns(944));
  EXPECT_FALSE(k.check(16, 16, 16).size());
  EXPECT_TRUE(k.check(17, 1, 1).size());
}

TEST(Reconic, LookasideMatmulFetchesByReadComputesAndIsVerified)
{
  // Fig. 6: two READs from the server, the kernel, completion by polling or by interrupt; C checked against
  // the definition from the server's matrices (a wrong element ends the run with an error).
  for (std::string how : {"poll", "interrupt"}) {
    auto r = run_scenario_isolated(scenario("read", "single", "64",
                                            R"(, "test": "lookaside_mm", "completion": ")" + how +
                                                R"(", "mm_rows": 5, "mm_inner": 16, "mm_cols": 9, "iterations": 2)"));
    ASSERT_TRUE(r.ok) << r.error;
    auto const& t = r.tables.at("reconic");
    ASSERT_EQ(t.rows.size(), 2u);
    EXPECT_EQ(t.rows[0].at("verified"), "yes");
    // The kernel: control message 300 ns + 6 cycles (ctl_cmd_t's six words), then 364 + 364 + (16 + 10) cycles +
    // 164 ns.
    EXPECT_NEAR(t.num(0, "engine_us"), 0.324 + 0.728 + 0.104 + 0.164, 1e-4) << how;
  }
  // The source posts each matrix's READ and polls its completion before the next (network_systolic_mm.c:
  // rdma_post_send for A, then for B): the operands take two single READs of a 16 x 16 int32 tile (1 KiB).
  auto look = run_scenario_isolated(scenario("read", "single", "64", R"(, "test": "lookaside_mm")"));
  auto one  = run_scenario_isolated(scenario("read", "single", "1024"));
  ASSERT_TRUE(look.ok && one.ok) << look.error << one.error;
  EXPECT_NEAR(look.tables.at("reconic").num(0, "fetch_us"), 2 * one.tables.at("reconic").num(0, "total_us"), 1e-4);
}

TEST(MemoryChannel, EnginesShareOneChannelThroughTheCrossbar)
{
  // Two engines stream 1 MiB each in 4 KiB accesses, each issuing its next access when its port is free.
  // Own channels: both at the port's 128 Gb/s, 65.5 us. One DDR4 channel of 153.6 Gb/s: the two share it,
  // so the 2 MiB take 2 MiB / 153.6 Gb/s = 109.2 us (to within one access).
  auto run = [](double channel_gbps) {
    MemoryConfig dev;
    dev.read_bandwidth = dev.write_bandwidth = BitsPerSecond{128e9};
    dev.read_latency = dev.write_latency = SimTime::zero();
    dev.shared_channel                   = channel_gbps > 0;
    dev.channel_bandwidth                = BitsPerSecond{channel_gbps * 1e9};
    MemorySystem mem(dev, PcieConfig{});
    SimTime next[2], last;
    for (int k = 0; k < 2 * 256; ++k) {
      const int e  = next[0] <= next[1] ? 0 : 1;
      Stream s     = e == 0 ? mem.read(Engine::Op0Read, next[0], 0, Bytes{4096}, MemorySystem::kNoCap)
                            : mem.write(Engine::PoeWrite, next[1], 0, Bytes{4096}, MemorySystem::kNoCap);
      next[e]      = s.last;
      last         = std::max(last, s.last);
    }
    return std::pair{last.us(), mem.channel() ? mem.channel()->bytes() : 0};
  };
  auto [own, none] = run(0);
  EXPECT_NEAR(own, 1048576 * 8 / 128e3, 1e-3);
  EXPECT_EQ(none, 0u);
  auto [shared, bytes] = run(153.6);
  EXPECT_NEAR(shared, 2 * 1048576 * 8 / 153.6e3, 4096 * 8 / 128e3);
  EXPECT_EQ(bytes, 2u * 1048576);
}

TEST(Reconic, BackgroundDmaAndRdmaShareTheDdrChannel)
{
  // Batch READs of 64 KiB land in the client's device memory at ~95 Gb/s while its host copies host -> card at
  // 104.56 Gb/s: together more than the one DDR4 channel's 153.6 Gb/s behind the mem_crossbar. The channel stays
  // busy and is not exceeded: the DMA, which asks for the channel only as its descriptors flow, gets what the
  // READ responses (arriving at the wire's pace, each asking as it lands) leave. With a channel per engine,
  // neither notices the other.
  const std::string s = scenario("read", "batch", "65536", R"(, "iterations": 4)");
  const std::string bg = scenario("read", "batch", "65536", R"(, "iterations": 4, "background_dma": "h2c")");
  auto alone = run_scenario_isolated(s);
  auto both  = run_scenario_isolated(bg);
  auto own   = run_scenario_isolated(bg, {"platform.node.fpga.device_memory.shared_channel=false"});
  ASSERT_TRUE(alone.ok && both.ok && own.ok) << alone.error << both.error << own.error;
  const double rdma_alone = alone.tables.at("reconic").sum("throughput_gbps") / 4;
  const double rdma_both  = both.tables.at("reconic").sum("throughput_gbps") / 4;
  const double rdma_own   = own.tables.at("reconic").sum("throughput_gbps") / 4;
  const double dma_both   = both.tables.at("reconic_background").num(0, "gbytes_per_s") * 8;
  const double dma_own    = own.tables.at("reconic_background").num(0, "gbytes_per_s") * 8;
  EXPECT_GT(rdma_alone, 90);
  EXPECT_LE(rdma_both, rdma_alone * 1.0001);
  EXPECT_LT(dma_both, 0.7 * 104.56);
  EXPECT_LE(rdma_both + dma_both, 153.6 * 1.01);
  EXPECT_GE(rdma_both + dma_both, 153.6 * 0.95);
  EXPECT_NEAR(rdma_own, rdma_alone, 0.005 * rdma_alone);
  EXPECT_NEAR(dma_own, 104.56, 0.01 * 104.56);
  // The background DMA is refused where it has nothing to share.
  auto bad = run_scenario_isolated(scenario("read", "single", "64", R"(, "test": "dma", "background_dma": "h2c")"));
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.error.find("/workload/background_dma"), std::string::npos) << bad.error;
}

TEST(Reconic, ClassifierPassesRoceToTheEngineAndTheRestToTheHost)
{
  // Batch WRITEs through the RDMA engine while the server's host sends the client's host messages of the same
  // sizes through its software stack: every RoCE packet reaches the engine, every datagram the host, nothing
  // crosses over, and both streams complete.
  auto r = run_scenario_isolated(
      scenario("write", "batch", "64, 65536", R"(, "test": "classifier", "iterations": 2)"));
  ASSERT_TRUE(r.ok) << r.error;
  auto const& cl = r.tables.at("reconic_classifier");
  auto const& hs = r.tables.at("reconic_host_stream");
  ASSERT_EQ(hs.rows.size(), 4u);
  const double datagrams = hs.sum("datagrams");
  EXPECT_EQ(datagrams, 2 * (1 + 45)); // 64 KiB in 1472-byte payloads: 45 datagrams
  for (std::size_t n = 0; n < 2; ++n) {
    EXPECT_EQ(cl.num(n, "to_rdma"), cl.num(n, "rdma_packets_received")) << n;
    EXPECT_EQ(cl.num(n, "to_host"), cl.num(n, "host_packets_received")) << n;
    EXPECT_EQ(cl.num(n, "from_host"), cl.num(n, "host_packets_sent")) << n;
    EXPECT_GT(cl.num(n, "to_rdma"), 0) << n;
  }
  EXPECT_EQ(cl.num(0, "to_host"), datagrams); // the client received them all, through its host path
  EXPECT_EQ(cl.num(1, "from_host"), datagrams);
  EXPECT_EQ(cl.num(1, "to_host"), 0);
  // The software path: a 64 KiB message costs the sender's CPU 45 x 2 us, the receiver's last datagram 1.5 us
  // more, plus one datagram's trip (PCIe, wire, classifier); the RDMA path moves it in microseconds.
  for (std::size_t i = 2; i < 4; ++i) {
    EXPECT_GT(hs.num(i, "latency_us"), 45 * 2.0 + 1.5) << i;
    EXPECT_LT(hs.num(i, "latency_us"), 45 * 2.0 + 1.5 + 3.0) << i;
  }
  // Without the classifier the test is refused, naming the setting.
  auto bad = run_scenario_isolated(scenario("write", "batch", "64", R"(, "test": "classifier")"),
                                   {"platform.node.fpga.classifier.enabled=false"});
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.error.find("classifier/enabled"), std::string::npos) << bad.error;
}

TEST(Ernic, PollingSeveralCqDoorbellsInTurn)
{
  auto t          = timing(); // R = 1456 ns
  const SimTime s = SimTime::us(10);
  const SimTime R = SimTime::ns(1456);
  // Three queue pairs' CQ doorbells read in turn: queue pair j's at s + (3 m + j + 1) R, sampled half a read
  // earlier.
  EXPECT_EQ(t.poll_sees(s, s, 0, 3), s + R);
  EXPECT_EQ(t.poll_sees(s, s, 2, 3), s + R * 3);
  EXPECT_EQ(t.poll_sees(s, s + SimTime::ns(728), 0, 3), s + R);      // sampled exactly then
  EXPECT_EQ(t.poll_sees(s, s + SimTime::ns(729), 0, 3), s + R * 4);  // missed: its next read is a round later
  EXPECT_EQ(t.poll_sees(s, s + SimTime::ns(729), 1, 3), s + R * 2);
  EXPECT_EQ(t.poll_sees(s, s + SimTime::ns(5000), 2, 3), s + R * 6);
  // One queue pair: the plain loop.
  EXPECT_EQ(t.poll_sees(s, s + SimTime::ns(5000), 0, 1), t.poll_sees(s, s + SimTime::ns(5000)));
  // The host polls once it has posted its last SQ doorbell store (50 ns apart in the preset), not from its first.
  EXPECT_EQ(t.doorbells_posted(s, 1), s);
  EXPECT_EQ(t.doorbells_posted(s, 4), s + SimTime::ns(150));
  EXPECT_EQ(t.doorbell_seen(s, 3) - t.doorbells_posted(s, 4), t.doorbell_seen(s, 0) - s); // the last store's own flight
  // Doorbells rung one after the other.
  EXPECT_EQ(t.doorbell_seen(s, 0), s + SimTime::ns(300));
  EXPECT_EQ(t.doorbell_seen(s, 3), s + SimTime::ns(450));
}

TEST(Reconic, QueuePairsSpreadABatchOverSeveralQueues)
{
  // A batch over 4 queue pairs: the same engine starts the WQEs one after the other, so the first is handed over
  // as soon as with one queue pair; the host polls four CQ doorbells in turn from its last SQ doorbell store (three
  // gaps of 50 ns after the first), so it sees the last completion a whole number of register reads after that, no
  // sooner than with one.
  auto one  = run_scenario_isolated(scenario("read", "batch", "64, 16384"));
  auto four = run_scenario_isolated(scenario("read", "batch", "64, 16384", R"(, "queue_pairs": 4)"));
  ASSERT_TRUE(one.ok && four.ok) << one.error << four.error;
  auto const& a = one.tables.at("reconic");
  auto const& b = four.tables.at("reconic");
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_NEAR(b.num(i, "fetch_us"), a.num(i, "fetch_us"), 1e-6) << i;
    const double reads = (b.num(i, "total_us") - 0.150) / 1.456;
    EXPECT_NEAR(reads, std::round(reads), 1e-6) << i;
    EXPECT_GE(b.num(i, "total_us"), a.num(i, "total_us")) << i;
  }
  // The engine is built with 32.
  auto bad = run_scenario_isolated(scenario("read", "batch", "64", R"(, "queue_pairs": 33)"));
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.error.find("/workload/queue_pairs"), std::string::npos) << bad.error;
}
