// Sweeps: expansion of axes, and the runner end to end through the nafsim binary (failures do not
// stop a sweep; an interrupted sweep resumes without losing or duplicating rows).
#include "simcore/config/ConfigError.hpp"
#include "simcore/config/JsonDoc.hpp"
#include "simcore/sweep/SweepRunner.hpp"
#include "simcore/sweep/SweepSpec.hpp"
#include "tests/support/RunCli.hpp"

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fmt/format.h>
#include <fcntl.h>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace nafsim;
using nafsim::sweep::SweepSpec;
namespace fs = std::filesystem;

namespace {

SweepSpec spec(const std::string& text)
{
  return SweepSpec::from_json(config::parse_json_text(text, "s.json"), "s.json", ".");
}

std::string error_of(const std::string& text)
{
  try {
    spec(text);
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  return "no error";
}

using nafsim::testing::run_cli;

std::string slurp(const fs::path& p)
{
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path scratch(const std::string& name)
{
  fs::path d = fs::temp_directory_path() / fmt::format("nafsim-sweep-{}-{}", name, ::getpid());
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

const char* kSweep = R"({
  "name": "t",
  "base": {"platform": {"preset": "single-switch", "topology": {"hosts": 2}},
           "workload": {"kind": "sendrecv", "sizes": ["4KiB", "64KiB"], "iterations": 2}},
  "axes": [
    {"path": "platform.network.link.rate", "values": ["10Gbps", "25Gbps", "100Gbps"]},
    {"path": "platform.network.switch.latency", "values": ["100ns", "1us"]}
  ]})";

} // namespace

TEST(SweepSpec, ProductVariesTheLastAxisFastest)
{
  auto s = spec(kSweep);
  ASSERT_EQ(s.points.size(), 6u);
  EXPECT_EQ(s.points[1].values[0], "10Gbps");
  EXPECT_EQ(s.points[1].values[1], "1us");
  EXPECT_EQ(s.points[2].values[0], "25Gbps");
  EXPECT_EQ(s.points[5].sets(s.axes),
            (std::vector<std::string>{"platform.network.link.rate=\"100Gbps\"", "platform.network.switch.latency=\"1us\""}));
}

TEST(SweepSpec, RangesAndZip)
{
  auto s = spec(R"({"base": {}, "mode": "zip", "axes": [
      {"path": "platform.topology.hosts", "range": {"from": 2, "to": 16, "factor": 2}},
      {"path": "workload.iterations", "range": {"from": 1, "to": 7, "step": 2}}]})");
  ASSERT_EQ(s.points.size(), 4u);
  EXPECT_EQ(s.points[3].values[0], 16);
  EXPECT_EQ(s.points[3].values[1], 7);
}

TEST(SweepSpec, BadSweepsAreExplained)
{
  EXPECT_EQ(error_of(R"({"base": {}, "axes": [{"path": "a", "value": [1]}]})"),
            "s.json: /axes/0/value: unknown key 'value'; an axis has path and values or range");
  EXPECT_EQ(error_of(R"({"base": {}, "mode": "zip", "axes": [{"path": "a", "values": [1, 2]}, {"path": "b", "values": [1]}]})"),
            "s.json: /axes/1: zip mode needs axes of equal length: a has 2 values, b has 1");
  EXPECT_EQ(error_of(R"({"base": {}, "axes": [{"path": "a", "range": {"from": 1, "to": 4}}]})"),
            "s.json: /axes/0/range: give exactly one of step (arithmetic) or factor (geometric)");
  EXPECT_EQ(error_of(R"({"axes": []})"),
            "s.json: /base: missing: a scenario file (relative to the sweep file) or a scenario object");
  // A path that is none (each point gives its axis as --set path=value: the error had named that --set).
  for (const char* path : {"", "workload.", ".seed", "a..b", "seed=1"})
    EXPECT_EQ(error_of(fmt::format(R"({{"base": {{}}, "axes": [{{"path": "{}", "values": [1]}}]}})", path)),
              fmt::format("s.json: /axes/0/path: '{}' is not a parameter path: dotted keys, e.g. "
                          "\"platform.network.link.rate\"",
                          path));
  // An axis inside another, in either order: the later one's value won and the table labelled points by both.
  for (const char* axes : {R"([{"path": "platform.network.link.rate", "values": ["50Gbps"]},
                               {"path": "platform.network", "values": [{"link": {"rate": "25Gbps"}}]}])",
                           R"([{"path": "platform.network", "values": [{"link": {"rate": "25Gbps"}}]},
                               {"path": "platform.network.link.rate", "values": ["50Gbps"]}])"}) {
    const std::string e = error_of(std::string(R"({"base": {}, "axes": )") + axes + "}");
    EXPECT_NE(e.find("s.json: /axes/1/path: axis '"), std::string::npos) << e;
    EXPECT_NE(e.find("overlaps axis 0"), std::string::npos) << e;
  }
  // An empty object puts the section back to its defaults, the inner value too.
  EXPECT_NE(error_of(R"({"base": {}, "axes": [{"path": "platform.network.link.rate", "values": ["50Gbps"]},
                                               {"path": "platform.network", "values": [{}]}]})")
                .find("overlaps axis 0"),
            std::string::npos);
  // A common prefix that is not a parent is no overlap; nor is an outer axis whose values leave the inner value to
  // the inner axis (a preset's name, or other keys patched).
  EXPECT_EQ(error_of(R"({"base": {}, "axes": [{"path": "workload.size", "values": [1]},
                                               {"path": "workload.sizes", "values": [[1]]}]})"),
            "no error");
  EXPECT_EQ(error_of(R"({"base": {}, "axes": [{"path": "platform", "values": ["pac-32", "pac-32-ovp"]},
                                               {"path": "platform.topology.hosts", "values": [32, 128]}]})"),
            "no error");
  EXPECT_EQ(error_of(R"({"base": {}, "axes": [{"path": "platform.network", "values": [{"fidelity": "flow"}]},
                                               {"path": "platform.network.link.rate", "values": ["50Gbps"]}]})"),
            "no error");
}

TEST(SweepRun, FailedPointIsReportedAndTheSweepCarriesOn)
{
  fs::path d = scratch("fail");
  // Point 1 drops PSN 0 a hundred times: its queue pair exhausts its retries.
  std::ofstream(d / "s.json") << R"({
    "name": "f",
    "base": {"platform": {"preset": "single-switch", "topology": {"hosts": 2}},
             "workload": {"kind": "sendrecv", "sizes": ["1KiB"]}},
    "axes": [{"path": "platform.network.faults.drops",
              "values": [[], [{"src": 0, "dst": 1, "seq": 0, "count": 100}], []]}]})";
  auto r = run_cli(d, "sweep s.json --jobs 2");
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find("3 point(s), 0 already done, 2 ran now, 1 failed"), std::string::npos) << r.out;
  std::string failures = slurp(d / "results/f/failures.csv");
  EXPECT_NE(failures.find("the retry limit is exhausted"), std::string::npos) << failures;
  std::string merged = slurp(d / "results/f/sendrecv.csv");
  EXPECT_EQ(std::count(merged.begin(), merged.end(), '\n'), 3) << merged;
  EXPECT_EQ(merged.find("\n1,"), std::string::npos) << "no rows of the failed point";
  fs::remove_all(d);
}

TEST(SweepRun, AnInlineBasesWorkloadFilesAreTheSweepFilesNeighbours)
{
  // A Chakra trace named relative to the sweep file in its inline base: the points ran a copy of the base written
  // elsewhere (a scratch folder, the sweep's directory) and looked for the trace there (the audit of 2026-12-07).
  fs::path d = scratch("inline-trace");
  fs::create_directories(d / "tr");
  for (int r = 0; r < 8; ++r) {
    const std::string f = fmt::format("ring8.{}.et", r);
    fs::copy_file(fs::path(NAFSIM_SOURCE_DIR) / "workloads/chakra/traces" / f, d / "tr" / f);
  }
  std::ofstream(d / "s.json") << R"({"name": "c",
    "base": {"platform": {"preset": "accl-coyote-u55c", "topology": {"kind": "star", "hosts": 8}},
             "workload": {"kind": "chakra", "trace": "tr/ring8"}},
    "axes": [{"path": "seed", "values": [1, 2]}]})";
  auto r = run_cli(d, "sweep s.json --jobs 1 --out out");
  EXPECT_EQ(r.code, 0) << r.out << slurp(d / "stderr.txt");
  EXPECT_NE(r.out.find("2 point(s), 0 already done, 2 ran now, 0 failed"), std::string::npos) << r.out;
  fs::remove_all(d);
}

TEST(SweepSpec, AnAxisFilePathsAreTheSweepFilesWhereverItRuns)
{
  // A run reads a --set's paths against its working directory, and a sweep gives each point its axis values by
  // --set: a platform file or a trace named in the sweep file had been read in the working directory (or, for an
  // inline base, the folder of its written copy): the audit of 2026-12-07.
  // (a folder that is not there: weakly_canonical then follows no link of this machine's)
  const std::string root = "/nafsim-no-such-folder/data/study";
  const fs::path here    = root;
  auto abs = [&](const std::string& at, const char* v) {
    return sweep::file_paths_absolute(at, config::parse_json_text(v, "s.json"), here).dump();
  };
  auto json = [](const char* v) { return config::parse_json_text(v, "expected").dump(); }; // (keys in their order)
  EXPECT_EQ(abs("platform", R"("p/x.json")"), R"("/nafsim-no-such-folder/data/study/p/x.json")");
  EXPECT_EQ(abs("platform", R"("accl-xrt-u55c")"), R"("accl-xrt-u55c")") << "a preset's name is no path";
  EXPECT_EQ(abs("platform", R"({"preset": "../x.json", "topology": {"hosts": 4}})"),
            json(R"({"preset":"/nafsim-no-such-folder/data/x.json","topology":{"hosts":4}})"));
  EXPECT_EQ(abs("workload.trace", R"("tr/ring8")"), R"("/nafsim-no-such-folder/data/study/tr/ring8")");
  EXPECT_EQ(abs("workload.comm_groups", R"("/abs/g.json")"), R"("/abs/g.json")") << "absolute stays";
  EXPECT_EQ(abs("workload", R"({"kind": "chakra", "trace": "t", "comm_groups": "g.json"})"),
            json(R"({"kind": "chakra", "trace": "/nafsim-no-such-folder/data/study/t",
                     "comm_groups": "/nafsim-no-such-folder/data/study/g.json"})"));
  EXPECT_EQ(abs("platform.network.link.rate", R"("x.json")"), R"("x.json")") << "not a path";
  EXPECT_EQ(abs("", R"({"platform": "p.json", "workload": {"kind": "chakra", "trace": "t"},
                        "overrides": {"workload.trace": "u", "seed": 2}})"),
            json(R"({"platform": "/nafsim-no-such-folder/data/study/p.json",
                     "workload": {"kind": "chakra", "trace": "/nafsim-no-such-folder/data/study/t"},
                     "overrides": {"workload.trace": "/nafsim-no-such-folder/data/study/u", "seed": 2}})"));
  const SweepSpec s = spec(R"({"base": {"platform": "x", "workload": {"kind": "chakra"}},
    "axes": [{"path": "workload.trace", "values": ["tr/a"]}, {"path": "seed", "values": [1]}]})");
  EXPECT_EQ(s.points[0].sets(s.axes, here), (std::vector<std::string>{R"(workload.trace=")" + root + R"(/tr/a")",
                                                                       "seed=1"}));
  EXPECT_EQ(s.points[0].sets(s.axes), (std::vector<std::string>{R"(workload.trace="tr/a")", "seed=1"}));
  // A platform file among an axis' values must be there (its point would have failed as a --set of its own).
  EXPECT_EQ(error_of(R"({"base": {}, "axes": [{"path": "platform", "values": ["pac-32", {"preset": "nope.json"}]}]})"),
            fmt::format("s.json: /axes/0/values/1: no platform file {}/nope.json (read against the sweep file's "
                        "folder): give a path that exists, or a preset's name",
                        fs::current_path().string()));
}

TEST(SweepRun, AnAxisPlatformFileIsTheSweepFilesNeighbour)
{
  fs::path d = scratch("axis-platform");
  fs::create_directories(d / "study");
  for (auto [file, rate] : {std::pair{d / "study" / "plat.json", "40Gbps"}, std::pair{d / "plat.json", "10Gbps"}}) {
    auto p = config::load_json_file(std::string(NAFSIM_SOURCE_DIR) + "/platforms/accl-coyote-u55c.json");
    p["network"]["link"]["rate"] = rate;
    std::ofstream(file) << p.dump(2);
  }
  std::ofstream(d / "study" / "s.json") << R"({"name": "p",
    "base": {"platform": "accl-coyote-u55c", "workload": {"kind": "sendrecv", "sizes": ["4KiB"], "iterations": 1}},
    "axes": [{"path": "platform", "values": ["accl-coyote-u55c", "plat.json"]}]})";
  auto r = run_cli(d, "sweep study/s.json --jobs 1 --out out");
  ASSERT_EQ(r.code, 0) << r.out << slurp(d / "stderr.txt");
  const auto meta = config::load_json_file((d / "out/points/00001/metadata.json").string());
  EXPECT_EQ(meta["scenario"]["platform"]["network"]["link"]["rate"], "40Gbps")
      << "the sweep file's plat.json, not the working directory's";
  // Rank 1 of two in the same directory, a copy of the base left there by an earlier build (its paths relative): it
  // ran that copy, not the scenario its points were checked as (a review of 2026-12-07). Each rank writes it now.
  std::ofstream(d / "study" / "t.json") << R"({"name": "p",
    "base": {"platform": "plat.json", "workload": {"kind": "sendrecv", "sizes": ["4KiB"], "iterations": 1}},
    "axes": [{"path": "seed", "values": [1, 2]}]})";
  r = run_cli(d, "sweep study/t.json --jobs 1 --out two", "OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2");
  ASSERT_EQ(r.code, 0) << r.out << slurp(d / "stderr.txt");
  auto base = config::load_json_file((d / "two/base-scenario.json").string());
  EXPECT_EQ(base["platform"], (d / "study" / "plat.json").string());
  base["platform"] = "plat.json";
  std::ofstream(d / "two/base-scenario.json") << base.dump(2);
  r = run_cli(d, "sweep study/t.json --jobs 1 --out two", "OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2");
  ASSERT_EQ(r.code, 0) << r.out << slurp(d / "stderr.txt");
  EXPECT_EQ(config::load_json_file((d / "two/points/00001/metadata.json").string())["scenario"]["platform"]["network"]
                                  ["link"]["rate"],
            "40Gbps");
  fs::remove_all(d);
}

TEST(SweepRun, ResumeNeitherLosesNorDuplicatesRows)
{
  fs::path d = scratch("resume");
  std::ofstream(d / "s.json") << kSweep;
  auto r = run_cli(d, "sweep s.json --jobs 2 --out ref");
  ASSERT_EQ(r.code, 0) << r.out;
  std::string reference = slurp(d / "ref/sendrecv.csv");
  EXPECT_EQ(std::count(reference.begin(), reference.end(), '\n'), 1 + 6 * 4);

  // Lose two points (as if the sweep had been killed before they finished) and resume.
  fs::remove_all(d / "ref/points/00001");
  fs::remove_all(d / "ref/points/00004");
  r = run_cli(d, "sweep s.json --jobs 2 --out ref");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("6 point(s), 4 already done, 2 ran now, 0 failed"), std::string::npos) << r.out;
  EXPECT_EQ(slurp(d / "ref/sendrecv.csv"), reference);

  // A different sweep into the same directory is refused.
  std::ofstream(d / "other.json") << R"({"name": "t", "base": {"platform": "single-switch",
      "workload": {"kind": "sendrecv"}}, "axes": [{"path": "seed", "values": [1, 2]}]})";
  r = run_cli(d, "sweep other.json --out ref");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(slurp(d / "stderr.txt").find("holds the results of a different sweep"), std::string::npos);
  // ... and so is merging its points with a different sweep's axes (they were relabelled: the audit of 2026-12-07).
  r = run_cli(d, "sweep other.json --out ref --merge-only");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(slurp(d / "stderr.txt").find("holds the results of a different sweep"), std::string::npos);
  EXPECT_EQ(slurp(d / "ref/sendrecv.csv"), reference);

  // A point whose table was lost since it ran is run again, not merged without its rows.
  fs::remove(d / "ref/points/00002/sendrecv.csv");
  r = run_cli(d, "sweep s.json --out ref --merge-only");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(slurp(d / "stderr.txt").find("point 2 (platform.network.link.rate=25Gbps, "
                                         "platform.network.switch.latency=100ns)'s result sendrecv.csv is missing"),
            std::string::npos)
      << slurp(d / "stderr.txt");
  r = run_cli(d, "sweep s.json --out ref");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("6 point(s), 5 already done, 1 ran now, 0 failed"), std::string::npos) << r.out;
  EXPECT_EQ(slurp(d / "ref/sendrecv.csv"), reference);
  // A damaged table is an error naming it, not rows of empty cells or rows gone.
  {
    std::string t = slurp(d / "ref/points/00003/sendrecv.csv");
    std::ofstream(d / "ref/points/00003/sendrecv.csv") << t.substr(0, t.find('\n') + 30);
  }
  r = run_cli(d, "sweep s.json --out ref --merge-only");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(slurp(d / "stderr.txt").find("points/00003/sendrecv.csv: row 1 has"), std::string::npos)
      << slurp(d / "stderr.txt");
  EXPECT_EQ(slurp(d / "ref/sendrecv.csv"), reference);
  fs::remove_all(d);
}

TEST(SweepRun, InterruptedBySignalThenResumed)
{
  fs::path d = scratch("sigint");
  // Longer points, one at a time, so that the signal lands mid-sweep.
  std::ofstream(d / "s.json") << R"({
    "name": "i",
    "base": {"platform": {"preset": "single-switch", "topology": {"hosts": 2}},
             "workload": {"kind": "sendrecv", "sizes": ["16MiB"], "iterations": 4}},
    "axes": [{"path": "seed", "range": {"from": 1, "to": 8, "step": 1}}]})";
  std::ofstream(d / "ref.json") << slurp(d / "s.json");
  ASSERT_EQ(run_cli(d, "sweep ref.json --jobs 2 --out full").code, 0);

  pid_t pid = fork();
  if (pid == 0) {
    ::chdir(d.c_str());
    int devnull = ::open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    dup2(devnull, 2);
    execl(NAFSIM_BINARY, NAFSIM_BINARY, "sweep", "s.json", "--jobs", "1", "--out", "cut", nullptr);
    _exit(127);
  }
  auto t0 = std::chrono::steady_clock::now();
  while (!fs::exists(d / "cut/points/00001/metadata.json") && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(60))
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  int code = WEXITSTATUS(status);
  EXPECT_TRUE(code == 130 || code == 0) << code; // 0 only if it finished before the signal landed
  std::size_t done = 0;
  for (auto const& e : fs::directory_iterator(d / "cut/points"))
    done += e.path().filename().string()[0] == '.' ? 0 : 1;
  EXPECT_GE(done, 2u);

  auto r = run_cli(d, "sweep s.json --jobs 2 --out cut");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(slurp(d / "cut/sendrecv.csv"), slurp(d / "full/sendrecv.csv"));
  fs::remove_all(d);
}

TEST(SweepRun, InvalidAxisValueIsRejectedBeforeAnythingRuns)
{
  fs::path d = scratch("invalid");
  std::ofstream(d / "s.json") << R"({"name": "v", "base": {"platform": "single-switch", "workload": {"kind": "sendrecv"}},
    "axes": [{"path": "platform.network.link.rate", "values": ["10Gbps", "fast"]}]})";
  auto r = run_cli(d, "sweep s.json");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(slurp(d / "stderr.txt")
                .find("point 1 (platform.network.link.rate=fast): --set platform.network.link.rate=\"fast\": "
                      "/platform/network/link/rate: 'fast' is not a rate"),
            std::string::npos)
      << slurp(d / "stderr.txt");
  EXPECT_FALSE(fs::exists(d / "results/v")) << "nothing is written";
  fs::remove_all(d);
}

TEST(SweepRun, MpiRanksShareThePointsAndMergeToTheSameTable)
{
  fs::path d = scratch("mpi");
  std::ofstream(d / "s.json") << kSweep;
  ASSERT_EQ(run_cli(d, "sweep s.json --out single").code, 0);
  // Two ranks (as mpirun would start them; OpenMPI's variables), one shared directory.
  auto r0 = run_cli(d, "sweep s.json --out shared", "OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2");
  auto r1 = run_cli(d, "sweep s.json --out shared", "OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2");
  ASSERT_EQ(r0.code, 0) << r0.out;
  ASSERT_EQ(r1.code, 0) << r1.out;
  EXPECT_NE(r0.out.find("3 point(s) (rank 0 of 2)"), std::string::npos) << r0.out;
  EXPECT_NE(r1.out.find("3 point(s) (rank 1 of 2)"), std::string::npos) << r1.out;
  ASSERT_EQ(run_cli(d, "sweep s.json --out shared --merge-only").code, 0);
  EXPECT_EQ(slurp(d / "shared/sendrecv.csv"), slurp(d / "single/sendrecv.csv"));
  fs::remove_all(d);
}

// ---- issue 28: sweeps that cannot mix results, ranges without drift, a points limit checked first ----

TEST(SweepSpec, FloatRangesGiveTheValuesWritten)
{
  auto s = spec(R"({"base": {}, "axes": [{"path": "a", "range": {"from": 0.1, "to": 0.5, "step": 0.1}}]})");
  ASSERT_EQ(s.points.size(), 5u);
  EXPECT_EQ(s.points[2].values[0].dump(), "0.3"); // not 0.30000000000000004 (a running sum)
  EXPECT_EQ(s.points[4].values[0].dump(), "0.5");
  auto g = spec(R"({"base": {}, "axes": [{"path": "a", "range": {"from": 0.001, "to": 1, "factor": 10}}]})");
  ASSERT_EQ(g.points.size(), 4u);
  EXPECT_EQ(g.points[3].values[0].dump(), "1.0");
}

TEST(SweepSpec, ThePointsLimitIsCheckedBeforeThePointsAreMade)
{
  // A billion values would take gigabytes: refused from the range's count alone, at once.
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(error_of(R"({"base": {}, "axes": [{"path": "seed", "range": {"from": 1, "to": 1e9, "step": 1}}]})"),
            "s.json: /axes/0/range: the range has 1000000000 values, more than the sweep's points limit of 1000000 "
            "(max_points): a larger step or factor, or raise the limit (\"max_points\" in the sweep file, or "
            "--max-points)");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_NE(error_of(R"({"base": {}, "axes": [{"path": "a", "range": {"from": 1, "to": 2000, "step": 1}},
                                              {"path": "b", "range": {"from": 1, "to": 2000, "step": 1}}]})")
                .find("/axes: the axes' product (2000 x 2000 values) has more points than the sweep's limit of 1000000"),
            std::string::npos);
  // The file's own limit, and the command line's over it.
  const char* three = R"({"base": {}, "max_points": 2, "axes": [{"path": "a", "values": [1, 2, 3]}]})";
  EXPECT_NE(error_of(three).find("more points than the sweep's limit of 2"), std::string::npos) << error_of(three);
  EXPECT_EQ(SweepSpec::from_json(config::parse_json_text(three, "s.json"), "s.json", ".", 3).points.size(), 3u);
  EXPECT_NE(error_of(R"({"base": {}, "max_points": 0, "axes": [{"path": "a", "values": [1]}]})").find("/max_points"),
            std::string::npos);
}

TEST(SweepRun, APointKilledBySignalSaysSo)
{
  pid_t pid = fork();
  if (pid == 0) {
    ::raise(SIGKILL);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_EQ(sweep::exit_text(status), "killed by signal 9 (SIGKILL: out of memory, or killed from outside)");
  pid = fork();
  if (pid == 0)
    _exit(3);
  waitpid(pid, &status, 0);
  EXPECT_EQ(sweep::exit_text(status), "exit 3");
}

TEST(SweepRun, ADirectoryWhosePointsRanAnotherScenarioIsRefused)
{
  fs::path d = scratch("mix");
  std::ofstream(d / "s.json") << kSweep;
  ASSERT_EQ(run_cli(d, "sweep s.json --jobs 2 --out o").code, 0);
  fs::remove_all(d / "o/points/00003"); // an interrupted sweep: resumed with another --set, it would mix platforms
  auto r = run_cli(d, "sweep s.json --jobs 2 --out o --set platform.topology.hosts=4");
  EXPECT_EQ(r.code, 2) << r.out;
  const std::string err = slurp(d / "stderr.txt");
  EXPECT_NE(err.find("point 0 (platform.network.link.rate=10Gbps, platform.network.switch.latency=100ns) was run "
                     "with a different scenario than this sweep gives it now (/platform/topology/hosts: 2 then, 4 now)"),
            std::string::npos)
      << err;
  EXPECT_FALSE(fs::exists(d / "o/points/00003")) << "nothing ran";
  // The same --set as before resumes.
  r = run_cli(d, "sweep s.json --jobs 2 --out o");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("6 point(s), 5 already done, 1 ran now"), std::string::npos) << r.out;
  fs::remove_all(d);
}

TEST(SweepRun, EveryPointIsCheckedAgainstItsPlatformBeforeAnyRuns)
{
  fs::path d = scratch("platform-check");
  std::ofstream(d / "s.json") << R"({"name": "p",
    "base": {"platform": {"preset": "accl-coyote-u55c", "topology": {"hosts": 4}},
             "workload": {"kind": "collective", "collective": "bcast", "sizes": ["1KiB"]}},
    "axes": [{"path": "workload.ranks", "values": [2, 4, 8, 16]}]})";
  auto r = run_cli(d, "sweep s.json --jobs 2");
  EXPECT_EQ(r.code, 2) << r.out;
  const std::string err = slurp(d / "stderr.txt");
  EXPECT_NE(err.find("point 2 (workload.ranks=8): --set workload.ranks=8: /workload/ranks: 8 ranks requested, but the "
                     "platform has 4 FPGA node(s)"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("(and 1 more point(s) that cannot run); nothing was run"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(d / "results/p")) << "nothing ran, nothing was written";
  // hosts "ranks": the cluster follows the ranks axis.
  std::ofstream(d / "s2.json") << R"({"name": "p2",
    "base": {"platform": {"preset": "accl-coyote-u55c", "topology": {"hosts": "ranks"}},
             "workload": {"kind": "collective", "collective": "bcast", "sizes": ["1KiB"]}},
    "axes": [{"path": "workload.ranks", "values": [2, 16]}]})";
  r = run_cli(d, "sweep s2.json --jobs 2");
  EXPECT_EQ(r.code, 0) << r.out << slurp(d / "stderr.txt");
  const std::string nodes = slurp(d / "results/p2/nodes.csv");
  EXPECT_NE(nodes.find("\n1,16,15,fpga"), std::string::npos) << "point 1 has 16 hosts: " << nodes.substr(0, 300);
  fs::remove_all(d);
}

TEST(SweepRun, MergeOnlyNeedsASweep)
{
  fs::path d = scratch("merge-missing");
  std::ofstream(d / "s.json") << kSweep;
  auto r = run_cli(d, "sweep s.json --out nothing-here --merge-only");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(slurp(d / "stderr.txt").find("holds no sweep (no sweep.json): nothing to merge"), std::string::npos);
  fs::remove_all(d);
}

// An axis that some points do not read (the flow solver's fraction at packet fidelity) gives those points one run's
// results whatever its value: the sweep says which points, and why.
TEST(SweepRun, AnAxisSomePointsReadNothingOfIsSaid)
{
  fs::path d = scratch("unread");
  std::ofstream(d / "s.json") << R"({
    "name": "u",
    "base": {"platform": {"preset": "single-switch", "topology": {"hosts": 2}},
             "workload": {"kind": "sendrecv", "sizes": ["1KiB"]}},
    "axes": [{"path": "platform.network.fidelity", "values": ["packet", "flow"]},
             {"path": "platform.network.flow_resolve_fraction", "values": [0.05]}]})";
  auto r = run_cli(d, "sweep s.json --jobs 2");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("warning: platform.network.flow_resolve_fraction: read by nothing in 1 of 2 point(s) (0): the "
                       "network ran at packet fidelity"),
            std::string::npos)
      << r.out;
  fs::remove_all(d);
}
