// RecoNIC's host-driven queues: the doorbell / WQE-fetch / CQ-poll closed
// forms, queues in host vs device memory, batch vs single on the same engine,
// the calibration points of the preset, and exactly-once delivery under loss
// through the shared RoCE engine.
#include "nodes/reconic/Ernic.hpp"
#include "nodes/reconic/Lookaside.hpp"
#include "tests/support/RunScenario.hpp"

#include <cstring>
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
    // The kernel: control message 300 ns + 8 cycles, then 364 + 364 + (16 + 10) cycles + 164 ns.
    EXPECT_NEAR(t.num(0, "engine_us"), 0.332 + 0.728 + 0.104 + 0.164, 1e-4) << how;
  }
}
