// The CCLO: its plugins on real bytes, the Rx-buffer manager, memory images, and whole collectives
// run with real data (the collective workload's `verify`): every collective, both protocols,
// every element type and reduction, compression, host and stream data, and the algorithms the
// firmware lacks, must deliver exactly what the collective defines. Plus the per-block statistics
// and the diagnosis of an impossible configuration.
#include "nodes/cclo/CallPlan.hpp"
#include "nodes/cclo/Plugins.hpp"
#include "nodes/cclo/RxBufferManager.hpp"
#include "nodes/memory/MemoryImage.hpp"
#include "nodes/memory/MemorySystem.hpp"
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
  rbm.filled(*b, 3, 8, 100);
  EXPECT_FALSE(rbm.seek(4, 7)); // other source
  EXPECT_FALSE(rbm.seek(3, 9)); // not arrived
  auto s = rbm.seek(3, 8);      // out of arrival order is fine
  ASSERT_TRUE(s);
  EXPECT_EQ(*s, *b);
  EXPECT_FALSE(rbm.seek(3, 8)); // taken
  rbm.release(*s);
  EXPECT_EQ(rbm.in_use(), 1u);
  EXPECT_EQ(rbm.max_in_use(), 2u);
  EXPECT_EQ(rbm.take_free(), s);
}

// ---------------- whole collectives with real data ----------------

namespace {

/// An 8-host cluster of ACCL+ nodes; `extra` adds workload fields. Sizes from one small message to three Rx buffers'
/// worth; an allreduce's are ones the firmware's eager ring can cut on 5 to 8 ranks in every type (8 B leaves its last
/// rank a chunk below 0 on 4 ranks and more, 96 KiB on 5: CallPlan.cpp ring_chunks).
std::string bench(const std::string& collective, int ranks, const std::string& extra, const std::string& platform = "")
{
  const char* sizes = collective == "allreduce" ? R"(["512B", "1KiB", "40KiB", "80KiB"])"
                                                : R"(["8B", "1KiB", "40KiB", "96KiB"])";
  return fmt::format(R"({{"name": "cclo-test",
      "platform": {{"preset": "accl-coyote-u55c", "topology": {{"kind": "star", "hosts": 8}} {}}},
      "workload": {{"kind": "collective", "collective": "{}", "ranks": {}, "verify": true,
                    "sizes": {} {}}}}})",
                     platform, collective, ranks, sizes, extra);
}

void expect_verified(const ScenarioRun& run, const std::string& what)
{
  ASSERT_TRUE(run.ok) << what << ": " << run.error;
  auto const& t = run.tables.at("collective");
  ASSERT_FALSE(t.rows.empty()) << what;
  for (auto const& r : t.rows)
    EXPECT_EQ(r.at("verified"), "yes") << what;
}

} // namespace

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

// Which calls a kernel stream can feed (plan_call is pure): the firmware's own functions that stream, and on one rank
// allreduce() and reduce_scatter(), which are a copy().
TEST(CcloDiagnosis, AStreamOnlyFeedsTheFirmwareFunctionsThatStream)
{
  nodes::CcloConfig cfg;
  using L = nodes::DataLocation;
  auto plan = [&](coll::Collective c, int ranks, L operand, L result) {
    nodes::CcloCall k;
    k.call.collective = c;
    k.call.count      = 256;
    k.call.size       = ranks;
    for (int r = 0; r < ranks; ++r)
      k.comm.push_back(static_cast<net::HostId>(r));
    k.location        = operand;
    k.result_location = result;
    return nodes::plan_call(k, cfg, nodes::CcloLink{});
  };
  using C = coll::Collective;
  for (auto c : {C::Reduce, C::Copy, C::Combine})
    EXPECT_EQ(plan(c, 4, L::Stream, L::Stream).error, "") << coll::collective_name(c);
  for (auto c : {C::Bcast, C::Scatter, C::Gather, C::AllGather, C::AllReduce, C::ReduceScatter}) {
    auto p = plan(c, 4, L::Device, L::Stream);
    EXPECT_TRUE(p.stream_refused) << coll::collective_name(c) << ": " << p.error;
    EXPECT_NE(p.error.find("Here its result would stream"), std::string::npos) << p.error;
    EXPECT_EQ(plan(c, 4, L::Device, L::Device).error, "") << coll::collective_name(c);
  }
  EXPECT_NE(plan(C::AllReduce, 4, L::Stream, L::Device).error.find("allreduce(): none of its moves is MOVE_STREAM"),
            std::string::npos);
  EXPECT_EQ(plan(C::AllReduce, 1, L::Stream, L::Stream).error, "") << "one rank: allreduce() is a copy()";
  EXPECT_EQ(plan(C::ReduceScatter, 1, L::Stream, L::Device).error, "") << "one rank: reduce_scatter() is a copy()";
  EXPECT_TRUE(plan(C::Bcast, 1, L::Stream, L::Stream).stream_refused) << "broadcast() never streams";
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

TEST(CcloDiagnosis, TooFewRxBuffersEndsWithAClearError)
{
  // Eager all-to-all with one Rx buffer: each receiver's data mover takes messages in rank order,
  // but the single buffer holds whichever arrived first, and the others are back-pressured (RDMA
  // receiver-not-ready, retried forever). The run must stop with that diagnosis, not hang.
  auto run = run_scenario_isolated(bench("alltoall", 8, R"(, "protocol": "eager")",
                                         R"(, "node": {"fpga": {"cclo": {"rx_buffers": {"count": 1}}}})"));
  ASSERT_FALSE(run.ok);
  EXPECT_NE(run.error.find("Rx-buffer deadlock"), std::string::npos) << run.error;
  EXPECT_NE(run.error.find("raise platform.node.fpga.cclo.rx_buffers.count"), std::string::npos) << run.error;
  EXPECT_NE(run.error.find("let the rendezvous protocol carry"), std::string::npos) << run.error;
  // Over TCP there is no rendezvous to advise (it did); the sizing advice, applied (96 KiB buffers, one per message,
  // 8 of them for 7 peers, and the eager limit raised with them, as the advice says), runs.
  // (over TCP the firmware has no all-to-all, its own being rendezvous only: nafsim's flat schedule, forced)
  auto tcp = run_scenario_isolated(bench("alltoall", 8, R"(, "algorithm": "flat")", R"(, "node": {"fpga": {"transport": "tcp",
      "cclo": {"rx_buffers": {"count": 2, "size": "32KiB"}}}})"));
  ASSERT_FALSE(tcp.ok);
  EXPECT_NE(tcp.error.find("Rx-buffer deadlock"), std::string::npos) << tcp.error;
  EXPECT_NE(tcp.error.find("(over tcp the CCLO runs every call eager: no rendezvous)"), std::string::npos) << tcp.error;
  EXPECT_EQ(tcp.error.find("let the rendezvous protocol"), std::string::npos) << tcp.error;
  auto sized = run_scenario_isolated(bench("alltoall", 8, R"(, "algorithm": "flat")", R"(, "node": {"fpga": {"transport": "tcp",
      "cclo": {"rx_buffers": {"count": 8, "size": "96KiB"}, "tuning": {"max_eager_size": "96KiB"}}}})"));
  expect_verified(sized, "sized as advised");
  EXPECT_NE(tcp.error.find("tuning.max_eager_size to at least that"), std::string::npos) << tcp.error;
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

// The driver sets both thresholds at initialisation and throws on the firmware's refusal: an eager limit below an Rx
// buffer, a rendezvous limit not above the eager one; and the firmware's all-to-all has no compressed or streamed form.
TEST(CcloDiagnosis, WhatTheFirmwareRefusesIsRefused)
{
  const std::string a2a = R"({"name": "c", "platform": {"preset": "accl-coyote-u55c", "topology": {"hosts": 4}},
      "workload": {"kind": "collective", "collective": "alltoall", "ranks": 4, "sizes": ["4KiB"]}})";
  auto eager = run_scenario_isolated(a2a, {"platform.node.fpga.cclo.tuning.max_eager_size=16KiB"});
  ASSERT_FALSE(eager.ok);
  EXPECT_NE(eager.error.find("/platform/node/fpga/cclo/tuning/max_eager_size: max_eager_size 16KiB is below "
                             "rx_buffers.size 32KiB: the CCLO firmware refuses it (EAGER_THRESHOLD_INVALID"),
            std::string::npos)
      << eager.error;
  auto rndzv = run_scenario_isolated(a2a, {"platform.node.fpga.cclo.tuning.max_rendezvous_size=32KiB"});
  ASSERT_FALSE(rndzv.ok);
  EXPECT_NE(rndzv.error.find("RENDEZVOUS_THRESHOLD_INVALID"), std::string::npos) << rndzv.error;
  auto compressed = run_scenario_isolated(a2a, {"workload.compress=true"});
  ASSERT_FALSE(compressed.ok);
  EXPECT_NE(compressed.error.find("the CCLO firmware's all-to-all runs neither compressed nor streamed operands"),
            std::string::npos)
      << compressed.error;
  auto forced = run_scenario_isolated(a2a, {"workload.compress=true", "workload.algorithm=flat"});
  EXPECT_TRUE(forced.ok) << "a forced schedule of nafsim's runs: " << forced.error;
}

// scatter(), gather(), allgather(), the eager reduce's chain and reduce_scatter() read a block per data-mover move,
// which holds its Rx buffers until its result starts and can queue at most 64 of them for release: a block the node
// cannot hold is refused before the run, with the fix (engine-free: plan_call is pure).
TEST(CcloDiagnosis, AnEagerBlockTheDataMoverCannotHoldIsRefusedBeforeTheRun)
{
  nodes::CcloConfig cfg; // 16 Rx buffers of 32 KiB
  auto plan = [&](coll::Collective c, std::uint64_t bytes, bool compress = false,
                  const nodes::CcloLink& link = nodes::CcloLink{}) {
    nodes::CcloCall k;
    k.call.collective = c;
    k.call.count      = bytes / 4;
    k.call.size       = 4;
    for (int r = 0; r < 4; ++r)
      k.comm.push_back(static_cast<net::HostId>(r));
    k.protocol = coll::Protocol::Eager;
    k.compress = compress;
    return nodes::plan_call(k, cfg, link).error;
  };
  for (auto c : {coll::Collective::Scatter, coll::Collective::Gather, coll::Collective::AllGather,
                 coll::Collective::Reduce, coll::Collective::ReduceScatter}) {
    const std::string what = coll::collective_name(c);
    EXPECT_EQ(plan(c, 16 * 32768), "") << what;
    const std::string e = plan(c, 16 * 32768 + 4);
    EXPECT_NE(e.find("needs 17 Rx buffers of 32KiB at once"), std::string::npos) << what << ": " << e;
    EXPECT_NE(e.find("raise rx_buffers.count to at least 17"), std::string::npos) << what << ": " << e;
    EXPECT_NE(e.find("or let the message go rendezvous"), std::string::npos) << what << ": " << e;
    // Compressed, a block is half the bytes on the wire, whole Rx buffers of them as the data mover cuts it; but the
    // reduce's first hop is send(), whose segments of an Rx buffer's worth of float32 elements fill half a buffer.
    const std::string z = plan(c, 32 * 32768, true);
    if (c == coll::Collective::Reduce) {
      EXPECT_NE(z.find("needs 32 Rx buffers"), std::string::npos) << z;
      EXPECT_EQ(z.find("rendezvous"), std::string::npos) << "compressed data travels eager only: " << z;
    } else {
      EXPECT_EQ(z, "") << what;
    }
  }
  // Send / recv, bcast and allreduce cut their messages into single Rx buffers themselves.
  for (auto c : {coll::Collective::Send, coll::Collective::Bcast, coll::Collective::AllReduce})
    EXPECT_EQ(plan(c, 100 * 32768), "") << coll::collective_name(c);
  // Over TCP every call is eager: the advice does not offer rendezvous.
  nodes::CcloLink tcp;
  tcp.rendezvous = false;
  tcp.transport  = "tcp";
  const std::string t = plan(coll::Collective::Gather, 17 * 32768, false, tcp);
  EXPECT_NE(t.find("raise rx_buffers.count to at least 17"), std::string::npos) << t;
  EXPECT_EQ(t.find("rendezvous"), std::string::npos) << t;
  cfg.rx_buffers.count = 100;
  const std::string e = plan(coll::Collective::Gather, 65 * 32768);
  EXPECT_NE(e.find("the data mover takes at most 64 per move"), std::string::npos) << e;
  EXPECT_NE(e.find("to at least 33KiB"), std::string::npos) << e;
}

// The firmware's eager ring allreduce gives P - 1 ranks ceil(n / P) elements of a segment of n and the last rank
// n - ceil(n / P) (P - 1), an unsigned count (ccl_offload_control.c allreduce()): below 0 it wraps, and a run the
// hardware cannot make is refused before it starts, with a count that runs; a last chunk of exactly 0 runs.
TEST(CcloDiagnosis, AnEagerRingAllreduceWhoseLastChunkWouldWrapIsRefused)
{
  nodes::CcloConfig cfg; // 16 Rx buffers of 32 KiB: segments of 8,192 float32 elements rounded down to the ranks
  auto plan = [&](std::uint64_t count, unsigned ranks, const nodes::CcloLink& link = nodes::CcloLink{}) {
    nodes::CcloCall k;
    k.call.collective = coll::Collective::AllReduce;
    k.call.count      = count;
    k.call.size       = ranks;
    for (unsigned r = 0; r < ranks; ++r)
      k.comm.push_back(static_cast<net::HostId>(r));
    k.protocol = coll::Protocol::Eager;
    return nodes::plan_call(k, cfg, link).error;
  };
  EXPECT_EQ(plan(16, 8), "");   // 2 x 7 + 2
  EXPECT_EQ(plan(14, 8), "");   // 2 x 7 + 0: an empty last chunk, as the firmware sends it
  EXPECT_EQ(plan(1024, 1024), "");
  const std::string small = plan(16, 1024); // 64 B on 1,024 ranks: 1 x 1,023 > 16
  EXPECT_NE(small.find("ceil(16 / 1024) = 1 element(s) of its 16 elements"), std::string::npos) << small;
  EXPECT_NE(small.find("16 - 1023 x 1: an unsigned count below 0"), std::string::npos) << small;
  EXPECT_NE(small.find("a multiple of 1024 (1024 elements instead of 16)"), std::string::npos) << small;
  EXPECT_EQ(small.find("rendezvous"), std::string::npos) << "64 B is eager in every build: " << small;
  EXPECT_NE(plan(1025, 1024).find("or let it go rendezvous"), std::string::npos);
  EXPECT_NE(plan(1, 8), "");
  EXPECT_NE(plan(1025, 1024), "") << "ceil(1025 / 1024) = 2, 2 x 1,023 > 1,025";
  // Only the last segment can wrap: a whole segment is a multiple of the ranks. 8,192 - 8,192 % 24 = 8,184 per
  // segment; 8,184 + 30 leaves a last segment of 30 on 24 ranks: 2 x 23 > 30.
  EXPECT_EQ(plan(8184 * 3, 24), "");
  const std::string seg = plan(8184 + 30, 24);
  EXPECT_NE(seg.find("the 30 elements of its last segment"), std::string::npos) << seg;
  // More ranks than an Rx buffer's elements: no segment at all, the firmware's loop never ends.
  const std::string none = plan(9000 * 4, 9000);
  EXPECT_NE(none.find("make 0, and its loop never ends"), std::string::npos) << none;
  // Over TCP the advice does not offer rendezvous.
  nodes::CcloLink tcp;
  tcp.rendezvous = false;
  tcp.transport  = "tcp";
  EXPECT_EQ(plan(16, 1024, tcp).find("rendezvous"), std::string::npos);
}

// gather() announces rendezvous slots from rank 0 up, stepping over the root only between bursts of at most max_fanin
// announcements: a root the burst reaches, or a burst past the last rank, would hang the hardware, and is refused.
TEST(CcloDiagnosis, ARendezvousGatherWhoseSlotsWouldReachTheRootIsRefused)
{
  nodes::CcloConfig cfg; // the upstream driver's tuning: fan-in 2 above 32 KiB
  auto plan = [&](int ranks, int root, std::uint64_t bytes) {
    nodes::CcloCall k;
    k.call.collective = coll::Collective::Gather;
    k.call.count      = bytes / 4;
    k.call.size       = ranks;
    k.call.root       = root;
    for (int r = 0; r < ranks; ++r)
      k.comm.push_back(static_cast<net::HostId>(r));
    k.protocol = coll::Protocol::Rendezvous;
    return nodes::plan_call(k, cfg, nodes::CcloLink{}).error;
  };
  EXPECT_EQ(plan(8, 0, 4096), "");
  EXPECT_EQ(plan(8, 7, 4096), "");
  const std::string mid = plan(8, 3, 4096); // fan-in 7 from rank 0: 0, 1, 2, 3 = the root
  EXPECT_NE(mid.find("with root 3 on 8 ranks it announces a slot to the root itself and then waits for a completion "
                     "no rank will send (the hardware hangs)"),
            std::string::npos)
      << mid; // (rank 7 is never announced: the root's own announcement took its place)
  EXPECT_EQ(plan(8, 3, 65536), "") << "fan-in 2: the bursts 0 1, 2, then the root is stepped over";
  EXPECT_NE(plan(8, 1, 65536).find("to the root itself and then waits"), std::string::npos) << "0 1 reaches root 1";
  // A stray announcement that hangs nothing still leaves a notice no one expects: fan-in 2 on 2 ranks announces to
  // rank 1, then to rank 2; root 6 of 8 ends with 7, then 8.
  const std::string two = plan(2, 0, 65536);
  EXPECT_NE(two.find("to rank 2, past the last, a notice no one expects"), std::string::npos) << two;
  EXPECT_NE(plan(8, 6, 65536).find("to rank 8, past the last, a notice"), std::string::npos);
}

// The CCLO's count and its byte counts and block offsets are 32-bit words (ccl_offload_control.c): what does not fit
// would wrap, and is refused before the run.
// allgather() has no one-rank case: it would send its block to itself over a session ACCL never opens. The
// collectives with one (a copy) run.
TEST(CcloDiagnosis, AOneRankAllgatherIsRefused)
{
  nodes::CcloConfig cfg;
  auto plan = [&](coll::Collective c) {
    nodes::CcloCall k;
    k.call.collective = c;
    k.call.count      = 256;
    k.call.size       = 1;
    k.comm.push_back(0);
    return nodes::plan_call(k, cfg, nodes::CcloLink{}).error;
  };
  EXPECT_NE(plan(coll::Collective::AllGather).find("has no one-rank case"), std::string::npos);
  for (auto c : {coll::Collective::AllReduce, coll::Collective::Reduce, coll::Collective::ReduceScatter})
    EXPECT_EQ(plan(c), "") << coll::collective_name(c);
}

TEST(CcloDiagnosis, CallsBeyondThirtyTwoBitsAreRefused)
{
  nodes::CcloConfig cfg;
  auto plan = [&](coll::Collective c, int ranks, std::uint64_t bytes) {
    nodes::CcloCall k;
    k.call.collective = c;
    k.call.count      = bytes / 4;
    k.call.size       = ranks;
    for (int r = 0; r < ranks; ++r)
      k.comm.push_back(static_cast<net::HostId>(r));
    return nodes::plan_call(k, cfg, nodes::CcloLink{}).error;
  };
  constexpr std::uint64_t GiB = 1ULL << 30;
  EXPECT_EQ(plan(coll::Collective::Bcast, 4, 4 * GiB - 1024), "");
  EXPECT_NE(plan(coll::Collective::Bcast, 4, 4 * GiB).find("computes its bytes in 32 bits"), std::string::npos);
  EXPECT_NE(plan(coll::Collective::AllReduce, 4, 8 * GiB).find("8GiB wraps"), std::string::npos);
  EXPECT_EQ(plan(coll::Collective::Gather, 4, GiB), "") << "the last block at 3 GiB";
  const std::string g = plan(coll::Collective::Gather, 5, GiB);
  EXPECT_NE(g.find("the last block's offset, 4 x 1GiB"), std::string::npos) << g;
}

// reduce()'s eager ring: the rank after the root sends with send(), which looks at an operand stream only, so a
// reduce eager only because its result streams would go rendezvous there above max_eager_size, and is refused.
TEST(CcloDiagnosis, AReduceEagerOnlyForItsResultStreamIsRefusedAboveTheEagerLimit)
{
  nodes::CcloConfig cfg; // max_eager_size 32 KiB
  auto plan = [&](std::uint64_t bytes, nodes::DataLocation result, nodes::DataLocation operand) {
    nodes::CcloCall k;
    k.call.collective = coll::Collective::Reduce;
    k.call.count      = bytes / 4;
    k.call.size       = 4;
    for (int r = 0; r < 4; ++r)
      k.comm.push_back(static_cast<net::HostId>(r));
    k.location        = operand;
    k.result_location = result;
    return nodes::plan_call(k, cfg, nodes::CcloLink{}).error;
  };
  using L = nodes::DataLocation;
  EXPECT_EQ(plan(16384, L::Stream, L::Device), "") << "below the eager limit send() stays eager";
  const std::string e = plan(65536, L::Stream, L::Device);
  EXPECT_NE(e.find("with only the result streamed, 64KiB above max_eager_size 32KiB goes rendezvous"),
            std::string::npos)
      << e;
  EXPECT_EQ(plan(65536, L::Stream, L::Stream), "") << "an operand stream keeps send() eager";
  EXPECT_EQ(plan(65536, L::Device, L::Device), "") << "nothing streamed: the rendezvous reduce";
}

// A count of 0: ACCL's host driver returns before calling the CCLO for a collective (so nothing is timed); from a
// kernel the firmware issues no move for send, recv and the eager bcast and allreduce, and every other call of more
// than one rank hangs on the data mover's dry receives (plan_call is pure).
TEST(CcloDiagnosis, ACountOfZeroIsRefusedWhereNoCallOrAHangWouldFollow)
{
  nodes::CcloConfig cfg;
  auto plan = [&](coll::Collective c, int ranks, nodes::InvocationPath path) {
    nodes::CcloCall k;
    k.call.collective = c;
    k.call.count      = 0;
    k.call.size       = ranks;
    k.call.root       = c == coll::Collective::Send || c == coll::Collective::Recv ? 1 : 0;
    for (int r = 0; r < ranks; ++r)
      k.comm.push_back(static_cast<net::HostId>(r));
    k.path = path;
    return nodes::plan_call(k, cfg, nodes::CcloLink{}).error;
  };
  using C = coll::Collective;
  using P = nodes::InvocationPath;
  for (auto c : {C::Bcast, C::Scatter, C::Gather, C::AllGather, C::Reduce, C::AllReduce, C::ReduceScatter, C::AllToAll})
    for (auto path : {P::Coyote, P::Xrt}) {
      const std::string e = plan(c, 4, path);
      EXPECT_NE(e.find(fmt::format("ACCL's host driver makes no {} call of count 0", coll::collective_name(c))),
                std::string::npos)
          << e;
    }
  for (auto c : {C::Send, C::Recv, C::Copy, C::Combine, C::Barrier, C::Nop})
    EXPECT_EQ(plan(c, 2, P::Coyote), "") << coll::collective_name(c);
  for (auto c : {C::Bcast, C::AllReduce})
    EXPECT_EQ(plan(c, 4, P::Kernel), "") << coll::collective_name(c) << ": eager, the firmware issues no move";
  for (auto c : {C::Scatter, C::Gather, C::AllGather, C::Reduce, C::ReduceScatter, C::AllToAll}) {
    const std::string e = plan(c, 4, P::Kernel);
    EXPECT_NE(e.find("of count 0 hangs the CCLO"), std::string::npos) << coll::collective_name(c) << ": " << e;
  }
  EXPECT_EQ(plan(C::Reduce, 1, P::Kernel), "") << "one rank: a copy";
  EXPECT_EQ(plan(C::Scatter, 1, P::Kernel), "") << "one rank: a local move, run dry";
}

TEST(CcloDiagnosis, ImpossibleCallsAreRefusedWithTheReason)
{
  auto run = run_scenario_isolated(bench("allreduce", 4, R"(, "algorithm": "ring", "protocol": "rendezvous")"));
  ASSERT_FALSE(run.ok);
  EXPECT_NE(run.error.find("only runs eager"), std::string::npos) << run.error;
  auto c = run_scenario_isolated(bench("allreduce", 4, R"(, "compress": true, "dtype": "int32")"));
  ASSERT_FALSE(c.ok);
  EXPECT_EQ(c.error_kind, "config");
  EXPECT_NE(c.error.find("/workload/compress"), std::string::npos) << c.error;
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
