// Scenario loading: merging and precedence, and the error for each kind of bad input (what, where:
// file and JSON path, and what is allowed).
#include "nodes/fpga/FpgaNodeConfig.hpp"
#include "simcore/app/Scenario.hpp"
#include "simcore/config/ConfigError.hpp"
#include "simcore/config/JsonDoc.hpp"
#include "tests/support/RunCli.hpp"
#include "tests/support/RunScenario.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace nafsim;
namespace fs = std::filesystem;

namespace {

workloads::WorkloadRegistry& registry()
{
  static workloads::WorkloadRegistry r = [] {
    workloads::WorkloadRegistry x;
    workloads::register_all_workloads(x);
    return x;
  }();
  return r;
}

app::Scenario load(const std::string& text, std::vector<std::string> sets = {})
{
  app::ScenarioOptions o;
  o.sets = std::move(sets);
  return app::load_scenario_doc(config::parse_json_text(text, "s.json"), "s.json", ".", o, registry());
}

std::string error(const std::string& text, std::vector<std::string> sets = {})
{
  try {
    load(text, std::move(sets));
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  return "no error";
}

const char* kOk = R"({"platform": "accl-coyote-u55c", "workload": {"kind": "sendrecv"}})";

} // namespace

TEST(Scenario, PresetInlinePatchOverridesAndSetInOrder)
{
  auto sc = load(R"({"seed": 4, "platform": {"preset": "accl-coyote-u55c", "network": {"switch": {"latency": "1us"}}},
                     "workload": {"kind": "sendrecv", "max_size": "1MiB"},
                     "overrides": {"platform.network.switch.latency": "2us", "platform.topology.hosts": 4}})",
                 {"platform.topology.hosts=6"});
  EXPECT_EQ(sc.header.seed, 4u);
  EXPECT_EQ(sc.platform.network.switch_.latency, SimTime::us(2)) << "overrides beat the inline patch";
  EXPECT_EQ(sc.platform.topology.hosts, 6u) << "--set beats overrides";
  EXPECT_DOUBLE_EQ(sc.platform.network.link.rate.bps, 100e9) << "preset value kept";
  EXPECT_EQ(sc.resolved["workload"]["max_size"], "1MiB");
  EXPECT_EQ(sc.resolved["workload"]["min_size"], "512B") << "defaults are written into the resolved scenario";
  EXPECT_TRUE(sc.platform_sources.contains("network.link.rate"));
}

// `--set platform.preset=X` reads as the way to swap a preset; the error says which path does it (it listed the
// platform's keys, none of which names a preset).
TEST(Scenario, APresetSetByItsKeyNamesThePathThatSetsIt)
{
  const std::string e = error(kOk, {"platform.preset=accl-xrt-u55c"});
  EXPECT_NE(e.find("--set platform=<preset>"), std::string::npos) << e;
  EXPECT_EQ(load(kOk, {"platform=accl-xrt-u55c"}).platform.name, "accl-xrt-u55c");
}

// An object given at a path patches what is there key by key, as an inline platform patches its preset: it replaced
// the section, every key it left out back at its default (the Coyote preset's MMU off, said by nothing). A workload
// of another kind replaces the workload; each key given is a setting of its own for the unread-settings check.
TEST(Scenario, AnObjectSetPatchesWhatIsThereKeyByKey)
{
  auto sc = load(kOk, {R"(platform.node.fpga={"tcp": {"rx_fifo": "1MiB"}, "mmu": {"tlb_ways": 4}})"});
  auto const& fpga = nodes::fpga_config(sc.platform.node);
  EXPECT_TRUE(fpga.mmu.enabled) << "the preset's key the object left out";
  EXPECT_EQ(fpga.mmu.tlb_ways, 4u);
  EXPECT_EQ(fpga.tcp.rx_fifo.count, 1u << 20);
  ASSERT_EQ(sc.path_sets.size(), 2u);
  EXPECT_EQ(sc.path_sets[0].path, "platform.node.fpga.tcp.rx_fifo");
  EXPECT_EQ(sc.path_sets[0].where, R"(platform.node.fpga.tcp.rx_fifo (given by --set platform.node.fpga={"tcp": )"
                                   R"({"rx_fifo": "1MiB"}, "mmu": {"tlb_ways": 4}}))");
  EXPECT_EQ(sc.path_sets[1].path, "platform.node.fpga.mmu.tlb_ways");
  const char* sendrecv = R"({"platform": "accl-coyote-u55c", "workload": {"kind": "sendrecv", "dst": 1}})";
  EXPECT_EQ(load(sendrecv, {R"(workload={"max_size": "1MiB"})"}).resolved["workload"]["dst"], 1) << "patched";
  auto other = load(sendrecv, {R"(workload={"kind": "collective", "collective": "allreduce", "ranks": 2})"});
  EXPECT_EQ(other.workload_kind, "collective") << "replaced: sendrecv's dst means nothing to a collective";
  EXPECT_FALSE(nodes::fpga_config(load(kOk, {"platform.node.fpga.mmu={}"}).platform.node).mmu.enabled)
      << "an empty object: the section back at its defaults";
  ASSERT_EQ(other.path_sets.size(), 3u) << "a replacing object's keys are judged one by one too";
  EXPECT_EQ(other.path_sets[1].path, "workload.collective");
  // A key is one name (a dotted one was taken as a path; an inline object refuses it).
  const std::string dotted = error(kOk, {R"(platform.network={"link.rate": "10Gbps"})"});
  EXPECT_NE(dotted.find("/platform/network: unknown key 'link.rate'"), std::string::npos) << dotted;
  // Not an object where one is: the schema's error, as before.
  EXPECT_NE(error(kOk, {"platform.node.fpga=3"}).find("/platform/node/fpga"), std::string::npos);
}

TEST(Scenario, EveryPresetLoads)
{
  for (auto const& name : app::preset_names())
    EXPECT_NO_THROW(load(fmt::format(R"({{"platform": "{}", "workload": {{"kind": "sendrecv"}}}})", name))) << name;
}

TEST(Scenario, BadInputIsExplained)
{
  EXPECT_EQ(error(R"({"platfrom": "accl-coyote-u55c", "workload": {"kind": "sendrecv"}})"),
            "s.json: /platfrom: unknown key 'platfrom'; a scenario has: name, description, seed, max_sim_time, "
            "critical_path, platform, workload, overrides");
  EXPECT_EQ(error(R"({"workload": {"kind": "sendrecv"}})"),
            "s.json: /platform: missing: give a preset name (e.g. \"accl-coyote-u55c\"), a .json file or an inline "
            "platform object");
  EXPECT_EQ(error(R"({"platform": "accl", "workload": {"kind": "sendrecv"}})"),
            "s.json: /platform: unknown platform preset 'accl'; presets: accl-coyote-u55c, accl-cpu-cx5, accl-cpu-mpich-tcp, "
            "accl-xrt-u55c, fat-tree, lant-zcu102, leaf-spine, pac-128-ovp, pac-128, pac-32-ovp, pac-32, reconic-u250, single-switch (or give a path ending in .json, or an inline object)");
  EXPECT_EQ(error(R"({"platform": "accl-coyote-u55c", "workload": {"kind": "sendrcv"}})"),
            "s.json: /workload/kind: unknown workload kind 'sendrcv'; valid kinds: sendrecv, traffic, collective, connectionless, hostcopy, mpi, fc, dlrm, portals_uq, portals_mpi, program, chakra, reconic");
  EXPECT_EQ(error(R"({"platform": "accl-coyote-u55c", "workload": {"src": 1}})"),
            "s.json: /workload/kind: missing workload kind; valid kinds: sendrecv, traffic, collective, connectionless, hostcopy, mpi, fc, dlrm, portals_uq, portals_mpi, program, chakra, reconic");
  EXPECT_EQ(error(R"({"platform": "accl-coyote-u55c", "workload": {"kind": "sendrecv", "iterations": -2}})"),
            "s.json: /workload/iterations: expected a non-negative whole number, got -2");
  EXPECT_EQ(error(R"({"platform": "accl-coyote-u55c", "workload": {"kind": "sendrecv", "op": "put"}})"),
            "s.json: /workload/op: unknown value \"put\"; allowed: write|send|read");
  EXPECT_EQ(error(R"({"platform": {"preset": "accl-coyote-u55c", "network": {"switch": {"forwarding": "wormhole"}}},
                      "workload": {"kind": "sendrecv"}})"),
            "s.json: /platform/network/switch/forwarding: unknown value \"wormhole\"; allowed: "
            "cut-through|store-and-forward");
  EXPECT_EQ(error(R"({"platform": "accl-coyote-u55c", "workload": {"kind": "sendrecv", "min_size": "8KiB", "max_size": "4KiB"}})"),
            "s.json: /workload/min_size: min_size 8KiB is larger than max_size 4KiB");
  EXPECT_EQ(error(kOk, {"platform.node.fpga.rdma.mtu=100000"}),
            "--set platform.node.fpga.rdma.mtu=100000: /platform/node/fpga/rdma/mtu: value 100000 is out of range; "
            "allowed: 256B to 4KiB");
  EXPECT_EQ(error(kOk, {"platform.node.fpga.rdma.timeouts=1ms"}),
            "--set platform.node.fpga.rdma.timeouts=1ms: /platform/node/fpga/rdma/timeouts: expected a list ([...]), got "
            "\"1ms\"");
  // A list of unquoted texts is no JSON, so it arrives as one text: the error says how to write it.
  EXPECT_EQ(error(kOk, {"platform.node.fpga.rdma.timeouts=[1ms]"}),
            "--set platform.node.fpga.rdma.timeouts=[1ms]: /platform/node/fpga/rdma/timeouts: expected a list ([...]), "
            "got \"[1ms]\": a list is JSON, so its texts are quoted, e.g. '[\"4KiB\", \"1MiB\"]' on the command line");
  EXPECT_EQ(error(kOk, {"workload.size"}),
            "--set workload.size: expected path=value, e.g. --set platform.network.link.rate=25Gbps");
  // A path that starts at no key of a scenario (it was added and read by nothing).
  EXPECT_EQ(error(kOk, {"message=4KiB"}),
            "--set message=4KiB: /message: unknown key 'message' at the start of 'message': a path starts at name, "
            "description, seed, max_sim_time, critical_path, platform or workload (e.g. workload.sizes, "
            "platform.network.link.rate)");
  EXPECT_EQ(error(R"({"platform": "accl-coyote-u55c", "workload": {"kind": "sendrecv"}, "overrides": {"worklaod.op": "send"}})"),
            "s.json: /overrides/worklaod.op: unknown key 'worklaod' at the start of 'worklaod.op': a path starts at "
            "name, description, seed, max_sim_time, critical_path, platform or workload (e.g. workload.sizes, "
            "platform.network.link.rate)");
  EXPECT_EQ(error(kOk, {"platform.network.lnk.rate=1Gbps"}),
            "--set platform.network.lnk.rate=1Gbps: /platform/network/lnk: unknown key 'lnk' (did you mean 'link'?); "
            "allowed keys here: fidelity, flow_sharing, flow_resolve_fraction, link, switch, ethernet, routing, faults, "
            "fast_forward (see `nafsim params`)");
  EXPECT_EQ(error(R"({"platform": {"topology": {"hosts": 2}, "sources": {"network.link.speed": "x"}},
                      "workload": {"kind": "sendrecv"}})"),
            "s.json: /sources/network.link.speed: 'network.link.speed' names no platform parameter (see `nafsim params "
            "platform`)");
  EXPECT_EQ(error(R"({"platform": "missing.json", "workload": {"kind": "sendrecv"}})"),
            "s.json: /platform: no platform file ./missing.json (read against the folder of the scenario that names "
            "it): give a path that exists, or a preset's name (accl-coyote-u55c, accl-cpu-cx5, accl-cpu-mpich-tcp, "
            "accl-xrt-u55c, fat-tree, lant-zcu102, leaf-spine, pac-128-ovp, pac-128, pac-32-ovp, pac-32, "
            "reconic-u250, single-switch)");
}

TEST(Scenario, PlatformErrorsFoundWhenBuildingNameTheirSource)
{
  auto odd = nafsim::testing::run_scenario_isolated(
      R"({"platform": {"preset": "fat-tree", "topology": {"fat_tree": {"k": 5}}}, "workload": {"kind": "sendrecv"}})");
  EXPECT_EQ(odd.error_kind, "config");
  EXPECT_EQ(odd.error, "test-scenario.json: /platform/topology/fat_tree/k: k must be even, got 5");
  auto far = nafsim::testing::run_scenario_isolated(kOk, {"workload.dst=10"});
  EXPECT_EQ(far.error, "--set workload.dst=10: /workload/dst: node 10 does not exist: the platform has 10 hosts (0..9)");
  auto full = nafsim::testing::run_scenario_isolated(
      R"({"platform": {"preset": "fat-tree", "topology": {"hosts": 200}}, "workload": {"kind": "sendrecv"}})");
  EXPECT_EQ(full.error, "test-scenario.json: /platform/topology/hosts: a 8-ary fat-tree holds at most 128 hosts, 200 "
                        "requested; raise fat_tree.k");
  // A node of the wrong kind names the key that made it so (it named /platform/node/kinds/0, which no one gave, and
  // so blamed the preset).
  auto kind = nafsim::testing::run_scenario_isolated(
      R"({"platform": "lant-zcu102", "workload": {"kind": "connectionless", "sizes": ["1KiB"]}})",
      {R"(platform.node={"kind": "host"})"});
  EXPECT_EQ(kind.error.rfind(R"(--set platform.node={"kind": "host"}: /platform/node/kind: host 0 is)", 0), 0u)
      << kind.error;
}

TEST(Scenario, TheCliExitsWithTwoAndWritesNothing)
{
  fs::path d = fs::temp_directory_path() / fmt::format("nafsim-bad-{}", ::getpid());
  fs::create_directories(d);
  std::ofstream(d / "bad.json") << R"({"platform": "accl-coyote-u55c", "workload": {"kind": "sendrecv", "dst": 99}})";
  std::string cmd = fmt::format("cd '{}' && '{}' run bad.json > out.txt 2> err.txt", d.string(), NAFSIM_BINARY);
  int status      = std::system(cmd.c_str());
  EXPECT_EQ(WEXITSTATUS(status), 2);
  std::ifstream err(d / "err.txt");
  std::string line;
  std::getline(err, line);
  EXPECT_EQ(line, "error: bad.json: /workload/dst: node 99 does not exist: the platform has 10 hosts (0..9)");
  EXPECT_FALSE(fs::exists(d / "results")) << "nothing is written for a bad scenario";
  fs::remove_all(d);
}

TEST(Scenario, ResolvedScenarioOfEveryPresetLoadsAgain)
{
  // metadata.json records the resolved scenario (defaults included) so that a run can be repeated from it: every
  // value written there, on every preset, must be one the loader accepts, and load to the same scenario.
  unsigned checked = 0;
  for (auto const& preset : app::preset_names()) {
    const std::string text =
        R"({"name": "rt", "platform": ")" + preset + R"(", "workload": {"kind": "sendrecv", "sizes": ["1KiB"]}})";
    app::Scenario first;
    try {
      first = load(text);
    } catch (const config::ConfigError& e) {
      continue; // a preset this workload cannot run on (the round trip is checked on the others)
    }
    const std::string again = first.resolved.dump();
    app::Scenario second;
    ASSERT_NO_THROW(second = load(again)) << preset;
    EXPECT_EQ(second.resolved, first.resolved) << preset;
    ++checked;
  }
  EXPECT_GE(checked, 5u); // most presets run sendrecv (every preset's resolved config holds all node kinds)
}

TEST(Scenario, ACcloBuildSetsTheRxBuffersAndRegistersForTheWorkloadsRanks)
{
  // The ACCL+ benchmark's two builds (nodes/cclo/CcloBuild.hpp): what the Rx-buffer pool and the protocol registers
  // were, sized by the communicator (ranks + 2 eager buffers of 4 MiB; ranks rendezvous buffers of 64 B).
  const std::string doc = R"({"platform": "accl-coyote-u55c",
                              "workload": {"kind": "collective", "collective": "allreduce", "ranks": 6}})";
  auto custom = load(doc);
  auto const& c = nafsim::nodes::fpga_config(custom.platform.node).cclo;
  EXPECT_EQ(c.build, nodes::CcloBuild::Custom);
  auto eager = load(doc, {"platform.node.fpga.cclo.build=eager"});
  auto const& e = nafsim::nodes::fpga_config(eager.platform.node).cclo;
  EXPECT_EQ(e.rx_buffers.count, 8u);
  EXPECT_EQ(e.rx_buffers.size.count, 4u << 20);
  EXPECT_EQ(e.tuning.max_eager_size.count, 4u << 20);
  EXPECT_EQ(e.tuning.max_rendezvous_size.count, 8u << 20);
  auto rndzv = load(doc, {"platform.node.fpga.cclo.build=rendezvous", "workload.ranks=4"});
  auto const& r = nafsim::nodes::fpga_config(rndzv.platform.node).cclo;
  EXPECT_EQ(r.rx_buffers.count, 4u);
  EXPECT_EQ(r.rx_buffers.size.count, 64u);
  EXPECT_EQ(r.tuning.max_eager_size.count, 64u);
  EXPECT_EQ(r.tuning.max_rendezvous_size.count, 4u << 20);
  // The build wins over the values it sets; other CCLO parameters stay as given.
  auto over = load(doc, {"platform.node.fpga.cclo.build=eager", "platform.node.fpga.cclo.rx_buffers.size=64KiB",
                         "platform.node.fpga.cclo.rx_buffers.seek_cycles=20"});
  EXPECT_EQ(nafsim::nodes::fpga_config(over.platform.node).cclo.rx_buffers.size.count, 4u << 20);
  EXPECT_EQ(nafsim::nodes::fpga_config(over.platform.node).cclo.rx_buffers.seek_cycles, 20u);
  // The resolved scenario (metadata.json) records the values the build set.
  EXPECT_EQ(eager.resolved["platform"]["node"]["fpga"]["cclo"]["rx_buffers"]["count"], 8);
  // A workload without ranks: every FPGA of the platform.
  auto hosts = load(R"({"platform": {"preset": "accl-coyote-u55c", "topology": {"kind": "star", "hosts": 5}},
                        "workload": {"kind": "sendrecv"}})",
                    {"platform.node.fpga.cclo.build=eager"});
  EXPECT_EQ(nafsim::nodes::fpga_config(hosts.platform.node).cclo.rx_buffers.count, 7u);
  EXPECT_NE(error(doc, {"platform.node.fpga.cclo.build=fast"}).find("eager"), std::string::npos);
}

namespace {

/// The Coyote preset as a platform file of its own, its links at `rate`.
void write_platform(const fs::path& file, const std::string& rate)
{
  auto p = config::load_json_file(std::string(NAFSIM_SOURCE_DIR) + "/platforms/accl-coyote-u55c.json");
  p["network"]["link"]["rate"] = rate;
  std::ofstream(file) << p.dump(2);
}

std::string slurp_text(const fs::path& p)
{
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string ran_link_rate(const fs::path& out)
{
  return config::load_json_file((out / "metadata.json").string())["scenario"]["platform"]["network"]["link"]["rate"]
      .get<std::string>();
}

} // namespace

TEST(Scenario, APathIsReadAgainstTheFolderOfWhatGaveIt)
{
  // A path in a file is that file's folder's, one given by --set the working directory's (the audit of
  // 2026-12-07): --set platform=x.json had read the scenario's folder's x.json, silently, when both existed, and a
  // scenario's overrides (workload.trace) the working directory's.
  const fs::path d = fs::temp_directory_path() / fmt::format("nafsim-paths-{}", ::getpid());
  fs::remove_all(d);
  fs::create_directories(d / "sw" / "tr");
  fs::create_directories(d / "cwd");
  write_platform(d / "sw" / "plat.json", "40Gbps");
  write_platform(d / "cwd" / "plat.json", "10Gbps");
  std::ofstream(d / "sw" / "s.json") << R"({"platform": "plat.json", "workload": {"kind": "sendrecv", "sizes":
    ["4KiB"], "iterations": 1}})";
  auto r = nafsim::testing::run_cli(d / "cwd", "run ../sw/s.json --out a");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(ran_link_rate(d / "cwd" / "a"), "40Gbps") << "the scenario's platform file is its folder's";
  r = nafsim::testing::run_cli(d / "cwd", "run ../sw/s.json --set platform=plat.json --out b");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(ran_link_rate(d / "cwd" / "b"), "10Gbps") << "a --set platform file is the working directory's";
  for (int k = 0; k < 8; ++k) {
    const std::string f = fmt::format("ring8.{}.et", k);
    fs::copy_file(fs::path(NAFSIM_SOURCE_DIR) / "workloads/chakra/traces" / f, d / "sw" / "tr" / f);
  }
  std::ofstream(d / "sw" / "c.json") << R"({"platform": {"preset": "accl-coyote-u55c", "topology": {"kind": "star",
    "hosts": 8}}, "workload": {"kind": "chakra", "trace": "nowhere/ring8"},
    "overrides": {"workload.trace": "tr/ring8"}})";
  r = nafsim::testing::run_cli(d / "cwd", "run ../sw/c.json --out c");
  EXPECT_EQ(r.code, 0) << r.out << "an override's trace is the scenario's folder's";
  // Through a link and "..": the folder the system opened the scenario in ("link/.." had been dropped as text).
  fs::create_directories(d / "real" / "deep");
  fs::create_directories(d / "real" / "sw");
  fs::create_directory_symlink(d / "real" / "deep", d / "link");
  fs::copy_file(d / "sw" / "s.json", d / "real" / "sw" / "s.json");
  write_platform(d / "real" / "sw" / "plat.json", "25Gbps");
  r = nafsim::testing::run_cli(d, "run link/../sw/s.json --out e");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(ran_link_rate(d / "e"), "25Gbps") << "real/sw/plat.json, not sw/plat.json";
  // A platform file that is not there: where it was looked for, and why there (a scenario named by its bare name,
  // its folder the working directory, is no --set).
  auto refused_saying = [&](const fs::path& in, const std::string& args, const std::string& line) {
    auto res = nafsim::testing::run_cli(in, args);
    EXPECT_EQ(res.code, 2) << args;
    EXPECT_NE(slurp_text(in / "stderr.txt").find(line), std::string::npos) << slurp_text(in / "stderr.txt");
  };
  refused_saying(d / "cwd", "run ../sw/s.json --set platform=none.json --check-only",
                 "error: --set platform=none.json: /platform: no platform file none.json (read against the working "
                 "directory, as every path given by --set)");
  std::ofstream(d / "sw" / "n.json") << R"({"platform": {"preset": "none.json"}, "workload": {"kind": "sendrecv"}})";
  refused_saying(d / "sw", "run n.json --check-only",
                 "error: n.json: /platform/preset: no platform file none.json (read against the folder of the "
                 "scenario that names it)");
  // A run's metadata.json runs again from anywhere (its trace absolute); its errors say where in it they are.
  r = nafsim::testing::run_cli(d, "run cwd/c/metadata.json --out c2");
  EXPECT_EQ(r.code, 0) << r.out;
  auto m = config::load_json_file((d / "cwd" / "a" / "metadata.json").string());
  m["scenario"]["workload"]["dst"] = 99;
  std::ofstream(d / "m.json") << m.dump(2);
  r = nafsim::testing::run_cli(d, "run m.json --check-only");
  EXPECT_EQ(r.code, 2);
  std::ifstream err(d / "stderr.txt");
  std::string line;
  std::getline(err, line);
  EXPECT_EQ(line, "error: m.json (under /scenario): /workload/dst: node 99 does not exist: the platform has 10 hosts "
                  "(0..9)");
  fs::remove_all(d);
}
