// The `program` workload on the MPI engine (workloads/program/MpiEngine): the same programs run by the hosts'
// software MPI library, verified step by step; a call takes the mpi workload's time; tags and communicators match
// separately, as MPI's contexts do.
#include "tests/validation/ProgramRuns.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

using namespace nafsim::testing;

namespace {

/// Verified, on the MPI engine.
bool verified_on_mpi(const ScenarioRun& r)
{
  return verified(r) && program_line(r).find("MPI on CPU hosts") != std::string::npos;
}

} // namespace

TEST(ProgramMpi, AReduceTakesWhatTheMpiWorkloadMeasures)
{
  auto p = run_scenario_isolated(program(6, R"({"name": "a", "elements": 32768}, {"name": "b", "elements": 32768})",
                                         R"({"op": "reduce", "src": "a", "dst": "b", "root": 2})", "", "mpi"));
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_TRUE(verified_on_mpi(p));
  auto m = run_scenario_isolated(R"({"name": "m", "platform": {"preset": "accl-cpu-cx5",
      "topology": {"kind": "star", "hosts": 6}}, "workload": {"kind": "mpi", "collective": "reduce", "root": 2,
      "ranks": 6, "sizes": ["128KiB"], "iterations": 1, "verify": true}})");
  ASSERT_TRUE(m.ok) << m.error;
  // Both start every rank at time 0; the program's end is its slowest rank's, the mpi workload's latency too. The
  // root's two subtrees' requests reach it at the same instant; which it serves first follows the order the
  // actors started in (the mpi workload lines its ranks up first), so the two differ by that tie: 66 ns of 81.6 us.
  const double want = m.tables.at("mpi").num(0, "latency_us");
  EXPECT_NEAR(latest_end(p.tables.at("program_ops"), 0), want, want * 1e-3);
}

TEST(ProgramMpi, ChainedCallsOnSubCommunicatorsVerify)
{
  auto r = run_scenario_isolated(program(4, kChainBuffers,
                                         kChainOps + R"(, {"op": "copy", "src": "x", "dst": "g", "count": 256,
                                                           "dst_offset": 256},
                                                        {"op": "combine", "src": "y", "dst": "x", "func": "max"})",
                                         kChainComms, "mpi"));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(verified_on_mpi(r));
  // copy and combine are the CPU's own loops, not library calls: no call overhead, only the bytes' cost.
  auto const& t = r.tables.at("program_ops");
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    if (t.rows[i].at("kind") == "copy" || t.rows[i].at("kind") == "combine") {
      EXPECT_EQ(t.rows[i].at("algorithm"), "direct");
    }
  }
}

TEST(ProgramMpi, MessagesMatchWithinTheirTag)
{
  // Rank 0 sends tag 1 then tag 2; rank 1 receives tag 2 first. Matched by arrival order alone, tag 1's data would
  // land where tag 2's belongs and the check would fail.
  const std::string ops = R"({"op": "send", "ranks": [0], "peer": 1, "src": "x", "count": 32, "tag": 1},
      {"op": "send", "ranks": [0], "peer": 1, "src": "x", "src_offset": 32, "count": 32, "tag": 2},
      {"op": "recv", "ranks": [1], "peer": 0, "dst": "y", "count": 32, "tag": 2},
      {"op": "recv", "ranks": [1], "peer": 0, "dst": "y", "dst_offset": 32, "count": 32, "tag": 1})";
  const std::string bufs = R"({"name": "x", "elements": 64}, {"name": "y", "elements": 64, "init": "zero"})";
  auto r = run_scenario_isolated(program(2, bufs, ops, "", "mpi"));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(verified_on_mpi(r));
  auto f = run_scenario_isolated(program(2, bufs, ops));
  ASSERT_TRUE(f.ok) << f.error; // the CCLO's tags: the same program verifies on the FPGAs
}

TEST(ProgramMpi, CollectivesOfOneCommunicatorInDifferentOrdersAreNamed)
{
  // Rank 1 computes before its barrier (op 2); the allreduce (op 3) depends only on op 0, so rank 1 calls it first
  // while rank 0 calls the barrier first. MPI's one context per communicator then paired the allreduce's 1 KiB with
  // the barrier's empty message ("internal error", exit 1; a fuzzed Chakra trace found it); the CCLO deadlocked.
  const std::string ops = R"({"op": "compute", "duration": "1us"},
      {"op": "compute", "ranks": [1], "duration": "10us"},
      {"op": "barrier"},
      {"op": "allreduce", "src": "a", "dst": "b", "after": [0]},
      {"op": "wait", "after": [2, 3]})";
  const std::string bufs = R"({"name": "a", "elements": 256}, {"name": "b", "elements": 256})";
  for (const char* engine : {"mpi", "cclo"}) {
    auto r = run_scenario_isolated(program(2, bufs, ops, "", engine));
    ASSERT_FALSE(r.ok) << engine;
    EXPECT_EQ(r.error_kind, "simulation") << engine << ": " << r.error;
    EXPECT_NE(r.error.find("in different orders: rank 1 calls operation 3 (allreduce)"), std::string::npos)
        << engine << ": " << r.error;
    EXPECT_NE(r.error.find("operation 2 (barrier)"), std::string::npos) << engine << ": " << r.error;
  }
  // Made dependent, it runs and verifies.
  const std::string fixed = R"({"op": "compute", "duration": "1us"},
      {"op": "compute", "ranks": [1], "duration": "10us"},
      {"op": "barrier"},
      {"op": "allreduce", "src": "a", "dst": "b", "after": [2]},
      {"op": "wait", "after": [3]})";
  auto ok = run_scenario_isolated(program(2, bufs, fixed, "", "mpi"));
  ASSERT_TRUE(ok.ok) << ok.error;
  EXPECT_TRUE(verified_on_mpi(ok));
}

TEST(ProgramMpi, AnEngineWithoutItsNodesIsAConfigError)
{
  auto r = run_scenario_isolated(R"({"name": "e", "platform": {"preset": "accl-coyote-u55c",
      "topology": {"kind": "star", "hosts": 4}}, "workload": {"kind": "program", "engine": "mpi", "ranks": 2,
      "buffers": [{"name": "x", "elements": 8}], "ops": [{"op": "barrier"}]}})");
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("/workload/ranks"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("CPU host"), std::string::npos) << r.error;
  auto p = run_scenario_isolated(program(2, R"({"name": "x", "elements": 8})", R"({"op": "barrier"})",
                                         R"(, "positions": [0, 5])", "mpi"));
  ASSERT_FALSE(p.ok);
  EXPECT_NE(p.error.find("/workload/positions/1"), std::string::npos) << p.error;
  auto s = run_scenario_isolated(program(2, R"({"name": "x", "elements": 8}, {"name": "k", "elements": 8, "memory": "stream"})",
                                         R"({"op": "barrier"})", "", "mpi"));
  ASSERT_FALSE(s.ok);
  EXPECT_NE(s.error.find("/workload/buffers/1/memory"), std::string::npos) << s.error;
}

// The library picks its algorithm and protocol itself: a forced one was ignored while the op named it (a ring
// allreduce ran Rabenseifner, a rendezvous send went eager). An eager send stays: a buffered send, as run.
TEST(ProgramMpi, ChoicesTheLibraryMakesItselfAreRefusedWhereGiven)
{
  const std::string bufs = R"({"name": "a", "elements": 16384}, {"name": "b", "elements": 16384})";
  for (auto [ops, path] :
       {std::pair{R"({"op": "allreduce", "src": "a", "dst": "b", "algorithm": "ring"})", "/workload/ops/0/algorithm"},
        std::pair{R"({"op": "allreduce", "src": "a", "dst": "b", "protocol": "eager"})", "/workload/ops/0/protocol"},
        std::pair{R"({"op": "send", "ranks": [0], "peer": 1, "src": "a", "protocol": "rendezvous"},
                     {"op": "recv", "ranks": [1], "peer": 0, "dst": "b", "protocol": "rendezvous"})",
                  "/workload/ops/0/protocol"}}) {
    auto r = run_scenario_isolated(program(4, bufs, ops, "", "mpi"));
    ASSERT_FALSE(r.ok) << ops;
    EXPECT_EQ(r.error_kind, "config") << r.error;
    EXPECT_NE(r.error.find(path), std::string::npos) << r.error;
  }
  auto eager = run_scenario_isolated(program(2, bufs, R"({"op": "send", "ranks": [0], "peer": 1, "src": "a", "protocol": "eager"},
      {"op": "recv", "ranks": [1], "peer": 0, "dst": "b", "protocol": "eager"})", "", "mpi"));
  EXPECT_TRUE(eager.ok) << eager.error;
}

// On the MPI engine a copy or combine is the CPU's own loop (no call): program_ranks counts it as compute, not as
// communication exposed (a 4 MiB combine after a 1 MiB allreduce inflated the exposed communication by 58 %).
TEST(ProgramMpi, ACopyOrCombineIsTheCpusComputeNotCommunication)
{
  const std::string bufs = R"({"name": "a", "elements": 1048576}, {"name": "b", "elements": 1048576})";
  auto r = run_scenario_isolated(program(2, bufs, R"({"op": "allreduce", "src": "a", "dst": "b", "count": 262144},
      {"op": "combine", "src": "a", "dst": "b"})", "", "mpi"));
  ASSERT_TRUE(r.ok) << r.error;
  auto const& ops   = r.tables.at("program_ops");
  auto const& ranks = r.tables.at("program_ranks");
  for (std::size_t k = 0; k < ranks.rows.size(); ++k) {
    double call = 0, loop = 0;
    for (std::size_t i = 0; i < ops.rows.size(); ++i) {
      if (ops.num(i, "rank") != ranks.num(k, "rank"))
        continue;
      (ops.rows[i].at("kind") == "combine" ? loop : call) += ops.num(i, "end_us") - ops.num(i, "start_us");
    }
    EXPECT_GT(loop, 0.0);
    EXPECT_NEAR(ranks.num(k, "communication_us"), call, 1e-3);
    EXPECT_NEAR(ranks.num(k, "exposed_communication_us"), call, 1e-3);
    EXPECT_NEAR(ranks.num(k, "compute_us"), loop, 1e-3);
  }
}

// Open MPI and MPICH over UCX run no progress thread by default: the library progresses only inside MPI calls, so
// a call in flight beside a compute phase that takes every core (the rank's own thread computing) makes no progress
// until the phase ends. The model progressed it on a core of its own: a 1 MiB allreduce (676 us) was hidden under a
// 13 ms phase. A phase that leaves cores free, or one given by duration (an accelerator's kernel), holds nothing.
TEST(ProgramMpi, ACallInFlightBesideAPhaseOfEveryCoreProgressesOnlyAfterIt)
{
  const std::string bufs = R"({"name": "a", "elements": 1048576}, {"name": "b", "elements": 1048576})";
  struct Out {
    double call_end = 0, phase_end = 0;
    std::string said;
  };
  auto run = [&](const std::string& compute, const std::string& extra) {
    auto r = run_scenario_isolated(program(2, bufs, R"({"op": "compute", "duration": "1ns"},
        {"op": "allreduce", "src": "a", "dst": "b"}, )" + compute + R"(, {"op": "wait", "after": [1, 2]})",
                                           extra, "mpi"));
    Out o;
    EXPECT_TRUE(r.ok) << r.error;
    if (!r.ok)
      return o;
    EXPECT_TRUE(verified(r));
    o.call_end  = latest_end(r.tables.at("program_ops"), 1);
    o.phase_end = latest_end(r.tables.at("program_ops"), 2);
    for (auto const& l : r.summary)
      if (l.find("the library made no progress during them") != std::string::npos)
        o.said = l;
    return o;
  };
  const std::string by_work = R"({"op": "compute", "operations": 20000000000, "after": [0]})";
  const Out all             = run(by_work, "");
  EXPECT_GT(all.phase_end, 10000.0);
  EXPECT_GT(all.call_end, all.phase_end + 500) << "the allreduce's work waits for the phase, then takes its time";
  EXPECT_NE(all.said.find("on 2 rank(s)"), std::string::npos) << all.said;
  const Out four = run(by_work, R"(, "compute": {"threads": 4})");
  EXPECT_LT(four.call_end, 1000.0) << "a core stays free: the allreduce runs beside the phase";
  EXPECT_EQ(four.said, "");
  const Out timed = run(R"({"op": "compute", "duration": "2ms", "after": [0]})", "");
  EXPECT_LT(timed.call_end, 1000.0);
  EXPECT_EQ(timed.said, "");
}
