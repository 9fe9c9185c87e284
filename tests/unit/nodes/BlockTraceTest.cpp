// --trace blocks: the CCLO's micro-controller, data mover and Rx buffers on the node's trace process. The
// micro-controller's primitive spans add up to its busy time (cclo.csv), its waits fill the rest, no two of its
// spans overlap, and every move of the data mover is on a track.
#include "tests/support/RunScenario.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <map>
#include <vector>

using namespace nafsim::testing;

TEST(BlockTrace, MicroControllerSpansAddUpToItsBusyTimeAndMovesAreAllTraced)
{
  for (const char* protocol : {"eager", "rendezvous"}) {
    auto run = run_scenario_isolated(fmt::format(R"({{"name": "bt", "platform": "accl-coyote-u55c",
        "workload": {{"kind": "collective", "collective": "allreduce", "ranks": 4, "protocol": "{}",
                      "sizes": ["4KiB"], "iterations": 1}}}})",
                                                 protocol),
                                     {}, "blocks");
    ASSERT_TRUE(run.ok) << run.error;
    ASSERT_TRUE(run.trace.contains("traceEvents"));
    // Per process (node): busy time of the micro-controller's spans, waits, the moves traced.
    std::map<int, double> busy_us, wait_us;
    std::map<int, std::vector<std::pair<double, double>>> uc;
    std::map<int, int> moves, counters, tx, rx, plugins, invocation, queue_counters;
    for (auto const& e : run.trace["traceEvents"]) {
      if (e["ph"] == "C" && e["name"] == "rx buffers in use")
        ++counters[e["pid"].get<int>()];
      if (e["ph"] == "C" && e["name"].get<std::string>().find("queue (bytes)") != std::string::npos)
        ++queue_counters[e["pid"].get<int>()];
      if ((e["ph"] == "X" || e["ph"] == "i") && e.contains("tid")) {
        const int tid = e["tid"].get<int>(), pid = e["pid"].get<int>();
        (tid == 101 ? tx : tid == 102 ? rx : tid == 103 ? plugins : tid == 104 ? invocation : moves)[pid] +=
            tid >= 101 && tid <= 104 ? 1 : 0;
      }
      if (e["ph"] != "X")
        continue;
      const int pid = e["pid"].get<int>(), tid = e["tid"].get<int>();
      const double ts = e["ts"].get<double>(), dur = e["dur"].get<double>();
      if (tid == 100) {
        (e["name"] == "wait" ? wait_us : busy_us)[pid] += dur;
        uc[pid].emplace_back(ts, ts + dur);
      } else if (tid >= 110 && tid < 200) {
        ++moves[pid];
      }
    }
    auto const& cclo = run.tables.at("cclo");
    ASSERT_EQ(cclo.rows.size(), 4u);
    for (auto const& row : cclo.rows) {
      const int node = std::stoi(row.at("node"));
      // The node's process: the trace names processes by topology vertex; hosts come first in this topology.
      const int pid = node;
      EXPECT_NEAR(busy_us[pid], std::stod(row.at("uc_busy_us")), 2e-3) << protocol << " node " << node;
      EXPECT_EQ(moves[pid], std::stoi(row.at("dmp_moves"))) << protocol << " node " << node;
      // Tx: every message the Tx system sent; Rx: every one the Rx system parsed.
      const int sent = std::stoi(row.at("tx_eager_messages")) + std::stoi(row.at("tx_rendezvous_writes")) +
                       std::stoi(row.at("tx_notifications"));
      EXPECT_EQ(tx[pid], sent) << protocol << " node " << node;
      EXPECT_EQ(rx[pid], std::stoi(row.at("rx_eager_messages")) + std::stoi(row.at("rx_notifications")))
          << protocol << " node " << node;
      EXPECT_GE(invocation[pid], 2) << "request and response of each call";
      auto spans = uc[pid];
      std::sort(spans.begin(), spans.end());
      for (std::size_t i = 1; i < spans.size(); ++i)
        ASSERT_GE(spans[i].first + 1e-6, spans[i - 1].second) << protocol << " node " << node << ": overlapping spans";
      if (std::string(protocol) == "eager") {
        EXPECT_GT(counters[pid], 0) << "eager messages take Rx buffers";
      }
    }
    int queued = 0, reduced = 0;
    for (auto const& [pid, n] : queue_counters)
      queued += n;
    for (auto const& [pid, n] : plugins)
      reduced += n;
    EXPECT_GT(queued, 0) << "the switch's ports count their queues";
    EXPECT_GT(reduced, 0) << "an allreduce reduces through the plugin";
  }
}
