// The CCLO and software MPI over TCP and UDP (workloads `collective` and `mpi`): TCP delivers every
// message exactly once, with the right bytes, under loss, duplication, reordering and corruption;
// UDP delivers when nothing is lost, and a lost datagram ends the run with a report naming the lost
// message instead of a hang; set-ups the transports cannot run get clear errors.
#include "tests/support/RunScenario.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

using namespace nafsim::testing;

namespace {

std::string cclo(const std::string& transport, const std::string& workload, const std::string& platform_extra = "")
{
  return fmt::format(R"({{"platform": {{"preset": "accl-xrt-u55c", "node": {{"fpga": {{"transport": "{}"}}}}{}}},
                          "workload": {{"kind": "collective", {}}}}})",
                     transport, platform_extra, workload);
}

/// Messages each TCP engine sent and received, summed over the nodes.
std::pair<double, double> tcp_messages(const ScenarioRun& run)
{
  auto const& t = run.tables.at("tcp_nodes");
  return {t.sum("messages_sent"), t.sum("messages_received")};
}

} // namespace

TEST(TcpTransport, CcloCollectivesAreExactlyOnceUnderEveryFault)
{
  for (const char* fault : {"loss_rate", "duplicate_rate", "reorder_rate", "corruption_rate"})
    for (const char* coll : {"allreduce", "gather", "bcast", "alltoall"}) {
      SCOPED_TRACE(fmt::format("{} with {} 0.02", coll, fault));
      auto run = run_scenario_isolated(
          // (the firmware's all-to-all is rendezvous only: over TCP nafsim's flat schedule, forced)
          cclo("tcp", fmt::format(R"("collective": "{}", "ranks": 8, "sizes": ["2KiB", "48KiB"], "iterations": 2,
                                     "verify": true{})",
                                  coll, std::string(coll) == "alltoall" ? R"(, "algorithm": "flat")" : ""),
               fmt::format(R"(, "network": {{"faults": {{"{}": 0.02}}}})", fault)));
      ASSERT_TRUE(run.ok) << run.error;
      auto const& t = run.tables.at("collective");
      ASSERT_EQ(t.rows.size(), 4u);
      for (auto const& r : t.rows)
        EXPECT_EQ(r.at("verified"), "yes");
      // Every message sent was placed once: no message lost, none delivered twice.
      auto [sent, received] = tcp_messages(run);
      EXPECT_GT(sent, 0);
      EXPECT_EQ(sent, received);
      if (std::string(fault) != "duplicate_rate") // duplicates cost nothing to resend
        EXPECT_GT(run.tables.at("tcp_nodes").sum("retransmitted"), 0);
      else
        EXPECT_GT(run.tables.at("tcp_nodes").sum("duplicates"), 0);
    }
}

TEST(TcpTransport, MpiOverTcpDeliversEveryCollectiveEagerAndRendezvous)
{
  for (const char* coll : {"bcast", "scatter", "gather", "allgather", "reduce", "allreduce", "reduce-scatter",
                           "alltoall"}) {
    SCOPED_TRACE(coll);
    // 1 KiB eager, 160 KiB above MPICH's 128 KiB threshold: request-to-send, the READ served over
    // the stream, finish. 1 % loss with a 1 ms retransmission timeout (the preset's 200 ms is Linux's).
    auto run = run_scenario_isolated(
        fmt::format(R"({{"platform": {{"preset": "accl-cpu-mpich-tcp",
                                       "network": {{"faults": {{"loss_rate": 0.01}}}},
                                       "node": {{"host": {{"tcp": {{"rto_initial": "1ms"}}}}}}}},
                        "workload": {{"kind": "mpi", "collective": "{}", "ranks": 5, "root": 2,
                                      "sizes": ["1KiB", "160KiB"], "verify": true}}}})",
                    coll));
    ASSERT_TRUE(run.ok) << run.error;
    for (auto const& r : run.tables.at("mpi").rows)
      EXPECT_EQ(r.at("verified"), "yes");
    auto [sent, received] = tcp_messages(run);
    EXPECT_EQ(sent, received);
  }
}

TEST(TcpTransport, RendezvousIsRefusedClearlyAndSessionsAreLimited)
{
  auto forced = run_scenario_isolated(cclo("tcp", R"("collective": "bcast", "ranks": 4, "protocol": "rendezvous")"));
  ASSERT_FALSE(forced.ok);
  EXPECT_NE(forced.error.find("no RDMA WRITE"), std::string::npos) << forced.error;

  auto few = run_scenario_isolated(
      R"({"platform": {"preset": "accl-xrt-u55c", "node": {"fpga": {"transport": "tcp", "tcp": {"max_sessions": 1}}}},
          "workload": {"kind": "collective", "collective": "allreduce", "ranks": 8}})");
  ASSERT_FALSE(few.ok);
  EXPECT_EQ(few.error_kind, "config");
  EXPECT_NE(few.error.find("/platform/node/fpga/tcp/max_sessions"), std::string::npos) << few.error;

  // ACCL's openCon opens two sessions per pair when the communicator is built, whatever the collective then uses:
  // 4 ranks need 6 sessions on each FPGA, so 5 are refused even for a broadcast that would open only 3.
  auto bcast = [](unsigned sessions) {
    return run_scenario_isolated(fmt::format(
        R"({{"platform": {{"preset": "accl-xrt-u55c", "node": {{"fpga": {{"tcp": {{"max_sessions": {}}}}}}}}},
            "workload": {{"kind": "collective", "collective": "bcast", "ranks": 4, "sizes": ["1KiB"]}}}})",
        sessions));
  };
  auto five = bcast(5);
  ASSERT_FALSE(five.ok);
  EXPECT_EQ(five.error_kind, "config");
  EXPECT_NE(five.error.find("/platform/node/fpga/tcp/max_sessions"), std::string::npos) << five.error;
  EXPECT_NE(five.error.find("4 CCLO ranks over TCP holds 6 sessions"), std::string::npos) << five.error;
  EXPECT_NE(five.error.find("use at most 3 ranks"), std::string::npos) << five.error;
  auto six = bcast(6);
  EXPECT_TRUE(six.ok) << six.error;
}

TEST(UdpTransport, DeliversWhenNothingIsLost)
{
  auto run = run_scenario_isolated(
      cclo("udp", R"("collective": "allreduce", "ranks": 8, "sizes": ["1KiB", "24KiB"], "verify": true)"));
  ASSERT_TRUE(run.ok) << run.error;
  for (auto const& r : run.tables.at("collective").rows)
    EXPECT_EQ(r.at("verified"), "yes");
  auto const& u = run.tables.at("udp_nodes");
  EXPECT_EQ(u.sum("messages_sent"), u.sum("messages_received"));
  EXPECT_EQ(u.sum("incomplete_messages"), 0);
}

TEST(UdpTransport, ALostDatagramEndsTheRunWithAReportOfTheLostMessage)
{
  // Drop the first datagram host 2 sends to host 3: the first of the 3 datagrams of the ring's first
  // 6 KiB eager message between them.
  auto run = run_scenario_isolated(
      cclo("udp", R"("collective": "allreduce", "ranks": 8, "sizes": ["48KiB"])",
           R"(, "network": {"faults": {"drops": [{"src": 2, "dst": 3, "seq": 0}]}})"));
  ASSERT_FALSE(run.ok);
  EXPECT_EQ(run.error_kind, "deadlock");
  EXPECT_NE(run.error.find("lost messages"), std::string::npos) << run.error;
  EXPECT_NE(run.error.find("UDP host 2 -> host 3"), std::string::npos) << run.error;
  EXPECT_NE(run.error.find("UDP at host 3 holds incomplete messages"), std::string::npos) << run.error;
  EXPECT_NE(run.error.find("2 of 3 datagrams arrived (first missing: 0)"), std::string::npos) << run.error;
}

// ACCL's TCP interface takes one transmit command at a time (kernels/cclo/hls/eth_intf/tcp_txHandler.cpp): the
// root of a flat broadcast over TCP hands rank 1 its 4 MiB, then rank 2 its, ...; each finishes one message time
// after the previous. With each session writing on its own the seven messages share the link and end together.
TEST(TcpTransport, SerialTransmitCommandsFinishTheRanksInTurn)
{
  auto ends = [](bool serial) {
    auto run = run_scenario_isolated(
        R"({"platform": {"preset": "accl-xrt-u55c", "node": {"fpga": {"cclo": {"rx_buffers": {"count": 10, "size": "4MiB"},
            "tuning": {"max_eager_size": "4MiB", "max_rendezvous_size": "8MiB"}}}}},
            "workload": {"kind": "collective", "collective": "bcast", "ranks": 8, "sizes": ["4MiB"], "verify": true}})",
        serial ? std::vector<std::string>{"platform.node.fpga.tcp.serial_tx=true"}
               : std::vector<std::string>{"platform.node.fpga.tcp.serial_tx=false",
                                          "platform.node.fpga.tcp.tx_status_latency=0ns"});
    EXPECT_TRUE(run.ok) << run.error;
    std::vector<double> end(8, 0.0);
    if (run.ok)
      for (auto const& row : run.tables.at("collective_ranks").rows)
        end.at(std::stoul(row.at("rank"))) = std::stod(row.at("end_us"));
    return end;
  };
  const auto serial = ends(true), interleaved = ends(false);
  for (int r = 2; r < 8; ++r)
    EXPECT_GT(serial[r], serial[r - 1] + 200.0) << "rank " << r << ": one 4 MiB message (335 us at 100 Gb/s) later";
  EXPECT_LT(serial[1], 0.5 * serial[7]);
  EXPECT_GT(interleaved[1], 0.9 * interleaved[7]) << "interleaved sessions end together";
}
