// The DLRM plan's command streams (workloads/dlrm/DlrmPlan.hpp), without the engine: the hardware takes a peer's
// eager messages in the order they were sent whatever their tags, so every node must receive a peer's messages in
// the order that peer sends them, which per-op processes did not (the slice and the partial of one row overtook
// each other at the row's gathering node).
#include "workloads/dlrm/DlrmPlan.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

using namespace nafsim;
using namespace nafsim::workloads;

namespace {

DlrmPlan plan_for(unsigned embedding_nodes, unsigned column_blocks)
{
  DlrmConfig cfg;
  cfg.partition.embedding_nodes   = embedding_nodes;
  cfg.partition.fc1_column_blocks = column_blocks;
  return make_dlrm_plan(cfg, nodes::FpgaFabricConfig{});
}

} // namespace

TEST(DlrmPlan, ARowsSliceAndPartialToOneNodeGoThroughOneStreamOnEachEnd)
{
  // Fig. 15: embedding node r (column 0) sends its slice and, after its FC1 block, its partial to column 1.
  const DlrmPlan plan = plan_for(4, 2);
  for (unsigned r = 0; r < 4; ++r) {
    const unsigned gather = 4 + r; // column 1 of row r
    EXPECT_EQ(dlrm_send_order(plan, r, gather), (std::vector<std::uint32_t>{kTagSlice, kTagPartial})) << r;
    EXPECT_EQ(dlrm_receive_order(plan, r, gather), (std::vector<std::uint32_t>{kTagSlice, kTagPartial})) << r;
    auto in_one_stream = [](const DlrmNode& n, DlrmOpKind kind, unsigned peer) {
      for (auto const& s : dlrm_streams(n)) {
        unsigned mine = 0;
        for (auto j : s)
          mine += n.ops[j].kind == kind && n.ops[j].peer == peer;
        if (mine > 0)
          return mine == 2 && s.size() == 2;
      }
      return false;
    };
    EXPECT_TRUE(in_one_stream(plan.nodes[r], DlrmOpKind::Send, gather)) << r;
    EXPECT_TRUE(in_one_stream(plan.nodes[gather], DlrmOpKind::Recv, r)) << r;
  }
}

TEST(DlrmPlan, EveryNodeReceivesAPeersMessagesInTheOrderThePeerSendsThem)
{
  for (auto [e, c] : {std::pair{4u, 1u}, {4u, 2u}, {4u, 3u}, {3u, 4u}, {5u, 2u}}) {
    const DlrmPlan plan = plan_for(e, c);
    unsigned pairs      = 0;
    for (unsigned from = 0; from < plan.nodes.size(); ++from)
      for (unsigned to = 0; to < plan.nodes.size(); ++to) {
        auto sent = dlrm_send_order(plan, from, to);
        EXPECT_EQ(sent, dlrm_receive_order(plan, from, to)) << fmt::format("{} x {}: {} -> {}", e, c, from, to);
        pairs += !sent.empty();
      }
    // Every row: its slice to columns 1..C-1 and the partials to the last column; the layers after FC2 one each.
    EXPECT_EQ(pairs, e * (c - 1) + (c > 1 ? e * (c - 2) : 0) + 1) << e << " x " << c;
  }
}

TEST(DlrmPlan, KernelsAndReducesKeepAStreamOfTheirOwn)
{
  const DlrmPlan plan = plan_for(4, 2);
  for (auto const& n : plan.nodes)
    for (auto const& s : dlrm_streams(n))
      for (auto j : s)
        if (n.ops[j].kind != DlrmOpKind::Send && n.ops[j].kind != DlrmOpKind::Recv) {
          EXPECT_EQ(s.size(), 1u) << n.role << ": " << n.ops[j].name;
        }
}
