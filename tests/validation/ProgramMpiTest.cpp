// The `program` workload on the MPI engine (workloads/program/MpiEngine): the same programs run by the hosts'
// software MPI library, verified step by step; a call takes the mpi workload's time; tags and communicators match
// separately, as MPI's contexts do.
#include "tests/support/RunScenario.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

using namespace nafsim::testing;

namespace {

std::string program(unsigned ranks, const std::string& buffers, const std::string& ops, const std::string& extra = "",
                    const std::string& engine = "mpi")
{
  return fmt::format(R"({{"name": "program-mpi-test", "platform": {{"preset": "accl-cpu-cx5",
      "topology": {{"kind": "star", "hosts": {0}}}}},
      "workload": {{"kind": "program", "engine": "{4}", "ranks": {0}, "buffers": [{1}], "ops": [{2}] {3}}}}})",
                     ranks, buffers, ops, extra, engine);
}

bool verified(const ScenarioRun& r)
{
  for (auto const& l : r.summary)
    if (l.find("program:") != std::string::npos)
      return l.find("verified:") != std::string::npos && l.find("MPI on CPU hosts") != std::string::npos;
  return false;
}

double latest_end(const Csv& t, int op)
{
  double m = 0;
  for (std::size_t i = 0; i < t.rows.size(); ++i)
    if (std::stoi(t.rows[i].at("op")) == op)
      m = std::max(m, t.num(i, "end_us"));
  return m;
}

} // namespace

TEST(ProgramMpi, AReduceTakesWhatTheMpiWorkloadMeasures)
{
  auto p = run_scenario_isolated(program(6, R"({"name": "a", "elements": 32768}, {"name": "b", "elements": 32768})",
                                         R"({"op": "reduce", "src": "a", "dst": "b", "root": 2})"));
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_TRUE(verified(p));
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
  auto r = run_scenario_isolated(program(
      4,
      R"({"name": "x", "elements": 512}, {"name": "y", "elements": 512, "init": "zero"},
         {"name": "g", "elements": 1024, "init": "zero"}, {"name": "s", "elements": 1024, "init": "zero"})",
      R"({"op": "send", "shift": 1, "src": "x", "count": 128, "tag": 3},
         {"op": "recv", "shift": -1, "dst": "y", "count": 128, "tag": 3},
         {"op": "allgather", "comm": "left", "src": "y", "dst": "g"},
         {"op": "allgather", "comm": "right", "src": "y", "dst": "g"},
         {"op": "allreduce", "src": "g", "dst": "s"},
         {"op": "reduce-scatter", "src": "s", "dst": "x", "count": 256},
         {"op": "copy", "src": "x", "dst": "g", "count": 256, "dst_offset": 256},
         {"op": "combine", "src": "y", "dst": "x", "func": "max"})",
      R"(, "communicators": [{"name": "left", "ranks": [0, 1]}, {"name": "right", "ranks": [3, 2]}])"));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(verified(r));
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
  auto r = run_scenario_isolated(program(2, bufs, ops));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(verified(r));
  auto f = run_scenario_isolated(fmt::format(R"({{"name": "cclo", "platform": {{"preset": "accl-coyote-u55c",
      "topology": {{"kind": "star", "hosts": 2}}}}, "workload": {{"kind": "program", "ranks": 2,
      "buffers": [{}], "ops": [{}]}}}})", bufs, ops));
  ASSERT_TRUE(f.ok) << f.error; // the CCLO's tags: the same program verifies on the FPGAs
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
                                         R"(, "positions": [0, 5])"));
  ASSERT_FALSE(p.ok);
  EXPECT_NE(p.error.find("/workload/positions/1"), std::string::npos) << p.error;
  auto s = run_scenario_isolated(program(2, R"({"name": "x", "elements": 8}, {"name": "k", "elements": 8, "memory": "stream"})",
                                         R"({"op": "barrier"})"));
  ASSERT_FALSE(s.ok);
  EXPECT_NE(s.error.find("/workload/buffers/1/memory"), std::string::npos) << s.error;
}
