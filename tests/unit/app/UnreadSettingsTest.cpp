// Settings a run read nothing of (simcore/app/UnreadSettings.hpp): each rule against a small in-process cluster that
// does or does not build the part the setting configures, and a run's summary and a sweep's saying so.
#include "simcore/app/UnreadSettings.hpp"
#include "tests/support/NodeWorld.hpp"
#include "tests/support/RunScenario.hpp"
#include "workloads/collective/CollectiveBench.hpp"
#include "workloads/mpi/MpiBench.hpp"
#include "workloads/connectionless/Connectionless.hpp"
#include "workloads/dlrm/Dlrm.hpp"
#include "workloads/fc/FcLayer.hpp"
#include "workloads/hostcopy/HostCopy.hpp"
#include "workloads/program/ComputeTime.hpp"
#include "workloads/portals/PortalsMpiBench.hpp"
#include "workloads/portals/UnexpectedQueue.hpp"
#include "workloads/reconic/ReconicBench.hpp"
#include "workloads/sendrecv/SendRecv.hpp"
#include "workloads/traffic/Traffic.hpp"

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

// A named CCLO build sets the Rx buffers and the protocol limits whatever is given: those given are said to be read by
// nothing (a --set rx_buffers.count=1000 on build rendezvous ran 8 buffers of 64 B, unsaid); the rest of the section
// is read.
TEST(UnreadSettings, WhatANamedCcloBuildSetsIsNotReadFromTheSettings)
{
  NodeWorld built(R"({"preset": "accl-coyote-u55c", "topology": {"kind": "star", "hosts": 2},
                      "node": {"fpga": {"cclo": {"build": "rendezvous"}}}})");
  built.cclo(1);
  for (auto const* p : {"platform.node.fpga.cclo.rx_buffers.count", "platform.node.fpga.cclo.rx_buffers.size",
                        "platform.node.fpga.cclo.tuning.max_eager_size",
                        "platform.node.fpga.cclo.tuning.max_rendezvous_size"})
    EXPECT_NE(unread_reason(built.cluster(), "collective", p).find("build is rendezvous"), std::string::npos) << p;
  EXPECT_EQ(unread_reason(built.cluster(), "collective", "platform.node.fpga.cclo.rx_buffers.seek_cycles"), "");
  EXPECT_EQ(unread_reason(built.cluster(), "collective", "platform.node.fpga.cclo.tuning.bcast_flat_tree_max_ranks"),
            "");
  NodeWorld custom(R"({"preset": "accl-coyote-u55c", "topology": {"kind": "star", "hosts": 2},
                       "node": {"fpga": {"cclo": {"build": "custom"}}}})");
  custom.cclo(1);
  EXPECT_EQ(unread_reason(custom.cluster(), "collective", "platform.node.fpga.cclo.rx_buffers.count"), "");
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

// The connectionless transport's settings that its own configuration leaves unread: the registration's with
// registration off, the segment size without segmentation, the filter's time with no filter (all ran unsaid).
TEST(UnreadSettings, TheConnectionlessTransportsSettingsItsOwnConfigurationLeavesUnread)
{
  const std::string t = "platform.node.fpga.connectionless.transport.";
  NodeWorld on(R"({"preset": "lant-zcu102"})");
  for (auto const* k : {"bitmask_bits", "registration_entries", "register_max", "escape_packets", "escape_timeout",
                        "completed_filter_time", "packet_timeout"})
    EXPECT_EQ(unread_reason(on.cluster(), "connectionless", t + k), "") << k;
  EXPECT_NE(unread_reason(on.cluster(), "connectionless", t + "large_transfer.segment").find("threshold is 0"),
            std::string::npos);
  NodeWorld off(R"({"preset": "lant-zcu102", "node": {"fpga": {"connectionless": {"transport": {
                      "registration": false, "completed_filter_entries": 0,
                      "large_transfer": {"threshold": "64KiB"}}}}}})");
  for (auto const* k : {"bitmask_bits", "registration_entries", "register_min", "register_max", "escape_packets",
                        "escape_timeout"})
    EXPECT_NE(unread_reason(off.cluster(), "connectionless", t + k).find("registration is off"), std::string::npos)
        << k;
  EXPECT_EQ(unread_reason(off.cluster(), "connectionless", t + "large_transfer.segment"), "");
  EXPECT_NE(unread_reason(off.cluster(), "connectionless", t + "completed_filter_time").find("filter is off"),
            std::string::npos);
  EXPECT_EQ(unread_reason(off.cluster(), "connectionless", t + "completed_filter_entries"), "");
  EXPECT_EQ(unread_reason(off.cluster(), "connectionless", t + "packet_timeout"), "");
  // Where no FPGA runs the transport, the section's own reason.
  NodeWorld roce(R"({"preset": "accl-coyote-u55c", "topology": {"kind": "star", "hosts": 2}})");
  EXPECT_NE(unread_reason(roce.cluster(), "collective", t + "bitmask_bits").find("no FPGA ran the connectionless"),
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

// A benchmark judges its own settings: one that its other settings make moot is unread, and only then.
TEST(UnreadSettings, AWorkloadSaysWhichOfItsSettingsItsOtherSettingsMakeMoot)
{
  workloads::CollectiveBenchConfig cfg;
  cfg.collective = workloads::BenchOp::AllGather;
  cfg.sizes      = {Bytes{1024}};
  cfg.positions  = {0, 1};
  const workloads::CollectiveBench allgather(cfg);
  EXPECT_NE(allgather.unread_reason("func").find("allgather reduces nothing"), std::string::npos);
  EXPECT_NE(allgather.unread_reason("min_size").find("workload.sizes lists the sizes"), std::string::npos);
  EXPECT_NE(allgather.unread_reason("max_size"), "");
  EXPECT_NE(allgather.unread_reason("placement").find("workload.positions"), std::string::npos);
  EXPECT_NE(allgather.unread_reason("mpi_message_latency").find("pre_barrier none"), std::string::npos);
  for (auto const* read : {"root", "sizes", "sizes.0", "positions.1", "dtype", "iterations", "protocol", "funcx"})
    EXPECT_EQ(allgather.unread_reason(read), "") << read; // (root: root_latency_us is its rank's)

  cfg.collective  = workloads::BenchOp::AllReduce;
  cfg.sizes       = {};
  cfg.positions   = {};
  cfg.pre_barrier = workloads::PreBarrier::Mpi;
  const workloads::CollectiveBench allreduce(cfg);
  for (auto const* read : {"func", "min_size", "max_size", "placement", "mpi_message_latency"})
    EXPECT_EQ(allreduce.unread_reason(read), "") << read;
  cfg.collective = workloads::BenchOp::Barrier;
  const workloads::CollectiveBench barrier(cfg);
  for (auto const* k : {"sizes", "min_size", "max_size"})
    EXPECT_NE(barrier.unread_reason(k).find("barrier moves no data"), std::string::npos) << k;

  workloads::MpiBenchConfig m;
  m.collective = workloads::BenchOp::Bcast;
  m.ranks      = 8;
  const workloads::MpiBench fixed(m);
  EXPECT_NE(fixed.unread_reason("chain_fanout").find("no Open MPI algorithm is forced"), std::string::npos);
  EXPECT_NE(fixed.unread_reason("segment_size").find("segment size (4.1's: 0)"), std::string::npos);
  EXPECT_EQ(fixed.unread_reason("knomial_radix"), ""); // the library's choices decide it: made when the run starts
  EXPECT_NE(fixed.unread_reason("func").find("bcast reduces nothing"), std::string::npos);
  // A forced chain reads its fanout and segments; a composite reads neither (its parts are the library's own
  // decisions, called with faninout 0 and their rules' segments), a ring no segment size, a segmented ring one.
  m.library_algorithm = "chain";
  EXPECT_EQ(workloads::MpiBench(m).unread_reason("chain_fanout"), "");
  EXPECT_EQ(workloads::MpiBench(m).unread_reason("segment_size"), "");
  m.collective        = workloads::BenchOp::AllReduce;
  m.library_algorithm = "nonoverlapping";
  const workloads::MpiBench composite(m);
  EXPECT_NE(composite.unread_reason("chain_fanout").find("runs no chain of its own"), std::string::npos);
  EXPECT_NE(composite.unread_reason("segment_size").find("reads no segment size"), std::string::npos);
  m.library_algorithm = "ring";
  EXPECT_NE(workloads::MpiBench(m).unread_reason("segment_size").find("allreduce ring reads no segment size"),
            std::string::npos);
  m.library_algorithm = "segmented_ring";
  EXPECT_EQ(workloads::MpiBench(m).unread_reason("segment_size"), "");
  m.collective = workloads::BenchOp::Barrier;
  EXPECT_NE(workloads::MpiBench(m).unread_reason("sizes").find("barrier moves no data"), std::string::npos);
}

// The case above run: a forced composite allreduce's parts are the library's own decisions, called as its fixed rules
// call them (coll/tuned's reduce_intra_do_this(..., alg, 0, 0, 0)): its reduce part's chain at 4 ranks and 8 KiB runs
// one chain whatever chain_fanout says (it ran chain_fanout's chains, 4 by default: 22.421 against 30.247 us), and
// the warning says so. The k-nomial radix is one MCA parameter: it reaches a k-nomial broadcast the rules pick.
TEST(UnreadSettings, AForcedCompositesPartsAreTheLibrarysOwnDecisions)
{
  const std::string mpi = R"({"name": "u", "platform": {"preset": "accl-cpu-cx5"},
                              "workload": {"kind": "mpi", "collective": "allreduce", "ranks": 4, "sizes": ["8KiB"],
                                           "library_algorithm": "nonoverlapping"}})";
  auto four = run_scenario_isolated(mpi, {"workload.chain_fanout=4"});
  auto one  = run_scenario_isolated(mpi, {"workload.chain_fanout=1"});
  auto none = run_scenario_isolated(mpi);
  ASSERT_TRUE(four.ok && one.ok && none.ok) << four.error << one.error << none.error;
  EXPECT_EQ(four.tables.at("mpi").rows.at(0).at("latency_us"), one.tables.at("mpi").rows.at(0).at("latency_us"));
  EXPECT_EQ(none.tables.at("mpi").rows.at(0).at("latency_us"), one.tables.at("mpi").rows.at(0).at("latency_us"));
  std::string said;
  for (auto const& l : one.summary)
    said += l + "\n";
  EXPECT_NE(said.find("warning: --set workload.chain_fanout=1 was read by nothing in this run: Open MPI's allreduce "
                      "nonoverlapping runs no chain of its own"),
            std::string::npos)
      << said;

  // 48 ranks, 64 KiB: coll/tuned's fixed rules pick the k-nomial broadcast, which runs with the radix given (1 KiB:
  // the binomial tree, and nothing reads the radix).
  const std::string bcast = R"({"name": "u", "platform": {"preset": "accl-cpu-cx5", "topology": {"hosts": 64}},
                                "workload": {"kind": "mpi", "collective": "bcast", "ranks": 48, "sizes": ["64KiB"]}})";
  auto radix4 = run_scenario_isolated(bcast, {"workload.knomial_radix=4"});
  auto radix2 = run_scenario_isolated(bcast, {"workload.knomial_radix=2"});
  ASSERT_TRUE(radix4.ok && radix2.ok) << radix4.error << radix2.error;
  EXPECT_EQ(radix4.tables.at("mpi").rows.at(0).at("library_algorithm"), "knomial");
  EXPECT_NE(radix4.tables.at("mpi").rows.at(0).at("latency_us"), radix2.tables.at("mpi").rows.at(0).at("latency_us"));
  for (auto const& l : radix2.summary)
    EXPECT_EQ(l.find("knomial_radix"), std::string::npos) << l;
  auto unread = run_scenario_isolated(bcast, {"workload.knomial_radix=2", "workload.sizes=[\"1KiB\"]"});
  ASSERT_TRUE(unread.ok) << unread.error;
  said.clear();
  for (auto const& l : unread.summary)
    said += l + "\n";
  EXPECT_NE(said.find("workload.knomial_radix=2 was read by nothing in this run: no k-nomial broadcast ran"),
            std::string::npos)
      << said;
}

// A whole section set at once patches it and is judged key by key (it was judged as its section's path, which no
// rule is under), and a workload's settings are judged in a run: its summary names each key nothing read and the set
// that gave it, and the results are those of the run without them.
TEST(UnreadSettings, AWholeSectionIsJudgedKeyByKeyAndTheWorkloadsSettingsToo)
{
  const std::string coyote = R"({"name": "u", "platform": {"preset": "accl-coyote-u55c"},
                                 "workload": {"kind": "collective", "collective": "allgather", "ranks": 2,
                                              "sizes": ["1KiB"]}})";
  auto run = run_scenario_isolated(
      coyote, {R"(platform.node.fpga={"tcp": {"rx_fifo": "1MiB"}, "rdma": {"mtu": "4KiB"}})", "workload.func=max",
               "workload.mpi_message_latency=2us", "workload.iterations=1"});
  ASSERT_TRUE(run.ok) << run.error;
  std::string all;
  for (auto const& l : run.summary)
    all += l + "\n";
  EXPECT_NE(all.find("warning: platform.node.fpga.tcp.rx_fifo (given by --set platform.node.fpga={"), std::string::npos)
      << all;
  EXPECT_NE(all.find("no FPGA ran the TCP engine"), std::string::npos) << all;
  EXPECT_EQ(all.find("rdma.mtu"), std::string::npos) << all;
  EXPECT_NE(all.find("warning: --set workload.func=max was read by nothing in this run: allgather reduces nothing"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("warning: --set workload.mpi_message_latency=2us was read by nothing"), std::string::npos) << all;
  EXPECT_EQ(all.find("workload.iterations"), std::string::npos) << all;
  auto without = run_scenario_isolated(coyote);
  ASSERT_TRUE(without.ok) << without.error;
  EXPECT_EQ(run.tables.at("collective").rows.at(0).at("latency_us"),
            without.tables.at("collective").rows.at(0).at("latency_us"));
  EXPECT_EQ(run.tables.count("mmu"), 1u) << "the preset's MMU kept";
}

// Every other workload with a setting its other settings make moot says so, and only then (each claim checked by a
// pair of runs whose tables came out byte-identical when it was written).
TEST(UnreadSettings, EachWorkloadJudgesTheSettingsItsModeOrListsMakeMoot)
{
  using namespace workloads;
  {
    SendRecvConfig c;
    EXPECT_EQ(SendRecv(c).unread_reason("min_size"), "");
    c.sizes = {Bytes{64}};
    EXPECT_NE(SendRecv(c).unread_reason("max_size").find("workload.sizes lists the sizes"), std::string::npos);
    EXPECT_EQ(SendRecv(c).unread_reason("sizes"), "");
    HostCopyConfig h;
    h.sizes = {Bytes{64}};
    EXPECT_NE(HostCopy(h).unread_reason("min_size"), "");
  }
  {
    TrafficConfig c; // 8 messages, 4 in flight
    EXPECT_EQ(Traffic(c).unread_reason("window"), "");
    c.window = 8;
    EXPECT_NE(Traffic(c).unread_reason("window").find("in flight at once"), std::string::npos);
  }
  {
    FcLayerConfig c;
    EXPECT_EQ(FcLayer(c).unread_reason("extra_copy"), "");
    c.reduction = FcReduction::Mpi;
    EXPECT_NE(FcLayer(c).unread_reason("extra_copy").find("software MPI reduces"), std::string::npos);
  }
  {
    ConnectionlessConfig c; // latency mode
    for (auto const* k : {"operations", "window", "pattern", "poster", "stream_notify"})
      EXPECT_NE(Connectionless(c).unread_reason(k).find("only stream mode"), std::string::npos) << k;
    EXPECT_NE(Connectionless(c).unread_reason("background.size").find("background.load 0"), std::string::npos);
    for (auto const* k : {"src", "dst", "iterations", "notify", "gap", "background.load", "min_size"})
      EXPECT_EQ(Connectionless(c).unread_reason(k), "") << k;
    c.background.load = 0.5;
    EXPECT_EQ(Connectionless(c).unread_reason("background.size"), "");
    c.mode = ClMode::Stream;
    for (auto const* k : {"src", "iterations", "notify", "gap", "background.size", "background.load"})
      EXPECT_NE(Connectionless(c).unread_reason(k).find("only latency mode"), std::string::npos) << k;
    for (auto const* k : {"operations", "window", "pattern", "dst"})
      EXPECT_EQ(Connectionless(c).unread_reason(k), "") << k;
    c.pattern = ClPattern::Random;
    EXPECT_NE(Connectionless(c).unread_reason("dst").find("random peer"), std::string::npos);
  }
  {
    ReconicBenchConfig c; // the RDMA test, batched
    for (auto const* k : {"mode", "batch", "queue_pairs", "min_size", "op"})
      EXPECT_EQ(ReconicBench(c).unread_reason(k), "") << k;
    for (auto const* k : {"mm_rows", "mm_inner", "mm_cols", "completion"})
      EXPECT_NE(ReconicBench(c).unread_reason(k).find("lookaside_mm"), std::string::npos) << k;
    c.mode = ReconicMode::Single;
    EXPECT_NE(ReconicBench(c).unread_reason("batch").find("mode single"), std::string::npos);
    c.test = ReconicTest::Dma;
    for (auto const* k : {"mode", "batch", "queue_pairs"})
      EXPECT_NE(ReconicBench(c).unread_reason(k).find("test dma"), std::string::npos) << k;
    c.test = ReconicTest::LookasideMm;
    EXPECT_EQ(ReconicBench(c).unread_reason("mm_rows"), "");
    EXPECT_NE(ReconicBench(c).unread_reason("sizes").find("tiles"), std::string::npos);
  }
  {
    PortalsMpiConfig c; // alltoall
    EXPECT_NE(PortalsMpiBench(c).unread_reason("md_steps").find("pattern ga_md"), std::string::npos);
    c.pattern = PortalsPattern::GaMd;
    EXPECT_EQ(PortalsMpiBench(c).unread_reason("md_steps"), "");
    UnexpectedQueueConfig u;
    EXPECT_EQ(UnexpectedQueue(u).unread_reason("min_messages"), "");
    u.messages = {4};
    EXPECT_NE(UnexpectedQueue(u).unread_reason("max_messages").find("workload.messages"), std::string::npos);
  }
  {
    DlrmConfig c;
    EXPECT_NE(Dlrm(c).unread_reason("kernel.dsps").find("workload.dsps"), std::string::npos);
    EXPECT_EQ(Dlrm(c).unread_reason("kernel.clock"), "");
    EXPECT_EQ(Dlrm(c).unread_reason("model.embedding_bytes"), "");
    c.model.table_bytes = {Bytes{1 << 20}};
    EXPECT_NE(Dlrm(c).unread_reason("model.embedding_bytes").find("table_bytes"), std::string::npos);
  }
}

// A program's (or a Chakra trace's) compute model: the FPGA kernel's keys under the MPI engine, the hosts' threads
// under the CCLO's (ComputeTime.cpp returns before reading them).
TEST(UnreadSettings, AComputeModelsKeysOfTheOtherEngineAreSaid)
{
  using workloads::ProgramEngine;
  EXPECT_NE(workloads::compute_model_unread(ProgramEngine::Mpi, "compute", "compute.kernel.clock").find("engine mpi"), std::string::npos);
  EXPECT_NE(workloads::compute_model_unread(ProgramEngine::Mpi, "model", "model.hbm_channels"), "");
  EXPECT_EQ(workloads::compute_model_unread(ProgramEngine::Mpi, "compute", "compute.threads"), "");
  EXPECT_NE(workloads::compute_model_unread(ProgramEngine::Cclo, "model", "model.threads").find("engine cclo"), std::string::npos);
  EXPECT_EQ(workloads::compute_model_unread(ProgramEngine::Cclo, "compute", "compute.kernel.dsps"), "");
  EXPECT_EQ(workloads::compute_model_unread(ProgramEngine::Cclo, "compute", "compute.hbm_channels"), "");
  EXPECT_EQ(workloads::compute_model_unread(ProgramEngine::Cclo, "compute", "model.threads"), "") << "another section";
  EXPECT_EQ(workloads::compute_model_unread(ProgramEngine::Cclo, "model", "modelx.threads"), "");
}

// One of them run: the connectionless latency benchmark with a stream setting warns, and its tables are those of the
// run without it.
TEST(UnreadSettings, AConnectionlessStreamSettingInLatencyModeIsSaidAndChangesNothing)
{
  const std::string lat = R"({"name": "u", "platform": {"preset": "lant-zcu102"},
                              "workload": {"kind": "connectionless", "mode": "latency", "sizes": ["1KiB"],
                                           "iterations": 2}})";
  auto with    = run_scenario_isolated(lat, {"workload.operations=7", "workload.poster=accelerator"});
  auto without = run_scenario_isolated(lat);
  ASSERT_TRUE(with.ok && without.ok) << with.error << without.error;
  std::string all;
  for (auto const& l : with.summary)
    all += l + "\n";
  EXPECT_NE(all.find("--set workload.poster=accelerator was read by nothing in this run: only stream mode reads it"),
            std::string::npos)
      << all;
  ASSERT_EQ(with.tables.size(), without.tables.size());
  for (auto const& [name, t] : with.tables)
    EXPECT_EQ(t.rows, without.tables.at(name).rows) << name;
}

// The FPGA's RoCE section where no FPGA runs RoCE, a reorder delay without reordering, a fast-forward window without
// trains, and the switches' settings where there is no switch: each was silent (the connectionless examples ran
// byte-identical with rdma.mtu, reorder_delay, fast_forward.window or switch.latency changed).
TEST(UnreadSettings, SettingsThatOtherSettingsOrTheTopologyMakeMoot)
{
  NodeWorld lant(R"({"preset": "lant-zcu102"})");
  EXPECT_NE(unread_reason(lant.cluster(), "connectionless", "platform.node.fpga.rdma.mtu").find("no FPGA ran the RoCE"),
            std::string::npos);
  EXPECT_NE(unread_reason(lant.cluster(), "connectionless", "platform.network.switch.latency").find("no switch"),
            std::string::npos);
  EXPECT_NE(unread_reason(lant.cluster(), "connectionless", "platform.network.faults.reorder_delay"), "");
  EXPECT_NE(unread_reason(lant.cluster(), "connectionless", "platform.network.fast_forward.window"), "");
  NodeWorld roce(R"({"preset": "accl-coyote-u55c", "topology": {"kind": "star", "hosts": 2},
                    "network": {"faults": {"reorder_rate": 0.01}}})");
  for (auto const* p : {"platform.node.fpga.rdma.mtu", "platform.network.switch.latency",
                        "platform.network.faults.reorder_delay"})
    EXPECT_EQ(unread_reason(roce.cluster(), "collective", p), "") << p;
  NodeWorld trains(R"({"preset": "accl-coyote-u55c", "topology": {"kind": "star", "hosts": 2},
                      "network": {"fast_forward": {"train": 8}}})");
  EXPECT_EQ(unread_reason(trains.cluster(), "collective", "platform.network.fast_forward.window"), "");
}
