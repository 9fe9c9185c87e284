// Chakra traces read as they run (workload.stream): the whole trace's times, what streaming cannot do and says, the
// window's ASSUMPTION (workloads/chakra/README.md).
#include "nodes/compute/CpuCompute.hpp"
#include "nodes/compute/FpgaKernel.hpp"
#include "tests/support/ChakraTraces.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <tuple>

using namespace nafsim::testing;
using namespace nafsim::testing::chakra;

TEST(Chakra, CollectivesOfTwoGroupsListedInOppositeOrdersRunReadWholeAndStreamedSaysWhy)
{
  // Two groups of the same two ranks (the second lists them the other way round), their collectives listed in
  // opposite id orders on the two ranks, no dependency
  // between them (ASTRA-sim runs them side by side). Read whole they run in one order both ranks keep; streamed, each
  // rank issues its ready collectives in id order, which deadlocks the CCLO (one call at a time), and the report says
  // to read the trace whole.
  auto dir = scratch("orders");
  auto meta = make_node(9, pb::METADATA_NODE, "process groups");
  meta.mutable_inputs()->set_values(R"([{"pg_name": "a", "ranks": [0, 1]}, {"pg_name": "b", "ranks": [1, 0]}])");
  auto in = [](std::uint64_t id, const char* group) {
    auto n   = collective(id, pb::ALL_REDUCE, 65536);
    auto* pg = n.add_attr();
    pg->set_name("pg_name");
    pg->set_string_val(group);
    return n;
  };
  write_rank(dir / "o.0.et", {meta, in(1, "a"), in(2, "b")});
  write_rank(dir / "o.1.et", {meta, in(1, "b"), in(2, "a")});
  auto whole = run_scenario_isolated(scenario(dir / "o", 4, R"(, "ranks": 2)"));
  ASSERT_TRUE(whole.ok) << whole.error;
  EXPECT_TRUE(whole.metadata.at("workload").at("issue_orders_opposed").get<bool>());
  bool said = false;
  for (auto const& l : whole.summary)
    said = said || l.find("issue some communicators' collectives in opposite orders") != std::string::npos;
  EXPECT_TRUE(said);
  auto streamed = run_scenario_isolated(scenario(dir / "o", 4, R"(, "ranks": 2, "stream": true)"));
  EXPECT_FALSE(streamed.ok);
  EXPECT_EQ(streamed.error_kind, "deadlock") << streamed.error;
  EXPECT_NE(streamed.error.find("read whole (workload.stream: false)"), std::string::npos) << streamed.error;
  fs::remove_all(dir);
}

TEST(Chakra, ARanksCollectivesRunInTheOrderItIssuesThemReadWholeAsStreamed)
{
  // Rank 1 issues B (group b, with rank 2) before A (group a, with rank 0, which computes 100 us first): ASTRA-sim
  // issues both at 0, lowest id first. Read whole, the ranks' one order had followed the numbering of rank 0's nodes
  // (A first), so B, and rank 2, waited for rank 0's compute (157 us against 29 us streamed).
  auto dir  = scratch("issue-order");
  auto meta = make_node(9, pb::METADATA_NODE, "process groups");
  meta.mutable_inputs()->set_values(R"([{"pg_name": "a", "ranks": [0, 1]}, {"pg_name": "b", "ranks": [1, 2]}])");
  auto in = [](std::uint64_t id, const char* group, std::vector<std::uint64_t> deps = {}) {
    auto n   = collective(id, pb::ALL_REDUCE, 65536, std::move(deps));
    auto* pg = n.add_attr();
    pg->set_name("pg_name");
    pg->set_string_val(group);
    return n;
  };
  auto work = make_node(1, pb::COMP_NODE, "work");
  work.set_duration_micros(100);
  write_rank(dir / "i.0.et", {meta, work, in(2, "a", {1})});
  write_rank(dir / "i.1.et", {meta, in(5, "b"), in(6, "a")});
  write_rank(dir / "i.2.et", {meta, in(5, "b")});
  auto whole = run_scenario_isolated(scenario(dir / "i", 4, R"(, "ranks": 3)"));
  ASSERT_TRUE(whole.ok) << whole.error;
  auto streamed = run_scenario_isolated(scenario(dir / "i", 4, R"(, "ranks": 3, "stream": true)"));
  ASSERT_TRUE(streamed.ok) << streamed.error;
  auto const& a = whole.tables.at("program_ranks");
  auto const& b = streamed.tables.at("program_ranks");
  ASSERT_EQ(a.rows.size(), 3u);
  ASSERT_EQ(b.rows.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i)
    EXPECT_NEAR(a.num(i, "end_us"), b.num(i, "end_us"), 1e-3) << "rank " << i;
  EXPECT_LT(a.num(2, "end_us"), 100.0) << "B waited for rank 0's compute";
  EXPECT_FALSE(whole.metadata.at("workload").at("issue_orders_opposed").get<bool>());
  EXPECT_GT(a.num(1, "end_us"), 100.0);
  fs::remove_all(dir);
}

TEST(Chakra, AGroupOneRanksFileDeclaresIsKnownToEveryRankStreamedAsReadWhole)
{
  // Group "g" of ranks 0 and 1 is declared only by rank 1's file (its leading metadata node); rank 0's collective
  // names it. Read whole every file's metadata is read first; streamed, rank 0 had met its collective before rank 1's
  // reader reached the declaration ("no communicator group 'g'"; the audit of 2026-12-07).
  auto dir  = scratch("group-elsewhere");
  auto meta = make_node(9, pb::METADATA_NODE, "process groups");
  meta.mutable_inputs()->set_values(R"([{"pg_name": "g", "ranks": [0, 1]}])");
  auto in_g = [] {
    auto n   = collective(1, pb::ALL_REDUCE, 65536);
    auto* pg = n.add_attr();
    pg->set_name("pg_name");
    pg->set_string_val("g");
    return n;
  };
  write_rank(dir / "e.0.et", {in_g()});
  write_rank(dir / "e.1.et", {meta, in_g()});
  write_rank(dir / "e.2.et", {});
  auto whole = run_scenario_isolated(scenario(dir / "e", 4, R"(, "ranks": 3)"));
  ASSERT_TRUE(whole.ok) << whole.error;
  auto streamed = run_scenario_isolated(scenario(dir / "e", 4, R"(, "ranks": 3, "stream": true)"));
  ASSERT_TRUE(streamed.ok) << streamed.error;
  for (std::size_t i = 0; i < 3; ++i)
    EXPECT_NEAR(whole.tables.at("program_ranks").num(i, "end_us"), streamed.tables.at("program_ranks").num(i, "end_us"),
                1e-3)
        << "rank " << i;
  fs::remove_all(dir);
}

TEST(Chakra, AStreamedReplayTakesTheWholeTracesTimesAndChecksAsItGoes)
{
  // Nodes listed before their dependencies, a send and a receive in flight together, collectives between compute
  // phases: read as it runs, the trace takes exactly the times it takes read whole, on either engine.
  auto dir = scratch("stream");
  const unsigned p = 4;
  for (unsigned r = 0; r < p; ++r) {
    auto nodes = ring_rank(r, p, 10 + r);
    nodes.push_back(collective(5, pb::ALL_REDUCE, 1 << 18, {4}));
    nodes.push_back(collective(6, pb::ALL_GATHER, 4096, {5}));
    write_rank(dir / fmt::format("s.{}.et", r), nodes);
  }
  for (const char* engine : {"cclo", "mpi"}) {
    const std::string platform = std::string(engine) == "mpi" ? R"("preset": "accl-cpu-cx5", "node": {"kind": "host"})"
                                                              : R"("preset": "accl-coyote-u55c")";
    auto run = [&](bool stream) {
      return run_scenario_isolated(fmt::format(R"({{"name": "st", "platform": {{{}, "topology": {{"kind": "star",
          "hosts": 4}}}}, "workload": {{"kind": "chakra", "engine": "{}", "trace": "{}", "stream": {}}}}})",
                                               platform, engine, (dir / "s").string(), stream));
    };
    auto whole = run(false), streamed = run(true);
    ASSERT_TRUE(whole.ok) << whole.error;
    ASSERT_TRUE(streamed.ok) << streamed.error;
    EXPECT_EQ(streamed.tables.count("program_ops"), 0u); // totals only
    auto const& a = whole.tables.at("program_ranks");
    auto const& b = streamed.tables.at("program_ranks");
    ASSERT_EQ(a.rows.size(), b.rows.size());
    for (std::size_t i = 0; i < a.rows.size(); ++i)
      for (const char* col : {"operations", "end_us", "communication_us", "compute_us", "exposed_communication_us"})
        EXPECT_NEAR(a.num(i, col), b.num(i, col), 1e-3) << engine << " rank " << i << " " << col;
  }
  // Defects found as the nodes come: each an error naming the file and what is wrong, never a hang.
  auto bad = [&](const std::vector<std::vector<pb::Node>>& ranks, const std::string& want, bool truncate = false,
                 const std::string& extra = "") {
    auto t = run_trace(dir, "b", ranks, R"(, "stream": true)" + extra, truncate);
    EXPECT_FALSE(t.ok) << want;
    EXPECT_NE(t.error.find(want), std::string::npos) << t.error;
  };

  const std::string strict = R"(, "strict": true)";
  bad({{make_node(1, pb::COMP_NODE, "self", {1})}, {}}, "depends on itself", false, strict);
  bad({{make_node(1, pb::COMP_NODE, "x", {7})}, {}}, "which this file does not hold", false, strict);
  bad({{make_node(1, pb::COMP_NODE, "a", {2}), make_node(2, pb::COMP_NODE, "b", {1})}, {}}, "dependency cycle");
  bad({{collective(1, pb::ALL_REDUCE, 1024)}, {collective(1, pb::ALL_REDUCE, 1024)}}, "truncated", true);
  bad({{collective(1, pb::ALL_REDUCE, 1024)}, {collective(1, pb::ALL_GATHER, 1024)}}, "call different collectives");
  bad({{collective(1, pb::ALL_REDUCE, 1024)}, {}}, "deadlock"); // rank 1 never joins: the run says who waits
  bad({{p2p(1, true, 64, 1)}, {p2p(1, false, 128, 0)}}, "the matching");
  fs::remove_all(dir);
}

// Streamed, a rank reads 256 nodes ahead: a node ready beyond them starts when the window reaches it (the README's
// ASSUMPTION). A chain of 300 compute nodes of 1 us and, after it in the file, a node of 10 us that waits for
// nothing: read whole it runs at 0; streamed the window reads it once 45 chain nodes are done (one read per node
// done past the first 256), 45 us late, and the run says so. Without that node nothing is said.
TEST(Chakra, ANodeTheStreamedWindowHoldsBackIsSaid)
{
  auto dir = scratch("window");
  std::vector<pb::Node> nodes;
  for (std::uint64_t id = 1; id <= 300; ++id) {
    nodes.push_back(make_node(id, pb::COMP_NODE, "chain", id == 1 ? std::vector<std::uint64_t>{}
                                                                   : std::vector<std::uint64_t>{id - 1}));
    nodes.back().set_duration_micros(1);
  }
  auto alone = make_node(301, pb::COMP_NODE, "alone");
  alone.set_duration_micros(10);
  auto says = [](const ScenarioRun& r) {
    for (auto const& l : r.summary)
      if (l.find("stream window:") != std::string::npos)
        return l;
    return std::string();
  };
  const std::string order = R"(, "compute_order": "dependencies", "stream": true)";
  auto without = run_trace(dir, "w", {nodes}, order);
  ASSERT_TRUE(without.ok) << without.error;
  EXPECT_EQ(says(without), "");
  EXPECT_EQ(without.metadata.at("workload").at("stream_window_late_nodes"), 0);
  nodes.push_back(alone);
  auto with = run_trace(dir, "w", {nodes}, order);
  ASSERT_TRUE(with.ok) << with.error;
  EXPECT_NE(says(with).find("1 node(s) were ready before the 256-node window read them and started late, by up to "
                            "45.000 us (rank 0's node 301)"),
            std::string::npos)
      << says(with);
  EXPECT_EQ(with.metadata.at("workload").at("stream_window_late_nodes"), 1);
  EXPECT_NEAR(with.metadata.at("workload").at("stream_window_late_most_us").get<double>(), 45.0, 1e-9);
  EXPECT_NEAR(with.tables.at("program_ranks").num(0, "end_us"), 300.0, 1e-4); // the chain's end either way
  auto whole = run_trace(dir, "w", {nodes}, R"(, "compute_order": "dependencies")");
  ASSERT_TRUE(whole.ok) << whole.error;
  EXPECT_EQ(says(whole), "");
  EXPECT_FALSE(whole.metadata.at("workload").contains("stream_window_late_nodes"));
  // A node listed first that waits only for an id the file lacks: streamed, the id is known absent at the file's end,
  // reached once the chain's 46th node is done (256 of the 301 nodes read at 0, one more per node done, then the
  // end); read whole the dependency is dropped before the run and the node runs at 0.
  nodes.pop_back();
  nodes.insert(nodes.begin(), make_node(302, pb::COMP_NODE, "orphan", {999}));
  nodes.front().set_duration_micros(10);
  auto orphan = run_trace(dir, "w", {nodes}, order);
  ASSERT_TRUE(orphan.ok) << orphan.error;
  EXPECT_EQ(says(orphan), "");
  bool said = false;
  for (auto const& l : orphan.summary)
    said = said || l.find("1 node(s) waiting for ids their file does not hold started at the end of their file, late "
                          "by up to 46.000 us (rank 0's node 302)") != std::string::npos;
  EXPECT_TRUE(said);
  EXPECT_EQ(orphan.metadata.at("workload").at("stream_absent_late_nodes"), 1);
  fs::remove_all(dir);
}
