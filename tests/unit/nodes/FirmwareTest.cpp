// The CCLO firmware as ccl_offload_control.c runs it, and the ACCL+ benchmark harness around it:
// per-rank results, the pre-call barrier's skew, where the firmware waits (retry queue or busy-wait),
// the rendezvous completion notice queued behind the WRITE, and rank placement.
#include "tests/support/RunScenario.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <map>
#include <set>

using namespace nafsim::testing;

namespace {

std::string scenario(const std::string& workload, const std::string& platform = "")
{
  return fmt::format(R"({{"name": "firmware-test",
      "platform": {{"preset": "accl-coyote-u55c" {}}},
      "workload": {{"kind": "collective" {}}}}})",
                     platform, workload);
}

/// The rows of collective_ranks for one (bytes, iteration), by rank.
std::map<int, std::map<std::string, std::string>> ranks_of(const Csv& t, const std::string& bytes, int iteration)
{
  std::map<int, std::map<std::string, std::string>> m;
  for (auto const& r : t.rows)
    if (r.at("bytes") == bytes && std::stoi(r.at("iteration")) == iteration)
      m[std::stoi(r.at("rank"))] = r;
  return m;
}

double d(const std::map<std::string, std::string>& r, const std::string& c)
{
  return std::stod(r.at(c));
}

} // namespace

TEST(Harness, PerRankTableHasEveryRankAndTheSummaryScopes)
{
  auto run = run_scenario_isolated(scenario(
      R"(, "collective": "bcast", "ranks": 5, "root": 2, "sizes": ["1KiB", "64KiB"], "iterations": 2)"));
  ASSERT_TRUE(run.ok) << run.error;
  auto const& pr = run.tables.at("collective_ranks");
  for (auto col : {"collective", "bytes", "iteration", "rank", "position", "role", "protocol", "algorithm", "location",
                   "start_us", "end_us", "latency_us", "host_latency_us"})
    EXPECT_NE(std::find(pr.columns.begin(), pr.columns.end(), col), pr.columns.end()) << col;
  EXPECT_EQ(pr.rows.size(), 5u * 2 * 2);
  auto const& ct = run.tables.at("collective");
  ASSERT_EQ(ct.rows.size(), 4u);
  for (auto const& row : ct.rows) {
    auto rs = ranks_of(pr, row.at("bytes"), std::stoi(row.at("iteration")));
    ASSERT_EQ(rs.size(), 5u);
    double lo = 1e300, hi = 0, sum = 0, first = 1e300;
    for (auto const& [rank, r] : rs) {
      EXPECT_EQ(r.at("role"), rank == 2 ? "root" : "non-root");
      EXPECT_NEAR(d(r, "end_us") - d(r, "start_us"), d(r, "latency_us"), 2e-4);
      lo = std::min(lo, d(r, "latency_us"));
      hi = std::max(hi, d(r, "latency_us"));
      sum += d(r, "latency_us");
      first = std::min(first, d(r, "start_us"));
    }
    EXPECT_EQ(first, 0.0); // start and end count from the first rank's pick-up
    EXPECT_NEAR(std::stod(row.at("latency_us")), hi, 2e-4);
    EXPECT_NEAR(std::stod(row.at("latency_min_us")), lo, 2e-4);
    EXPECT_NEAR(std::stod(row.at("latency_mean_us")), sum / 5, 2e-4);
    EXPECT_NEAR(std::stod(row.at("root_latency_us")), d(rs.at(2), "latency_us"), 2e-4);
  }
  // The summary names the three scopes.
  bool scopes = std::any_of(run.summary.begin(), run.summary.end(), [](auto const& l) {
    return l.find("min") != std::string::npos && l.find("mean") != std::string::npos && l.find("max") != std::string::npos;
  });
  EXPECT_TRUE(scopes);
}

TEST(Harness, CcloBarrierSkewsTheStartAndRendezvousReduceNonRootsFinishBeforeTheRoot)
{
  // Rendezvous flat reduce on 3 ranks (REDUCE_FLAT_TREE_MAX_RANKS = 3 in the benchmark's build). The host
  // invocations take their mean (no jitter), so the skew is the barriers' alone.
  const std::vector<std::string> steady = {"platform.node.fpga.cclo.invocation.jitter=false"};
  auto w = [](const std::string& barrier) {
    return fmt::format(R"(, "collective": "reduce", "ranks": 3, "sizes": ["64KiB"], "protocol": "rendezvous",
                          "invocation": "coyote", "pre_barrier": "{}")",
                       barrier);
  };
  auto run = run_scenario_isolated(scenario(w("cclo")), steady);
  ASSERT_TRUE(run.ok) << run.error;
  auto rs = ranks_of(run.tables.at("collective_ranks"), "65536", 0);
  ASSERT_EQ(rs.size(), 3u);
  EXPECT_EQ(rs.at(0).at("algorithm"), "flat");
  // The barrier releases rank 0 first (it sends the releases), then ranks 1 and 2 in that order.
  EXPECT_EQ(d(rs.at(0), "start_us"), 0.0);
  EXPECT_GT(d(rs.at(1), "start_us"), 0.5);
  EXPECT_GT(d(rs.at(2), "start_us"), d(rs.at(1), "start_us"));
  // Non-roots write their block and finish; the root still adds them up.
  for (int r : {1, 2})
    EXPECT_LT(d(rs.at(r), "end_us"), d(rs.at(0), "end_us")) << "rank " << r;
  // Without a barrier every rank starts at the same instant.
  auto flat = run_scenario_isolated(scenario(w("none")), steady);
  ASSERT_TRUE(flat.ok) << flat.error;
  for (auto const& [rank, r] : ranks_of(flat.tables.at("collective_ranks"), "65536", 0))
    EXPECT_EQ(d(r, "start_us"), 0.0) << "rank " << rank;
  // An MPI barrier alone (Open MPI 4.1's recursive doubling on 3 ranks): rank 2, beyond the power of two, is
  // released by rank 0 one message after rank 1 leaves, with a synchronous send: rank 0 leaves when the
  // acknowledgement is back, a message later still.
  auto mpi = run_scenario_isolated(scenario(w("mpi")), steady);
  ASSERT_TRUE(mpi.ok) << mpi.error;
  auto ms = ranks_of(mpi.tables.at("collective_ranks"), "65536", 0);
  EXPECT_EQ(d(ms.at(1), "start_us"), 0.0);
  EXPECT_NEAR(d(ms.at(2), "start_us") - d(ms.at(1), "start_us"), 5.3, 1e-3);
  EXPECT_NEAR(d(ms.at(0), "start_us") - d(ms.at(1), "start_us"), 10.6, 1e-3);
  // On 4 to 7 ranks Open MPI 4.1 runs the linear barrier: rank 0 gathers everyone's message, then releases each:
  // it leaves first, the others a message later.
  auto lin = run_scenario_isolated(scenario(fmt::format(R"(, "collective": "reduce", "ranks": 5, "sizes": ["64KiB"],
                                                           "invocation": "coyote", "pre_barrier": "mpi")")),
                                   steady);
  ASSERT_TRUE(lin.ok) << lin.error;
  auto ls = ranks_of(lin.tables.at("collective_ranks"), "65536", 0);
  ASSERT_EQ(ls.size(), 5u);
  EXPECT_EQ(d(ls.at(0), "start_us"), 0.0);
  for (int r = 1; r < 5; ++r)
    EXPECT_NEAR(d(ls.at(r), "start_us"), 5.3, 1e-3) << r;
}

// With jitter, a call's invocation draw and its barrier's follow the call itself: a size's row is the same alone or
// after other sizes, and iteration 0 the same in a run of one iteration or of three (one stream per node drawn in call
// order moved them: 64 KiB after the smaller sizes 14.3788 us, alone 14.6587).
TEST(Harness, ASizesRowIsTheSameWhateverSizesRanBeforeIt)
{
  auto w = [](const std::string& sizes, int iterations) {
    return fmt::format(R"(, "collective": "sendrecv", "ranks": 2, "sizes": [{}], "iterations": {},
                          "invocation": "coyote", "pre_barrier": "cclo", "protocol": "eager")",
                       sizes, iterations);
  };
  auto list  = run_scenario_isolated(scenario(w(R"("1KiB", "8KiB", "64KiB")", 1)));
  auto alone = run_scenario_isolated(scenario(w(R"("64KiB")", 3)));
  ASSERT_TRUE(list.ok && alone.ok) << list.error << alone.error;
  auto row = [](const Csv& t, const std::string& bytes, const std::string& it) {
    for (auto const& r : t.rows)
      if (r.at("bytes") == bytes && r.at("iteration") == it)
        return r;
    return std::map<std::string, std::string>{};
  };
  auto a = row(list.tables.at("collective"), "65536", "0"), b = row(alone.tables.at("collective"), "65536", "0");
  ASSERT_FALSE(a.empty() || b.empty());
  for (const char* col : {"latency_us", "latency_mean_us", "host_latency_us"})
    EXPECT_EQ(a.at(col), b.at(col)) << col;
  auto later = row(alone.tables.at("collective"), "65536", "1");
  EXPECT_NE(later.at("host_latency_us"), b.at("host_latency_us")) << "each iteration still draws its own";
}

TEST(Firmware, RendezvousSendRecvGoesThroughTheRetryQueueWhileReduceBusyWaits)
{
  auto counters = [](const std::string& w) {
    auto run = run_scenario_isolated(scenario(w));
    EXPECT_TRUE(run.ok) << run.error;
    std::map<int, std::pair<double, double>> m; // node -> (retries, loop passes)
    if (run.ok)
      for (auto const& r : run.tables.at("cclo").rows)
        m[std::stoi(r.at("node"))] = {std::stod(r.at("retries")), std::stod(r.at("loop_passes"))};
    return m;
  };
  // recv() returns NOT_READY until WR_DONE: the receiver's call goes around the retry queue.
  auto sr = counters(R"(, "collective": "sendrecv", "ranks": 2, "sizes": ["64KiB"], "protocol": "rendezvous")");
  EXPECT_GE(sr[1].first, 1);
  // reduce() busy-waits in place for addresses and completions: no retry, but loop passes.
  auto rd = counters(R"(, "collective": "reduce", "ranks": 3, "sizes": ["64KiB"], "protocol": "rendezvous")");
  double passes = 0;
  for (auto const& [node, c] : rd) {
    EXPECT_EQ(c.first, 0) << "node " << node;
    passes += c.second;
  }
  EXPECT_GT(passes, 0);
}

TEST(Firmware, WriteDoneFollowsTheWriteWithoutWaitingForItsAcknowledgement)
{
  // 8 KiB rendezvous: the WRITE is PSNs 0-1 and WR_DONE PSN 2 on the sender's queue pair. Losing the
  // receiver's ACKs of PSN 1 and 2 holds the WRITE's completion back by a 1 ms retransmission timeout;
  // the firmware does not wait for it: WR_DONE went right behind the WRITE, the sender's move ended
  // with the packetizer's status, and both counters stay in microseconds.
  auto run = run_scenario_isolated(
      scenario(R"(, "collective": "sendrecv", "ranks": 2, "sizes": ["8KiB"], "protocol": "rendezvous")",
               R"(, "network": {"faults": {"drops": [{"src": 1, "dst": 0, "seq": 1}, {"src": 1, "dst": 0, "seq": 2}]}})"));
  ASSERT_TRUE(run.ok) << run.error;
  auto rs = ranks_of(run.tables.at("collective_ranks"), "8192", 0);
  for (int r : {0, 1})
    EXPECT_LT(d(rs.at(r), "latency_us"), 50) << "rank " << r;
  double timeouts = 0;
  for (auto const& r : run.tables.at("nodes").rows)
    timeouts += std::stod(r.at("timeouts"));
  EXPECT_GE(timeouts, 1); // the ACKs were lost and the WRITE was recovered by a timeout
  EXPECT_GT(run.metadata.at("simulated_seconds").get<double>(), 1e-3);
}

TEST(Harness, PlacementSpreadsRanksOverLeavesOrTakesExplicitPositions)
{
  const std::string two_leaves = R"(, "topology": {"kind": "leaf-spine", "hosts": 8,
                                        "leaf_spine": {"hosts_per_leaf": 4, "spines": 1}})";
  auto positions = [&](const std::string& extra) {
    auto run = run_scenario_isolated(
        scenario(fmt::format(R"(, "collective": "allreduce", "ranks": 4, "sizes": ["1KiB"] {})", extra), two_leaves));
    EXPECT_TRUE(run.ok) << run.error;
    std::vector<int> p;
    if (run.ok)
      for (auto const& [rank, r] : ranks_of(run.tables.at("collective_ranks"), "1024", 0))
        p.push_back(std::stoi(r.at("position")));
    return p;
  };
  EXPECT_EQ(positions(""), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(positions(R"(, "placement": "round-robin")"), (std::vector<int>{0, 4, 1, 5}));
  EXPECT_EQ(positions(R"(, "positions": [7, 2, 5, 0])"), (std::vector<int>{7, 2, 5, 0}));
  auto bad = run_scenario_isolated(
      scenario(R"(, "collective": "allreduce", "ranks": 2, "sizes": ["1KiB"], "positions": [3, 3])", two_leaves));
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.error_kind, "config");
  EXPECT_NE(bad.error.find("/workload/positions/1"), std::string::npos) << bad.error;
}
