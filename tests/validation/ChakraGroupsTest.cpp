// Chakra traces' communicators (workloads/chakra): process groups from metadata nodes and comm_groups files, integer
// group ids, PyTorch's default group "0", groups of one member; split from ChakraTest.cpp (one concept per file).
#include "tests/support/ChakraTraces.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <tuple>

using namespace nafsim::testing;
using namespace nafsim::testing::chakra;

TEST(Chakra, CommunicatorsFromMetadataNodesAndReplicatedSymmetricTraces)
{
  // PyTorch's converter declares process groups in a METADATA_NODE's inputs.values.
  auto dir = scratch("meta");
  for (unsigned r = 0; r < 4; ++r) {
    auto meta = make_node(1, pb::METADATA_NODE, "process groups");
    meta.mutable_inputs()->set_values(R"([{"pg_name": "0", "ranks": []}, {"pg_name": "pairs-a", "ranks": [0, 1]},
                                          {"pg_name": "pairs-b", "ranks": [2, 3]}])");
    auto ar = collective(2, pb::ALL_REDUCE, 65536, {1});
    auto* pg = ar.add_attr();
    pg->set_name("pg_name");
    pg->set_string_val(r < 2 ? "pairs-a" : "pairs-b");
    write_rank(dir / fmt::format("m.{}.et", r), {meta, ar});
  }
  auto t = run_scenario_isolated(scenario(dir / "m", 4));
  ASSERT_TRUE(t.ok) << t.error;
  auto const& ops = t.tables.at("program_ops");
  std::size_t calls = 0;
  for (std::size_t i = 0; i < ops.rows.size(); ++i) {
    if (ops.rows[i].at("kind") != "allreduce")
      continue; // the metadata nodes: no time
    ++calls;
    EXPECT_EQ(ops.rows[i].at("comm"), std::stoi(ops.rows[i].at("rank")) < 2 ? "pairs-a" : "pairs-b");
  }
  EXPECT_EQ(calls, 4u);
  // One rank declaring a group with other members is an error naming its node.
  auto meta = make_node(1, pb::METADATA_NODE, "process groups");
  meta.mutable_inputs()->set_values(R"([{"pg_name": "pairs-a", "ranks": [0, 2]}])");
  write_rank(dir / "m.3.et", {meta, collective(2, pb::ALL_REDUCE, 65536, {1})});
  auto bad = run_scenario_isolated(scenario(dir / "m", 4));
  ASSERT_FALSE(bad.ok);
  EXPECT_NE(bad.error.find("m.3.et"), std::string::npos) << bad.error;
  EXPECT_NE(bad.error.find("pairs-a"), std::string::npos) << bad.error;

  // A symmetric trace: rank 0's file on 8 ranks, only when asked, and said.
  write_rank(dir / "s.0.et", {collective(1, pb::ALL_REDUCE, 1 << 20)});
  auto rep = run_scenario_isolated(scenario(dir / "s", 8, R"(, "ranks": 8, "replicate": true)"));
  ASSERT_TRUE(rep.ok) << rep.error;
  bool said = false;
  for (auto const& l : rep.summary)
    said = said || l.find("replicated on every rank") != std::string::npos;
  EXPECT_TRUE(said);
  EXPECT_EQ(rep.tables.at("program_ops").rows.size(), 8u);
  auto unasked = run_scenario_isolated(scenario(dir / "s", 8, R"(, "ranks": 8)"));
  ASSERT_FALSE(unasked.ok); // s.1.et is missing
  EXPECT_NE(unasked.error.find("s.1.et"), std::string::npos) << unasked.error;
  write_rank(dir / "p.0.et", {[] {
          auto n = make_node(1, pb::COMM_SEND_NODE, "send");
          add_int(n, "comm_dst", 1);
          add_int(n, "comm_size", 64);
          return n;
        }()});
  auto p2p = run_scenario_isolated(scenario(dir / "p", 8, R"(, "ranks": 8, "replicate": true)"));
  ASSERT_FALSE(p2p.ok);
  EXPECT_NE(p2p.error.find("replicate"), std::string::npos) << p2p.error;
  fs::remove_all(dir);
}

TEST(Chakra, ProcessGroupZeroIsEveryRankUnlessDeclared)
{
  // PyTorch's default process group is "0"; ASTRA-sim takes "" and "0" as every rank (Workload::extract_comm_group).
  // A trace whose collectives name it without a metadata node declaring it had been refused ("no communicator group
  // '0'"); it runs as on every rank.
  auto dir = scratch("pg0");
  auto named = [](std::uint64_t id, const char* group) {
    auto n = collective(id, pb::ALL_REDUCE, 65536);
    if (group) {
      auto* pg = n.add_attr();
      pg->set_name("pg_name");
      pg->set_string_val(group);
    }
    return n;
  };
  std::vector<std::vector<pb::Node>> zero(4, {named(1, "0")}), none(4, {named(1, nullptr)});
  auto a = run_trace(dir, "z", zero, "");
  ASSERT_TRUE(a.ok) << a.error;
  auto b = run_trace(dir, "n", none, "");
  ASSERT_TRUE(b.ok) << b.error;
  EXPECT_EQ(last_end(a), last_end(b));
  // Any other undeclared group is still an error saying where to declare it.
  std::vector<std::vector<pb::Node>> seven(4, {named(1, "7")});
  auto c = run_trace(dir, "s", seven, "");
  EXPECT_FALSE(c.ok);
  EXPECT_NE(c.error.find("no communicator group '7': declare it in the trace's process-group metadata node or in "
                         "workload.comm_groups"),
            std::string::npos)
      << c.error;
  fs::remove_all(dir);
}

// A process group named by an integer id (as some generators write pg_name) is the group of that id; a collective
// spanning only some of ASTRA-sim's network dimensions (involved_dim) without a group has no ranks nafsim could give
// it and is refused, where it ran on every rank, unsaid.
TEST(Chakra, IntegerGroupIdsNameTheirGroupAndPartialDimensionsWithoutAGroupAreRefused)
{
  auto dir = scratch("groups");
  {
    std::ofstream g(dir / "groups.json");
    g << R"({"1": [0, 1], "2": [2, 3]})";
  }
  const std::string groups = fmt::format(R"(, "comm_groups": "{}")", (dir / "groups.json").string());
  auto traces = [&](auto&& set) {
    std::vector<std::vector<pb::Node>> ranks;
    for (unsigned r = 0; r < 4; ++r) {
      auto n = collective(1, pb::ALL_REDUCE, 65536);
      set(n, r);
      ranks.push_back({n});
    }
    return ranks;
  };
  auto named = run_trace(dir, "s", traces([](pb::Node& n, unsigned r) {
                           auto* a = n.add_attr();
                           a->set_name("pg_name");
                           a->set_string_val(r < 2 ? "1" : "2");
                         }),
                         groups);
  auto ids = run_trace(dir, "i", traces([](pb::Node& n, unsigned r) { add_int(n, "pg_name", r < 2 ? 1 : 2); }), groups);
  auto all = run_trace(dir, "a", traces([](pb::Node&, unsigned) {}), groups);
  ASSERT_TRUE(named.ok) << named.error;
  ASSERT_TRUE(ids.ok) << ids.error;
  ASSERT_TRUE(all.ok) << all.error;
  EXPECT_EQ(last_end(ids), last_end(named));
  EXPECT_NE(last_end(all), last_end(named)) << "two 2-rank groups, not one 4-rank allreduce";
  auto dims = [&](bool second) {
    return traces([second](pb::Node& n, unsigned) {
      auto* a = n.add_attr();
      a->set_name("involved_dim");
      a->mutable_bool_list()->add_values(true);
      a->mutable_bool_list()->add_values(second);
    });
  };
  auto partial = run_trace(dir, "p", dims(false), groups);
  ASSERT_FALSE(partial.ok);
  EXPECT_NE(partial.error.find("involved_dim: the collective spans only some of ASTRA-sim's network dimensions "
                               "([true, false])"),
            std::string::npos)
      << partial.error;
  EXPECT_NE(partial.error.find("name the ranks it spans as a communicator"), std::string::npos) << partial.error;
  auto every = run_trace(dir, "e", dims(true), groups);
  ASSERT_TRUE(every.ok) << every.error;
  EXPECT_EQ(last_end(every), last_end(all));
  // pg_name "0" is ASTRA-sim's default group, which reads involved_dim as no group does (it had run on every rank,
  // unsaid); a dimension list that is no bool list is refused, as ASTRA-sim refuses it (it had been ignored).
  auto zero = run_trace(dir, "z", traces([](pb::Node& n, unsigned) {
                          auto* pg = n.add_attr();
                          pg->set_name("pg_name");
                          pg->set_string_val("0");
                          auto* a = n.add_attr();
                          a->set_name("involved_dim");
                          a->mutable_bool_list()->add_values(true);
                          a->mutable_bool_list()->add_values(false);
                        }),
                        "");
  ASSERT_FALSE(zero.ok);
  EXPECT_NE(zero.error.find("only some of ASTRA-sim's network dimensions"), std::string::npos) << zero.error;
  EXPECT_NE(zero.error.find("a pg_name other than \"0\""), std::string::npos) << zero.error;
  auto not_bools = run_trace(dir, "b", traces([](pb::Node& n, unsigned) { add_int(n, "involved_dim", 1); }), "");
  ASSERT_FALSE(not_bools.ok);
  EXPECT_NE(not_bools.error.find("involved_dim: the network dimensions a collective spans are a bool list"),
            std::string::npos)
      << not_bools.error;
  fs::remove_all(dir);
}

// An all-gather on a process group of one member (PyTorch records one for a parallelism of one) is a copy of the
// rank's shard to both producers (NCCL copies with one rank). The firmware has no one-rank allgather, so the replay
// runs the CCLO's copy, says so, and counts it; before, the run failed with the firmware's reason, which a trace's
// user cannot act on. Groups of more members keep their allgather.
TEST(Chakra, AnAllgatherOnAGroupOfOneMemberIsTheCclosCopy)
{
  auto dir = scratch("onemember");
  {
    std::ofstream g(dir / "groups.json");
    g << R"({"a": [0], "b": [1], "c": [2], "d": [3]})";
  }
  const std::string groups = fmt::format(R"(, "comm_groups": "{}")", (dir / "groups.json").string());
  std::vector<std::vector<pb::Node>> ranks;
  for (unsigned r = 0; r < 4; ++r) {
    auto own = collective(1, pb::ALL_GATHER, 65536);
    auto* a  = own.add_attr();
    a->set_name("pg_name");
    a->set_string_val(std::string(1, static_cast<char>('a' + r)));
    ranks.push_back({own, collective(2, pb::ALL_GATHER, 65536, {1})});
  }
  for (const char* mode : {"", R"(, "stream": true)"}) {
    auto t = run_trace(dir, "t", ranks, groups + mode);
    ASSERT_TRUE(t.ok) << mode << ": " << t.error;
    EXPECT_EQ(t.metadata.at("workload").at("one_member_allgathers"), 4) << mode;
    bool said = false;
    for (auto const& l : t.summary)
      said = said || l.find("4 all-gather node(s) on a group of one member ran as the CCLO's copy") != std::string::npos;
    EXPECT_TRUE(said) << mode;
    if (*mode != 0)
      continue;
    auto const& ops = t.tables.at("program_ops");
    std::map<std::string, int> kinds;
    for (auto const& row : ops.rows)
      ++kinds[row.at("kind")];
    EXPECT_EQ(kinds["copy"], 4) << "each rank's own group";
    EXPECT_EQ(kinds["allgather"], 4) << "the four ranks' allgather on every rank";
  }
  fs::remove_all(dir);
}

// What the replay does differently from the producer is said: collectives on a group of one member (a parallelism of
// one) run as the engine's one-rank call, where ASTRA-sim builds no phase; ASTRA-sim's comm_priority and
// involved_dim are read by nothing. Both were silent.
TEST(Chakra, OneMemberCollectivesAndUnreadAttributesAreSaid)
{
  auto dir = scratch("onemember");
  {
    std::ofstream g(dir / "groups.json");
    g << R"({"s0": [0], "s1": [1]})";
  }
  const std::string groups = fmt::format(R"(, "comm_groups": "{}")", (dir / "groups.json").string());
  std::vector<std::vector<pb::Node>> ranks;
  for (unsigned r = 0; r < 2; ++r) {
    auto n = collective(1, pb::ALL_REDUCE, 65536);
    auto* a = n.add_attr();
    a->set_name("pg_name");
    a->set_string_val(r == 0 ? "s0" : "s1");
    add_int(n, "comm_priority", 7);
    ranks.push_back({n});
  }
  auto run = run_trace(dir, "o", ranks, groups);
  ASSERT_TRUE(run.ok) << run.error;
  auto said = [&](const std::string& text) {
    for (auto const& l : run.summary)
      if (l.find(text) != std::string::npos)
        return true;
    return false;
  };
  EXPECT_TRUE(said("2 collective node(s) on a group of one member ran as the engine's one-rank call"));
  EXPECT_TRUE(said("2 collective node(s) carry comm_priority, which the replay reads nothing of"));
  EXPECT_EQ(run.metadata.at("workload").at("one_member_collectives").get<int>(), 2);
  fs::remove_all(dir);
}
