// The `program` workload: CCLO calls chained per rank, verified step by step against the program run on plain
// numbers; the same call times as the collective workload's; sub-communicators at once; a send before its receive.
#include "tests/validation/ProgramRuns.hpp"
#include "workloads/collective/Verify.hpp"
#include "workloads/program/ProgramReference.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>
#include <gtest/gtest.h>

using namespace nafsim::testing;

namespace {

} // namespace

TEST(Program, AnAllreduceTakesWhatTheCollectiveWorkloadMeasures)
{
  auto p = run_scenario_isolated(program(8, R"({"name": "a", "elements": 16384}, {"name": "b", "elements": 16384})",
                                         R"({"op": "allreduce", "src": "a", "dst": "b"})"));
  ASSERT_TRUE(p.ok) << p.error;
  auto c = run_scenario_isolated(R"({"name": "c", "platform": {"preset": "accl-coyote-u55c",
      "topology": {"kind": "star", "hosts": 8}}, "workload": {"kind": "collective", "collective": "allreduce",
      "ranks": 8, "sizes": ["64KiB"], "verify": true}})");
  ASSERT_TRUE(c.ok) << c.error;
  // Both start every rank at time 0 and wait for the call's completion: the same engine, the same time.
  EXPECT_NEAR(latest_end(p.tables.at("program_ops"), 0), c.tables.at("collective").num(0, "host_latency_us"), 1e-4);
}

TEST(Program, ChainedCallsOnSubCommunicatorsVerifyAndRunAtOnce)
{
  auto r = run_scenario_isolated(
      program(4, kChainBuffers, kChainOps + R"(, {"op": "combine", "src": "y", "dst": "x", "func": "max"})", kChainComms));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(verified(r));
  auto const& t = r.tables.at("program_ops");
  // The two allgathers overlap in time: one communicator does not wait for the other.
  double left_start = 1e18, right_start = 1e18;
  for (auto i : rows_of(t, 2))
    left_start = std::min(left_start, t.num(i, "start_us"));
  for (auto i : rows_of(t, 3))
    right_start = std::min(right_start, t.num(i, "start_us"));
  EXPECT_LT(right_start, latest_end(t, 2));
  EXPECT_LT(left_start, latest_end(t, 3));
  EXPECT_EQ(rows_of(t, 2).size(), 2u);
  EXPECT_EQ(rows_of(t, 4).size(), 4u);
}

TEST(Program, ASendBeforeItsReceiveIsPostedWaitsInTheRxBuffers)
{
  // Rank 1 computes before posting its receive: the eager message is already in its Rx buffers, so the receive only
  // copies it out, faster than a receive posted at once that waits for the message to cross.
  auto run = [](const std::string& compute) {
    return run_scenario_isolated(program(
        2, R"({"name": "a", "elements": 256}, {"name": "b", "elements": 256, "init": "zero"})",
        R"({"op": "send", "ranks": [0], "peer": 1, "src": "a", "tag": 9},)" + compute +
            R"({"op": "recv", "ranks": [1], "peer": 0, "dst": "b", "tag": 9})"));
  };
  auto late = run(R"({"op": "compute", "ranks": [1], "duration": "30us"},)");
  auto now  = run("");
  ASSERT_TRUE(late.ok) << late.error;
  ASSERT_TRUE(now.ok) << now.error;
  auto const& t      = late.tables.at("program_ops");
  const double sent  = t.num(rows_of(t, 0).at(0), "end_us");
  const auto recv    = rows_of(t, 2).at(0);
  auto const& u      = now.tables.at("program_ops");
  const double waits = u.num(rows_of(u, 1).at(0), "duration_us");
  EXPECT_LT(sent, 30.0); // the eager send completed while rank 1 computed
  EXPECT_NEAR(t.num(recv, "start_us"), 30.0, 1e-3);
  EXPECT_LT(t.num(recv, "duration_us"), waits);
  EXPECT_TRUE(verified(late));
  EXPECT_TRUE(verified(now));
}

TEST(Program, ARingAllreduceBuiltFromSendRecvAndCombineIsAnAllreduceAndVerifies)
{
  // The tool writes the textbook ring (reduce-scatter, then allgather) as per-rank send / recv / combine.
  std::string json;
  FILE* f = popen("sh " NAFSIM_SOURCE_DIR "/python-free-tools/program-ring-allreduce.sh 4 2048", "r");
  ASSERT_NE(f, nullptr);
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, f))
    json.append(buf, n);
  ASSERT_EQ(pclose(f), 0);
  // Its run on plain numbers leaves every rank's `data` holding the sum of every rank's: it is an allreduce.
  auto doc = nlohmann::ordered_json::parse(json);
  auto w   = doc["workload"];
  w.erase("kind");
  nafsim::workloads::ProgramConfig cfg;
  nafsim::config::Origins origins;
  nafsim::config::Reader::read(w, cfg, "/workload", origins);
  auto plan = nafsim::workloads::ProgramPlan::resolve(cfg);
  const nafsim::workloads::DataPattern pattern{nafsim::nodes::DataType::Float32, false, cfg.ranks};
  std::vector<std::vector<std::vector<double>>> initial(2);
  for (unsigned r = 0; r < cfg.ranks; ++r) {
    std::vector<double> d(2048);
    for (std::size_t i = 0; i < d.size(); ++i)
      d[i] = pattern(r, i, 0);
    initial[0].push_back(d);
    initial[1].push_back(std::vector<double>(512, 0.0));
  }
  nafsim::workloads::ProgramReference ref(plan, initial);
  for (unsigned r = 0; r < cfg.ranks; ++r)
    for (std::size_t i = 0; i < 2048; ++i) {
      double sum = 0;
      for (unsigned s = 0; s < cfg.ranks; ++s)
        sum += pattern(s, i, 0);
      ASSERT_EQ(ref.final_buffers()[0][r][i], sum) << "rank " << r << " element " << i;
    }
  // And the simulated CCLOs deliver exactly that, step by step.
  auto run = run_scenario_isolated(json);
  ASSERT_TRUE(run.ok) << run.error;
  EXPECT_TRUE(verified(run));
  // Reduce-scatter: 3 steps x 4 ranks x (send, recv, combine); allgather: 3 x 4 x (send, recv).
  EXPECT_EQ(run.tables.at("program_ops").rows.size(), 3u * 4 * 3 + 3u * 4 * 2);
}

TEST(Program, TheReferenceKeepsUnspecifiedResultsUnspecifiedAndAnInPlaceBcastsRootKnown)
{
  // Engine-free: the program run on plain numbers. A non-root's reduce result is unspecified; a max with it must
  // stay so (std::max(a, unknown) would claim a value the CCLO need not produce). ACCL's bcast is in place: the
  // root's result is its operand.
  namespace w = nafsim::workloads;
  w::ProgramConfig cfg;
  cfg.ranks   = 2;
  cfg.buffers = {{"a", 4, w::BufferInit::Pattern, nafsim::nodes::DataLocation::Device},
                 {"r", 4, w::BufferInit::Zero, nafsim::nodes::DataLocation::Device}};
  auto op = [](w::ProgramOpKind k, std::string src, std::string dst, unsigned root = 0) {
    w::ProgramOp o;
    o.op   = k;
    o.src  = std::move(src);
    o.dst  = std::move(dst);
    o.root = root;
    if (k != w::ProgramOpKind::Bcast) // (a bcast reads no func: refused)
      o.func = nafsim::coll::ReduceFunc::Max;
    return o;
  };
  cfg.ops = {op(w::ProgramOpKind::Reduce, "a", "r", 1), op(w::ProgramOpKind::Combine, "a", "r"),
             op(w::ProgramOpKind::Bcast, "r", "r", 1), op(w::ProgramOpKind::Combine, "a", "r")};
  auto plan = w::ProgramPlan::resolve(cfg);
  std::vector<std::vector<std::vector<double>>> initial{{{1, 5, 2, 7}, {3, 4, 6, 0}}, {{0, 0, 0, 0}, {0, 0, 0, 0}}};
  w::ProgramReference ref(plan, initial);
  EXPECT_EQ(ref.after(0, 1), (std::vector<double>{3, 5, 6, 7})); // the root's reduce (max)
  for (double v : ref.after(1, 0)) // rank 0's r was unspecified: so is max(a, r)
    EXPECT_TRUE(std::isnan(v));
  EXPECT_EQ(ref.after(1, 1), (std::vector<double>{3, 5, 6, 7}));
  EXPECT_EQ(ref.after(2, 1), (std::vector<double>{3, 5, 6, 7})); // in place: the root holds its operand
  EXPECT_EQ(ref.after(2, 0), (std::vector<double>{3, 5, 6, 7}));
  EXPECT_EQ(ref.after(3, 0), (std::vector<double>{3, 5, 6, 7}));
}

TEST(Program, NonBlockingCallsOverlapComputeAndBreakARendezvousRingsDeadlock)
{
  const std::string bufs = R"({"name": "a", "elements": 65536}, {"name": "b", "elements": 65536, "init": "zero"})";
  // Every rank sends to the next with rendezvous (the send waits for the receiver's buffer) before receiving: one
  // after the other the ring deadlocks, and the run says so.
  auto blocking = run_scenario_isolated(program(
      4, bufs, R"({"op": "send", "shift": 1, "src": "a", "protocol": "rendezvous"},
                  {"op": "recv", "shift": -1, "dst": "b", "protocol": "rendezvous"})"));
  ASSERT_FALSE(blocking.ok);
  EXPECT_EQ(blocking.error_kind, "deadlock") << blocking.error;
  // With the receive waiting only for the barrier (not for the send), both are in flight at once; a compute phase
  // overlaps them and a wait joins the three.
  auto r = run_scenario_isolated(program(
      4, bufs, R"({"op": "barrier"},
                  {"op": "send", "shift": 1, "src": "a", "protocol": "rendezvous"},
                  {"op": "recv", "shift": -1, "dst": "b", "protocol": "rendezvous", "after": [0]},
                  {"op": "compute", "duration": "15us", "after": [0]},
                  {"op": "wait", "after": [1, 2, 3]},
                  {"op": "combine", "src": "a", "dst": "b"})"));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(verified(r));
  auto const& t = r.tables.at("program_ops");
  for (unsigned rank = 0; rank < 4; ++rank) {
    auto row = [&](int op) {
      for (auto i : rows_of(t, op))
        if (std::stoi(t.rows[i].at("rank")) == static_cast<int>(rank))
          return i;
      return t.rows.size();
    };
    const double barrier_end = t.num(row(0), "end_us");
    EXPECT_NEAR(t.num(row(1), "start_us"), barrier_end, 1e-4);
    EXPECT_NEAR(t.num(row(2), "start_us"), barrier_end, 1e-4);
    EXPECT_NEAR(t.num(row(3), "start_us"), barrier_end, 1e-4);
    const double joined = std::max({t.num(row(1), "end_us"), t.num(row(2), "end_us"), t.num(row(3), "end_us")});
    EXPECT_NEAR(t.num(row(4), "end_us"), joined, 1e-4); // the wait ends with the last of the three
    EXPECT_GE(t.num(row(5), "start_us"), joined - 1e-4);
  }
  auto const& ranks = r.tables.at("program_ranks");
  EXPECT_GT(ranks.num(0, "compute_us"), 14.9);
  // The compute phase lies inside the calls' time: it hides that much communication, the rest is exposed.
  ASSERT_GT(ranks.num(0, "communication_us"), ranks.num(0, "compute_us"));
  EXPECT_NEAR(ranks.num(0, "exposed_communication_us"), ranks.num(0, "communication_us") - ranks.num(0, "compute_us"),
              1e-3);
}

TEST(Program, EachRankHasATrackInTheChromeTraceWithLanesForConcurrentOperations)
{
  const std::string bufs = R"({"name": "a", "elements": 65536}, {"name": "b", "elements": 65536, "init": "zero"})";
  auto r = run_scenario_isolated(program(4, bufs, R"({"op": "barrier"},
                  {"op": "send", "shift": 1, "src": "a", "protocol": "rendezvous"},
                  {"op": "recv", "shift": -1, "dst": "b", "protocol": "rendezvous", "after": [0]},
                  {"op": "compute", "duration": "15us", "after": [0]},
                  {"op": "wait", "after": [1, 2, 3]},
                  {"op": "combine", "src": "a", "dst": "b"})"),
                                 {}, "messages");
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_TRUE(r.trace.contains("traceEvents"));
  // pid -> lane -> spans (start, end, op)
  std::map<int, std::map<int, std::vector<std::tuple<double, double, int>>>> spans;
  std::map<int, std::set<std::string>> names;
  for (auto const& e : r.trace["traceEvents"]) {
    if (!e.contains("tid") || e["tid"].get<int>() < 60 || e["tid"].get<int>() >= 100)
      continue;
    if (e["ph"] == "M") {
      names[e["pid"].get<int>()].insert(e["args"]["name"].get<std::string>());
      continue;
    }
    ASSERT_EQ(e["ph"], "X");
    const double ts = e["ts"].get<double>();
    spans[e["pid"].get<int>()][e["tid"].get<int>()].emplace_back(ts, ts + e["dur"].get<double>(),
                                                                 e["args"]["op"].get<int>());
  }
  auto const& t = r.tables.at("program_ops");
  ASSERT_EQ(spans.size(), 4u); // one track per rank, in its node's process
  for (auto& [pid, lanes] : spans) {
    EXPECT_TRUE(names[pid].count(fmt::format("program rank {}", pid))) << pid;
    EXPECT_GE(lanes.size(), 3u); // send, receive and compute at once
    std::size_t n = 0;
    for (auto& [tid, v] : lanes) {
      std::sort(v.begin(), v.end());
      for (std::size_t i = 1; i < v.size(); ++i) // one lane: never two at once
        EXPECT_LE(std::get<1>(v[i - 1]), std::get<0>(v[i]) + 1e-6) << "pid " << pid << " lane " << tid;
      n += v.size();
      for (auto const& [b, e, op] : v) { // each span is its operation's row
        bool found = false;
        for (auto i : rows_of(t, op))
          if (std::stoi(t.rows[i].at("position")) == pid)
            found = std::abs(t.num(i, "start_us") - b) < 1e-3 && std::abs(t.num(i, "end_us") - e) < 1e-3;
        EXPECT_TRUE(found) << "pid " << pid << " op " << op;
      }
    }
    EXPECT_EQ(n, 6u);
  }
}

TEST(Program, OperandsInHostMemoryAndKernelStreamsVerify)
{
  // A device-to-host copy, an allreduce between device buffers, the host data copied into a kernel's stream, a reduce
  // from the stream (the kernel kept it: a loopback) into device memory, and the stream copied back to the host: every
  // result checked.
  auto r = run_scenario_isolated(program(
      4,
      R"({"name": "d", "elements": 65536}, {"name": "d2", "elements": 65536, "init": "zero"},
         {"name": "h", "elements": 65536, "memory": "host", "init": "zero"},
         {"name": "k", "elements": 65536, "memory": "stream", "init": "zero"})",
      R"({"op": "copy", "src": "d", "dst": "h"},
         {"op": "allreduce", "src": "d", "dst": "d2"},
         {"op": "copy", "src": "h", "dst": "k"},
         {"op": "reduce", "src": "k", "dst": "d2", "root": 0},
         {"op": "copy", "src": "k", "dst": "h"})"));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(verified(r));
  auto const& t = r.tables.at("program_ops");
  for (auto i : rows_of(t, 3)) // a stream operand: the firmware runs the call eager, whatever the size
    EXPECT_EQ(t.rows[i].at("protocol"), "eager");
  for (auto i : rows_of(t, 1)) // the same size between device buffers goes rendezvous at 256 KiB
    EXPECT_EQ(t.rows[i].at("protocol"), "rendezvous");
  // Forcing rendezvous on a stream is refused before the run.
  auto f = run_scenario_isolated(program(
      2, R"({"name": "a", "elements": 64}, {"name": "k", "elements": 64, "memory": "stream"})",
      R"({"op": "reduce", "src": "a", "dst": "k", "root": 0, "protocol": "rendezvous"})"));
  ASSERT_FALSE(f.ok);
  EXPECT_NE(f.error.find("/workload/ops/0/protocol"), std::string::npos) << f.error;
  // The firmware's allreduce reads and writes memory whatever the stream flags: a result into a stream is refused,
  // at the operand that streams.
  auto a = run_scenario_isolated(program(
      2, R"({"name": "a", "elements": 64}, {"name": "k", "elements": 64, "memory": "stream"})",
      R"({"op": "allreduce", "src": "a", "dst": "k"})"));
  ASSERT_FALSE(a.ok);
  EXPECT_NE(a.error.find("/workload/ops/0/dst"), std::string::npos) << a.error;
  EXPECT_NE(a.error.find("ACCL's host driver has no streamed allreduce"), std::string::npos) << a.error;
}

// The firmware's send() and recv() each choose their protocol by their own bytes and flags: a send of 64 KiB from
// device memory goes rendezvous, a receive into a kernel stream eager, and the hardware would hang. Refused before
// the run at the end that departs from the size rule; both ends streamed, or within max_eager_size, run.
TEST(Program, ASendAndItsReceiveMustTakeOneProtocol)
{
  const std::string bufs = R"({"name": "a", "elements": 16384}, {"name": "k", "elements": 16384, "memory": "stream",
      "init": "zero"}, {"name": "b", "elements": 16384, "init": "zero"})";
  auto into_stream = run_scenario_isolated(program(
      2, bufs, R"({"op": "send", "peer": 1, "ranks": [0], "src": "a"}, {"op": "recv", "peer": 0, "ranks": [1], "dst": "k"})"));
  ASSERT_FALSE(into_stream.ok);
  EXPECT_EQ(into_stream.error_kind, "config");
  EXPECT_NE(into_stream.error.find("/workload/ops/1/dst"), std::string::npos) << into_stream.error;
  EXPECT_NE(into_stream.error.find("rank 0's send (ops/0) of 64KiB goes rendezvous (above max_eager_size 32KiB), but "
                                   "rank 1's receive (ops/1) goes eager (a kernel stream at its end"),
            std::string::npos)
      << into_stream.error;
  EXPECT_NE(into_stream.error.find("waits for a destination address the eager receive never sends"), std::string::npos)
      << into_stream.error;
  auto from_stream = run_scenario_isolated(program(
      2, bufs, R"({"op": "send", "peer": 1, "ranks": [0], "src": "k"}, {"op": "recv", "peer": 0, "ranks": [1], "dst": "b"})"));
  ASSERT_FALSE(from_stream.ok);
  EXPECT_NE(from_stream.error.find("/workload/ops/0/src"), std::string::npos) << from_stream.error;
  EXPECT_NE(from_stream.error.find("waits for a completion notice the eager send never sends"), std::string::npos)
      << from_stream.error;
  auto forced = run_scenario_isolated(program(
      2, bufs, R"({"op": "send", "peer": 1, "ranks": [0], "src": "a", "protocol": "eager"},
                  {"op": "recv", "peer": 0, "ranks": [1], "dst": "b"})"));
  ASSERT_FALSE(forced.ok);
  EXPECT_NE(forced.error.find("/workload/ops/0/protocol"), std::string::npos) << forced.error;
  for (auto ops : {R"({"op": "send", "peer": 1, "ranks": [0], "src": "k"}, {"op": "recv", "peer": 0, "ranks": [1], "dst": "k"})",
                   R"({"op": "send", "peer": 1, "ranks": [0], "src": "a", "count": 8192},
                      {"op": "recv", "peer": 0, "ranks": [1], "dst": "k", "count": 8192})"}) {
    auto ok = run_scenario_isolated(program(2, bufs, ops));
    ASSERT_TRUE(ok.ok) << ok.error;
    EXPECT_TRUE(verified(ok));
  }
}

TEST(Program, StreamPutDeliversIntoThePeersKernelStreamWithoutAReceive)
{
  // A ring of stream_puts into stream 9 in two halves (rank 0 computes 3 us between them), then every rank copies
  // its stream into memory: the copy, a kernel reading the stream, waits for the data, and is verified.
  const std::string bufs = R"({"name": "a", "elements": 1024},
      {"name": "k", "elements": 1024, "memory": "stream", "stream_id": 9, "init": "zero"},
      {"name": "b", "elements": 1024, "init": "zero"})";
  auto r = run_scenario_isolated(program(4, bufs, R"(
      {"op": "stream_put", "shift": 1, "src": "a", "dst": "k", "count": 512},
      {"op": "compute", "ranks": [0], "duration": "3us"},
      {"op": "stream_put", "shift": 1, "src": "a", "src_offset": 512, "dst": "k", "dst_offset": 512, "count": 512},
      {"op": "copy", "src": "k", "dst": "b"})"));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(verified(r));
  auto const& t = r.tables.at("program_ops");
  std::map<int, double> copy_end;
  for (auto i : rows_of(t, 3))
    copy_end[std::stoi(t.rows[i].at("rank"))] = t.num(i, "end_us");
  // Rank 1's stream is fed by rank 0, 3 us late: its copy ends 3 us after the others'.
  EXPECT_NEAR(copy_end.at(1) - copy_end.at(2), 3.0, 1e-3);
  EXPECT_NEAR(copy_end.at(2), copy_end.at(3), 1e-6);
  // With a faster memory read the copies begin waiting between the halves: the first half wakes the reader, the
  // second must wake it again (it deadlocked, "waits for 4KiB of stream 9 (4KiB arrived)", at read latencies below
  // 1 us; found by an audit of explain, whose what-if sets the read latency to 0).
  for (const char* latency : {"0s", "500ns"}) {
    auto fast = run_scenario_isolated(program(4, bufs, R"(
        {"op": "stream_put", "shift": 1, "src": "a", "dst": "k", "count": 512},
        {"op": "compute", "ranks": [0], "duration": "3us"},
        {"op": "stream_put", "shift": 1, "src": "a", "src_offset": 512, "dst": "k", "dst_offset": 512, "count": 512},
        {"op": "copy", "src": "k", "dst": "b"})"),
                                      {fmt::format("platform.node.fpga.device_memory.read_latency={}", latency)});
    ASSERT_TRUE(fast.ok) << latency << ": " << fast.error;
    EXPECT_TRUE(verified(fast)) << latency;
  }
  // Into memory, over one Rx buffer, or onto a stream id taken twice: refused before the run.
  for (auto const& [b, ops, path] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {bufs, R"({"op": "stream_put", "shift": 1, "src": "a", "dst": "b"})", "/workload/ops/0/dst"},
           {R"({"name": "a", "elements": 1048576}, {"name": "k", "elements": 1048576, "memory": "stream"})",
            R"({"op": "stream_put", "shift": 1, "src": "a", "dst": "k"})", "/workload/ops/0/count"},
           {R"({"name": "k", "elements": 8, "memory": "stream", "stream_id": 3},
               {"name": "j", "elements": 8, "memory": "stream", "stream_id": 3})",
            R"({"op": "barrier"})", "/workload/buffers/1/stream_id"},
           // combine reads its dst as the second operand, which ACCL cannot stream (it read the stream before the
           // put had landed, and verify blamed the simulator)
           {bufs, R"({"op": "stream_put", "shift": 1, "src": "a", "dst": "k"}, {"op": "combine", "src": "a", "dst": "k"})",
            "/workload/ops/1/dst"}}) {
    auto e = run_scenario_isolated(program(2, b, ops));
    ASSERT_FALSE(e.ok) << ops;
    EXPECT_NE(e.error.find(path), std::string::npos) << e.error;
  }
}

TEST(Program, AVerifyFailureFromTheProgramsOwnRaceNamesTheOperations)
{
  // Rank 0's copy into a runs beside its send of a (both wait only for op 0): what rank 1 receives depends on their
  // timing. verify blamed the simulator; it names the two operations.
  auto r = run_scenario_isolated(program(2, R"({"name": "a", "elements": 262144}, {"name": "b", "elements": 262144, "init": "zero"})",
      R"({"op": "compute", "duration": "1us"}, {"op": "send", "ranks": [0], "peer": 1, "src": "a", "after": [0]},
         {"op": "recv", "ranks": [1], "peer": 0, "dst": "b", "after": [0]},
         {"op": "copy", "ranks": [0], "src": "b", "dst": "a", "after": [0]})"));
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("operation 1 (send) ran on rank 0 at the same time"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("as operation 3 (copy), and both use buffer 'a'"), std::string::npos) << r.error;
  EXPECT_EQ(r.error.find("simulator bug"), std::string::npos) << r.error;
  // On the MPI engine a combine into b beside a copy into b, on the same rank.
  auto m = run_scenario_isolated(program(2, R"({"name": "a", "elements": 262144}, {"name": "b", "elements": 262144, "init": "zero"},
      {"name": "c", "elements": 262144})",
      R"({"op": "compute", "duration": "1us"}, {"op": "copy", "src": "c", "dst": "b", "after": [0]},
         {"op": "combine", "src": "a", "dst": "b", "after": [0]})", "", "mpi"));
  ASSERT_FALSE(m.ok);
  EXPECT_NE(m.error.find("(copy) ran on rank"), std::string::npos) << m.error;
  EXPECT_NE(m.error.find("both use buffer 'b'"), std::string::npos) << m.error;
}

TEST(Program, AForcedEagerCallOverTheConnectionlessTransportTravelsInRxBufferSegments)
{
  // A forced eager bcast of 32 KiB. Its one 32 KiB segment and the header exceeded the 32 KiB registration range,
  // refused before the run; the preset's Rx buffers are now 16 KiB (the firmware refuses an eager limit below an Rx
  // buffer, and the eager limit is 16 KiB for the registration range), so it travels as two segments that fit.
  const std::string s = R"({"platform": {"preset": "lant-zcu102", "topology": {"kind": "star", "hosts": 2}},
      "workload": {"kind": "program", "ranks": 2, "verify": true,
        "buffers": [{"name": "a", "elements": 8192}, {"name": "b", "elements": 8192}],
        "ops": [%s]}})";
  auto with = [&](const std::string& op) { return std::string(s).replace(s.find("%s"), 2, op); };
  auto e = run_scenario_isolated(with(R"({"op": "bcast", "src": "a", "dst": "b", "root": 0, "protocol": "eager"})"));
  ASSERT_TRUE(e.ok) << e.error;
  EXPECT_TRUE(verified(e));
  // The firmware's own choice (rendezvous above max_eager_size) runs it too.
  auto r = run_scenario_isolated(with(R"({"op": "bcast", "src": "a", "dst": "b", "root": 0})"));
  EXPECT_TRUE(r.ok) << r.error;
}

TEST(Program, CompressedCallsVerifyAndPutHalfTheBytesOnTheWire)
{
  auto r = run_scenario_isolated(program(
      4, R"({"name": "a", "elements": 4096}, {"name": "s", "elements": 4096, "init": "zero"},
            {"name": "t", "elements": 4096, "init": "zero"})",
      R"({"op": "allreduce", "src": "a", "dst": "s", "compress": true}, {"op": "allreduce", "src": "a", "dst": "t"},
         {"op": "send", "shift": 1, "src": "s", "tag": 2, "compress": true},
         {"op": "recv", "shift": -1, "dst": "t", "tag": 2, "compress": true})"));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(verified(r)); // the pattern's small integers are exact in float16
  auto const& t = r.tables.at("program_ops");
  EXPECT_LT(latest_end(t, 0), t.num(rows_of(t, 1).at(0), "duration_us")); // the same call, half the bytes
}

TEST(Program, BadProgramsAreConfigErrorsNamingTheOperation)
{
  const std::string bufs = R"({"name": "a", "elements": 64}, {"name": "b", "elements": 64})";
  struct Case {
    std::string ops, path;
  };
  for (auto const& c : std::vector<Case>{
           {R"({"op": "allreduce", "src": "nope", "dst": "b"})", "/workload/ops/0/src"},
           {R"({"op": "allgather", "src": "a", "dst": "b"})", "/workload/ops/0/dst"}, // needs 2 x 64 elements
           {R"({"op": "recv", "ranks": [1], "peer": 0, "dst": "b"}, {"op": "send", "ranks": [0], "peer": 1, "src": "a"})",
            "/workload/ops/0"},
           {R"({"op": "send", "ranks": [0], "peer": 0, "src": "a"})", "/workload/ops/0/peer"},
           {R"({"op": "bcast", "src": "a", "dst": "b", "root": 5})", "/workload/ops/0/root"},
           {R"({"op": "compute", "ranks": [0]})", "/workload/ops/0/duration"},
           {R"({"op": "compute", "ranks": [0], "duration": "1us", "operations": 1000})", "/workload/ops/0/duration"},
           {R"({"op": "allreduce", "src": "a", "dst": "b", "compress": true, "protocol": "rendezvous"})",
            "/workload/ops/0/compress"},
           {R"({"op": "allreduce", "comm": "other", "src": "a", "dst": "b"})", "/workload/ops/0/comm"},
           {R"({"op": "send", "ranks": [0], "peer": 1, "src": "a", "count": 32}, {"op": "recv", "ranks": [1], "peer": 0, "dst": "b"})",
            "/workload/ops/1/count"},
           {R"({"op": "recv", "ranks": [1], "peer": 0, "dst": "b", "tag": 4})", "/workload/ops/0"},
           // to verify, the reference needs each receive's own send (the second one here) listed before it
           {R"({"op": "send", "ranks": [0], "peer": 1, "src": "a"}, {"op": "recv", "ranks": [1], "peer": 0, "dst": "b"},
               {"op": "recv", "ranks": [1], "peer": 0, "dst": "b"}, {"op": "send", "ranks": [0], "peer": 1, "src": "a"})",
            "/workload/ops/2"},
           {R"({"op": "barrier"}, {"op": "wait", "after": [1]})", "/workload/ops/1/after/0"},
           // one buffer read and written over ranges that overlap without being the same: no one result
           {R"({"op": "copy", "src": "a", "dst": "a", "count": 8, "dst_offset": 4})", "/workload/ops/0/dst_offset"},
           {R"({"op": "combine", "src": "a", "dst": "a", "count": 8, "src_offset": 2})", "/workload/ops/0/dst_offset"},
           {R"({"op": "allgather", "src": "a", "dst": "a", "count": 16})", "/workload/ops/0/dst_offset"},
           {R"({"op": "compute", "ranks": [0], "duration": "1us"}, {"op": "wait", "after": [0]})", "/workload/ops/1/after/0"},
           // a rank listed twice had run the operation twice on it (the audit of 2026-12-07)
           {R"({"op": "compute", "ranks": [1, 1], "duration": "1us"})", "/workload/ops/0/ranks/1"},
           // the audit of 2026-12-08: an operation without `op` had run as a barrier of every rank, its keys unread;
           // keys its op reads nothing of ran as if absent; a negative peer other than -1 meant `shift`; an allgather
           // on one member passed --check-only and failed the run
           {R"({"src": "a", "dst": "b"})", "/workload/ops/0"},
           {R"({"op": "allreduce", "src": "a", "dst": "b", "root": 1})", "/workload/ops/0/root"},
           {R"({"op": "send", "ranks": [0], "peer": 1, "src": "a", "duration": "5us"},
               {"op": "recv", "ranks": [1], "peer": 0, "dst": "b"})", "/workload/ops/0/duration"},
           {R"({"op": "combine", "src": "a", "dst": "b", "protocol": "rendezvous"})", "/workload/ops/0/protocol"},
           {R"({"op": "copy", "src": "a", "dst": "b", "peer": 1})", "/workload/ops/0/peer"},
           {R"({"op": "barrier", "src": "a"})", "/workload/ops/0/src"},
           {R"({"op": "allgather", "src": "a", "dst": "b", "func": "max"})", "/workload/ops/0/func"},
           {R"({"op": "send", "ranks": [0], "peer": -5, "src": "a"})", "/workload/ops/0/peer"}}) {
    auto r = run_scenario_isolated(program(2, bufs, c.ops));
    ASSERT_FALSE(r.ok) << c.ops;
    EXPECT_EQ(r.error_kind, "config") << r.error;
    EXPECT_NE(r.error.find(c.path), std::string::npos) << r.error;
  }
  // An allgather on a communicator of one member is refused at the plan, before the run (the firmware has no one-rank
  // allgather); on the MPI engine it runs.
  const std::string one = R"(, "communicators": [{"name": "one", "ranks": [1]}])";
  auto lone = run_scenario_isolated(program(2, bufs, R"({"op": "allgather", "comm": "one", "src": "a", "dst": "b"})", one));
  ASSERT_FALSE(lone.ok);
  EXPECT_EQ(lone.error_kind, "config") << lone.error;
  EXPECT_NE(lone.error.find("/workload/ops/0/comm"), std::string::npos) << lone.error;
  auto lone_mpi =
      run_scenario_isolated(program(2, bufs, R"({"op": "allgather", "comm": "one", "src": "a", "dst": "b"})", one, "mpi"));
  EXPECT_TRUE(lone_mpi.ok) << lone_mpi.error;
  // On the MPI engine a stream buffer is refused first, at the buffer: the operations' stream checks had advised a
  // copy into the stream, which the engine then refused.
  auto stream_mpi = run_scenario_isolated(program(2, R"({"name": "a", "elements": 64}, {"name": "s", "elements": 64,
      "memory": "stream"})", R"({"op": "combine", "src": "a", "dst": "s"})", "", "mpi"));
  ASSERT_FALSE(stream_mpi.ok);
  EXPECT_NE(stream_mpi.error.find("/workload/buffers/1/memory: a stream is an FPGA kernel's"), std::string::npos)
      << stream_mpi.error;
  // The same range read and written (in place) has one meaning, and disjoint ranges of one buffer too; rooted
  // collectives are left as given.
  for (const char* ops : {R"({"op": "allreduce", "src": "a", "dst": "a"})",
                          R"({"op": "combine", "src": "a", "dst": "a", "count": 8})",
                          R"({"op": "copy", "src": "a", "dst": "a", "count": 8, "dst_offset": 8})",
                          // root 0's block at the start of its result: an identity, deterministic
                          R"({"op": "gather", "src": "a", "dst": "a", "count": 16})"}) {
    auto ok = run_scenario_isolated(program(2, bufs, ops));
    EXPECT_TRUE(ok.ok) << ops << ": " << ok.error;
  }
  // Without verify the list's order between ranks is free: a receive may come before its send.
  auto r = run_scenario_isolated(program(
      2, bufs, R"({"op": "recv", "ranks": [1], "peer": 0, "dst": "b"}, {"op": "send", "ranks": [0], "peer": 1, "src": "a"})",
      R"(, "verify": false)"));
  EXPECT_TRUE(r.ok) << r.error;
}

// Compute phases by their work each take the whole engine (the roofline's ASSUMPTION: the FPGA's one user kernel
// with every DSP and HBM channel, or every host core), so two at once on one rank run one after the other: they each
// took 1 ms at the kernel's whole rate side by side, twice its peak. Phases with a duration keep it, side by side;
// on a host, phases of half the cores run two at once, each at half the rate.
TEST(Program, ComputePhasesByWorkShareTheirRanksEngine)
{
  const std::string bufs = R"({"name": "x", "elements": 16})";
  auto end_of = [](const ScenarioRun& r) {
    double end = 0;
    for (std::size_t i = 0; i < r.tables.at("program_ops").rows.size(); ++i)
      end = std::max(end, r.tables.at("program_ops").num(i, "end_us"));
    return end;
  };
  // 1.128e9 operations: 1 ms at 2256 multiply-adds per cycle at 250 MHz (plus 65 cycles).
  const std::string two = R"({"op": "compute", "duration": "1us"},
      {"op": "compute", "operations": 1128000000, "after": [0]}, {"op": "compute", "operations": 1128000000, "after": [0]},
      {"op": "wait", "after": [1, 2]})";
  auto fpga = run_scenario_isolated(program(1, bufs, two));
  ASSERT_TRUE(fpga.ok) << fpga.error;
  EXPECT_NEAR(end_of(fpga), 1 + 2 * 1000.256, 0.01);
  const std::string timed = R"({"op": "compute", "duration": "1us"},
      {"op": "compute", "duration": "1ms", "after": [0]}, {"op": "compute", "duration": "1ms", "after": [0]},
      {"op": "wait", "after": [1, 2]})";
  auto given = run_scenario_isolated(program(1, bufs, timed));
  ASSERT_TRUE(given.ok) << given.error;
  EXPECT_NEAR(end_of(given), 1001.0, 0.01);
  // A host of 16 cores: phases of all cores one after the other, of 8 cores two at once.
  const std::string host = R"({"op": "compute", "duration": "1us"},
      {"op": "compute", "operations": 1536000000, "after": [0]}, {"op": "compute", "operations": 1536000000, "after": [0]},
      {"op": "wait", "after": [1, 2]})";
  auto all = run_scenario_isolated(program(1, bufs, host, "", "mpi"));
  ASSERT_TRUE(all.ok) << all.error;
  auto half = run_scenario_isolated(program(1, bufs, host, R"(, "compute": {"threads": 8})", "mpi"));
  ASSERT_TRUE(half.ok) << half.error;
  // 1.536e9 operations: 1 ms on the 16 cores' 1.536 TFLOP/s, 2 ms on 8, plus the 2 us fork and join.
  EXPECT_NEAR(end_of(all), 1 + 2 * 1002.0, 0.01);
  EXPECT_NEAR(end_of(half), 1 + 2002.0, 0.01);
  // Three memory-bound phases of 100 MB on 5 cores each run at once (16 / 5 slots), sharing the socket's 204.8 GB/s
  // of DRAM: they cannot end before 300 MB / 204.8 GB/s = 1464.84 us (each at 100 GB/s, they ended at 1006 us). One
  // alone streams at its 5 cores' 100 GB/s (1000 us; a static third of the socket made it 1464 us), and one of three
  // that starts later runs at the socket's share while the others stream, then faster.
  const std::string streams = R"({"op": "compute", "duration": "1us"},
      {"op": "compute", "bytes": "100MB", "after": [0]}, {"op": "compute", "bytes": "100MB", "after": [0]},
      {"op": "compute", "bytes": "100MB", "after": [0]}, {"op": "wait", "after": [1, 2, 3]})";
  auto shared = run_scenario_isolated(program(1, bufs, streams, R"(, "compute": {"threads": 5})", "mpi"));
  ASSERT_TRUE(shared.ok) << shared.error;
  EXPECT_GE(end_of(shared), 1 + 3e8 / 204.8e9 * 1e6);
  EXPECT_NEAR(end_of(shared), 1 + 3e8 / 204.8e9 * 1e6 + 2, 0.01) << "together at the socket's rate, plus fork/join";
  const std::string lone = R"({"op": "compute", "duration": "1us"},
      {"op": "compute", "bytes": "100MB", "after": [0]}, {"op": "wait", "after": [1]})";
  auto alone = run_scenario_isolated(program(1, bufs, lone, R"(, "compute": {"threads": 5})", "mpi"));
  ASSERT_TRUE(alone.ok) << alone.error;
  EXPECT_NEAR(end_of(alone), 1 + 1000 + 2, 0.01);
  // Two at once from 1 us (100 GB/s each: their cores' rate fits the socket), a third from 501 us: the three share
  // 204.8 GB/s until the first two end, then the third streams at 100 GB/s. Bytes: the first two have 50 MB left at
  // 501 us, done at 501 + 50e6 / 68.27e9 s = 1233.4 us (+2 us fork/join: 1235.4); the third has streamed 50 MB by
  // then (at 68.27 GB/s from 501 us), the rest at 100 GB/s: 1233.4 + 500 = 1733.4 us, 1735.4 with its fork/join.
  const std::string staggered = R"({"op": "compute", "duration": "1us"},
      {"op": "compute", "bytes": "100MB", "after": [0]}, {"op": "compute", "bytes": "100MB", "after": [0]},
      {"op": "compute", "duration": "500us", "after": [0]}, {"op": "compute", "bytes": "100MB", "after": [3]},
      {"op": "wait", "after": [1, 2, 4]})";
  auto later = run_scenario_isolated(program(1, bufs, staggered, R"(, "compute": {"threads": 5})", "mpi"));
  ASSERT_TRUE(later.ok) << later.error;
  EXPECT_NEAR(end_of(later), 501 + 50e6 / (204.8e9 / 3) * 1e6 + 500 + 2, 0.05);
  // A kernel of more DSP slices or HBM channels than the device has is refused (10x the DSPs ran 10x faster), and
  // one of fewer DSP slices than a multiply-add takes (3 of 4 ran as one multiply-add).
  for (auto [set, path] : {std::pair{R"(, "compute": {"kernel": {"dsps": 90240}})", "/workload/compute/kernel/dsps"},
                           std::pair{R"(, "compute": {"kernel": {"dsps": 3}})", "/workload/compute/kernel/dsps"},
                           std::pair{R"(, "compute": {"hbm_channels": 320})", "/workload/compute/hbm_channels"}}) {
    auto over = run_scenario_isolated(program(1, bufs, two, set));
    ASSERT_FALSE(over.ok) << set;
    EXPECT_EQ(over.error_kind, "config") << over.error;
    EXPECT_NE(over.error.find(path), std::string::npos) << over.error;
  }
  // More threads than the hosts' cores is refused likewise on engine mpi (it ran as every core, unsaid).
  auto threads = run_scenario_isolated(program(1, bufs, two, R"(, "compute": {"threads": 1000})", "mpi"));
  ASSERT_FALSE(threads.ok);
  EXPECT_NE(threads.error.find("/workload/compute/threads"), std::string::npos) << threads.error;
}

// ACCL's XRT build cannot point the CCLO at host buffers (Vitis' partitioned memory: its driver migrates them around
// each call, which the collective workload's `invocation: xrt` stages). A kernel-invoked call on host data there ran
// straight over PCIe, a path no build has (a 256 KiB copy in 22.75 us with no sync): said now, with the way out. On
// Coyote (unified memory) the same program is what the hardware does, and a staged XRT call is the driver's.
TEST(Program, HostBuffersReachedByTheCcloOnAnXrtShellAreSaidToBeABuildNobodyMade)
{
  auto warned = [](const ScenarioRun& r) {
    for (auto const& l : r.summary)
      if (l.find("on FPGAs without Coyote's unified memory (mmu off)") != std::string::npos)
        return true;
    return false;
  };
  const std::string copy = R"(, "workload": {"kind": "program", "ranks": 2,
      "buffers": [{"name": "d", "elements": 65536}, {"name": "h", "elements": 65536, "memory": "host", "init": "zero"}],
      "ops": [{"op": "copy", "src": "d", "dst": "h"}]}})";
  for (const char* preset : {"accl-xrt-u55c", "accl-coyote-u55c"}) {
    auto r = run_scenario_isolated(fmt::format(R"({{"platform": {{"preset": "{}", "topology": {{"kind": "star", "hosts": 2}}}})",
                                               preset) + copy);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(warned(r), std::string(preset) == "accl-xrt-u55c") << preset;
  }
  auto staged = run_scenario_isolated(R"({"platform": {"preset": "accl-xrt-u55c", "topology": {"hosts": 2}},
      "workload": {"kind": "collective", "collective": "allreduce", "ranks": 2, "sizes": ["256KiB"], "iterations": 1,
                   "location": "host", "invocation": "xrt"}})");
  ASSERT_TRUE(staged.ok) << staged.error;
  EXPECT_FALSE(warned(staged));
}
