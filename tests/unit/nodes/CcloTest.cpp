// The CCLO: its plugins on real bytes, the Rx-buffer manager, memory images, and whole collectives
// run with real data (the collective workload's `verify`): every collective, both protocols,
// every element type and reduction, compression, host and stream data, and the algorithms the
// firmware lacks, must deliver exactly what the collective defines. Plus the per-block statistics
// (the diagnosis of what the firmware cannot run: CcloDiagnosisTest.cpp).
#include "nodes/cclo/CallPlan.hpp"
#include "nodes/cclo/Plugins.hpp"
#include "nodes/cclo/RxBufferManager.hpp"
#include "nodes/memory/MemoryImage.hpp"
#include "nodes/memory/MemorySystem.hpp"
#include "tests/support/CcloBench.hpp"
#include "tests/support/RunScenario.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <gtest/gtest.h>

using namespace nafsim;
using namespace nafsim::nodes;
using namespace nafsim::testing;

// ---------------- plugins ----------------

TEST(Plugins, HalfPrecisionRoundTripsEveryHalf)
{
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const bool nan = (h & 0x7C00) == 0x7C00 && (h & 0x3FF) != 0;
    float f        = half_to_float(static_cast<std::uint16_t>(h));
    if (nan) {
      EXPECT_TRUE(std::isnan(f)) << h;
      continue;
    }
    EXPECT_EQ(float_to_half(f), h) << "half " << h << " -> " << f;
  }
}

TEST(Plugins, FloatToHalfRoundsToNearestEven)
{
  EXPECT_EQ(float_to_half(1.0f), 0x3C00);
  EXPECT_EQ(float_to_half(65504.0f), 0x7BFF);    // largest half
  EXPECT_EQ(float_to_half(65520.0f), 0x7C00);    // rounds up to inf
  EXPECT_EQ(float_to_half(1.0f + 0x1p-11f), 0x3C00); // tie: to even (down)
  EXPECT_EQ(float_to_half(1.0f + 3 * 0x1p-11f), 0x3C02); // tie: to even (up)
  EXPECT_EQ(float_to_half(0x1p-24f), 0x0001);    // smallest subnormal
  EXPECT_EQ(float_to_half(0x1p-26f), 0x0000);    // below half of it: zero
  EXPECT_EQ(float_to_half(-2.5f), 0xC100);
  EXPECT_EQ(half_to_float(0x0001), 0x1p-24f);
  EXPECT_EQ(half_to_float(0x03FF), 0x3FFp-24f);  // largest subnormal
}

namespace {
template <class T> std::vector<std::byte> bytes_of(std::initializer_list<T> v)
{
  std::vector<std::byte> b(v.size() * sizeof(T));
  std::memcpy(b.data(), std::data(v), b.size());
  return b;
}
} // namespace

TEST(Plugins, ReduceEveryTypeAndFunction)
{
  auto a = bytes_of<float>({1.5f, -2.0f, 3.0f});
  auto b = bytes_of<float>({2.0f, -4.0f, 0.25f});
  std::vector<std::byte> out(a.size());
  reduce(coll::ReduceFunc::Sum, DataType::Float32, a, b, out);
  EXPECT_EQ(out, bytes_of<float>({3.5f, -6.0f, 3.25f}));
  reduce(coll::ReduceFunc::Max, DataType::Float32, a, b, out);
  EXPECT_EQ(out, bytes_of<float>({2.0f, -2.0f, 3.0f}));

  auto da = bytes_of<double>({1e300, -1.0});
  auto db = bytes_of<double>({1e300, 0.5});
  std::vector<std::byte> dout(da.size());
  reduce(coll::ReduceFunc::Sum, DataType::Float64, da, db, dout);
  EXPECT_EQ(dout, bytes_of<double>({2e300, -0.5}));

  // Integers wrap as the hardware adder does.
  auto ia = bytes_of<std::int32_t>({INT32_MAX, -7, 5});
  auto ib = bytes_of<std::int32_t>({1, 3, -9});
  std::vector<std::byte> iout(ia.size());
  reduce(coll::ReduceFunc::Sum, DataType::Int32, ia, ib, iout);
  EXPECT_EQ(iout, bytes_of<std::int32_t>({INT32_MIN, -4, -4}));
  reduce(coll::ReduceFunc::Max, DataType::Int32, ia, ib, iout);
  EXPECT_EQ(iout, bytes_of<std::int32_t>({INT32_MAX, 3, 5}));
  auto la = bytes_of<std::int64_t>({1LL << 40, -1});
  auto lb = bytes_of<std::int64_t>({1LL << 40, -2});
  std::vector<std::byte> lout(la.size());
  reduce(coll::ReduceFunc::Sum, DataType::Int64, la, lb, lout);
  EXPECT_EQ(lout, bytes_of<std::int64_t>({1LL << 41, -3}));

  // fp16: combined in fp32, rounded back: 2048 + 1 is not representable and rounds to even.
  auto ha = bytes_of<std::uint16_t>({float_to_half(2048.0f), float_to_half(1.5f)});
  auto hb = bytes_of<std::uint16_t>({float_to_half(1.0f), float_to_half(2.25f)});
  std::vector<std::byte> hout(ha.size());
  reduce(coll::ReduceFunc::Sum, DataType::Float16, ha, hb, hout);
  EXPECT_EQ(element_value(DataType::Float16, hout, 0), 2048.0);
  EXPECT_EQ(element_value(DataType::Float16, hout, 1), 3.75);
  reduce(coll::ReduceFunc::Max, DataType::Float16, ha, hb, hout);
  EXPECT_EQ(element_value(DataType::Float16, hout, 1), 2.25);
}

TEST(Plugins, CompressionHalvesFloat32)
{
  auto in = bytes_of<float>({1.0f, -0.5f, 1000.0f, 1.0f / 3.0f});
  std::vector<std::byte> half(in.size() / 2), back(in.size());
  compress_fp32(in, half);
  decompress_fp16(half, back);
  EXPECT_EQ(element_value(DataType::Float32, back, 0), 1.0);
  EXPECT_EQ(element_value(DataType::Float32, back, 1), -0.5);
  EXPECT_EQ(element_value(DataType::Float32, back, 2), 1000.0);
  EXPECT_NEAR(element_value(DataType::Float32, back, 3), 1.0 / 3.0, 1.0 / 2048); // 11-bit mantissa
  EXPECT_NE(element_value(DataType::Float32, back, 3), static_cast<double>(1.0f / 3.0f));
}

// ---------------- memory image, Rx buffers ----------------

TEST(MemoryImage, SparsePagesReadZeroUntilWritten)
{
  MemoryImage m;
  std::vector<std::byte> data(10000);
  for (std::size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<std::byte>(i * 7);
  const std::uint64_t host = kHostMemory + 4090; // straddles pages, in the host range
  m.write(host, data);
  EXPECT_EQ(m.read(host, data.size()), data);
  EXPECT_EQ(m.pages(), 4u); // 4090 .. 14090 touches pages 0..3
  auto around = m.read(host - 10, 20);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(around[static_cast<std::size_t>(i)], std::byte{0});
  EXPECT_EQ(around[10], data[0]);
  EXPECT_EQ(m.read(1ULL << 40, 8), std::vector<std::byte>(8)); // never written
}

// A SEND lands whole, its header first (nafsim's transport model): each buffer's slot holds the header too, so a
// segment that fills its buffer does not write into the next one.
TEST(RxBufferManager, BuffersLieTheirSizeAndTheHeaderApart)
{
  RxBufferConfig cfg;
  cfg.count = 3;
  cfg.size  = Bytes{1024};
  const RxBufferManager rbm(cfg, 0x1000, 64);
  EXPECT_EQ(rbm.stride(), 1088u);
  EXPECT_EQ(rbm.address(0), 0x1000u);
  EXPECT_EQ(rbm.address(2), 0x1000u + 2 * 1088u);
  EXPECT_EQ(rbm.size(), 1024u);
}

TEST(RxBufferManager, MatchesOnSourceAndSequenceAndRefusesWhenFull)
{
  RxBufferConfig cfg;
  cfg.count = 2;
  cfg.size  = Bytes{1024};
  RxBufferManager rbm(cfg, 0x1000);
  auto a = rbm.take_free();
  auto b = rbm.take_free();
  ASSERT_TRUE(a && b);
  EXPECT_EQ(rbm.address(*b), 0x1000u + 1024);
  EXPECT_FALSE(rbm.take_free()); // both filling: the sender must wait
  EXPECT_EQ(rbm.refusals(), 1u);
  rbm.filled(*a, 3, 7, 100);
  EXPECT_FALSE(rbm.all_waiting()); // one still filling
  rbm.filled(*b, 3, 8, 100);
  EXPECT_TRUE(rbm.all_waiting()); // both hold complete messages: a move seeking a third never finds it
  EXPECT_FALSE(rbm.seek(4, 7)); // other source
  EXPECT_FALSE(rbm.seek(3, 9)); // not arrived
  auto s = rbm.seek(3, 8);      // out of arrival order is fine
  ASSERT_TRUE(s);
  EXPECT_EQ(*s, *b);
  EXPECT_FALSE(rbm.all_waiting());  // one being read
  EXPECT_TRUE(rbm.all_waiting(1));  // ... by the move that waits for more
  EXPECT_FALSE(rbm.seek(3, 8)); // taken
  rbm.release(*s);
  EXPECT_EQ(rbm.in_use(), 1u);
  EXPECT_EQ(rbm.max_in_use(), 2u);
  EXPECT_FALSE(rbm.all_waiting()); // one free
  EXPECT_EQ(rbm.take_free(), s);
  EXPECT_FALSE(rbm.all_waiting()); // filling again
  rbm.filled(*s, 4, 1, 10);
  EXPECT_TRUE(rbm.all_waiting());
}

// ---------------- whole collectives with real data ----------------

using namespace nafsim::testing::cclo;

// The Rx system's parse, taken with the notice of the message it parses in one event of the RoCE POE (an untraced
// run) or as the notice's event and then its own (a traced run, whose trace records each at its moment): the same
// dates to the picosecond, eager and rendezvous, so the merge moves nothing (issue 53).
TEST(CcloRxParse, TakenWithItsNoticeMovesNoDate)
{
  for (std::string proto : {R"("eager", "algorithm": "ring")", R"("rendezvous")"}) {
    const std::string s = bench("allreduce", 8, fmt::format(R"(, "protocol": {})", proto));
    auto merged = run_scenario_isolated(s);
    auto apart  = run_scenario_isolated(s, {}, "messages");
    ASSERT_TRUE(merged.ok) << merged.error;
    ASSERT_TRUE(apart.ok) << apart.error;
    auto const& a = merged.tables.at("collective_ranks");
    auto const& b = apart.tables.at("collective_ranks");
    ASSERT_EQ(a.rows.size(), b.rows.size());
    for (std::size_t i = 0; i < a.rows.size(); ++i) {
      EXPECT_EQ(a.rows[i].at("start_us"), b.rows[i].at("start_us")) << proto << " row " << i;
      EXPECT_EQ(a.rows[i].at("end_us"), b.rows[i].at("end_us")) << proto << " row " << i;
    }
    EXPECT_EQ(merged.tables.at("cclo").rows, apart.tables.at("cclo").rows) << proto;
  }
}

class EveryCollective : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(EveryCollective, DeliversTheRightBytes)
{
  auto [collective, protocol] = GetParam();
  // 5 ranks (not a power of two) and 8; 40 KiB and 96 KiB (allreduce: 80 KiB) cross the 32 KiB Rx-buffer
  // segmentation.
  for (int ranks : {5, 8}) {
    if (collective == "sendrecv" && ranks != 5)
      continue;
    int r = collective == "sendrecv" ? 2 : ranks;
    // Eager all-to-all receives in rank order while messages arrive in any order: every segment in
    // flight needs its own Rx buffer, or the data mover deadlocks (see CcloDiagnosis).
    std::string buffers =
        collective == "alltoall" && protocol == "eager" ? R"(, "node": {"fpga": {"cclo": {"rx_buffers": {"count": 64}}}})" : "";
    // (a gather's root is the last rank: the firmware's rendezvous gather cannot announce its slots around a root
    // in the middle, CallPlan.cpp gather_slots)
    const int root = r > 2 ? (collective == "gather" ? r - 1 : 2) : 0;
    auto run       = run_scenario_isolated(bench(
        collective, r, fmt::format(R"(, "protocol": "{}", "iterations": 2, "root": {})", protocol, root), buffers));
    expect_verified(run, fmt::format("{} {} on {} ranks", collective, protocol, r));
  }
}

INSTANTIATE_TEST_SUITE_P(Cclo, EveryCollective,
                         ::testing::Combine(::testing::Values("sendrecv", "bcast", "scatter", "gather", "allgather",
                                                              "reduce", "allreduce", "reduce-scatter", "alltoall",
                                                              "copy", "combine"),
                                            ::testing::Values("auto", "eager", "rendezvous")),
                         [](auto const& p) {
                           auto n = std::get<0>(p.param) + "_" + std::get<1>(p.param);
                           for (auto& ch : n)
                             if (ch == '-')
                               ch = '_';
                           return n;
                         });

TEST(CcloData, EveryTypeAndReductionFunction)
{
  for (auto dtype : {"float16", "float32", "float64", "int32", "int64"})
    for (auto func : {"sum", "max"})
      for (auto coll : {"reduce", "allreduce", "reduce-scatter"}) {
        auto run = run_scenario_isolated(bench(coll, 6, fmt::format(R"(, "dtype": "{}", "func": "{}")", dtype, func)));
        expect_verified(run, fmt::format("{} {} {}", coll, dtype, func));
      }
}

TEST(CcloData, CompressedCollectivesDeliverAndHalveTheWire)
{
  for (auto coll : {"bcast", "gather", "reduce", "allreduce", "allgather"}) {
    auto run = run_scenario_isolated(bench(coll, 7, R"(, "compress": true)"));
    expect_verified(run, fmt::format("compressed {}", coll));
    if (run.ok) {
      for (auto const& r : run.tables.at("collective").rows)
        EXPECT_EQ(r.at("protocol"), "eager") << coll << " " << r.at("bytes"); // compression forces eager
    }
  }
  // 64 KiB send/recv: the compressed run puts about half the bytes on the wire.
  auto wire = [](bool compress) {
    auto run = run_scenario_isolated(fmt::format(R"({{"platform": {{"preset": "accl-coyote-u55c",
          "topology": {{"kind": "star", "hosts": 2}}}},
        "workload": {{"kind": "collective", "collective": "sendrecv", "ranks": 2, "sizes": ["64KiB"],
                      "protocol": "eager", "compress": {}}}}})",
                                                 compress));
    EXPECT_TRUE(run.ok) << run.error;
    return run.ok ? run.tables.at("ports").sum("tx_bytes") : 0.0;
  };
  double plain = wire(false), compressed = wire(true);
  EXPECT_GT(compressed, 0.45 * plain);
  EXPECT_LT(compressed, 0.55 * plain);
}

TEST(CcloData, HostAndStreamOperands)
{
  for (auto coll : {"bcast", "reduce", "allreduce", "gather"}) {
    auto run = run_scenario_isolated(bench(coll, 4, R"(, "location": "host")"));
    expect_verified(run, fmt::format("host {}", coll));
  }
  // A kernel stream feeds the firmware's send, recv and reduce (ACCL's streamed calls); its other collectives read
  // and write memory whatever the stream flags, so a stream there is refused, unless a forced algorithm runs a
  // schedule of nafsim's.
  auto reduce = run_scenario_isolated(bench("reduce", 4, R"(, "location": "stream", "protocol": "eager")"));
  expect_verified(reduce, "stream reduce");
  for (auto coll : {"bcast", "allreduce", "gather"}) {
    auto run = run_scenario_isolated(bench(coll, 4, R"(, "location": "stream")"));
    ASSERT_FALSE(run.ok) << coll;
    EXPECT_EQ(run.error_kind, "config") << coll;
    EXPECT_NE(run.error.find("/workload/location"), std::string::npos) << run.error;
    EXPECT_NE(run.error.find("reads and writes memory whatever the stream flags"), std::string::npos) << run.error;
  }
  auto forced = run_scenario_isolated(bench("bcast", 4, R"(, "location": "stream", "algorithm": "binomial")"));
  expect_verified(forced, "stream bcast by nafsim's binomial schedule");
}

// A combine whose result streams out still reads its second operand from device memory: the firmware's combine()
// fetches it with MOVE_IMMEDIATE, and the data mover takes a kernel stream as its first operand only. Until
// 2026-12-06 both operands "streamed": a 1 MiB combine read no byte of memory (66.0 us; now 75.3 us, 1 MiB + 64 KiB
// read for its two sizes).
TEST(CcloData, AStreamedCombineReadsItsSecondOperandFromMemory)
{
  auto run = run_scenario_isolated(
      R"({"name": "combine-stream", "platform": "accl-coyote-u55c", "workload": {"kind": "collective",
          "collective": "combine", "ranks": 1, "sizes": ["64KiB", "1MiB"], "location": "stream", "verify": true}})");
  expect_verified(run, "streamed combine");
  EXPECT_EQ(run.tables.at("nodes").num(0, "device_read_bytes"), 65536.0 + 1048576.0);
  bool said = false; // a local combine sends nothing: no note on Rx-buffer segments
  for (auto const& l : run.summary)
    said = said || l.find("went through Rx buffers") != std::string::npos;
  EXPECT_FALSE(said);
}

// Host data through XRT is staged through device buffers (the driver syncs both of combine's operands): combine reads
// its second operand from the staged result buffer, which held nothing of the host's until 2026-12-06 (wrong data,
// caught by verify on the XRT preset).
TEST(CcloData, XrtStagesEveryOperandOfHostData)
{
  for (auto coll : {"combine", "copy", "allreduce", "gather"}) {
    auto run = run_scenario_isolated(bench(coll, 4, R"(, "location": "host", "invocation": "xrt")"));
    expect_verified(run, fmt::format("{} of host data through XRT", coll));
  }
}

TEST(CcloData, AlgorithmsTheFirmwareLacks)
{
  struct Case {
    const char* coll;
    const char* algo;
    const char* proto;
    int ranks;
  };
  for (auto c : {Case{"allgather", "recursive-doubling", "eager", 8}, Case{"allgather", "recursive-doubling", "rendezvous", 4},
                 Case{"allreduce", "recursive-doubling", "eager", 8}, Case{"allreduce", "rabenseifner", "eager", 8},
                 Case{"allreduce", "rabenseifner", "rendezvous", 4}, Case{"bcast", "binomial", "eager", 7},
                 Case{"bcast", "binomial", "rendezvous", 8}, Case{"reduce", "binomial", "eager", 6},
                 Case{"reduce", "binomial", "rendezvous", 8}, Case{"gather", "binomial", "eager", 5},
                 Case{"gather", "binomial", "rendezvous", 8}, Case{"alltoall", "pairwise", "rendezvous", 5},
                 Case{"alltoall", "pairwise", "eager", 8}, Case{"reduce-scatter", "reduce-scatter-composite", "eager", 5},
                 Case{"allreduce", "reduce-bcast", "eager", 8}, Case{"bcast", "flat", "rendezvous", 8}}) {
    // Flat eager receives (all-to-all, the composite's flat reduce) need a buffer per segment in flight.
    auto run = run_scenario_isolated(bench(c.coll, c.ranks,
                                           fmt::format(R"(, "algorithm": "{}", "protocol": "{}")", c.algo, c.proto),
                                           R"(, "node": {"fpga": {"cclo": {"rx_buffers": {"count": 64}}}})"));
    expect_verified(run, fmt::format("{} {} {} on {}", c.coll, c.algo, c.proto, c.ranks));
    if (run.ok) {
      EXPECT_EQ(run.tables.at("collective").rows.front().at("algorithm"), c.algo);
    }
  }
}

// ---------------- statistics, diagnoses ----------------

TEST(CcloStats, CountsWhatEachBlockDid)
{
  // Rendezvous send/recv of 3 sizes: per call, the receiver announces its buffer (RNDZV_INIT), the
  // sender writes it and sends the completion notice (WR_DONE).
  auto run = run_scenario_isolated(R"({"platform": {"preset": "accl-coyote-u55c", "topology": {"kind": "star", "hosts": 2}},
      "workload": {"kind": "collective", "collective": "sendrecv", "ranks": 2, "protocol": "rendezvous",
                   "sizes": ["1KiB", "64KiB", "1MiB"]}})");
  ASSERT_TRUE(run.ok) << run.error;
  auto const& t = run.tables.at("cclo");
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.num(0, "calls"), 3);
  EXPECT_EQ(t.num(1, "calls"), 3);
  EXPECT_EQ(t.num(0, "tx_rendezvous_writes"), 3);
  EXPECT_EQ(t.num(0, "tx_notifications"), 3);  // WR_DONE
  EXPECT_EQ(t.num(1, "tx_notifications"), 3);  // RNDZV_INIT
  EXPECT_EQ(t.num(0, "rx_notifications"), 3);
  EXPECT_EQ(t.num(1, "rx_notifications"), 3);
  EXPECT_EQ(t.num(0, "tx_eager_messages"), 0);
  EXPECT_EQ(t.num(0, "dmp_bytes"), 1024 + 65536 + 1048576);
  EXPECT_GT(t.num(0, "uc_utilization"), 0);
  EXPECT_LT(t.num(0, "uc_utilization"), 1);
  EXPECT_LE(t.num(0, "dmp_utilization"), 1);

  // Eager: 100 KiB in 32 KiB Rx buffers = 4 messages, each taking (and freeing) one buffer.
  auto eager = run_scenario_isolated(R"({"platform": {"preset": "accl-coyote-u55c", "topology": {"kind": "star", "hosts": 2},
        "node": {"fpga": {"cclo": {"tuning": {"max_eager_size": "1MiB"}}}}},
      "workload": {"kind": "collective", "collective": "sendrecv", "ranks": 2, "sizes": ["100KiB"]}})");
  ASSERT_TRUE(eager.ok) << eager.error;
  auto const& e = eager.tables.at("cclo");
  EXPECT_EQ(e.num(0, "tx_eager_messages"), 4);
  EXPECT_EQ(e.num(1, "rx_eager_messages"), 4);
  EXPECT_EQ(e.num(1, "dmp_moves"), 4);
  EXPECT_GE(e.num(1, "rx_buffers_max_used"), 1);
  EXPECT_LE(e.num(1, "rx_buffers_max_used"), 4);
  EXPECT_EQ(e.num(1, "rx_refusals"), 0);
  EXPECT_GT(e.num(1, "dmp_rx_wait_us"), 0); // the receiver's data mover waited for the data
}

// The firmware cuts an eager message into segments of eager_rx_buf_size / datatype_nbytes elements, datatype_nbytes
// the arithmetic configuration's uncompressed element size: a compressed float32 segment holds as many elements as an
// uncompressed one and fills half an Rx buffer. nafsim cut compressed messages by the fp16 size (segments twice as
// long: a compressed 1 MiB allreduce on 8 ranks 1329 us with half the messages; the firmware's segments: 2303 us).
TEST(CcloCompression, ACompressedSegmentHoldsAnRxBufferOfUncompressedElements)
{
  const std::string bcast = R"({"name": "c", "platform": {"preset": "accl-coyote-u55c", "topology": {"hosts": 8}},
      "workload": {"kind": "collective", "collective": "bcast", "ranks": 8, "sizes": ["64KiB"], "verify": true}})";
  auto compressed = run_scenario_isolated(bcast, {"workload.compress=true"});
  auto plain      = run_scenario_isolated(bcast, {"workload.protocol=eager"});
  expect_verified(compressed, "compressed");
  expect_verified(plain, "eager");
  auto root_messages = [](const ScenarioRun& r) { return r.tables.at("cclo").rows.at(0).at("tx_eager_messages"); };
  EXPECT_EQ(root_messages(plain), "14"); // 7 peers x two 32 KiB segments
  EXPECT_EQ(root_messages(compressed), root_messages(plain));
}

// A composite forced onto an eager call (the firmware runs reduce + bcast only in rendezvous) runs the parts the
// firmware's reduce() and broadcast() pick for an eager call, the ring chain and the flat broadcast, which read no
// tuning register; it ran the rendezvous registers' trees (16 KiB on 8 ranks: 57.2 us, 48.4 with
// bcast_flat_tree_max_ranks 8, 72.1 with reduce_flat_tree_max_count 1 MiB).
TEST(CcloComposite, AForcedCompositeOnAnEagerCallRunsTheEagerParts)
{
  const std::string allreduce = R"({"name": "c", "platform": {"preset": "accl-coyote-u55c", "topology": {"hosts": 8}},
      "workload": {"kind": "collective", "collective": "allreduce", "ranks": 8, "sizes": ["16KiB"], "verify": true,
                   "algorithm": "reduce-bcast"}})";
  auto base  = run_scenario_isolated(allreduce);
  auto bcast = run_scenario_isolated(allreduce, {"platform.node.fpga.cclo.tuning.bcast_flat_tree_max_ranks=8"});
  auto red   = run_scenario_isolated(allreduce, {"platform.node.fpga.cclo.tuning.reduce_flat_tree_max_count=1MiB"});
  expect_verified(base, "reduce-bcast");
  expect_verified(bcast, "bcast register");
  expect_verified(red, "reduce register");
  auto latency = [](const ScenarioRun& r) { return r.tables.at("collective").rows.at(0).at("latency_us"); };
  EXPECT_EQ(base.tables.at("collective").rows.at(0).at("protocol"), "eager");
  EXPECT_EQ(latency(bcast), latency(base));
  EXPECT_EQ(latency(red), latency(base));
  // In rendezvous (64 KiB) the registers pick the parts.
  auto big  = run_scenario_isolated(allreduce, {"workload.sizes=[\"64KiB\"]"});
  auto flat = run_scenario_isolated(allreduce, {"workload.sizes=[\"64KiB\"]",
                                                "platform.node.fpga.cclo.tuning.bcast_flat_tree_max_ranks=8"});
  expect_verified(big, "rendezvous");
  expect_verified(flat, "rendezvous, flat bcast");
  EXPECT_EQ(big.tables.at("collective").rows.at(0).at("protocol"), "rendezvous");
  EXPECT_NE(latency(flat), latency(big));
}

TEST(CcloStats, BarrierIsZeroByteNotificationsThroughRankZero)
{
  auto run = run_scenario_isolated(R"({"platform": {"preset": "accl-coyote-u55c", "topology": {"kind": "star", "hosts": 8}},
      "workload": {"kind": "collective", "collective": "barrier", "ranks": 8, "iterations": 3}})");
  ASSERT_TRUE(run.ok) << run.error;
  auto const& t = run.tables.at("cclo");
  EXPECT_EQ(t.num(0, "tx_notifications"), 3 * 7); // release every rank
  EXPECT_EQ(t.num(0, "rx_notifications"), 3 * 7); // after hearing from every rank
  for (std::size_t r = 1; r < 8; ++r) {
    EXPECT_EQ(t.num(r, "tx_notifications"), 3);
    EXPECT_EQ(t.num(r, "rx_notifications"), 3);
    EXPECT_EQ(t.num(r, "dmp_moves"), 0);
  }
  // No rank leaves before a notification made the round trip through rank 0 (two crossings of the switch).
  auto const& c = run.tables.at("collective");
  for (std::size_t i = 0; i < c.rows.size(); ++i)
    EXPECT_GT(c.num(i, "latency_us"), 2.0) << i;
}
