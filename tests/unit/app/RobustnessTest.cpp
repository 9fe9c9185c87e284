// Regression tests of issue 16 ("nothing lost, nothing crashes"), through the command line as users
// meet them: each defect found by the fuzzer and the fault matrix, reproduced, with the outcome it must
// have now. Exit codes: 0 done, 2 bad input (nothing written), 3 a simulated failure the model explains
// (nothing written), 4 results could not be written.
#include "tests/support/RunScenario.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/mount.h>
#include <sys/wait.h>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Outcome {
  int rc = -1;
  std::string out, err;
};

std::string slurp(const fs::path& p)
{
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string quote(const std::string& s)
{
  std::string q = "'";
  for (char c : s)
    q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

/// A scratch directory per test, removed afterwards.
class Robustness : public ::testing::Test {
protected:
  void SetUp() override
  {
    dir_ = fs::temp_directory_path() /
           fmt::format("nafsim-robust-{}-{}", ::testing::UnitTest::GetInstance()->current_test_info()->name(), getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override
  {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  /// `nafsim run <args>` from the scratch directory; scenario paths are relative to the project root.
  Outcome run(const std::vector<std::string>& args, const fs::path& cwd = {}) const
  {
    std::vector<std::string> all{"run"};
    all.insert(all.end(), args.begin(), args.end());
    return nafsim(all, cwd);
  }
  /// `nafsim <args>` (any command) from the scratch directory.
  Outcome nafsim(const std::vector<std::string>& args, const fs::path& cwd = {}) const
  {
    std::string cmd = fmt::format("cd {} && {}", quote((cwd.empty() ? dir_ : cwd).string()), quote(NAFSIM_BINARY));
    for (auto const& a : args)
      cmd += " " + quote(a);
    cmd += fmt::format(" > {} 2> {}", quote((dir_ / "stdout.txt").string()), quote((dir_ / "stderr.txt").string()));
    int st = std::system(cmd.c_str());
    Outcome o;
    o.rc  = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    o.out = slurp(dir_ / "stdout.txt");
    o.err = slurp(dir_ / "stderr.txt");
    return o;
  }
  static std::string scenario(const std::string& rel) { return (fs::path(NAFSIM_SOURCE_DIR) / rel).string(); }
  fs::path out() const { return dir_ / "out"; }
  /// Run `args` with --out <scratch>/out.
  Outcome run_out(std::vector<std::string> args) const
  {
    args.push_back("--out");
    args.push_back(out().string());
    return run(args);
  }
  void write(const std::string& name, const std::string& text) const { std::ofstream(dir_ / name) << text; }

  fs::path dir_;
};

const std::string kExample = "workloads/collective/example.json";

// ---- reliable transports under faults: verified, or a failure with the faults that caused it ----

TEST_F(Robustness, RoceGatherUnderLossDeliversEveryNotification)
{
  auto o = run_out({scenario(kExample), "--seed", "8", "--set", "workload.collective=gather", "--set",
                    "workload.max_size=512KiB", "--set", "platform.network.faults.loss_rate=0.05"});
  EXPECT_EQ(o.rc, 0) << o.err;
  EXPECT_NE(o.out.find("all correct"), std::string::npos) << o.out;
}

TEST_F(Robustness, ConnectionlessAllgatherUnderLossDeliversTheRightData)
{
  auto o = run_out({scenario("workloads/collective/allreduce-connectionless.json"), "--set",
                    "workload.collective=allgather", "--set", "platform.network.faults.loss_rate=0.01"});
  EXPECT_EQ(o.rc, 0) << o.err;
  EXPECT_NE(o.out.find("all correct"), std::string::npos) << o.out;
}

TEST_F(Robustness, MpiQueuePairsRecoverFromReordering)
{
  for (const char* rate : {"0.005", "0.05"}) {
    auto o = run_out({scenario("workloads/mpi/example.json"), "--set",
                      std::string("platform.network.faults.reorder_rate=") + rate});
    EXPECT_EQ(o.rc, 0) << rate << ": " << o.err;
    EXPECT_NE(o.out.find("all correct"), std::string::npos) << rate << ": " << o.out;
  }
}

TEST_F(Robustness, HugeScatterWithoutFaultsNeverExhaustsRetries)
{
  // (255 MiB: the largest rendezvous block Coyote's 28-bit request length carries; it was 560 MiB, refused now)
  auto o = run_out({scenario(kExample), "--set", "workload.collective=scatter", "--set", "workload.ranks=2", "--set",
                    "workload.sizes=[\"255MiB\"]", "--set", "workload.verify=false"});
  EXPECT_EQ(o.rc, 0) << o.err;
}

TEST_F(Robustness, TcpRetryLimitIsReportedWithTheLossesBehindIt)
{
  auto o = run_out({scenario(kExample), "--seed", "1", "--set", "platform.node.fpga.transport=tcp", "--set",
                    "workload.collective=bcast", "--set", "workload.max_size=1MiB", "--set",
                    "platform.network.faults.loss_rate=0.2"}); // 5 % exhausted the retries on some seeds only
  EXPECT_EQ(o.rc, 3) << o.err;
  EXPECT_NE(o.err.find("retry limit is exhausted"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("network faults injected before the failure"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(out()));
}

TEST_F(Robustness, MpiRetryExhaustionIsASimulatedFailure)
{
  auto o = run_out({scenario("workloads/mpi/example.json"), "--set", "platform.network.faults.loss_rate=0.6"});
  EXPECT_EQ(o.rc, 3) << o.err;
  EXPECT_NE(o.err.find("retry limit is exhausted"), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find("internal error"), std::string::npos) << o.err;
}

TEST_F(Robustness, ShortConnectionlessTimeoutsNeitherCrashNorLoseData)
{
  auto o = run_out({scenario("workloads/connectionless/stress.json"), "--set", "workload.operations=1500", "--set",
                    "platform.node.fpga.connectionless.transport.packet_timeout=10us"});
  EXPECT_EQ(o.rc, 0) << o.err;
  EXPECT_NE(o.out.find("delivered exactly once"), std::string::npos) << o.out;
}

// ---- bad input: exit 2, the file or --set and the JSON path, nothing written ----

struct BadInput {
  const char* what;
  std::vector<std::string> args; // after the scenario
  std::string scenario;
  std::string where; // expected in the message
};

TEST_F(Robustness, BadInputIsExitTwoWithItsPath)
{
  const std::string cl = "workloads/connectionless/example.json";
  const std::vector<BadInput> cases = {
      {"rate far below anything", {"--set", "platform.network.link.rate=1e-9bps"}, kExample, "/platform/network/link/rate"},
      {"rate that overflows", {"--set", "platform.network.link.rate=1e308Gbps"}, kExample, "out of range"},
      {"flat-tree limit 0 (was SIGFPE)",
       {"--set", "workload.collective=reduce", "--set", "platform.node.fpga.cclo.tuning.reduce_flat_tree_max_ranks=0"},
       kExample, "/platform/node/fpga/cclo/tuning/reduce_flat_tree_max_ranks"},
      {"number beyond a double", {"--set", "workload.ranks=1e400"}, kExample, "number overflow"},
      {"connectionless 0 B", {"--set", "workload.sizes=[\"0B\"]"}, cl, "/workload/sizes/0"},
      {"connectionless 9 GiB", {"--set", "workload.sizes=[\"9GiB\"]"}, cl, "/workload/sizes/0"},
      {"1e12 B buffers (was bad_alloc)", {"--set", "workload.sizes=[\"1000000000000B\"]"}, kExample, "/workload/sizes/0"},
      {"an eager limit below an Rx buffer (the firmware refuses it)",
       {"--set", "platform.node.fpga.cclo.tuning.max_eager_size=8KiB"}, kExample,
       "/platform/node/fpga/cclo/tuning/max_eager_size"},
      {"a rendezvous limit not above the eager one", {"--set", "platform.node.fpga.cclo.tuning.max_rendezvous_size=32KiB"},
       kExample, "/platform/node/fpga/cclo/tuning/max_rendezvous_size"},
      {"a compressed all-to-all (the firmware has none)",
       {"--set", "workload.collective=alltoall", "--set", "workload.compress=true"}, kExample, "/workload/compress"},
      {"too few TCP sessions names its --set",
       {"--set", "platform.node.fpga.transport=tcp", "--set", "platform.node.fpga.tcp.max_sessions=1"}, kExample,
       "--set platform.node.fpga.tcp.max_sessions=1: /platform/node/fpga/tcp/max_sessions"},
      {"the FPGA stack's transmit bypass on a host's kernel TCP", {"--set", "platform.node.host.tcp.tx_bypass=true"},
       kExample, "/platform/node/host/tcp/tx_bypass"},
      {"the FPGA stack's loss recovery on a host's kernel TCP", {"--set", "platform.node.host.tcp.loss_recovery=toe"},
       kExample, "/platform/node/host/tcp/loss_recovery"},
      {"the FPGA stack's receive rule on a host's kernel TCP",
       {"--set", "platform.node.host.tcp.accept_overlap=false"}, kExample, "/platform/node/host/tcp/accept_overlap"},
      {"RecoNIC's classifier without the RoCE engine (a node kind's own check)",
       {"--set", "platform.node.fpga.transport=tcp", "--set", "platform.node.fpga.classifier.enabled=true"}, kExample,
       "/platform/node/fpga/classifier/enabled"},
      {"negative seed", {"--seed", "-1"}, kExample, "--seed"},
      {"seed beyond 64 bits", {"--seed", "99999999999999999999999"}, kExample, "--seed"},
      {"drop rule on a host that does not exist",
       {"--set", "platform.network.faults.drops=[{\"src\":50,\"dst\":1}]"}, kExample, "/platform/network/faults/drops/0/src"},
      {"no retransmission timeouts", {"--set", "platform.node.fpga.rdma.timeouts=[]"}, kExample,
       "/platform/node/fpga/rdma/timeouts"},
      {"the stack's shared receive FIFO behind an out-of-order receiver (its held bytes entered it unchecked)",
       {"--set", "platform.node.host.tcp.rx_fifo=25000B"}, "workloads/mpi/mpich-tcp.json",
       "/platform/node/host/tcp/rx_fifo"},
      {"rto_max below rto_initial",
       {"--set", "platform.node.fpga.transport=tcp", "--set", "platform.node.fpga.tcp.rto_max=1us"}, kExample,
       "/platform/node/fpga/tcp/rto_max"},
      {"RoCE header larger than the largest frame, blamed on itself (was on the preset's mtu)",
       {"--set", "platform.node.fpga.rdma.base_header=9000B"}, kExample, "/platform/node/fpga/rdma/base_header"},
      {"RoCE MTU of no InfiniBand size", {"--set", "platform.node.fpga.rdma.mtu=2000B"}, kExample,
       "/platform/node/fpga/rdma/mtu"},
      {"RoCE MTU too large for the frame", {"--set", "platform.network.ethernet.max_frame=4000B"}, kExample,
       "/platform/node/fpga/rdma/mtu"},
      {"Ethernet header larger than the largest frame", {"--set", "platform.network.ethernet.header=9300B"}, kExample,
       "/platform/network/ethernet/header"},
      {"CCLO signature of a megabyte", {"--set", "platform.node.fpga.cclo.txrx.header=1MiB"}, kExample,
       "/platform/node/fpga/cclo/txrx/header"},
      {"a million hosts", {"--set", "platform.topology.hosts=1048576"}, kExample, "/platform/topology/hosts"},
      {"65,536 spines (was a time-out)", {"--set", "platform.topology.leaf_spine.spines=65536"},
       "workloads/mpi/f2f-bcast.json", "/platform/topology/leaf_spine/spines"},
      {"receiver notification of unregistrable stream sizes (was an internal error)",
       {"--set", "workload.stream_notify=receiver"}, "workloads/connectionless/stress.json", "/workload/stream_notify"},
      {"register_min above the registrable range (was an internal error)",
       {"--set", "platform.node.fpga.connectionless.transport.register_min=9GiB"},
       "workloads/collective/allreduce-connectionless.json", "/platform/node/fpga/connectionless/transport/register_min"},
      {"register_min above the CCLO's smallest message (was exit 1 mid-run)",
       {"--set", "platform.node.fpga.connectionless.transport.register_min=1KiB"},
       "workloads/collective/allreduce-connectionless.json", "/platform/node/fpga/connectionless/transport/register_min"},
      {"a cut-through header larger than any frame (was accepted)",
       {"--set", "platform.network.switch.cut_through_header=1GiB"}, kExample,
       "/platform/network/switch/cut_through_header"},
      {"hosts \"ranks\" for a workload without ranks", {"--set", "platform.topology.hosts=ranks"},
       "workloads/dlrm/example.json", "/platform/topology/hosts"},
      {"Large Transfer segments under the CCLO (was an internal error)",
       {"--set", "platform.node.fpga.connectionless.transport.large_transfer.threshold=4KiB"},
       "workloads/collective/allreduce-connectionless.json",
       "/platform/node/fpga/connectionless/transport/large_transfer/threshold"},
      {"no HBM (was SIGFPE)", {"--set", "platform.node.fpga.fabric.hbm=0"}, kExample, "/platform/node/fpga/fabric/hbm"},
      {"65,536 hosts set up in seconds, the kinds that do not match named (was a time-out)",
       {"--set", "platform.topology.hosts=65536"}, "workloads/mpi/mixed.json", "/platform/node/kinds"},
      {"an error after the workload's actors were spawned (was wrapped in SimGrid's exit warnings)",
       {"--set", "workload.background.load=0.5", "--set", "platform.topology.hosts=2"}, cl, "/workload/background/load"},
      {"hosts whose routing table would not fit (60,000 one-host leaves)",
       {"--set", "platform.topology.hosts=60000", "--set", "platform.topology.leaf_spine.hosts_per_leaf=1"}, kExample,
       "/platform/topology"},
  };
  for (auto const& c : cases) {
    std::vector<std::string> args{scenario(c.scenario)};
    args.insert(args.end(), c.args.begin(), c.args.end());
    auto o = run_out(args);
    EXPECT_EQ(o.rc, 2) << c.what << ": " << o.err;
    EXPECT_NE(o.err.find(c.where), std::string::npos) << c.what << ": " << o.err;
    EXPECT_EQ(o.err.find("Skipping cleanups"), std::string::npos) << c.what << ": " << o.err;
    EXPECT_FALSE(fs::exists(out())) << c.what;
  }
}

TEST_F(Robustness, MalformedJsonFilesAreExitTwo)
{
  write("dup.json", R"({"name": "a", "name": "b"})");
  std::string deep;
  for (int i = 0; i < 100000; ++i)
    deep += "{\"a\":";
  deep += "1" + std::string(100000, '}');
  write("deep.json", deep);
  for (const char* f : {"dup.json", "deep.json"}) {
    auto o = run_out({(dir_ / f).string()});
    EXPECT_EQ(o.rc, 2) << f << ": " << o.err;
    EXPECT_NE(o.err.find(f), std::string::npos) << o.err; // names the file
  }
}

// ---- output safety: never delete what nafsim did not write ----

TEST_F(Robustness, OutNeverReplacesAUserDirectoryOrFile)
{
  fs::create_directories(dir_ / "mine");
  write("mine/notes.txt", "keep me");
  write("file.txt", "keep me too");
  for (const char* target : {"mine", "file.txt"}) {
    auto o = run({scenario(kExample), "--out", target});
    EXPECT_EQ(o.rc, 2) << target << ": " << o.err;
    EXPECT_NE(o.err.find(target), std::string::npos) << o.err;
  }
  EXPECT_EQ(slurp(dir_ / "mine/notes.txt"), "keep me");
  EXPECT_EQ(slurp(dir_ / "file.txt"), "keep me too");
}

TEST_F(Robustness, AnEarlierResultIsReplacedWhole)
{
  auto a = run({scenario(kExample), "--out", "res"});
  ASSERT_EQ(a.rc, 0) << a.err;
  auto b = run({scenario(kExample), "--out", "res", "--set", "workload.collective=bcast"});
  ASSERT_EQ(b.rc, 0) << b.err;
  EXPECT_NE(slurp(dir_ / "res/collective.csv").find("bcast"), std::string::npos);
  for (auto const& e : fs::directory_iterator(dir_)) // no partial or old copies left beside it
    EXPECT_EQ(e.path().filename().string().find(".res."), std::string::npos) << e.path();
}

TEST_F(Robustness, ScenarioNamesStayUnderResults)
{
  for (const char* name : {"../escape", "/tmp/abs", "a/b"}) {
    write("s.json", fmt::format(R"({{"name": "{}", "platform": "accl-coyote-u55c",
                                   "workload": {{"kind": "collective", "collective": "bcast", "ranks": 2,
                                                 "sizes": ["1KiB"]}}}})",
                                name));
    auto o = run({"s.json"});
    EXPECT_EQ(o.rc, 2) << name << ": " << o.err;
    EXPECT_NE(o.err.find("/name"), std::string::npos) << o.err;
  }
  EXPECT_FALSE(fs::exists(dir_.parent_path() / "escape"));
}

TEST_F(Robustness, OutDotWritesIntoAnEmptyOrEarlierResultDirectoryOnly)
{
  fs::create_directories(dir_ / "here");
  auto a = run({scenario(kExample), "--out", "."}, dir_ / "here");
  EXPECT_EQ(a.rc, 0) << a.err;
  auto b = run({scenario(kExample), "--out", "."}, dir_ / "here"); // again: its own earlier result
  EXPECT_EQ(b.rc, 0) << b.err;
  EXPECT_TRUE(fs::exists(dir_ / "here/metadata.json"));
  std::size_t hidden = 0;
  for (auto const& e : fs::directory_iterator(dir_ / "here"))
    hidden += e.path().filename().string().starts_with(".");
  EXPECT_EQ(hidden, 0u);
  write("here/user.txt", "mine");
  auto c = run({scenario(kExample), "--out", "."}, dir_ / "here");
  EXPECT_EQ(c.rc, 2) << c.err;
  EXPECT_EQ(slurp(dir_ / "here/user.txt"), "mine");
  // The error names what blocks (a plot written beside the tables, say): the folder is an earlier result otherwise.
  EXPECT_NE(c.err.find("it holds an entry that its run did not write (user.txt)"), std::string::npos) << c.err;
  EXPECT_NE(c.err.find("move them out, or name a new folder"), std::string::npos) << c.err;
}

TEST_F(Robustness, AFullDiskIsExitFourWithNothingPartial)
{
  fs::create_directories(dir_ / "tiny");
  if (::mount("tmpfs", (dir_ / "tiny").c_str(), "tmpfs", 0, "size=16k") != 0)
    GTEST_SKIP() << "cannot mount a small tmpfs here (needs root): the full-disk case is not exercised";
  auto o = run({scenario(kExample), "--out", (dir_ / "tiny/res").string()});
  std::vector<std::string> left;
  for (auto const& e : fs::directory_iterator(dir_ / "tiny"))
    left.push_back(e.path().filename().string());
  ::umount((dir_ / "tiny").c_str());
  EXPECT_EQ(o.rc, 4) << o.err;
  EXPECT_NE(o.err.find("no space left"), std::string::npos) << o.err;
  EXPECT_TRUE(left.empty()) << left.front();
}

// ---- issue 28: the last crash and exit-1 classes outside `run`, and messages that tell the truth ----

TEST_F(Robustness, CommandLinesThatCrashedAreExitTwoNamingTheOption)
{
  write("a-file", "x");
  fs::create_directories(dir_ / "a-dir");
  struct Case {
    std::vector<std::string> args;
    std::string names;
  };
  const std::string ex = scenario(kExample), sw = scenario("workloads/sendrecv/sweep-example.json");
  const std::vector<Case> cases = {
      {{"run", ex, "--log", "="}, "--log '='"},                                            // was SIGABRT
      {{"run", ex, "--log", ":"}, "--log ':'"},                                            // was SIGABRT
      {{"run", ex, "--log", "root.app:file:/nonexistent/dir/x.log"}, "does not exist"},    // was SIGABRT
      {{"run", ex, "--log", "root.thres:bogus"}, "the threshold 'bogus'"},                 // was exit 1
      {{"run", ex, "--log", "root.app:file:a-dir"}, "a-dir is a folder"},                   // was SIGABRT
      {{"run", ex, "--log", "root.app:rollfile:100:a-dir"}, "a-dir is a folder"},           // was SIGABRT
      {{"run", ex, "--log", "root.app:file:/proc/nafsim.log"}, "cannot be made there"},     // was SIGABRT
      {{"run", "a-dir"}, "a-dir: is a folder, not a JSON file"},                          // was "invalid JSON at 1:1"
      {{"run", ex, "--wall-limit", "nan"}, "--wall-limit"},                                 // was exit 0, no limit
      // the cause named where the error is the preset's path (a link rate set on the command line)
      {{"run", ex, "--set", "platform.network.link.rate=1e3Gbps"},
       "at 1Tbps, the hosts' link rate platform.network.link.rate"},
      {{"explain", ex, "--goal", "infx"}, "--goal"},                                        // searched for ever
      {{"explain", ex, "--goal", "1e400x"}, "--goal"},
      {{"figures", "accl-fig8", "--out", "figs", "--gallery", "nodir/g.md"}, "the folder nodir of the gallery page"},
      {{"bench", "--suite", "collectives", "--ranks", "2", "--size", "1TiB", "--alltoall-ranks", "0",
        "--eager-ring-ranks", "0", "--out", "b2"}, "--size: allreduce on 2 ranks (packet):"},  // was exit 3
      {{"bench", "--suite", "collectives", "--ranks", "2", "--alltoall-size", "0B", "--eager-ring-ranks", "0",
        "--out", "b2"}, "--alltoall-size: alltoall on"},                                     // was exit 3
      {{"bench", "--suite", "collectives", "--ranks", "2", "--collectives", "alltoall", "--size", "0B",
        "--alltoall-ranks", "0", "--eager-ring-ranks", "0", "--out", "b2"}, "--size: alltoall on 2 ranks"},
      {{"bench", "--nodes", "0", "--out", "b"}, "--nodes"},                                // was SIGFPE
      {{"bench", "--nodes", "1", "--out", "b"}, "--nodes"},                                // was exit 3
      {{"bench", "--nodes", "4", "--total", "0", "--out", "b"}, "--total: 0B over 4 nodes"}, // ran 4 MiB, unsaid
      {{"bench", "--suite", "collectives", "--ranks", "1", "--out", "b"}, "--ranks"},
      {{"run", ex, "--out", ""}, "--out"},                                                 // was results/<name>
      {{"sweep", sw, "--out", ""}, "--out"},
      {{"sweep", sw, "--out", "a-file/sub"}, "a-file exists and is not a directory"},      // was exit 1
      {{"figures", "accl-fig8", "--out", "a-file/sub"}, "a-file exists and is not a directory"}, // was exit 1
      {{"figures", "accl-fig8", "--out", "/dev/null"}, "/dev/null exists and is not a directory"},
      {{"bench", "--out", "a-file"}, "a-file exists and is not a directory"},
      {{"params", "nonexistent"}, "no parameter path starts with 'nonexistent'"},          // was exit 0
      {{"params", "--preset", "p.json"}, "params lists a preset by its name"}, // offered a path, which it refused
      {{"bench", "--nodes", "65537", "--out", "b"}, "--nodes"},                            // was exit 3 (found by the fuzzer)
      {{"bench", "--suite", "collectives", "--size", "1B", "--out", "b"}, "--size"},       // was exit 3 (the fuzzer)
      {{"run", ex, "--out", std::string(300, 'n')}, "longer than the 255"},                // was exit 4
  };
  for (auto const& c : cases) {
    auto o = nafsim(c.args);
    EXPECT_EQ(o.rc, 2) << fmt::format("{}", fmt::join(c.args, " ")) << ": " << o.err;
    EXPECT_NE(o.err.find(c.names), std::string::npos) << fmt::format("{}", fmt::join(c.args, " ")) << ": " << o.err;
  }
  EXPECT_EQ(slurp(dir_ / "a-file"), "x");
  EXPECT_FALSE(fs::exists(dir_ / "b"));
}

TEST_F(Robustness, FailureMessagesTellTheTruth)
{
  // The time limit names the scenario key that exists.
  auto t = run_out({scenario(kExample), "--set", "max_sim_time=10us"});
  EXPECT_EQ(t.rc, 3) << t.err;
  EXPECT_NE(t.err.find("raise the scenario's max_sim_time"), std::string::npos) << t.err;
  EXPECT_EQ(t.err.find("--max-sim-time"), std::string::npos) << t.err;
  // More ranks than nodes of the kind: the advice is the change that fits them (the node kind was already right).
  auto more = run_out({scenario("workloads/mpi/example.json"), "--set", "workload.ranks=11"});
  EXPECT_EQ(more.rc, 2) << more.err;
  EXPECT_NE(more.err.find("raise platform.topology.hosts from 10 to at least 11"), std::string::npos) << more.err;
  EXPECT_EQ(more.err.find("set platform.node.kind"), std::string::npos) << more.err;
  auto mixed = run_out({scenario("workloads/mpi/mixed.json"), "--set", "workload.ranks=15"});
  EXPECT_EQ(mixed.rc, 2) << mixed.err;
  EXPECT_NE(mixed.err.find("list more 'host' positions in platform.node.kinds"), std::string::npos) << mixed.err;
  auto tree = run_out({scenario(kExample), "--set", "platform.topology.kind=fat-tree", "--set",
                       "platform.topology.hosts=16", "--set", "workload.ranks=20"});
  EXPECT_EQ(tree.rc, 2) << tree.err;
  EXPECT_NE(tree.err.find("and platform.topology.fat_tree.k from 4 to 6"), std::string::npos) << tree.err;
  // Retries exhausted on a network that lost nothing: said, with the reason (timeouts below the delivery time).
  auto slow = run_out({scenario(kExample), "--set", "platform.network.link.rate=1Mbps"});
  EXPECT_EQ(slow.rc, 3) << slow.err;
  EXPECT_NE(slow.err.find("the network lost no packet"), std::string::npos) << slow.err;
  EXPECT_NE(slow.err.find("Give the transport longer timeouts (RoCE: the node's rdma.timeouts"), std::string::npos)
      << slow.err;
  EXPECT_NE(slow.err.find("or raise platform.network.link.rate (1Mbps"), std::string::npos) << slow.err;
  // Far, not slow: a faster link would not help; the advice names the delay that dominates a hop.
  auto far = run_out({scenario(kExample), "--set", "platform.network.link.propagation=10ms"});
  EXPECT_EQ(far.rc, 3) << far.err;
  EXPECT_NE(far.err.find("Give the transport longer timeouts"), std::string::npos) << far.err;
  EXPECT_NE(far.err.find("or lower platform.network.link.propagation (10ms)"), std::string::npos) << far.err;
  EXPECT_EQ(far.err.find("raise platform.network.link.rate"), std::string::npos) << far.err;
  // Reordered, nothing lost: the advice is about the faults and the transport's recovery, not the link's rate.
  auto reordered = run_out({scenario("workloads/mpi/example.json"), "--set", "workload.collective=allgather", "--set",
                            "workload.ranks=4", "--set", "workload.sizes=[\"1MiB\"]", "--set",
                            "platform.network.faults.reorder_rate=0.3", "--set",
                            "platform.node.host.rdma.timeouts=[\"3us\"]", "--set",
                            "platform.node.host.rdma.retry_limit=0"});
  EXPECT_EQ(reordered.rc, 3) << reordered.err;
  EXPECT_NE(reordered.err.find("but it reordered"), std::string::npos) << reordered.err;
  EXPECT_EQ(reordered.err.find("raise platform.network.link.rate"), std::string::npos) << reordered.err;
  EXPECT_NE(reordered.err.find("rdma.timeouts"), std::string::npos) << reordered.err;
  // With losses, the note names the faults and does not claim nothing was lost.
  auto lossy = run_out({scenario(kExample), "--set", "platform.network.faults.loss_rate=0.3"});
  EXPECT_EQ(lossy.rc, 3) << lossy.err;
  EXPECT_EQ(lossy.err.find("lost no packet"), std::string::npos) << lossy.err;
}

TEST_F(Robustness, DlrmWithTheFewestInferencesWritesNumbers)
{
  auto o = run_out({scenario("workloads/dlrm/example.json"), "--set", "workload.inferences=2"});
  ASSERT_EQ(o.rc, 0) << o.err;
  for (const char* f : {"dlrm_systems.csv", "dlrm.csv"})
    EXPECT_EQ(slurp(out() / f).find("nan"), std::string::npos) << f << ": " << slurp(out() / f);
  EXPECT_EQ(o.out.find("nan"), std::string::npos) << o.out;
}

TEST_F(Robustness, CheckOnlyBuildsThePlatformAndWritesNothing)
{
  auto ok = run_out({scenario(kExample), "--check-only"});
  EXPECT_EQ(ok.rc, 0) << ok.err;
  EXPECT_NE(ok.out.find("is valid"), std::string::npos) << ok.out;
  EXPECT_EQ(ok.err, "");
  auto bad = run_out({scenario(kExample), "--check-only", "--set", "workload.ranks=64"});
  EXPECT_EQ(bad.rc, 2) << bad.err;
  EXPECT_NE(bad.err.find("/workload/ranks"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(out()));
}

// A Chakra scenario run by a relative name from its own folder names its trace relative to that folder; its
// metadata.json must still find the trace from elsewhere (it recorded "traces/ring8", which the folder above lacks).
TEST_F(Robustness, AChakraMetadataFileRunsAgainFromAnotherFolder)
{
  const fs::path here = dir_ / "scenario";
  fs::create_directories(here);
  fs::copy_file(scenario("workloads/chakra/example.json"), here / "example.json");
  fs::copy(scenario("workloads/chakra/traces"), here / "traces");
  auto a = run({"example.json", "--out", "first"}, here);
  ASSERT_EQ(a.rc, 0) << a.err;
  auto b = run({"scenario/first/metadata.json", "--out", "again"});
  ASSERT_EQ(b.rc, 0) << b.err;
  EXPECT_EQ(slurp(dir_ / "again/program_ops.csv"), slurp(here / "first/program_ops.csv"));
}

TEST_F(Robustness, AMetadataFileRunsAsItsScenarioAndPresetsSwapOnTheCommandLine)
{
  auto a = run({scenario(kExample), "--out", "first"});
  ASSERT_EQ(a.rc, 0) << a.err;
  auto b = run({(dir_ / "first/metadata.json").string(), "--out", "again"});
  ASSERT_EQ(b.rc, 0) << b.err;
  EXPECT_EQ(slurp(dir_ / "again/collective.csv"), slurp(dir_ / "first/collective.csv"));
  EXPECT_NE(a.out.find("transport roce on FPGAs"), std::string::npos) << a.out; // the summary names the transport
  auto c = run({scenario(kExample), "--out", "tcp", "--set", "platform=accl-xrt-u55c"});
  ASSERT_EQ(c.rc, 0) << c.err;
  EXPECT_NE(c.out.find("platform accl-xrt-u55c"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("transport tcp on FPGAs"), std::string::npos) << c.out;
  auto d = run({scenario(kExample), "--out", "none", "--set", "platform=no-such-preset"});
  EXPECT_EQ(d.rc, 2) << d.err;
  EXPECT_NE(d.err.find("--set platform=no-such-preset"), std::string::npos) << d.err;
}

TEST_F(Robustness, PerCallResultsStaySmall)
{
  // 3,000 iterations of an 8-rank call keep only their output rows (CSV text), not a string object per cell: the
  // peak grows by well under the 6 KB per call it used to.
  auto peak = [&](unsigned iterations) {
    auto o = run({scenario(kExample), "--out", fmt::format("it{}", iterations), "--set",
                  fmt::format("workload.iterations={}", iterations), "--set", "workload.sizes=[\"1KiB\"]"});
    EXPECT_EQ(o.rc, 0) << o.err;
    auto meta = slurp(dir_ / fmt::format("it{}", iterations) / "metadata.json");
    auto at   = meta.find("\"peak_rss_bytes\":");
    return at == std::string::npos ? 0.0 : std::stod(meta.substr(at + 17));
  };
  const double per_call = (peak(3000) - peak(500)) / 2500;
  EXPECT_LT(per_call, 4000) << per_call << " B per call";
}

} // namespace

// A run whose time went to TCP retransmission timers says so: a 3-rank gather of 384 KiB over the XRT build's TCP
// stack fills the shared receive FIFO and waits a 0.625 s timeout (0.625 s for what takes 0.2 ms at 256 KiB), and the
// summary had said "0 dropped" and nothing more. The relays' eager receives of 12 Rx buffers each leave no room for
// the next block in the preset's 16, their streams stall and hold the FIFO: the warning says so and names the room,
// and with that room (32 Rx buffers) the same run drops nothing. One without drops says nothing.
TEST_F(Robustness, ARunWhoseTcpStacksDroppedAndWaitedOutTimersSaysSo)
{
  const std::vector<std::string> gather{scenario(kExample), "--set", "platform=accl-xrt-u55c", "--set",
                                        "workload.collective=gather", "--set", "workload.ranks=3"};
  auto with = [&](std::vector<std::string> more) {
    auto args = gather;
    args.insert(args.end(), more.begin(), more.end());
    return run_out(args);
  };
  auto o = with({"--set", "workload.sizes=[393216]", "--set", "workload.verify=false"});
  ASSERT_EQ(o.rc, 0) << o.err;
  // The count said is the timeouts tcp_nodes.csv counts.
  const auto timeouts = static_cast<std::uint64_t>(nafsim::testing::parse_csv(slurp(out() / "tcp_nodes.csv")).sum("timeouts"));
  EXPECT_GT(timeouts, 0u);
  EXPECT_NE(o.out.find(fmt::format("warning: TCP: {} retransmission timeout(s) on the FPGAs", timeouts)),
            std::string::npos) << o.out;
  EXPECT_NE(o.out.find("at a full shared receive FIFO"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("platform.node.fpga.tcp.rx_fifo"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("more room (platform.node.fpga.cclo.rx_buffers.count)"), std::string::npos) << o.out;
  auto roomy = with({"--set", "workload.sizes=[393216]", "--set", "platform.node.fpga.cclo.rx_buffers.count=32"});
  ASSERT_EQ(roomy.rc, 0) << roomy.err;
  EXPECT_EQ(roomy.out.find("warning: TCP"), std::string::npos) << roomy.out;
  auto quiet = with({"--set", "workload.sizes=[262144]"});
  ASSERT_EQ(quiet.rc, 0) << quiet.err;
  EXPECT_EQ(quiet.out.find("warning: TCP"), std::string::npos) << quiet.out;
}

TEST_F(Robustness, AFlowRunOnDropTailSwitchesSaysWhereThePacketFabricWouldDrop)
{
  // The incast example (simcore/net/DropTailWatch.hpp): its summary names the ports whose buffers the senders'
  // bytes would overflow, metadata.json counts them; the same run on lossless switches has neither.
  auto a = run_out({scenario("workloads/traffic/incast-flow-droptail.json")});
  ASSERT_EQ(a.rc, 0) << a.err;
  EXPECT_NE(a.out.find("flow fidelity on drop-tail switches: at 9 switch port(s)"), std::string::npos) << a.out;
  EXPECT_NE(slurp(out() / "metadata.json").find("\"drop_tail_ports_over_buffer\": 9"), std::string::npos);
  auto b = run({scenario("workloads/traffic/incast-flow-droptail.json"), "--out", "lossless", "--set",
                "platform.network.switch.flow_control=lossless"});
  ASSERT_EQ(b.rc, 0) << b.err;
  EXPECT_EQ(b.out.find("drop-tail"), std::string::npos) << b.out;
  EXPECT_EQ(slurp(dir_ / "lossless" / "metadata.json").find("drop_tail_"), std::string::npos);
  // Buffers of two segments (the TCP preset's gather, whose packet run drops 109 packets there): noted apart, though
  // the queue estimate stays far below them.
  auto c = run_out({scenario("workloads/collective/gather-xrt-tcp.json"), "--set", "platform.network.fidelity=flow",
                    "--set", "platform.network.switch.port_buffer=2KiB"});
  ASSERT_EQ(c.rc, 0) << c.err;
  EXPECT_NE(c.out.find("have buffers (the smallest 2048 bytes) that hold fewer than 8 of the segments"),
            std::string::npos)
      << c.out;
  EXPECT_EQ(c.out.find("the bytes the senders had handed over would have overflowed"), std::string::npos) << c.out;
}

TEST_F(Robustness, AFlowRunWhoseFlowsAllContendSuggestsPacketFidelity)
{
  // A 32-rank all-to-all at flow fidelity puts each flow in about 290 solves (every flow in one component; 122 of
  // them re-fill it): the summary says so and points to packet fidelity (or a resolve fraction); the 8-rank
  // allreduce of the example does not, nor the all-to-all with a resolve fraction; metadata.json counts the flows,
  // their re-solves and the solves they were in either way.
  write("a2a.json", R"({"name": "a2a", "platform": {"preset": "accl-coyote-u55c",
      "topology": {"kind": "fat-tree", "hosts": 32, "fat_tree": {"k": 6}}, "network": {"fidelity": "flow"}},
      "workload": {"kind": "collective", "collective": "alltoall", "ranks": 32, "sizes": ["16KiB"],
                   "verify": false}})");
  auto a = run_out({(dir_ / "a2a.json").string()});
  ASSERT_EQ(a.rc, 0) << a.err;
  EXPECT_NE(a.out.find("packet fidelity is likely faster here"), std::string::npos) << a.out;
  EXPECT_NE(slurp(out() / "metadata.json").find("\"rates_solved\""), std::string::npos);
  EXPECT_NE(slurp(out() / "metadata.json").find("\"in_solved_components\""), std::string::npos);
  auto b = run({scenario(kExample), "--out", "tree", "--set", "platform.network.fidelity=flow"});
  ASSERT_EQ(b.rc, 0) << b.err;
  EXPECT_EQ(b.out.find("packet fidelity is likely faster here"), std::string::npos) << b.out;
  // With the solves spaced (a solve per 5 % of the flows in progress started or ended), far fewer: no hint of
  // speed, but the flows still contend in one component (28.8 solves each, 72 % of the 40 that f = 0.05 allows), so
  // the summary says so with the error measured for all-to-alls; the allreduce at that fraction does not.
  auto c = run_out({(dir_ / "a2a.json").string(), "--set", "platform.network.flow_resolve_fraction=0.05"});
  ASSERT_EQ(c.rc, 0) << c.err;
  EXPECT_EQ(c.out.find("packet fidelity is likely faster here"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("% of the 2 / f = 40 that flow_resolve_fraction f = 0.05 allows"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("head-of-line blocking, which a fluid lacks"), std::string::npos) << c.out;
  for (const char* f : {"0.05", "1"}) {
    auto d = run({scenario(kExample), "--out", "tree", "--set", "platform.network.fidelity=flow", "--set",
                  std::string("platform.network.flow_resolve_fraction=") + f});
    ASSERT_EQ(d.rc, 0) << d.err;
    EXPECT_EQ(d.out.find("as in an all-to-all"), std::string::npos) << f << ": " << d.out;
  }
}

TEST_F(Robustness, SettingsThatCannotWorkFailCheckOnlyAndTheirAdviceAppliedRuns)
{
  // Each combination the firmware cannot run is found before the run (the same plan the firmware makes,
  // nodes/cclo/CallPlan.hpp), exit 2 naming the setting; the change its message advises, applied, runs.
  struct Case {
    std::vector<std::string> bad;
    std::string path, advice;
    std::vector<std::string> fixed;
  };
  const std::vector<Case> cases{
      {{"workload.algorithm=ring", "workload.protocol=rendezvous"}, "/workload/algorithm", "force protocol eager",
       {"workload.algorithm=ring", "workload.protocol=eager"}},
      {{"platform=accl-xrt-u55c", "workload.protocol=rendezvous"}, "/workload/protocol", "force protocol eager",
       {"platform=accl-xrt-u55c", "workload.protocol=eager"}},
      {{"workload.collective=reduce", "workload.location=stream", "workload.protocol=rendezvous"},
       "/workload/protocol", "eager only", {"workload.collective=reduce", "workload.location=stream",
       "workload.protocol=eager"}},
      {{"workload.location=stream"}, "/workload/location", "copy it from or into the stream",
       {"workload.location=stream", "workload.algorithm=recursive-doubling"}},
      {{"workload.invocation=coyote", "workload.sizes=[\"0B\"]"}, "/workload/sizes/0", "give at least one element",
       {"workload.invocation=coyote"}},
  };
  for (auto const& c : cases) {
    std::vector<std::string> args{scenario(kExample), "--check-only", "--set", "workload.sizes=[\"4KiB\"]"};
    for (auto const& s : c.bad) {
      args.push_back("--set");
      args.push_back(s);
    }
    auto bad = run_out(args);
    EXPECT_EQ(bad.rc, 2) << fmt::format("{}", c.bad) << bad.err;
    EXPECT_NE(bad.err.find(c.path), std::string::npos) << bad.err;
    EXPECT_NE(bad.err.find(c.advice), std::string::npos) << bad.err;
    std::vector<std::string> fix{scenario(kExample), "--set", "workload.sizes=[\"4KiB\"]"};
    for (auto const& s : c.fixed) {
      fix.push_back("--set");
      fix.push_back(s);
    }
    auto good = run_out(fix);
    EXPECT_EQ(good.rc, 0) << fmt::format("{}", c.fixed) << good.err;
    fs::remove_all(out());
  }
  // A forced eager recursive doubling of 1 MiB on 32 KiB Rx buffers: the partners' buffers fill with each other's
  // segments and never drain (a deadlock the RNR NAKs would retry for ever): a simulated failure in well under a
  // second, advising the eager build, which then runs.
  auto stuck = run_out({scenario(kExample), "--set", "workload.sizes=[\"1MiB\"]", "--set",
                        "workload.algorithm=recursive-doubling", "--set", "workload.protocol=eager", "--set",
                        "workload.verify=false", "--wall-limit", "60"});
  EXPECT_EQ(stuck.rc, 3) << stuck.err;
  EXPECT_NE(stuck.err.find("platform.node.fpga.cclo.build: eager"), std::string::npos) << stuck.err;
  EXPECT_EQ(stuck.err.find("link.rate"), std::string::npos) << stuck.err;
  auto built = run_out({scenario(kExample), "--set", "workload.sizes=[\"1MiB\"]", "--set",
                        "workload.algorithm=recursive-doubling", "--set", "workload.protocol=eager", "--set",
                        "workload.verify=false", "--set", "platform.node.fpga.cclo.build=eager"});
  EXPECT_EQ(built.rc, 0) << built.err;
  fs::remove_all(out());
  // The CCLO's barrier before each call moves no data: it runs with streamed operands too.
  auto stream = run_out({scenario(kExample), "--set", "workload.sizes=[\"4KiB\"]", "--set", "workload.location=stream",
                         "--set", "workload.collective=reduce", "--set", "workload.pre_barrier=cclo", "--set",
                         "workload.verify=false"});
  EXPECT_EQ(stream.rc, 0) << stream.err;
  fs::remove_all(out());
  // A program operation whose forced algorithm cannot run its call.
  auto program = [&](const std::string& protocol) {
    write("p.json", fmt::format(R"({{"name": "p", "platform": {{"preset": "accl-coyote-u55c", "topology": {{"kind": "star",
        "hosts": 4}}}}, "workload": {{"kind": "program", "ranks": 4, "buffers": [{{"name": "x", "elements": 1024}},
        {{"name": "s", "elements": 1024, "init": "zero"}}], "ops": [{{"op": "allreduce", "src": "x", "dst": "s",
        "algorithm": "ring", "protocol": "{}"}}]}}}})",
                                protocol));
    return run_out({(dir_ / "p.json").string(), "--check-only"});
  };
  auto prog = program("rendezvous");
  EXPECT_EQ(prog.rc, 2) << prog.err;
  EXPECT_NE(prog.err.find("/workload/ops/0/algorithm"), std::string::npos) << prog.err;
  EXPECT_NE(prog.err.find("force protocol eager"), std::string::npos) << prog.err;
  auto fixed = program("eager");
  EXPECT_EQ(fixed.rc, 0) << fixed.err;
  auto ran = run_out({(dir_ / "p.json").string()});
  EXPECT_EQ(ran.rc, 0) << ran.err;
}
