// Chakra traces (workloads/chakra): written here with the schema's own classes in protobuf's delimited framing, as
// other tools write them; read and run on the CCLO ranks.
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

TEST(Chakra, AnAllreduceTraceTakesTheCollectiveWorkloadsTime)
{
  auto dir = scratch("allreduce");
  for (unsigned r = 0; r < 8; ++r)
    write_rank(dir / fmt::format("ar.{}.et", r), {collective(1, pb::ALL_REDUCE, 1 << 20)});
  auto t = run_scenario_isolated(scenario(dir / "ar", 8));
  ASSERT_TRUE(t.ok) << t.error;
  auto c = run_scenario_isolated(R"({"name": "c", "platform": {"preset": "accl-coyote-u55c",
      "topology": {"kind": "star", "hosts": 8}}, "workload": {"kind": "collective", "collective": "allreduce",
      "ranks": 8, "sizes": ["1MiB"]}})");
  ASSERT_TRUE(c.ok) << c.error;
  const double want = c.tables.at("collective").num(0, "host_latency_us");
  EXPECT_NEAR(last_end(t), want, want * 1e-3); // the same engine: within 0.1 %
  fs::remove_all(dir);
}

// A collective of 0 bytes makes no CCLO call (ACCL's driver makes none for a count of 0; the firmware's eager reduce
// ring would hang on it): done at once and said, its dependents then run.
TEST(Chakra, ACollectiveOfZeroBytesMakesNoCall)
{
  auto dir = scratch("zero");
  for (unsigned r = 0; r < 4; ++r)
    write_rank(dir / fmt::format("z.{}.et", r),
               {collective(1, pb::REDUCE, 0), collective(2, pb::ALL_REDUCE, 0, {1}), collective(3, pb::ALL_REDUCE, 4096, {2})});
  auto t = run_scenario_isolated(scenario(dir / "z", 4));
  ASSERT_TRUE(t.ok) << t.error;
  EXPECT_EQ(t.metadata.at("workload").at("empty_collectives"), 8) << "two on each of the four ranks";
  bool said = false;
  for (auto const& l : t.summary)
    said = said || l.find("8 collective node(s) of 0 bytes (counted on each rank) made no CCLO call") != std::string::npos;
  EXPECT_TRUE(said);
  auto one = dir / "one";
  for (unsigned r = 0; r < 4; ++r)
    write_rank(dir / fmt::format("one.{}.et", r), {collective(3, pb::ALL_REDUCE, 4096)});
  auto o = run_scenario_isolated(scenario(one, 4));
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_DOUBLE_EQ(last_end(t), last_end(o)) << "the empty ones take no time";
  fs::remove_all(dir);
}

TEST(Chakra, EveryCollectiveTypeMovesTheVolumeItsProducerMeans)
{
  // comm_size per type (workloads/chakra/README.md): ASTRA-sim (Ring.cc: msg = size / N) and Chakra's converter (the
  // input tensors) give a reduce-scatter's and an all-to-all's as the rank's whole input, so 8 ranks of 1 MiB keep
  // (or send each peer) 128 KiB, what the collective workload calls 128 KiB per rank; an all-gather's is the rank's
  // shard, a broadcast's the tensor; reduce, gather and scatter (neither producer writes them) keep the CCLO's
  // per-rank count. Each runs in the collective workload's time for that per-rank size on the same platform.
  const std::vector<std::tuple<pb::CollectiveCommType, const char*, const char*>> types{
      {pb::REDUCE_SCATTER, "reduce-scatter", "128KiB"}, {pb::ALL_TO_ALL, "alltoall", "128KiB"},
      {pb::ALL_GATHER, "allgather", "1MiB"},            {pb::BROADCAST, "bcast", "1MiB"},
      {pb::REDUCE, "reduce", "1MiB"},                   {pb::GATHER, "gather", "1MiB"},
      {pb::SCATTER, "scatter", "1MiB"}};
  for (auto const& [type, name, per_rank] : types) {
    auto dir = scratch(name);
    for (unsigned r = 0; r < 8; ++r)
      write_rank(dir / fmt::format("t.{}.et", r), {collective(1, type, 1 << 20)});
    auto t = run_scenario_isolated(scenario(dir / "t", 8));
    ASSERT_TRUE(t.ok) << name << ": " << t.error;
    auto c = run_scenario_isolated(fmt::format(R"({{"name": "c", "platform": {{"preset": "accl-coyote-u55c",
        "topology": {{"kind": "star", "hosts": 8}}}}, "workload": {{"kind": "collective", "collective": "{}",
        "ranks": 8, "sizes": ["{}"]}}}})", name, per_rank));
    ASSERT_TRUE(c.ok) << c.error;
    const double want = c.tables.at("collective").num(0, "host_latency_us");
    // The same engine and volume; the trace's calls go through the program workload's harness, which may place the
    // ranks' calls a few hundred nanoseconds apart (8x the volume would take several times as long).
    EXPECT_NEAR(last_end(t), want, want * 5e-3) << name;
    fs::remove_all(dir);
  }
}

// A reduce-scatter's or all-to-all's comm_size that is no multiple of its group's size: each rank's share rounded up,
// said. Rounded down, 3 bytes over 4 ranks had been a collective of 0 bytes, done at once; 4,097 bytes ran as 4,096.
TEST(Chakra, AnUnevenShareIsRoundedUpAndSaid)
{
  auto dir = scratch("uneven");
  auto run = [&](const char* name, std::int64_t bytes) {
    for (unsigned r = 0; r < 4; ++r)
      write_rank(dir / fmt::format("{}.{}.et", name, r), {collective(1, pb::REDUCE_SCATTER, bytes)});
    auto t = run_scenario_isolated(scenario(dir / name, 4));
    EXPECT_TRUE(t.ok) << t.error;
    return t;
  };
  auto tiny = run("tiny", 3), even = run("even", 16), odd = run("odd", 16 + 1);
  ASSERT_TRUE(tiny.ok && even.ok && odd.ok);
  EXPECT_EQ(tiny.metadata.at("workload").at("empty_collectives"), 0);
  EXPECT_EQ(tiny.metadata.at("workload").at("uneven_shares"), 4) << "one on each rank";
  EXPECT_EQ(even.metadata.at("workload").at("uneven_shares"), 0);
  EXPECT_GT(last_end(tiny), 0.5) << "the collective runs";
  EXPECT_GT(last_end(odd), last_end(even)) << "17 bytes over 4 ranks: 5 each (8 as whole elements), not 4";
  bool said = false;
  for (auto const& l : odd.summary)
    said = said || l.find("no multiple of their group's size: each rank's share was rounded up") != std::string::npos;
  EXPECT_TRUE(said);
  fs::remove_all(dir);
}

TEST(Chakra, ASendBeforeItsDependentReceiveRunsAsTheProducersMeanIt)
{
  // ASTRA-sim's custom ring: every rank sends, then receives with the receive depending on the send. ASTRA-sim
  // completes a send without its receive, so the trace is valid; by default nafsim runs the sends eager (the CCLO's
  // Rx buffers, MPI's bounce buffers) and says so; `sends: blocking` runs the engines' own protocols, whose
  // rendezvous sends wait for receives that wait for them: a deadlock, reported.
  auto dir = scratch("sendfirst");
  const unsigned p = 4;
  for (unsigned r = 0; r < p; ++r) {
    auto send = make_node(1, pb::COMM_SEND_NODE, "send");
    add_int(send, "comm_size", 512 * 1024);
    add_int(send, "comm_dst", static_cast<std::int64_t>((r + 1) % p));
    auto recv = make_node(2, pb::COMM_RECV_NODE, "recv", {1});
    add_int(recv, "comm_size", 512 * 1024);
    add_int(recv, "comm_src", static_cast<std::int64_t>((r + p - 1) % p));
    write_rank(dir / fmt::format("ring.{}.et", r), {send, recv});
  }
  const std::string cclo = R"({"name": "chakra-test", "platform": {"preset": "accl-coyote-u55c",
      "topology": {"kind": "star", "hosts": 4}}, "workload": {"kind": "chakra", "trace": ")" + (dir / "ring").string() + "\"";
  const std::string mpi = R"({"name": "chakra-test", "platform": {"preset": "accl-cpu-cx5",
      "topology": {"kind": "star", "hosts": 4}}, "workload": {"kind": "chakra", "engine": "mpi", "trace": ")" +
                          (dir / "ring").string() + "\"";
  for (auto const& base : {cclo, cclo + R"(, "stream": true)", mpi}) {
    auto eager = run_scenario_isolated(base + "}}");
    ASSERT_TRUE(eager.ok) << eager.error;
    EXPECT_TRUE(std::any_of(eager.summary.begin(), eager.summary.end(),
                            [](auto const& l) { return l.find("sends: eager") != std::string::npos; }));
    auto blocking = run_scenario_isolated(base + R"(, "sends": "blocking"}})");
    EXPECT_FALSE(blocking.ok);
    EXPECT_EQ(blocking.error_kind, "deadlock") << blocking.error;
    EXPECT_NE(blocking.error.find("set workload.sends: eager"), std::string::npos) << blocking.error;
  }
  fs::remove_all(dir);
}

TEST(Chakra, ASendCompletesAtDeliveryAsAstraSimsCallbackWhetherOrNotItsReceiveIsPosted)
{
  // Rank 0 sends 256 KiB to rank 1, whose receive is posted only after 300 us of compute. ASTRA-sim completes the
  // send when its data is delivered (semantics.md section 3), with or without the receive: on either engine, read
  // whole or streamed, the send ends after its 21 us of wire at 100 Gb/s (it ended before the data had left: on the
  // MPI engine when UCX had posted its last fragment) and long before the receive is posted. (The data waits in the
  // receiver's Rx buffers, or bounce buffers, which hold it; 1 MiB would fill the default build's 16 x 32 KiB and be
  // delivered only once the receive frees them.)
  auto dir  = scratch("delivery");
  auto send = p2p(1, true, 256 << 10, 1);
  auto busy = make_node(1, pb::COMP_NODE, "busy");
  busy.set_duration_micros(300);
  auto recv = p2p(2, false, 256 << 10, 0, {1});
  write_rank(dir / "d.0.et", {send});
  write_rank(dir / "d.1.et", {busy, recv});
  const double wire_us = (256 << 10) * 8 / 100e3;
  for (const char* engine : {"cclo", "mpi"})
    for (bool stream : {false, true}) {
      const std::string platform = std::string(engine) == "mpi" ? R"("preset": "accl-cpu-cx5")"
                                                                : R"("preset": "accl-coyote-u55c")";
      auto t = run_scenario_isolated(fmt::format(R"({{"name": "d", "platform": {{{}, "topology": {{"kind": "star",
          "hosts": 2}}}}, "workload": {{"kind": "chakra", "engine": "{}", "trace": "{}", "stream": {}}}}})",
                                                 platform, engine, (dir / "d").string(), stream));
      ASSERT_TRUE(t.ok) << t.error;
      const double sent = t.tables.at("program_ranks").num(0, "end_us");
      EXPECT_GT(sent, wire_us) << engine << " stream " << stream;
      EXPECT_LT(sent, wire_us + 20) << engine << " stream " << stream;
      EXPECT_GT(t.tables.at("program_ranks").num(1, "end_us"), 300) << engine;
    }
  // Over TCP a send completes when its engine took its data (SendDelivery.hpp's ASSUMPTION): a 1 KiB send is not
  // held for the 44 us the receiver's stack waits before it acknowledges a lone segment.
  write_rank(dir / "s.0.et", {p2p(1, true, 1024, 1)});
  write_rank(dir / "s.1.et", {p2p(1, false, 1024, 0)});
  auto tcp = run_scenario_isolated(fmt::format(R"({{"name": "d", "platform": {{"preset": "accl-xrt-u55c",
      "topology": {{"kind": "star", "hosts": 2}}}}, "workload": {{"kind": "chakra", "trace": "{}"}}}})",
                                               (dir / "s").string()));
  ASSERT_TRUE(tcp.ok) << tcp.error;
  EXPECT_LT(tcp.tables.at("program_ranks").num(0, "end_us"), 10.0);
  fs::remove_all(dir);
}

TEST(Chakra, SendsThatNoReceiveTakesAreSaid)
{
  // A send without its receive runs (ASTRA-sim completes it at delivery) and the summary says so, in both modes; one
  // larger than the receiver's buffers stalls, and the failure names it.
  auto dir = scratch("unmatched");
  auto run = [&](std::int64_t bytes, bool stream) {
    write_rank(dir / "u.0.et", {p2p(1, true, bytes, 1, {}, "lonely")});
    write_rank(dir / "u.1.et", {make_node(1, pb::COMP_NODE, "idle")});
    return run_scenario_isolated(scenario(dir / "u", 4, stream ? R"(, "ranks": 2, "stream": true)" : R"(, "ranks": 2)"));
  };
  auto said = [](const ScenarioRun& r, const std::string& what) {
    return std::any_of(r.summary.begin(), r.summary.end(), [&](auto const& l) { return l.find(what) != std::string::npos; });
  };
  auto whole = run(4096, false);
  ASSERT_TRUE(whole.ok) << whole.error;
  EXPECT_TRUE(said(whole, "1 send(s) that no receive of the trace takes (the first: node 1 of u.0.et (4096 bytes to "
                          "rank 1, tag 0))"));
  auto streamed = run(4096, true);
  ASSERT_TRUE(streamed.ok) << streamed.error;
  EXPECT_TRUE(said(streamed, "1 send(s) that no receive of the trace takes (the first: rank 0's send of 4096 bytes"));
  auto big = run(8 << 20, false);
  EXPECT_FALSE(big.ok);
  EXPECT_NE(big.error.find("1 send(s) of the trace have no receive (the first: node 1 of u.0.et"), std::string::npos)
      << big.error;
  fs::remove_all(dir);
}

TEST(Chakra, TheSameTraceRunsOnTheMpiBaselineInTheMpiWorkloadsTime)
{
  auto dir = scratch("mpi");
  for (unsigned r = 0; r < 8; ++r)
    write_rank(dir / fmt::format("ar.{}.et", r), {collective(1, pb::ALL_REDUCE, 1 << 20)});
  // A mixed cluster: FPGAs at even positions, CPU hosts at odd ones; the trace on each engine.
  const std::string mixed = R"("node": {"kinds": ["fpga", "host", "fpga", "host", "fpga", "host", "fpga", "host",
      "fpga", "host", "fpga", "host", "fpga", "host", "fpga", "host"]})";
  auto on = [&](const std::string& engine) {
    return fmt::format(R"({{"name": "chakra-mpi", "platform": {{"preset": "accl-cpu-cx5",
        "topology": {{"kind": "star", "hosts": 16}}, {}}},
        "workload": {{"kind": "chakra", "engine": "{}", "trace": "{}"}}}})",
                       mixed, engine, (dir / "ar").string());
  };
  auto m = run_scenario_isolated(on("mpi"));
  ASSERT_TRUE(m.ok) << m.error;
  auto const& ops = m.tables.at("program_ops");
  for (std::size_t i = 0; i < ops.rows.size(); ++i) // the ranks are the host positions, the library's algorithm
    EXPECT_EQ(std::stoi(ops.rows[i].at("position")) % 2, 1);
  EXPECT_NE(ops.rows.at(0).at("algorithm").find("openmpi:"), std::string::npos);
  auto b = run_scenario_isolated(fmt::format(R"({{"name": "mb", "platform": {{"preset": "accl-cpu-cx5",
      "topology": {{"kind": "star", "hosts": 16}}, {}}}, "workload": {{"kind": "mpi", "collective": "allreduce",
      "ranks": 8, "sizes": ["1MiB"], "iterations": 1}}}})", mixed));
  ASSERT_TRUE(b.ok) << b.error;
  const double want = b.tables.at("mpi").num(0, "latency_us");
  EXPECT_NEAR(last_end(m), want, want * 1e-3); // the same library, the same call: within 0.1 %
  auto f = run_scenario_isolated(on("cclo"));
  ASSERT_TRUE(f.ok) << f.error;
  auto const& fo = f.tables.at("program_ops");
  for (std::size_t i = 0; i < fo.rows.size(); ++i)
    EXPECT_EQ(std::stoi(fo.rows[i].at("position")) % 2, 0);
  EXPECT_NE(last_end(f), last_end(m));
  fs::remove_all(dir);
}

TEST(Chakra, ComputeNodesReplayTheirDurationOrRunThroughTheEnginesComputeModel)
{
  auto dir = scratch("compute");
  for (unsigned r = 0; r < 2; ++r) {
    auto n = make_node(1, pb::COMP_NODE, "gemm");
    n.set_duration_micros(7);
    add_int(n, "num_ops", 2'000'000'000);
    add_int(n, "tensor_size", 64 << 20);
    write_rank(dir / fmt::format("c.{}.et", r), {n});
  }
  const std::string mixed = R"("node": {"kinds": ["fpga", "host", "fpga", "host"]})";
  auto on = [&](const std::string& engine, const std::string& compute) {
    return fmt::format(R"({{"name": "chakra-compute", "platform": {{"preset": "accl-cpu-cx5",
        "topology": {{"kind": "star", "hosts": 4}}, {}}},
        "workload": {{"kind": "chakra", "engine": "{}", "compute": "{}", "trace": "{}"}}}})",
                       mixed, engine, compute, (dir / "c").string());
  };
  auto duration = [](const ScenarioRun& r) { return r.tables.at("program_ops").num(0, "duration_us"); };
  auto replay = run_scenario_isolated(on("cclo", "replay"));
  ASSERT_TRUE(replay.ok) << replay.error;
  EXPECT_NEAR(duration(replay), 7.0, 1e-4);
  // The model: on the FPGA a user kernel with every DSP of the U55C (2256 multiply-adds per cycle at 250 MHz) and
  // its 32 HBM channels; on the host the EPYC 7302's 16 cores and DRAM. The program's defaults, the platform's.
  nafsim::nodes::FpgaKernelConfig k;
  k.clock = nafsim::Hertz{250e6};
  k.dsps  = nafsim::nodes::FpgaFabricConfig{}.dsps;
  const auto fpga = nafsim::nodes::FpgaKernel({}, k).roofline(2e9, 64 << 20, 32);
  const auto cpu  = nafsim::nodes::CpuCompute({}).roofline(2e9, 64 << 20, 16);
  auto f = run_scenario_isolated(on("cclo", "model"));
  ASSERT_TRUE(f.ok) << f.error;
  EXPECT_NEAR(duration(f), fpga.total.us(), 1e-3);
  EXPECT_EQ(fpga.total, fpga.compute); // 2 GFLOP on the kernel outweighs 64 MiB from HBM
  auto m = run_scenario_isolated(on("mpi", "model"));
  ASSERT_TRUE(m.ok) << m.error;
  EXPECT_NEAR(duration(m), cpu.total.us(), 1e-3);
  // A CPU operator replays its duration under `model` too: ASTRA-sim's workload layer models only the accelerator's
  // nodes ("comp node on cpu ... should run with replay"); it took the kernel's roofline here.
  for (unsigned r = 0; r < 2; ++r) {
    auto n = make_node(1, pb::COMP_NODE, "cpu_op");
    n.set_duration_micros(7);
    add_int(n, "num_ops", 2'000'000'000);
    auto* c = n.add_attr();
    c->set_name("is_cpu_op");
    c->set_bool_val(true);
    write_rank(dir / fmt::format("c.{}.et", r), {n});
  }
  auto cpu_op = run_scenario_isolated(on("cclo", "model"));
  ASSERT_TRUE(cpu_op.ok) << cpu_op.error;
  EXPECT_NEAR(duration(cpu_op), 7.0, 1e-4);
  // A memory node: its bytes streamed from HBM over the kernel's 32 channels (460 GB/s), replayed or modeled alike
  // when it has no duration.
  for (unsigned r = 0; r < 2; ++r) {
    auto n = make_node(1, pb::MEM_LOAD_NODE, "load");
    add_int(n, "tensor_size", 1 << 30);
    write_rank(dir / fmt::format("c.{}.et", r), {n});
  }
  auto l = run_scenario_isolated(on("cclo", "replay"));
  ASSERT_TRUE(l.ok) << l.error;
  EXPECT_NEAR(duration(l), nafsim::nodes::FpgaKernel({}, k).roofline(0, 1 << 30, 32).total.us(), 1e-3);
  EXPECT_NEAR(duration(l), (1 << 30) / (32 * 14.375e9) * 1e6, 1e-2);
  // A compute node with a duration and no work to model (as Chakra's PyTorch converter writes them): `model` replays
  // its duration, and the summary counts it (it ran for no time, unsaid, before); one with neither takes no time.
  for (unsigned r = 0; r < 2; ++r) {
    auto n = make_node(1, pb::COMP_NODE, "kernel");
    n.set_duration_micros(9);
    write_rank(dir / fmt::format("c.{}.et", r), {n, make_node(2, pb::COMP_NODE, "empty", {1})});
  }
  auto d = run_scenario_isolated(on("cclo", "model"));
  ASSERT_TRUE(d.ok) << d.error;
  EXPECT_NEAR(duration(d), 9.0, 1e-4);
  EXPECT_NEAR(d.tables.at("program_ops").num(1, "duration_us"), 0.0, 1e-9);
  bool said = false;
  for (auto const& line : d.summary)
    said = said || line.find("2 compute or memory node(s) with no work to model") != std::string::npos;
  EXPECT_TRUE(said);
  fs::remove_all(dir);
}

TEST(Chakra, DependenciesOrderComputeAndCommunicationNodesListedInAnyOrder)
{
  // Rank files list nodes before their dependencies; attributes come in several integer kinds. Each rank computes
  // 10 us, then sends to the next and receives from the previous (the receive not waiting for the send), then
  // computes 5 us after both.
  auto dir = scratch("ring");
  const unsigned p = 4;
  for (unsigned r = 0; r < p; ++r)
    write_rank(dir / fmt::format("ring.{}.et", r), ring_rank(r, p, 10));
  auto t = run_scenario_isolated(scenario(dir / "ring", p));
  ASSERT_TRUE(t.ok) << t.error;
  auto const& ops = t.tables.at("program_ops");
  ASSERT_EQ(ops.rows.size(), 4u * p);
  for (std::size_t i = 0; i < ops.rows.size(); ++i) {
    auto const& kind = ops.rows[i].at("kind");
    if (kind == "send" || kind == "recv") {
      EXPECT_NEAR(ops.num(i, "start_us"), 10.0, 1e-4) << kind; // both start when the first compute ends
    }
    if (ops.rows[i].at("name").rfind("after", 0) == 0) {
      EXPECT_NEAR(ops.num(i, "duration_us"), 5.0, 1e-4);
    }
  }
  fs::remove_all(dir);
}

TEST(Chakra, BadTracesAreErrorsNamingTheFileAndNode)
{
  auto dir = scratch("bad");
  auto run = [&](const std::vector<std::vector<pb::Node>>& ranks, const std::string& want, bool truncate = false,
                 const std::string& extra = "") {
    auto t = run_trace(dir, "t", ranks, extra, truncate);
    EXPECT_FALSE(t.ok) << want;
    EXPECT_EQ(t.error_kind, "config") << t.error;
    EXPECT_NE(t.error.find(want), std::string::npos) << t.error;
    fs::remove_all(dir);
    fs::create_directories(dir);
  };
  auto self = make_node(1, pb::COMP_NODE, "self", {1});
  // What Chakra's converter commonly writes is repaired by default (ConverterDefectsAreRepairedAndCounted); strict
  // refuses it.
  const std::string strict = R"(, "strict": true)";
  run({{self}, {}}, "depends on itself (workload.strict is true", false, strict);
  run({{make_node(1, pb::COMP_NODE, "x", {7})}, {}}, "depends on node 7, which this file does not hold", false, strict);
  run({{make_node(1, pb::COMP_NODE, "a", {2}), make_node(2, pb::COMP_NODE, "b", {1})}, {}}, "dependency cycle");
  // The node named is on the cycle (not one that only waits for it), with the cycle and the field.
  run({{make_node(5, pb::COMP_NODE, "x", {2}), make_node(1, pb::COMP_NODE, "a", {2}),
        make_node(2, pb::COMP_NODE, "b", {1})},
       {}},
      "node 2 ('b'), data_deps: is on a dependency cycle (each waits for the next: 2 -> 1 -> 2)");
  run({{collective(1, pb::ALL_REDUCE, 1024)}, {collective(1, pb::ALL_REDUCE, 1024)}}, "t.0.et", true);
  // A receive without its send, or of another size: the receiver's file and node, and the sizes in bytes.
  auto snd = p2p(1, true, 64, 1);
  auto rcv = p2p(1, false, 128, 0);
  run({{snd}, {rcv}}, "t.1.et: node 1 ('recv'), comm_size: rank 1 receives 128 bytes from rank 0 (tag 0), but the "
                      "matching send (node 1 of t.0.et) sends 64 bytes");
  run({{}, {rcv}}, "t.1.et: node 1 ('recv'): rank 1 receives message 1 from rank 0 with tag 0, but rank 0 sends it "
                   "only 0");
  run({{collective(1, pb::ALL_REDUCE, 1024)}, {}}, "calls 0 collective(s)");
  // A send issued on a rank its comm_src does not name (or a receive its comm_dst): ASTRA-sim refuses it; it had run.
  auto foreign = p2p(1, true, 64, 1);
  add_int(foreign, "comm_src", 1);
  auto theirs = p2p(1, false, 64, 0);
  run({{foreign}, {theirs}}, "t.0.et: node 1 ('send'), comm_src: a send on rank 0's trace names rank 1 as its sender");
  auto own = p2p(1, true, 64, 1);
  add_int(own, "comm_src", 0);
  auto wrong_dst = p2p(1, false, 64, 0);
  add_int(wrong_dst, "comm_dst", 0);
  run({{own}, {wrong_dst}}, "comm_dst: a receive on rank 1's trace names rank 0 as its receiver");
  run({{collective(1, pb::ALL_REDUCE, 1024)}, {collective(1, pb::ALL_GATHER, 1024)}}, "the same collectives");
  // Uneven sizes (an all-to-all of uneven splits): the field and the trace's own comm_sizes (the message had named
  // comm_type, bytes divided by the members, and "different collectives").
  for (const char* stream : {"", R"(, "stream": true)"})
    run({{collective(1, pb::ALL_TO_ALL, 2048)}, {collective(1, pb::ALL_TO_ALL, 4096)}},
        "comm_size", false, stream);
  run({{collective(1, pb::ALL_TO_ALL, 2048)}, {collective(1, pb::ALL_TO_ALL, 4096)}},
      "t.1.et: node 1 ('coll'), comm_size: collective 1 of group 'world', alltoall, has comm_size 4096 here but 2048 on "
      "rank 0 (node 1): a collective moves one size on every member");
  // Sizes whose shares round up alike (7 and 8 bytes over 4 ranks: 2 each) still differ (the review of 2026-12-08).
  for (const char* stream : {"", R"(, "stream": true)"}) {
    auto rs = [](std::int64_t b) { return std::vector<pb::Node>{collective(1, pb::REDUCE_SCATTER, b)}; };
    run({rs(8), rs(7), rs(8), rs(8)}, "has comm_size 7 here but 8 on rank 0", false, stream);
  }
  auto odd = make_node(1, pb::COMM_COLL_NODE, "odd");
  add_int(odd, "comm_type", 42);
  add_int(odd, "comm_size", 8);
  run({{odd}, {odd}}, "unknown collective type 42");
  // Bytes that are no node in the middle of a file (a varint longer than 64 bits, then a node): an error in both modes,
  // never the file's end (read whole, the trace had silently lost the nodes after them).
  for (bool stream : {false, true}) {
    for (unsigned r = 0; r < 2; ++r)
      write_rank(dir / fmt::format("v.{}.et", r), {collective(1, pb::ALL_REDUCE, 1024)});
    std::ofstream(dir / "v.1.et", std::ios::binary | std::ios::app) << std::string(11, '\xff') << std::string(3, '\x02');
    auto v = run_scenario_isolated(scenario(dir / "v", 4, stream ? R"(, "ranks": 2, "stream": true)" : R"(, "ranks": 2)"));
    EXPECT_FALSE(v.ok) << stream;
    EXPECT_NE(v.error.find("v.1.et"), std::string::npos) << v.error;
    EXPECT_NE(v.error.find("a length varint overflows 64 bits"), std::string::npos) << v.error;
  }
  // Communicator groups (the audit of 2026-12-07): a rank listed twice (the run had deadlocked with advice about
  // receives), a folder or a repeated group where the file goes (an internal error; the last one had won).
  auto in_g = [](std::uint64_t id) {
    auto n   = collective(id, pb::ALL_REDUCE, 1024);
    auto* pg = n.add_attr();
    pg->set_name("pg_name");
    pg->set_string_val("g");
    return n;
  };
  auto groups = [&](const std::string& text) {
    std::ofstream(dir / "g.json") << text;
    return fmt::format(R"(, "comm_groups": "{}")", (dir / "g.json").string());
  };
  run({{in_g(1)}, {in_g(1)}}, "g.json: /g: rank 0 is listed twice", false, groups(R"({"g": [0, 0, 1]})"));
  run({{in_g(1)}, {in_g(1)}}, "g.json: /g: key 'g' appears twice", false, groups(R"({"g": [0, 1], "g": [1]})"));
  fs::create_directories(dir / "gdir");
  run({{in_g(1)}, {in_g(1)}}, "is a folder: workload.comm_groups names", false,
      fmt::format(R"(, "comm_groups": "{}")", (dir / "gdir").string()));
  auto meta = make_node(9, pb::METADATA_NODE, "process groups");
  meta.mutable_inputs()->set_values(R"([{"pg_name": "g", "ranks": [1, 1, 0]}])");
  run({{meta, in_g(1)}, {in_g(1)}}, "group 'g': rank 1 is listed twice");
  fs::remove_all(dir);
  fs::create_directories(dir);
  // A missing rank file.
  write_rank(dir / "t.0.et", {});
  auto t = run_scenario_isolated(scenario(dir / "t", 4, R"(, "ranks": 2)"));
  EXPECT_FALSE(t.ok);
  EXPECT_NE(t.error.find("t.1.et"), std::string::npos) << t.error;
  fs::remove_all(dir);
}

TEST(Chakra, ACollectiveTheFirmwareCannotRunNamesItsTraceNode)
{
  // A 1-element all-reduce on 4 CCLO ranks (a loss's all-reduce, NCCL's barrier): the firmware's eager ring cannot cut
  // it (CallPlan.cpp ring_chunks); the error names the trace's node, not only the program operation's number.
  auto dir = scratch("tiny");
  std::vector<std::vector<pb::Node>> tiny(4, {collective(3, pb::ALL_REDUCE, 4)});
  auto t = run_trace(dir, "t", tiny, "");
  EXPECT_FALSE(t.ok);
  EXPECT_NE(t.error.find("program operation 0 (allreduce, coll (node 3 of rank 0 ...)) on rank "), std::string::npos)
      << t.error;
  fs::remove_all(dir);
}

// --critical-path on a trace (it wrote nothing, silently): the chain that set the last rank's end, from the start, adds
// up to that end, every segment labelled, read whole or streamed, on the CCLO and on MPI hosts.
TEST(Chakra, TheCriticalPathOfATraceAddsUpToItsEnd)
{
  const fs::path dir = scratch("cp");
  std::vector<std::vector<pb::Node>> ranks;
  for (unsigned r = 0; r < 4; ++r)
    ranks.push_back(ring_rank(r, 4, 2 + r));
  for (unsigned r = 0; r < 4; ++r)
    write_rank(dir / fmt::format("ring.{}.et", r), ranks[r]);
  for (const char* extra : {R"(, "ranks": 4)", R"(, "ranks": 4, "stream": true)", R"(, "ranks": 4, "engine": "mpi")"}) {
    SCOPED_TRACE(extra);
    std::string sc = scenario(dir / "ring", 4, extra);
    if (std::string(extra).find("mpi") != std::string::npos)
      sc.replace(sc.find("accl-coyote-u55c"), 16, "accl-cpu-cx5");
    auto run = run_scenario_isolated(sc, {}, "off", true);
    ASSERT_TRUE(run.ok) << run.error;
    ASSERT_TRUE(run.tables.count("critical_path"));
    auto const& rk = run.tables.at("program_ranks");
    double end = 0;
    for (std::size_t i = 0; i < rk.rows.size(); ++i)
      end = std::max(end, rk.num(i, "end_us"));
    double sum = 0;
    auto const& cp = run.tables.at("critical_path");
    for (auto const& row : cp.rows) {
      sum += std::stod(row.at("duration_us"));
      EXPECT_NE(row.at("resource"), "other") << row.at("detail");
    }
    EXPECT_NEAR(sum, end, 5e-5);
    std::string all;
    for (auto const& l : run.summary)
      all += l + "\n";
    EXPECT_NE(all.find("critical path of the run"), std::string::npos) << all;
  }
  fs::remove_all(dir);
}

// A rank's receive and an independent send, both ready at the start: ASTRA-sim posts the receive without taking the
// rank's communication slot, so the send leaves at once. On the CCLO an eager receive holds the call FIFO until its
// data comes; called in node-id order the send waited 214 us behind a receive whose data came at 200 us, and the
// time depended only on how the trace numbered the two nodes.
TEST(Chakra, AReceiveReadyWithASendIsCalledAfterItWhateverTheirIds)
{
  auto dir   = scratch("recvlast");
  auto late  = make_node(1, pb::COMP_NODE, "late");
  late.set_duration_micros(200);
  auto trace = [&](bool recv_first) {
    return std::vector<std::vector<pb::Node>>{
        {p2p(recv_first ? 1 : 2, false, 65536, 1), p2p(recv_first ? 2 : 1, true, 65536, 2)},
        {late, p2p(2, true, 65536, 0, {1})},
        {p2p(1, false, 65536, 0)}};
  };
  auto end_of_rank2 = [](const ScenarioRun& r) {
    auto const& t = r.tables.at("program_ops");
    for (std::size_t i = 0; i < t.rows.size(); ++i)
      if (t.rows[i].at("rank") == "2")
        return t.num(i, "end_us");
    return -1.0;
  };
  auto first = run_trace(dir, "f", trace(true), "");
  auto second = run_trace(dir, "s", trace(false), "");
  ASSERT_TRUE(first.ok) << first.error;
  ASSERT_TRUE(second.ok) << second.error;
  EXPECT_LT(end_of_rank2(first), 50.0) << "the send does not wait for the receive listed before it";
  EXPECT_EQ(end_of_rank2(first), end_of_rank2(second));
  fs::remove_all(dir);
}

// comm_type written as the enum's name runs as its number; it was ignored and the node typed from its name (here
// "coll", which names no collective: skipped, and the summary said the attribute was missing).
TEST(Chakra, ACollectiveTypeGivenByNameRunsAsItsNumber)
{
  auto dir = scratch("ctname");
  auto traces = [&](auto&& set) {
    std::vector<std::vector<pb::Node>> ranks;
    for (unsigned r = 0; r < 4; ++r) {
      auto n = make_node(1, pb::COMM_COLL_NODE, "coll");
      add_int(n, "comm_size", 65536);
      set(n);
      ranks.push_back({n});
    }
    return ranks;
  };
  auto named_attr = [](const char* v) {
    return [v](pb::Node& n) {
      auto* a = n.add_attr();
      a->set_name("comm_type");
      a->set_string_val(v);
    };
  };
  auto number = run_trace(dir, "n", traces([](pb::Node& n) { add_int(n, "comm_type", pb::ALL_REDUCE); }), "");
  auto name   = run_trace(dir, "s", traces(named_attr("ALL_REDUCE")), "");
  ASSERT_TRUE(number.ok) << number.error;
  ASSERT_TRUE(name.ok) << name.error;
  EXPECT_EQ(last_end(name), last_end(number));
  EXPECT_GT(last_end(name), 0.0);
  auto bad = run_trace(dir, "b", traces(named_attr("ALLREDUCE_PLEASE")), "");
  ASSERT_FALSE(bad.ok);
  EXPECT_NE(bad.error.find("comm_type: a collective's type is a CollectiveCommType"), std::string::npos) << bad.error;
  fs::remove_all(dir);
}

// A receive and an allreduce with the same peer, ready together on rank 0, and on rank 1 a send followed by the
// allreduce: the CCLO numbers a peer's eager messages in call order per tag, and with the trace's sends on the
// collectives' tag the two calls took each other's messages in one order or the other (a deadlock, or data paired
// wrongly). A trace's point-to-point messages travel under their own tag on the CCLO: both orders run, alike.
TEST(Chakra, APointToPointMessageAndACollectiveWithTheSamePeerDoNotTakeEachOthersData)
{
  auto dir   = scratch("p2pcoll");
  auto trace = [&](bool recv_first) {
    return std::vector<std::vector<pb::Node>>{
        {p2p(recv_first ? 1 : 2, false, 65536, 1), collective(recv_first ? 2 : 1, pb::ALL_REDUCE, 4096)},
        {p2p(1, true, 65536, 0), collective(2, pb::ALL_REDUCE, 4096, {1})}};
  };
  auto a = run_trace(dir, "a", trace(true), "");
  auto b = run_trace(dir, "b", trace(false), "");
  ASSERT_TRUE(a.ok) << a.error;
  ASSERT_TRUE(b.ok) << b.error;
  EXPECT_EQ(last_end(a), last_end(b));
  // With blocking sends (64 KiB goes rendezvous) the receive, called first, announces its buffer and waits in the
  // retry queue: the allreduce behind it runs.
  auto blocking = run_trace(dir, "c", trace(true), R"(, "sends": "blocking")");
  ASSERT_TRUE(blocking.ok) << blocking.error;
  fs::remove_all(dir);
}

// Two ranks that each receive (ready at once) before the send their peer waits for: ASTRA-sim posts the receives
// without blocking and runs it; on the CCLO a receive holds the rank's calls, so it waits for ever, as the hardware
// would. The deadlock report now says why and what runs it (the hosts' MPI); it offered only the streamed reader's
// advice about two communicators' collectives, which this trace does not have.
TEST(Chakra, AReceiveBeforeTheSendItsPeerAwaitsNamesTheCclosCallOrder)
{
  auto dir = scratch("xchg");
  std::vector<std::vector<pb::Node>> ranks;
  for (int r = 0; r < 2; ++r) {
    auto work = make_node(2, pb::COMP_NODE, "work");
    work.set_duration_micros(5);
    ranks.push_back({p2p(1, false, 65536, 1 - r), work, p2p(3, true, 65536, 1 - r, {2})});
  }
  auto run = run_trace(dir, "x", ranks, "");
  ASSERT_FALSE(run.ok);
  EXPECT_EQ(run.error_kind, "deadlock") << run.error;
  EXPECT_NE(run.error.find("on the CCLO a receive holds its rank's calls"), std::string::npos) << run.error;
  EXPECT_NE(run.error.find("workload.engine: mpi"), std::string::npos) << run.error;
  fs::remove_all(dir);
}

// Integer attributes of another kind: a text tag ran as tag 0, a double comm_size was "missing", an integer pg_name on
// a send "no pg_name". A whole double is a whole number now, a text is an error naming it, and a send's integer group
// id names its group as a collective's does.
TEST(Chakra, IntegerAttributesOfAnotherKindAreReadOrRefusedByName)
{
  auto dir = scratch("kinds");
  auto with = [&](const char* name, auto&& set) {
    std::vector<std::vector<pb::Node>> ranks{{p2p(1, true, 65536, 1)}, {p2p(1, false, 65536, 0)}};
    for (auto& rank : ranks) {
      auto* a = rank[0].add_attr();
      a->set_name(name);
      set(*a);
    }
    return ranks;
  };
  auto text_tag = run_trace(dir, "t", with("comm_tag", [](pb::AttributeProto& a) { a.set_string_val("3"); }), "");
  ASSERT_FALSE(text_tag.ok);
  EXPECT_NE(text_tag.error.find("comm_tag holds the text \"3\": give a whole number"), std::string::npos)
      << text_tag.error;
  auto whole = run_trace(dir, "w", with("comm_tag", [](pb::AttributeProto& a) { a.set_double_val(3.0); }), "");
  EXPECT_TRUE(whole.ok) << whole.error;
  {
    std::ofstream g(dir / "groups.json");
    g << R"({"1": [0, 1]})";
  }
  std::vector<std::vector<pb::Node>> by_group{{p2p(1, true, 65536, -1)}, {p2p(1, false, 65536, -1)}};
  for (auto& rank : by_group) {
    auto& n = rank[0];
    for (int i = n.attr_size() - 1; i >= 0; --i) // no peer: the two-rank group names it
      if (n.attr(i).name() == "comm_dst" || n.attr(i).name() == "comm_src")
        n.mutable_attr()->DeleteSubrange(i, 1);
    add_int(n, "pg_name", 1);
  }
  auto grouped = run_trace(dir, "g", by_group,
                           fmt::format(R"(, "comm_groups": "{}")", (dir / "groups.json").string()));
  EXPECT_TRUE(grouped.ok) << grouped.error;
  fs::remove_all(dir);
}

// A trace's compute nodes are a GPU's kernels: on the MPI engine they hold no MPI progress, read whole or streamed
// alike (a program's phase on every core does: workloads/program/README.md). Read whole, the replay held it (a 1 MiB
// allreduce beside a 2e10-operation node ended after the node, 13.207 against 13.023 ms streamed).
TEST(Chakra, ComputeNodesHoldNoMpiProgressReadWholeOrStreamed)
{
  auto dir = scratch("hold");
  for (unsigned r = 0; r < 2; ++r) {
    auto n = make_node(2, pb::COMP_NODE, "gemm");
    add_int(n, "num_ops", 20'000'000'000);
    write_rank(dir / fmt::format("h.{}.et", r), {collective(1, pb::ALL_REDUCE, 1 << 20), n});
  }
  double exposed[2] = {}, end[2] = {};
  for (int streamed = 0; streamed < 2; ++streamed) {
    auto r = run_scenario_isolated(fmt::format(R"({{"name": "chakra-hold", "platform": {{"preset": "accl-cpu-cx5",
        "topology": {{"kind": "star", "hosts": 2}}}}, "workload": {{"kind": "chakra", "engine": "mpi",
        "compute": "model", "stream": {}, "trace": "{}"}}}})",
                                               streamed ? "true" : "false", (dir / "h").string()));
    ASSERT_TRUE(r.ok) << r.error;
    exposed[streamed] = r.tables.at("program_ranks").num(0, "exposed_communication_us");
    end[streamed]     = r.tables.at("program_ranks").num(0, "end_us");
    for (auto const& line : r.summary)
      EXPECT_EQ(line.find("the library made no progress"), std::string::npos) << line;
  }
  EXPECT_LT(exposed[0], 1.0) << "the allreduce runs beside the node, hidden under it (held: 676 us exposed)";
  EXPECT_NEAR(exposed[0], exposed[1], 1e-3) << "read whole and streamed alike";
  EXPECT_NEAR(end[0], end[1], 1e-3);
  fs::remove_all(dir);
}
