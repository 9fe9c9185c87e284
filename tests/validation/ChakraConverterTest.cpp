// Chakra traces as PyTorch's converter writes them (chakra_converter): its defects repaired, counted and refused when
// strict, its compute streams, its process groups and sends without peers.
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

namespace {

pb::Node op(std::uint64_t id, pb::NodeType type, const std::string& name, bool cpu, std::uint64_t us,
            std::vector<std::uint64_t> data = {}, std::vector<std::uint64_t> ctrl = {})
{
  auto n = make_node(id, type, name, data);
  for (auto d : ctrl)
    n.add_ctrl_deps(d);
  n.set_duration_micros(us);
  auto* a = n.add_attr(); // as Chakra's converter writes it: a bool
  a->set_name("is_cpu_op");
  a->set_bool_val(cpu);
  return n;
}

const pb::Node* named(const std::vector<pb::Node>& v, const std::string& name)
{
  for (auto const& n : v)
    if (n.name() == name)
      return &n;
  return nullptr;
}

} // namespace

TEST(Chakra, ConverterDefectsAreRepairedCountedAndRefusedWhenStrict)
{
  // What Chakra's converter output has (shared/reference/chakra/semantics.md section 4): a CPU operator and the GPU
  // kernel it launched waiting for each other, a dependency on a node the converter removed, a self-dependency, and
  // collectives without comm_type (one named as NCCL names an allreduce kernel, one naming nothing).
  auto dir = scratch("repair");
  std::vector<pb::Node> nodes;
  nodes.push_back(op(1, pb::COMP_NODE, "aten::mm", true, 4, {2}, {99})); // waits for its kernel; 99 is absent
  nodes.back().mutable_attr()->Add()->set_name("tid");
  nodes.push_back(op(2, pb::COMP_NODE, "gemm_kernel", false, 6, {}, {1})); // launched by 1
  nodes.push_back(op(3, pb::COMM_COLL_NODE, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", false, 0, {2}));
  add_int(nodes.back(), "comm_size", 65536);
  nodes.push_back(op(4, pb::COMM_COLL_NODE, "nccl:mystery", false, 0, {3}));
  add_int(nodes.back(), "comm_size", 64);
  nodes.push_back(op(5, pb::COMP_NODE, "tail", false, 1, {4, 5}));
  // An INVALID_NODE (type 0, what an unset type decodes to), skipped as ASTRA-sim skips it (it was refused).
  nodes.push_back(op(6, pb::INVALID_NODE, "invalid", false, 0, {3}));
  // Rank 1 lists its nodes the other way round (the kernel before its operator: the streamed reader meets the cycle
  // from the other side).
  std::vector<pb::Node> reversed(nodes.rbegin(), nodes.rend());
  for (bool stream : {false, true}) {
    auto t = run_trace(dir, "r", {nodes, reversed}, stream ? R"(, "stream": true)" : "");
    ASSERT_TRUE(t.ok) << t.error;
    auto const& rep = t.metadata.at("workload").at("chakra_repairs");
    EXPECT_EQ(rep.at("absent_dependencies_dropped"), 2) << stream; // one per rank
    EXPECT_EQ(rep.at("self_dependencies_dropped"), 2);
    EXPECT_EQ(rep.at("cpu_gpu_cycles_broken"), 2);
    EXPECT_EQ(rep.at("comm_types_from_names"), 2);
    EXPECT_EQ(rep.at("collectives_skipped"), 2);
    EXPECT_EQ(rep.at("invalid_nodes_skipped"), 2);
    bool said = false;
    for (auto const& l : t.summary)
      said = said || l.find("repaired as Chakra's converter output needs: 2 dependencies on nodes absent") !=
                         std::string::npos;
    EXPECT_TRUE(said);
    // The operator runs 4 us, then its kernel 6 us, then the allreduce (typed from its name), the skipped
    // collective and 1 us: each rank ends 1 us after its allreduce.
    auto const& ranks = t.tables.at("program_ranks");
    for (std::size_t r = 0; r < 2; ++r) {
      EXPECT_NEAR(ranks.num(r, "compute_us"), 11.0, 1e-4) << stream;
      EXPECT_GT(ranks.num(r, "communication_us"), 1.0);
    }
    if (!stream) {
      auto const& ops = t.tables.at("program_ops");
      for (std::size_t i = 0; i < ops.rows.size(); ++i)
        if (ops.rows[i].at("kind") == "allreduce") {
          EXPECT_NEAR(ops.num(i, "start_us"), 10.0, 1e-4);
          EXPECT_EQ(ops.rows[i].at("bytes"), "65536");
        }
    }
  }
  // strict: each repair is an error naming the file, the node and what is wrong.
  auto refused = [&](std::vector<pb::Node> v, const std::string& want) {
    for (bool stream : {false, true}) {
      auto t = run_trace(dir, "s", {v, v}, std::string(R"(, "strict": true)") + (stream ? R"(, "stream": true)" : ""));
      EXPECT_FALSE(t.ok) << want;
      EXPECT_EQ(t.error_kind, "config");
      EXPECT_NE(t.error.find(want), std::string::npos) << t.error;
      EXPECT_NE(t.error.find("s.0.et"), std::string::npos) << t.error;
    }
  };
  auto alone = [&](const std::string& name) { // the node without its other defects
    auto n = *named(nodes, name);
    n.clear_ctrl_deps();
    if (name != "aten::mm")
      n.clear_data_deps();
    if (name == "gemm_kernel")
      n.add_ctrl_deps(1);
    return n;
  };
  refused({alone("aten::mm"), alone("gemm_kernel")}, "the CPU operator waits for its own kernel");
  refused({alone("ncclDevKernel_AllReduce_Sum_f32_RING_LL")}, "without its comm_type attribute");
  refused({alone("nccl:mystery")}, "names no collective");
  refused({alone("invalid")}, "an INVALID_NODE (type 0");
  fs::remove_all(dir);
}

TEST(Chakra, ComputeNodesKeepTheirStreamsOrderOrRunAsAstraSimRunsThem)
{
  // Two kernels on GPU stream 1 and one on stream 2 (10 us each), two CPU operators on thread 5 and one on thread 6
  // (3 us each), none depending on another.
  auto dir = scratch("order");
  std::vector<pb::Node> nodes;
  auto on = [&](std::uint64_t id, const char* name, bool cpu, std::uint64_t us, std::int64_t lane) {
    nodes.push_back(op(id, pb::COMP_NODE, name, cpu, us));
    add_int(nodes.back(), cpu ? "tid" : "stream", lane);
  };
  on(1, "a", false, 10, 1);
  on(2, "b", false, 10, 1);
  on(3, "c", false, 10, 2);
  on(4, "d", true, 3, 5);
  on(5, "e", true, 3, 5);
  on(6, "f", true, 3, 6);
  struct Want {
    const char* order;
    std::map<std::string, double> start;
    double end;
  };
  const std::vector<Want> wants{
      {"streams", {{"a", 0}, {"b", 10}, {"c", 0}, {"d", 0}, {"e", 3}, {"f", 0}}, 20},
      {"astra-sim", {{"a", 0}, {"b", 10}, {"c", 20}, {"d", 0}, {"e", 3}, {"f", 6}}, 30},
      {"dependencies", {{"a", 0}, {"b", 0}, {"c", 0}, {"d", 0}, {"e", 0}, {"f", 0}}, 10}};
  for (auto const& w : wants)
    for (bool stream : {false, true}) {
      auto t = run_trace(dir, "o", {nodes}, fmt::format(R"(, "compute_order": "{}", "stream": {})", w.order, stream));
      ASSERT_TRUE(t.ok) << t.error;
      EXPECT_NEAR(t.tables.at("program_ranks").num(0, "end_us"), w.end, 1e-4) << w.order << " stream " << stream;
      if (stream)
        continue;
      auto const& ops = t.tables.at("program_ops");
      for (std::size_t i = 0; i < ops.rows.size(); ++i) {
        const std::string name = ops.rows[i].at("name").substr(0, 1);
        EXPECT_NEAR(ops.num(i, "start_us"), w.start.at(name), 1e-4) << w.order << " " << name;
      }
      bool said = false;
      for (auto const& l : t.summary)
        said = said || l.find(std::string("compute_order: ") + w.order) != std::string::npos;
      EXPECT_TRUE(said) << w.order;
    }
  fs::remove_all(dir);
}

TEST(Chakra, ConverterProcessGroupsAndSendsWithoutPeersOnTwoRankGroups)
{
  // Chakra's converter keeps PyTorch's `## process_group:init ##` input as Python's str() of the recorded inputs: a
  // list holding the JSON string of the groups (ranks [] for a group of every rank). Its sends and receives carry
  // comm_size and pg_name, no peer: on a group of two ranks the peer is the other one.
  auto dir = scratch("pg");
  const std::string groups =
      R"(['[{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl", "ranks": [], "group_size": 3}, )"
      R"({"pg_name": "5", "pg_desc": "pp", "backend_config": "cuda:nccl", "ranks": [1, 2], "group_size": 2}]'])";
  auto rank = [&](unsigned r, bool with_pp) {
    auto meta = make_node(1, pb::METADATA_NODE, "## process_group:init ##");
    meta.mutable_inputs()->set_values(groups);
    auto ar = collective(2, pb::ALL_REDUCE, 65536, {1});
    auto* pg = ar.add_attr();
    pg->set_name("pg_name");
    pg->set_string_val("0");
    std::vector<pb::Node> v{meta, ar};
    if (with_pp && r > 0) {
      auto p = make_node(3, r == 1 ? pb::COMM_SEND_NODE : pb::COMM_RECV_NODE, "ncclDevKernel_SendRecv", {2});
      add_int(p, "comm_size", 32768);
      auto* g = p.add_attr();
      g->set_name("pg_name");
      g->set_string_val("5");
      v.push_back(p);
    }
    return v;
  };
  auto t = run_trace(dir, "g", {rank(0, true), rank(1, true), rank(2, true)}, "");
  ASSERT_TRUE(t.ok) << t.error;
  auto const& ops = t.tables.at("program_ops");
  std::size_t sends = 0, recvs = 0, calls = 0;
  for (std::size_t i = 0; i < ops.rows.size(); ++i) {
    auto const& k = ops.rows[i].at("kind");
    calls += k == "allreduce";
    sends += k == "send" && ops.rows[i].at("rank") == "1";
    recvs += k == "recv" && ops.rows[i].at("rank") == "2";
    if (k == "allreduce") {
      EXPECT_EQ(ops.rows[i].at("comm"), "0");
    }
  }
  EXPECT_EQ(calls, 3u);
  EXPECT_EQ(sends, 1u);
  EXPECT_EQ(recvs, 1u);
  // On the three-rank group the peer cannot be told: refused, saying so.
  auto on_world = rank(1, false);
  auto p = make_node(3, pb::COMM_SEND_NODE, "ncclDevKernel_SendRecv", {2});
  add_int(p, "comm_size", 32768);
  auto* g = p.add_attr();
  g->set_name("pg_name");
  g->set_string_val("0");
  on_world.push_back(p);
  auto bad = run_trace(dir, "h", {rank(0, false), on_world, rank(2, false)}, "");
  ASSERT_FALSE(bad.ok);
  EXPECT_EQ(bad.error_kind, "config");
  EXPECT_NE(bad.error.find("h.1.et"), std::string::npos) << bad.error;
  EXPECT_NE(bad.error.find("group '0' has 3 ranks"), std::string::npos) << bad.error;
  fs::remove_all(dir);
}
