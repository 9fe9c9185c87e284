// The CCLO's diagnosis of what its firmware cannot run: each call the firmware refuses, or would hang or corrupt
// on, is refused before the run with the reason and what runs instead (nodes/cclo/CallPlan.cpp plan_call), or ends
// the run with a clear error (too few Rx buffers).
#include "nodes/cclo/CallPlan.hpp"
#include "tests/support/CcloBench.hpp"
#include "tests/support/RunScenario.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

using namespace nafsim;
using namespace nafsim::nodes;
using namespace nafsim::testing;
using namespace nafsim::testing::cclo;

namespace {
/// A call of `c` with `count` elements on ranks 0 .. ranks - 1 (rank 0 calling), to plan.
nodes::CcloCall call_on(coll::Collective c, int ranks, std::uint64_t count)
{
  nodes::CcloCall k;
  k.call.collective = c;
  k.call.count      = count;
  k.call.size       = ranks;
  for (int r = 0; r < ranks; ++r)
    k.comm.push_back(static_cast<net::HostId>(r));
  return k;
}
} // namespace

// Which calls a kernel stream can feed (plan_call is pure): the firmware's own functions that stream, and on one rank
// allreduce() and reduce_scatter(), which are a copy().
TEST(CcloDiagnosis, AStreamOnlyFeedsTheFirmwareFunctionsThatStream)
{
  nodes::CcloConfig cfg;
  using L = nodes::DataLocation;
  auto plan = [&](coll::Collective c, int ranks, L operand, L result) {
    nodes::CcloCall k = call_on(c, ranks, 256);
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

// A barrier has one way in the firmware and a nop moves nothing: a protocol the caller forces is not named after
// them (a forced eager barrier reported "eager/flat" with the same times); a link without WRITE still makes them eager.
TEST(CcloDiagnosis, AForcedProtocolIsNotNamedOnABarrierOrANop)
{
  nodes::CcloConfig cfg;
  auto plan = [&](coll::Collective c, coll::Protocol forced, bool rdma) {
    nodes::CcloCall k = call_on(c, 4, c == coll::Collective::Bcast ? 256 : 0);
    k.protocol        = forced;
    return nodes::plan_call(k, cfg, rdma, rdma ? "roce" : "tcp");
  };
  using C = coll::Collective;
  using P = coll::Protocol;
  EXPECT_TRUE(plan(C::Barrier, P::Eager, true).rendezvous);
  EXPECT_FALSE(plan(C::Barrier, P::Rendezvous, false).rendezvous) << "over TCP every call is eager";
  EXPECT_EQ(plan(C::Barrier, P::Rendezvous, false).error, "");
  EXPECT_FALSE(plan(C::Nop, P::Rendezvous, true).rendezvous);
  EXPECT_TRUE(plan(C::Bcast, P::Rendezvous, true).rendezvous) << "a collective that moves data keeps what is forced";
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
    nodes::CcloCall k = call_on(c, 4, bytes / 4);
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
    nodes::CcloCall k = call_on(coll::Collective::AllReduce, static_cast<int>(ranks), count);
    k.protocol        = coll::Protocol::Eager;
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
    nodes::CcloCall k = call_on(coll::Collective::Gather, ranks, bytes / 4);
    k.call.root       = root;
    k.protocol        = coll::Protocol::Rendezvous;
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
    nodes::CcloCall k = call_on(c, ranks, bytes / 4);
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
    nodes::CcloCall k = call_on(coll::Collective::Reduce, 4, bytes / 4);
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
    nodes::CcloCall k = call_on(c, ranks, 0);
    k.call.root       = c == coll::Collective::Send || c == coll::Collective::Recv ? 1 : 0;
    k.path            = path;
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

// The firmware writes a rendezvous block as one RDMA WRITE (ccl_offload_control.c: one start_move per peer;
// rdma_sq_handler.cpp: `rdma_req.len = cmd_in_word.count`), and Coyote's requests carry a 28-bit length that nothing
// splits: a block of 256 MiB or more is refused before the run (it failed when posted above 2 GiB, and ran between
// 256 MiB and 2 GiB as a WRITE the hardware would cut to its low 28 bits). A scatter's blocks count one by one.
TEST(CcloDiagnosis, ARendezvousBlockBeyondCoyotesLengthFieldIsRefused)
{
  nodes::CcloConfig cfg;
  nodes::CcloLink coyote;
  coyote.max_write     = nodes::kCoyoteMaxWrite;
  coyote.max_write_why = "28-bit length";
  auto plan = [&](coll::Collective c, std::uint64_t bytes) {
    nodes::CcloCall k = call_on(c, 4, bytes / 4);
    k.protocol = coll::Protocol::Rendezvous;
    k.rank     = c == coll::Collective::Gather ? 1 : 0; // a call is planned for its rank: the gather's root only reads
    return nodes::plan_call(k, cfg, coyote);
  };
  for (auto c : {coll::Collective::Send, coll::Collective::Bcast, coll::Collective::Scatter,
                 coll::Collective::Gather}) {
    const std::string what = coll::collective_name(c);
    EXPECT_EQ(plan(c, 128 << 20).error, "") << what;
    auto p = plan(c, 256 << 20);
    EXPECT_NE(p.error.find("a block of 256MiB as one RDMA WRITE"), std::string::npos) << what << ": " << p.error;
    EXPECT_NE(p.error.find("at most 268435455B"), std::string::npos) << p.error;
    EXPECT_TRUE(p.write_refused) << "the size is what to change";
  }
  // Eager, the same call moves in Rx-buffer segments; and a link without the limit (the default) takes it.
  nodes::CcloCall k;
  k.call.collective = coll::Collective::Send;
  k.call.count      = (256 << 20) / 4;
  k.call.size       = 2;
  k.comm            = {0, 1};
  k.protocol        = coll::Protocol::Eager;
  EXPECT_EQ(nodes::plan_call(k, cfg, coyote).error, "");
  k.protocol = coll::Protocol::Rendezvous;
  EXPECT_EQ(nodes::plan_call(k, cfg, nodes::CcloLink{}).error, "");
}
