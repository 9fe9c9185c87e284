// The critical path of every collective (nafsim run --critical-path), both protocols, 3 and 8 ranks: the segments of
// each call's path are contiguous from its start and add up to its latency (collective.csv, the slowest rank's
// counter); every segment names a resource (nothing unlabelled) and a place; the resources are the ones the call's
// protocol uses.
#include "tests/support/RunScenario.hpp"
#include "workloads/CriticalPath.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

using namespace nafsim::testing;

namespace {
struct Case {
  const char* collective;
  const char* protocol;
  unsigned ranks;
};

void check(const Case& c)
{
  SCOPED_TRACE(fmt::format("{} {} on {} ranks", c.collective, c.protocol, c.ranks));
  auto run = run_scenario_isolated(
      fmt::format(R"({{"name": "cp", "platform": "accl-coyote-u55c",
        "workload": {{"kind": "collective", "collective": "{}", "ranks": {}, "protocol": "{}",
                      "sizes": ["1KiB", "64KiB"], "iterations": 2}}}})",
                  c.collective, c.ranks, c.protocol),
      {}, "off", true);
  ASSERT_TRUE(run.ok) << run.error;
  ASSERT_TRUE(run.tables.count("critical_path"));
  auto const& lat = run.tables.at("collective");
  auto const& cp  = run.tables.at("critical_path");
  // Per call (bytes, iteration): the segments in order.
  std::map<std::pair<std::string, std::string>, std::vector<std::size_t>> calls;
  for (std::size_t i = 0; i < cp.rows.size(); ++i)
    calls[{cp.rows[i].at("bytes"), cp.rows[i].at("iteration")}].push_back(i);
  ASSERT_EQ(calls.size(), lat.rows.size()) << "one path per call";
  std::set<std::string> resources;
  for (std::size_t r = 0; r < lat.rows.size(); ++r) {
    auto const& rows = calls[{lat.rows[r].at("bytes"), lat.rows[r].at("iteration")}];
    ASSERT_FALSE(rows.empty());
    double at = 0, sum = 0;
    for (std::size_t k = 0; k < rows.size(); ++k) {
      auto const& row = cp.rows[rows[k]];
      EXPECT_EQ(std::stoul(row.at("segment")), k);
      EXPECT_NEAR(std::stod(row.at("start_us")), at, 2e-6) << "segment " << k << " starts where the last ended";
      const double d = std::stod(row.at("duration_us"));
      EXPECT_GT(d, 0.0);
      at += d;
      sum += d;
      EXPECT_NE(row.at("resource"), "other") << "an unlabelled delay: " << row.at("detail");
      EXPECT_FALSE(row.at("place").empty());
      resources.insert(row.at("resource"));
    }
    // latency_us has 4 decimals, the durations are exact (1 ps = 1e-6 us).
    EXPECT_NEAR(sum, lat.num(r, "latency_us"), 5.1e-5) << "bytes " << lat.rows[r].at("bytes");
  }
  EXPECT_TRUE(resources.count("firmware"));
  EXPECT_TRUE(resources.count("wire"));
  // The steps: each call's segments grouped by place, in order, adding up to the same latency, each step in another
  // place than the one before and waiting on the last node the path left.
  ASSERT_TRUE(run.tables.count("critical_path_steps"));
  auto const& st = run.tables.at("critical_path_steps");
  std::map<std::pair<std::string, std::string>, std::vector<std::size_t>> step_rows;
  for (std::size_t i = 0; i < st.rows.size(); ++i)
    step_rows[{st.rows[i].at("bytes"), st.rows[i].at("iteration")}].push_back(i);
  ASSERT_EQ(step_rows.size(), lat.rows.size());
  for (auto const& [call, rows] : step_rows) {
    double at = 0;
    std::size_t segments = 0;
    std::string node = "-";
    for (std::size_t k = 0; k < rows.size(); ++k) {
      auto const& row = st.rows[rows[k]];
      EXPECT_NEAR(std::stod(row.at("start_us")), at, 2e-6);
      at += std::stod(row.at("duration_us"));
      segments += std::stoul(row.at("segments"));
      if (k > 0) {
        EXPECT_NE(row.at("place"), st.rows[rows[k - 1]].at("place"));
      }
      EXPECT_EQ(row.at("after"), node) << "step " << k;
      if (row.at("place").rfind("switch ", 0) != 0)
        node = row.at("place");
    }
    EXPECT_EQ(segments, calls[call].size()) << "every segment in one step";
    EXPECT_NEAR(at, std::stod(cp.rows[calls[call].back()].at("start_us")) +
                        std::stod(cp.rows[calls[call].back()].at("duration_us")), 2e-6);
  }
  // The summary: each size's median call as shares per resource, its bottleneck, and where else it was spent.
  int shares = 0, bottlenecks = 0, elsewhere = 0, steps = 0;
  for (auto const& l : run.summary) {
    shares += l.find(" us = ") != std::string::npos;
    bottlenecks += l.find("bottleneck: ") != std::string::npos && l.find("% of the path; at ") != std::string::npos &&
                   l.find(" % of the call") != std::string::npos;
    elsewhere += l.find("slowest rank ") != std::string::npos && l.find("on other ranks' nodes") != std::string::npos;
    steps += l.find("steps: ") != std::string::npos && l.find("(critical_path_steps.csv); longest: ") != std::string::npos;
  }
  std::set<std::string> sizes; // one summary per size (the barrier's two sizes are one: it moves no data)
  for (auto const& row : lat.rows)
    sizes.insert(row.at("bytes"));
  EXPECT_EQ(shares, static_cast<int>(sizes.size()));
  EXPECT_EQ(bottlenecks, static_cast<int>(sizes.size()));
  EXPECT_EQ(elsewhere, static_cast<int>(sizes.size()));
  EXPECT_EQ(steps, static_cast<int>(sizes.size()));
  if (std::string(c.collective) != "barrier") { // the barrier moves no data: notifications only
    EXPECT_TRUE(resources.count("data mover"));
  }
}
} // namespace

class CriticalPath : public ::testing::TestWithParam<Case> {};

TEST_P(CriticalPath, SegmentsAddUpToTheLatency) { check(GetParam()); }

namespace {
std::vector<Case> cases()
{
  std::vector<Case> v{{"sendrecv", "eager", 2}, {"sendrecv", "rendezvous", 2}};
  for (const char* coll :
       {"bcast", "scatter", "gather", "allgather", "reduce", "allreduce", "reduce-scatter", "alltoall", "barrier"})
    for (const char* proto : {"eager", "rendezvous"})
      for (unsigned ranks : {3u, 8u})
        v.push_back({coll, proto, ranks});
  return v;
}
} // namespace

INSTANTIATE_TEST_SUITE_P(EveryCollective, CriticalPath, ::testing::ValuesIn(cases()), [](const auto& p) {
  std::string name = fmt::format("{}_{}_{}", p.param.collective, p.param.protocol, p.param.ranks);
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
});

namespace {
/// Each call's path in critical_path.csv (grouped by the `keys` columns) adds up to the `latency` column of the
/// workload's `table` row with the same keys, and no segment is unlabelled ("other"). Returns the resources named.
std::set<std::string> expect_paths_add_up(const ScenarioRun& run, const std::string& table,
                                          const std::vector<std::string>& keys, const std::string& latency,
                                          const std::string& what)
{
  auto const& t  = run.tables.at(table);
  auto const& cp = run.tables.at("critical_path");
  auto key       = [&](const std::map<std::string, std::string>& row) {
    std::string k;
    for (auto const& c : keys)
      k += row.at(c) + "|";
    return k;
  };
  std::map<std::string, double> sums;
  std::set<std::string> resources;
  for (auto const& row : cp.rows) {
    sums[key(row)] += std::stod(row.at("duration_us"));
    resources.insert(row.at("resource"));
    EXPECT_NE(row.at("resource"), "other") << what << ": " << row.at("detail");
  }
  EXPECT_EQ(sums.size(), t.rows.size()) << what << ": one path per call";
  for (std::size_t r = 0; r < t.rows.size(); ++r)
    EXPECT_NEAR(sums[key(t.rows[r])], t.num(r, latency), 5.1e-5) << what << ", row " << r;
  return resources;
}
} // namespace

// The applications: a DLRM inference's path (release to its last op's end) adds up to its latency, and an FC layer's
// (the slowest rank, from the common start) to its total; the kernels and the host CPU's GEMV appear on them.
TEST(CriticalPathApplications, DlrmInferencesAndFcLayersAddUp)
{
  auto dlrm = run_scenario_isolated(R"({"name": "d", "platform": "accl-xrt-u55c",
      "workload": {"kind": "dlrm", "inferences": 4, "latency_probes": 3}})",
                                    {}, "off", true);
  ASSERT_TRUE(dlrm.ok) << dlrm.error;
  EXPECT_TRUE(expect_paths_add_up(dlrm, "dlrm", {"inference"}, "latency_us", "dlrm").count("FPGA kernel"));

  for (auto [reduction, platform] : {std::pair{"accl", "accl-coyote-u55c"}, std::pair{"mpi", "accl-cpu-cx5"}}) {
    auto fc = run_scenario_isolated(fmt::format(R"({{"name": "f", "platform": "{}",
        "workload": {{"kind": "fc", "reduction": "{}", "ranks": 4, "sizes": [2048], "iterations": 2}}}})",
                                                platform, reduction),
                                    {}, "off", true);
    ASSERT_TRUE(fc.ok) << fc.error;
    EXPECT_TRUE(expect_paths_add_up(fc, "fc", {"iteration"}, "total_us", reduction).count("host CPU")) << reduction;
  }
}

// Software MPI on hosts (the baselines): each call's path from the slowest rank's start adds up to its latency.
TEST(CriticalPathApplications, MpiCallsAddUp)
{
  for (const char* coll : {"allreduce", "gather", "bcast"}) {
    auto run = run_scenario_isolated(fmt::format(R"({{"name": "m", "platform": "accl-cpu-cx5",
        "workload": {{"kind": "mpi", "collective": "{}", "ranks": 8, "sizes": ["1KiB", "256KiB"], "iterations": 2}}}})",
                                                 coll),
                                     {}, "off", true);
    ASSERT_TRUE(run.ok) << run.error;
    expect_paths_add_up(run, "mpi", {"bytes", "iteration"}, "latency_us", coll);
  }
}

// Work queued behind a busy host CPU walks back through the CPU's earlier work, not through what asked for it: two MPI
// ranks each sending 128 KiB to the other while receiving are CPU-bound (ten times the link rate moves their end by
// 0.1 %, twice the copy rate by 10 %), and the path says so. Caused by what asked, each queued job's path ran back
// through a packet's arrival and the path said 60 % wire.
TEST(CriticalPathApplications, WorkQueuedBehindABusyCpuWalksBackThroughTheCpu)
{
  auto run = run_scenario_isolated(R"({"name": "mring", "platform": {"preset": "accl-cpu-cx5",
        "topology": {"kind": "star", "hosts": 2}},
      "workload": {"kind": "program", "engine": "mpi", "ranks": 2,
        "buffers": [{"name": "x", "elements": 32768}, {"name": "y", "elements": 32768, "init": "zero"}],
        "ops": [{"op": "barrier"},
                {"op": "send", "shift": 1, "src": "x", "tag": 1, "after": [0]},
                {"op": "recv", "shift": -1, "dst": "y", "tag": 1, "after": [0]},
                {"op": "wait", "after": [1, 2]}]}})",
                                   {}, "off", true);
  ASSERT_TRUE(run.ok) << run.error;
  std::map<std::string, double> by;
  double all = 0;
  for (auto const& row : run.tables.at("critical_path").rows) {
    by[row.at("resource")] += std::stod(row.at("duration_us"));
    all += std::stod(row.at("duration_us"));
  }
  EXPECT_GT(by["host CPU"], 0.8 * all) << "host CPU " << by["host CPU"] << " of " << all << " us";
  EXPECT_LT(by["wire"], 0.1 * all) << "wire " << by["wire"] << " of " << all << " us";
}

// Flow fidelity: the messages ending at one date share one engine event, whoever set it; each transfer walks back to
// its own sender. On the ring allgather every hop of the path goes from rank k's send (the data mover reading to the
// network) over one wire segment (start to delivery) to rank k + 1's receive; the segment names the sharing that
// set its rate.
TEST(CriticalPathApplications, FlowTransfersWalkBackToTheirSender)
{
  const std::pair<const char*, const char*> sharings[] = {
      {"per-flow", "flow transfer (max-min share)"},
      {"input-ports", "flow transfer (max-min share weighted by input port)"}};
  for (auto [sharing, detail] : sharings) {
    SCOPED_TRACE(sharing);
    auto run = run_scenario_isolated(fmt::format(R"({{"name": "f", "platform": {{"preset": "accl-coyote-u55c",
        "network": {{"fidelity": "flow", "flow_sharing": "{}"}}}}, "workload": {{"kind": "collective",
        "collective": "allgather", "ranks": 8, "protocol": "rendezvous", "sizes": ["64KiB"], "iterations": 1}}}})",
                                                 sharing),
                                     {}, "off", true);
    ASSERT_TRUE(run.ok) << run.error;
    expect_paths_add_up(run, "collective", {"bytes", "iteration"}, "latency_us", "flow allgather");
    auto const& cp = run.tables.at("critical_path");
    int transfers = 0;
    for (std::size_t i = 1; i + 1 < cp.rows.size(); ++i) {
      auto const& what = cp.rows[i].at("detail");
      if (what.rfind("flow transfer", 0) != 0)
        continue;
      EXPECT_EQ(what, detail) << "segment " << i;
      ++transfers;
      auto const& before = cp.rows[i - 1].at("place");
      auto const& after  = cp.rows[i + 1].at("place");
      ASSERT_EQ(before.rfind("rank ", 0), 0u) << before;
      ASSERT_EQ(after.rfind("rank ", 0), 0u) << after;
      EXPECT_EQ((std::stoi(before.substr(5)) + 1) % 8, std::stoi(after.substr(5))) << "segment " << i;
    }
    EXPECT_GE(transfers, 7); // the ring's seven steps
  }
}

// RDMA verbs between two FPGAs (sendrecv): each message's path, from its post to its landing, adds up to its latency.
TEST(CriticalPathApplications, SendRecvMessagesAddUp)
{
  for (const char* op : {"write", "send", "read"}) {
    auto run = run_scenario_isolated(fmt::format(R"({{"name": "s", "platform": "accl-coyote-u55c",
        "workload": {{"kind": "sendrecv", "op": "{}", "sizes": ["512B", "1MiB"], "iterations": 2}}}})",
                                                 op),
                                     {}, "off", true);
    ASSERT_TRUE(run.ok) << run.error;
    expect_paths_add_up(run, "sendrecv", {"bytes", "iteration"}, "latency_us", op);
  }
}

// The connectionless transport (Lant et al.): each operation's path, from its post to the program seeing its
// delivery, adds up to its receive latency, registered or not, with nothing unlabelled.
TEST(CriticalPathApplications, ConnectionlessOperationsAddUp)
{
  auto run = run_scenario_isolated(R"({"name": "c", "platform": "lant-zcu102",
      "workload": {"kind": "connectionless", "sizes": ["64B", "4KiB"], "iterations": 2}})",
                                   {}, "off", true);
  ASSERT_TRUE(run.ok) << run.error;
  expect_paths_add_up(run, "connectionless", {"notify", "bytes", "iteration"}, "recv_us", "connectionless");
}

namespace {
/// The share of each resource (and of each "resource | detail") on a run's critical paths.
std::map<std::string, double> shares(const nafsim::testing::ScenarioRun& run)
{
  std::map<std::string, double> by;
  double all = 0;
  for (auto const& row : run.tables.at("critical_path").rows) {
    const double d = std::stod(row.at("duration_us"));
    by[row.at("resource")] += d;
    by[row.at("resource") + " | " + row.at("detail")] += d;
    all += d;
  }
  for (auto& [k, v] : by)
    v /= all;
  return by;
}

/// `scenario` run with critical paths: its shares (none, the failure recorded, if it did not run).
std::map<std::string, double> path_shares(const std::string& scenario)
{
  auto run = run_scenario_isolated(scenario, {}, "off", true);
  EXPECT_TRUE(run.ok) << run.error;
  return run.ok ? shares(run) : std::map<std::string, double>{};
}
} // namespace

// A staged packet waiting for its payload walks back through what fed it (the engine's run of reads, the data
// mover's stream from its post), not through the port's pull that found it not ready, which blamed the wire for a
// send bound by its payload (issue 53's audit, D1: RoCE with reads at 80 Gb/s "79 % wire", where 10x links gained
// 0.3 % and the reads 18.9 %; TCP fed by a data mover at 60 Gb/s "59 % wire"). And a control packet's wait (the
// connectionless NI's ACK) is caused by the receipt that queued it: the ACK stream paced by data arriving over 10 Gb/s
// links was "91 % payload stream", a stream the receiver does not have.
TEST(CriticalPathApplications, AStagedPacketWalksBackThroughWhatFedIt)
{
  auto r = path_shares(R"({"name": "r", "platform": {"preset": "accl-coyote-u55c",
        "node": {"fpga": {"device_memory": {"read_bandwidth": "80Gbps"}}}},
      "workload": {"kind": "sendrecv", "op": "write", "sizes": ["1MiB"], "iterations": 1}})");
  EXPECT_GT(r["RoCE POE | payload read from memory"], 0.9) << "wire " << r["wire"];
  EXPECT_LT(r["wire"], 0.05);

  auto t = path_shares(R"({"name": "t", "platform": {"preset": "accl-xrt-u55c",
        "node": {"fpga": {"device_memory": {"read_bandwidth": "60Gbps"}}}},
      "workload": {"kind": "collective", "collective": "sendrecv", "ranks": 2, "location": "device",
                   "sizes": ["1MiB"], "iterations": 1}})");
  EXPECT_GT(t["data mover"], 0.9) << "wire " << t["wire"] << ", TCP POE " << t["TCP POE"];
  // A segment whose wait is the transmit pipeline waits from the step that staged it, not from a later pull that found
  // it not ready yet: the XRT stack's request/status handshake per segment paces it (1 MiB in ~105 us over 1 Tbps
  // links), which the path named "84 % payload stream" (the pull's wait) and "8 % wire, earlier packets".
  auto h = path_shares(R"({"name": "h", "platform": {"preset": "accl-xrt-u55c",
        "network": {"link": {"rate": "1Tbps"}}, "topology": {"leaf_spine": {"uplink_rate": "2Tbps"}}},
      "workload": {"kind": "collective", "collective": "sendrecv", "ranks": 2, "location": "device",
                   "sizes": ["1MiB"], "iterations": 1}})");
  EXPECT_GT(h["TCP POE | write request status"], 0.8) << "payload stream " << h["payload stream"] << ", wire "
                                                      << h["wire"];
  EXPECT_LT(h["payload stream"], 0.05);
  // UDP, which does not report acceptance: the CCLO counts the last byte taken once produced, a wait named by what
  // paces the stream (the review's find: "stream to the Tx system", which no what-if lifted).
  auto u = path_shares(R"({"name": "u", "platform": {"preset": "accl-xrt-u55c",
        "node": {"fpga": {"transport": "udp", "device_memory": {"read_bandwidth": "60Gbps"}}}},
      "workload": {"kind": "collective", "collective": "sendrecv", "ranks": 2, "location": "device",
                   "sizes": ["1MiB"], "iterations": 1}})");
  EXPECT_GT(u["data mover | memory read (operand 0) at 60.0 Gb/s (to the network)"], 0.8) << "wire " << u["wire"];

  // Flow fidelity: a staged message behind the line (the messages ahead on it, RdmaPoe's nic_free_) waits for the
  // wire. It was labelled with what the packet's own ready date waited for: an 8-rank all-to-all 40 % "RoCE POE"
  // (64 ranks: 56 % payload reads, whose lift gained 1.6 % where 10x links gained 32 %).
  auto f = path_shares(R"({"name": "f", "platform": {"preset": "accl-coyote-u55c",
        "network": {"fidelity": "flow"}},
      "workload": {"kind": "collective", "collective": "alltoall", "ranks": 8, "sizes": ["64KiB"], "iterations": 1}})");
  EXPECT_GT(f["wire"], 0.8) << "RoCE POE " << f["RoCE POE"];
  EXPECT_LT(f["RoCE POE"], 0.1);

  // The data mover issues an all-to-all's moves back to back; each one's read streams behind the one before on the
  // operand port: that wait is the read's, not the move's "first byte" (a 64-rank flow all-to-all with 10x links
  // said 57 % first byte, whose what-if gained 0.4 %; lifting the reads gains 10 %).
  auto m = path_shares(R"({"name": "m", "platform": {"preset": "accl-coyote-u55c",
        "network": {"link": {"rate": "1Tbps"}}, "topology": {"leaf_spine": {"uplink_rate": "2Tbps"}}},
      "workload": {"kind": "collective", "collective": "alltoall", "ranks": 8, "sizes": ["64KiB"], "iterations": 1}})");
  const std::string first_byte = "data mover | first byte: issue cycles, memory read latency, datapath pipeline";
  EXPECT_GT(m["data mover | memory read (operand 0) at 115.0 Gb/s (to the network)"], 0.3) << first_byte << " "
                                                                                            << m[first_byte];
  EXPECT_LT(m[first_byte], 0.05);

  auto ni = run_scenario_isolated(R"({"name": "c", "platform": "lant-zcu102",
      "workload": {"kind": "connectionless", "sizes": ["64KiB"], "iterations": 1}})",
                                  {}, "off", true);
  ASSERT_TRUE(ni.ok) << ni.error;
  expect_paths_add_up(ni, "connectionless", {"notify", "bytes", "iteration"}, "recv_us", "connectionless 64 KiB");
  auto c = shares(ni);
  EXPECT_GT(c["wire"], 0.8) << "payload stream " << c["payload stream"];
  EXPECT_EQ(c.count("payload stream"), 0u) << "the NI reads its payload itself";
}

// The walk itself, on hand-made causal graphs (engine-free). `PathWalk`: the workloads' CriticalPath (the name is
// this file's fixture's).
namespace {
using nafsim::CausalGraph;
using nafsim::CauseLabel;
using nafsim::SimTime;
using PathWalk = nafsim::workloads::CriticalPath;
SimTime us(double x) { return SimTime::ps(static_cast<std::int64_t>(x * 1e6)); }
} // namespace

// CriticalPath::walk accounts for every picosecond between a call's start and end: time after the end record shows as
// an unlabelled segment, a record past the end is cut at it; the summary and the bottleneck name the largest parts.
TEST(CriticalPathWalk, AccountsForEveryPicosecond)
{
  const std::uint32_t fw = nafsim::cause_what("firmware", "call"), wire = nafsim::cause_what("wire", "hop");
  CausalGraph g;
  auto a = g.add(SimTime::ps(1'000'000), 0, CauseLabel::at_host(fw, 0));
  auto b = g.add(SimTime::ps(4'000'000), a, CauseLabel::at_host(wire, 1));
  auto late = PathWalk::walk(g, b, SimTime::ps(0), SimTime::ps(5'000'000));
  ASSERT_EQ(late.segments.size(), 3u);
  EXPECT_EQ(late.segments.back().label.what, 0u) << "the time after the last step is 'other'";
  EXPECT_EQ(late.latency(), SimTime::ps(5'000'000));
  EXPECT_EQ(late.summary(), "5.000 us = 60 % wire, 20 % firmware, 20 % other");
  EXPECT_EQ(late.bottleneck(), "bottleneck: wire, hop: 60 % of the path");
  auto early = PathWalk::walk(g, b, SimTime::ps(500'000), SimTime::ps(2'000'000));
  ASSERT_EQ(early.segments.size(), 2u);
  EXPECT_EQ(early.segments.front().begin, SimTime::ps(500'000));
  EXPECT_EQ(early.segments.back().end, SimTime::ps(2'000'000)) << "cut at the end";
  auto rank = [](std::uint32_t h) { return static_cast<int>(h); };
  EXPECT_EQ(late.elsewhere(0, rank), "on other ranks' nodes 60 % (most: rank 1, 60 %), on switches 0 %");
}

// The bottleneck's utilization: every step of the run with its label at its place, clipped to the call, overlapping
// intervals counted once.
TEST(CriticalPathWalk, TheBottlenecksUtilizationIsTheUnionOfItsStepsInTheCall)
{
  const std::uint32_t fw = nafsim::cause_what("firmware", "call"), wire = nafsim::cause_what("wire", "port busy");
  CausalGraph g;
  // The path: 1 us of firmware at rank 0, then 6 us of wire at rank 1 (the bottleneck, 60 % of 10 us) ...
  auto a = g.add(us(1), 0, CauseLabel::at_host(fw, 0));
  auto b = g.add(us(7), a, CauseLabel::at_host(wire, 1));
  // ... and off the path, the same wire at rank 1 busy 7-8 us and 7.5-9 us (overlapping: 2 us more), and the same wire
  // at rank 2 (another place: not counted).
  auto c = g.add(us(7), 0, CauseLabel::at_host(fw, 1));
  g.add(us(8), c, CauseLabel::at_host(wire, 1));
  auto d = g.add(us(7.5), 0, CauseLabel::at_host(fw, 1));
  g.add(us(9), d, CauseLabel::at_host(wire, 1));
  g.add(us(9.5), 0, CauseLabel::at_host(wire, 2));
  auto p    = PathWalk::walk(g, b, SimTime{}, us(10));
  auto rank = [](std::uint32_t h) { return static_cast<int>(h); };
  // Busy at rank 1: 1-7 (the path's own step) and 7-9: 8 us of the 10 us call.
  EXPECT_EQ(p.bottleneck(g, rank), "bottleneck: wire, port busy: 60 % of the path; at rank 1 busy 80 % of the call");
}

// A bottleneck that is a step's lead-in (a memory's first byte before its stream, split off by CausalGraph::path): its
// utilization counts the lead-ins of the run's steps at that place, not the streams they lead into.
TEST(CriticalPathWalk, ABottleneckThatIsALeadInCountsTheLeadInsOfTheRunsSteps)
{
  const std::uint32_t first = nafsim::cause_what("data mover", "first byte"),
                      read  = nafsim::cause_what("data mover", "memory read");
  CausalGraph g;
  // The path: a move at rank 3 from 0 to 10 us, its first 6 us its first byte (the bottleneck, 60 %), then 4 us of
  // stream.
  auto a = g.add(us(10), 0, CausalGraph::with_lead(CauseLabel::at_host(read, 3), first, us(6)));
  // Off the path at rank 3: another move 12-20 us (first byte 12-14: outside the call) and one 8-11 us whose first
  // byte is 8-9 (1 us more, the rest is its stream).
  auto b = g.add(us(12), 0, CauseLabel{});
  g.add(us(20), b, CausalGraph::with_lead(CauseLabel::at_host(read, 3), first, us(14)));
  auto c = g.add(us(8), 0, CauseLabel{});
  g.add(us(11), c, CausalGraph::with_lead(CauseLabel::at_host(read, 3), first, us(9)));
  auto p    = PathWalk::walk(g, a, SimTime{}, us(10));
  auto rank = [](std::uint32_t h) { return static_cast<int>(h); };
  // Busy with first bytes at rank 3 within the call: 0-6 and 8-9, 7 us of 10.
  EXPECT_EQ(p.bottleneck(g, rank),
            "bottleneck: data mover, first byte: 60 % of the path; at rank 3 busy 70 % of the call");
}

// A lead-in spent elsewhere than its step (a packet's last cable, driven by the sending host's port, before the
// receiving host's pipeline: net::Endpoint::deliver_ahead): the bottleneck's utilization counts it at the cable's
// place, not at the step's.
TEST(CriticalPathWalk, ALeadInSpentElsewhereCountsAtItsOwnPlace)
{
  const std::uint32_t wire = nafsim::cause_what("wire", "host link"),
                      pipe = nafsim::cause_what("RoCE POE", "receive pipeline");
  CausalGraph g;
  // The path: a packet sent at 0 from rank 1 to rank 2, on the cable 0-7 us, in rank 2's pipeline 7-10 us.
  auto a = g.add(us(10), 0, CausalGraph::with_lead(CauseLabel::at_host(pipe, 2), CauseLabel::at_host(wire, 1), us(7)));
  // Off the path: rank 1's next packet on the same cable 7-9 us; one on rank 5's cable 1-8 us (elsewhere).
  auto b = g.add(us(7), 0, CauseLabel{});
  g.add(us(9.5), b, CausalGraph::with_lead(CauseLabel::at_host(pipe, 2), CauseLabel::at_host(wire, 1), us(9)));
  auto c = g.add(us(1), 0, CauseLabel{});
  g.add(us(8.5), c, CausalGraph::with_lead(CauseLabel::at_host(pipe, 6), CauseLabel::at_host(wire, 5), us(8)));
  auto p    = PathWalk::walk(g, a, SimTime{}, us(10));
  auto rank = [](std::uint32_t h) { return static_cast<int>(h); };
  // Busy on rank 1's cable within the call: 0-7 and 7-9, 9 us of 10.
  EXPECT_EQ(p.bottleneck(g, rank), "bottleneck: wire, host link: 70 % of the path; at rank 1 busy 90 % of the call");
}

// A notice waiting for its payload's writes names the rate of the write it waits for: host memory's (PCIe, 104 Gb/s
// on the Coyote preset) for a rendezvous WRITE into host data, the device memory's (98 Gb/s) into device data. (The
// label was fixed once per run at the device memory's rate.)
TEST(CriticalPathApplications, PayloadWritesIntoHostMemoryAreNamedAtPciesRate)
{
  auto labels = [](const char* location) {
    auto run = run_scenario_isolated(fmt::format(R"({{"name": "w", "platform": "accl-coyote-u55c",
        "workload": {{"kind": "collective", "collective": "sendrecv", "ranks": 2, "protocol": "rendezvous",
                      "location": "{}", "sizes": ["64KiB"], "iterations": 1}}}})",
                                                 location),
                                     {}, "off", true);
    EXPECT_TRUE(run.ok) << run.error;
    std::set<std::string> rates;
    for (auto const& row : run.tables.at("critical_path").rows)
      if (auto d = row.at("detail"); d.find("payload written to memory at ") != std::string::npos)
        rates.insert(d.substr(d.find(" at ") + 4, d.find(" Gb/s") - d.find(" at ") - 4));
    return rates;
  };
  EXPECT_EQ(labels("host").count("104.0"), 1u);
  EXPECT_EQ(labels("device"), std::set<std::string>{"98.0"});
}
