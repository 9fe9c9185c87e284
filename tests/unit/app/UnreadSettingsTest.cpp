// Settings a run read nothing of (simcore/app/UnreadSettings.hpp): each rule against a small in-process cluster that
// does or does not build the part the setting configures, and a run's summary and a sweep's saying so.
#include "simcore/app/UnreadSettings.hpp"
#include "tests/support/NodeWorld.hpp"
#include "tests/support/RunScenario.hpp"

#include <gtest/gtest.h>

using namespace nafsim;
using namespace nafsim::testing;
using app::unread_reason;

TEST(UnreadSettings, ACcloSettingIsUnreadUntilACcloRuns)
{
  NodeWorld w(R"({"preset": "accl-coyote-u55c", "topology": {"kind": "star", "hosts": 2}})");
  const std::string why = unread_reason(w.cluster(), "collective", "platform.node.fpga.cclo.build");
  EXPECT_NE(why.find("no node ran a CCLO"), std::string::npos) << why;
  EXPECT_NE(why.find("its FPGAs run roce"), std::string::npos) << why;
  // The MPI benchmark borrows the CCLO's invocation and firmware call costs without a CCLO: never claimed unread.
  EXPECT_EQ(unread_reason(w.cluster(), "mpi", "platform.node.fpga.cclo.invocation.coyote_request"), "");
  EXPECT_EQ(unread_reason(w.cluster(), "mpi", "platform.node.fpga.cclo.firmware.call"), "");
  w.cclo(1);
  EXPECT_EQ(unread_reason(w.cluster(), "collective", "platform.node.fpga.cclo.build"), "");
  EXPECT_EQ(unread_reason(w.cluster(), "collective", "platform.node.fpga.cclo.rx_buffers.count"), "");
}

TEST(UnreadSettings, EachTransportsSectionIsReadWhereItsEngineRuns)
{
  NodeWorld roce(R"({"preset": "accl-coyote-u55c", "topology": {"kind": "star", "hosts": 2}})");
  for (auto const* p : {"platform.node.fpga.tcp.rx_fifo", "platform.node.fpga.udp", "platform.node.fpga.connectionless"})
    EXPECT_NE(unread_reason(roce.cluster(), "collective", p), "") << p;
  EXPECT_EQ(unread_reason(roce.cluster(), "collective", "platform.node.fpga.rdma.mtu"), ""); // (no rule: no claim)
  NodeWorld tcp(R"({"preset": "accl-xrt-u55c", "topology": {"kind": "star", "hosts": 2}})");
  EXPECT_EQ(unread_reason(tcp.cluster(), "collective", "platform.node.fpga.tcp.rx_fifo"), "");
  // A prefix is a whole key: `tcp` does not cover `tcp_something`.
  EXPECT_EQ(unread_reason(roce.cluster(), "collective", "platform.node.fpga.tcpx"), "");
  NodeWorld hosts(R"({"preset": "accl-cpu-cx5", "topology": {"kind": "star", "hosts": 2}})");
  EXPECT_NE(unread_reason(hosts.cluster(), "mpi", "platform.node.host.tcp.rx_fifo").find("no host ran kernel TCP"),
            std::string::npos);
  NodeWorld mpich(R"({"preset": "accl-cpu-mpich-tcp", "topology": {"kind": "star", "hosts": 2}})");
  EXPECT_EQ(unread_reason(mpich.cluster(), "mpi", "platform.node.host.tcp.rx_fifo"), "");
  EXPECT_NE(unread_reason(mpich.cluster(), "mpi", "platform.node.fpga.cclo.build").find("all hosts"),
            std::string::npos);
}

TEST(UnreadSettings, NetworkTopologyAndWorkloadSections)
{
  NodeWorld packet(R"({"preset": "accl-coyote-u55c", "topology": {"kind": "star", "hosts": 2}})");
  EXPECT_NE(unread_reason(packet.cluster(), "collective", "platform.network.flow_sharing"), "");
  EXPECT_NE(unread_reason(packet.cluster(), "collective", "platform.network.flow_resolve_fraction"), "");
  EXPECT_NE(unread_reason(packet.cluster(), "collective", "platform.network.switch.alpha"), "");
  EXPECT_EQ(unread_reason(packet.cluster(), "collective", "platform.network.switch.port_buffer"), "");
  EXPECT_NE(unread_reason(packet.cluster(), "collective", "platform.topology.fat_tree.k").find("star"),
            std::string::npos);
  EXPECT_NE(unread_reason(packet.cluster(), "collective", "platform.node.portals.engine"), "");
  EXPECT_EQ(unread_reason(packet.cluster(), "portals_mpi", "platform.node.portals.engine"), "");
  NodeWorld flow(R"({"preset": "accl-coyote-u55c", "topology": {"kind": "fat-tree", "hosts": 2},
                     "network": {"fidelity": "flow", "switch": {"shared_buffer": "4MiB"}}})");
  EXPECT_EQ(unread_reason(flow.cluster(), "collective", "platform.network.flow_sharing"), "");
  EXPECT_EQ(unread_reason(flow.cluster(), "collective", "platform.network.switch.alpha"), "");
  EXPECT_EQ(unread_reason(flow.cluster(), "collective", "platform.topology.fat_tree.k"), "");
}

// A run says which of its --set nothing read, and does not describe a CCLO build on a cluster of MPI hosts (it said
// "CCLO build eager (as the ACCL+ benchmark built it)" there).
TEST(UnreadSettings, ARunsSummarySaysSo)
{
  const std::string mpi = R"({"name": "u", "platform": {"preset": "accl-cpu-cx5"},
                              "workload": {"kind": "mpi", "collective": "allreduce", "ranks": 2, "sizes": ["1KiB"]}})";
  auto run = run_scenario_isolated(mpi, {"platform.node.fpga.cclo.build=eager", "platform.node.host.cpu.send_overhead=2us"});
  ASSERT_TRUE(run.ok) << run.error;
  std::string all;
  for (auto const& l : run.summary)
    all += l + "\n";
  EXPECT_NE(all.find("warning: --set platform.node.fpga.cclo.build=eager was read by nothing in this run: no node ran "
                     "a CCLO"),
            std::string::npos)
      << all;
  EXPECT_EQ(all.find("send_overhead"), std::string::npos) << all;
  EXPECT_EQ(all.find("CCLO build"), std::string::npos) << all;
}
