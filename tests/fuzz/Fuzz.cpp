// nafsim-fuzz: a bounded, deterministic mutation fuzzer of nafsim's command line (issues 16 and 28).
//
// Most cases take one of the example scenarios, mutate it (values of every parameter `nafsim params`
// lists set to awkward values through --set, JSON structure and text damaged, odd command-line values,
// `--log` settings, odd `--out` paths) and run it in its own process with a wall-clock bound. The others are
// sweep files (ranges, modes, huge products, limits, inline or file bases), `bench` and `figures` command lines
// (kept cheap: a figure case never names a figure that would really run). A case passes when nafsim exits with 0 (ran),
// 2 (bad input, and then it wrote nothing) or 3 (the simulated run failed), in time. Anything else, a
// signal, exit 1 ("internal error"), a hang, or output left behind by an exit 2, is a finding: the case
// is kept (scenario, command line, stderr) for replay with `nafsim run`. Case i depends only on (seed, i),
// so runs with any --jobs find the same things. Each case is a forked child calling nafsim's command line
// in-process (loading the program and its libraries would cost 50 ms a case).
//
//   nafsim-fuzz --root . [--seed 1] [--cases 3000] [--jobs 2] [--timeout 20]
//               [--keep DIR] [--first N] [--show run|sweep|bench|figures]
#include "simcore/app/Cli.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;
using Json   = nlohmann::json;

namespace {

struct Param {
  std::string path, type;
  std::vector<std::string> choices; ///< "one of a|b|c"
};

struct Case {
  std::size_t index = 0;
  std::string command = "run";   ///< run, sweep, bench or figures
  std::string base;              ///< corpus file it came from
  std::string text;              ///< scenario (run) or sweep (sweep) file contents; none for bench and figures
  std::vector<std::string> args; ///< after `run <file>` / `sweep <file>` / `bench` / `figures`
  std::string what;              ///< mutations applied
  std::string out;               ///< where an exit 2 must have written nothing (empty: not checked)
  double time_scale = 1;         ///< of --timeout: a sweep runs several points
};

class Gen {
public:
  Gen(std::uint64_t seed, std::size_t index) : rng_(seed * 0x9E3779B97F4A7C15ULL ^ (index + 1) * 0xD1B54A32D192ED03ULL) {}
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(rng_() % n); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  template <class T> const T& pick(const std::vector<T>& v) { return v[below(v.size())]; }

private:
  std::mt19937_64 rng_;
};

// Awkward values, by the kind of parameter they go to.
const std::vector<std::string> kNumbers{"0", "-1", "1", "2", "3", "7", "65536", "4294967296", "18446744073709551616",
                                        "-9223372036854775808", "1e400", "-1e400", "0.5", "1e-300", "1e308", "NaN",
                                        "\"12\"", "true", "null", "[]", "{}"};
const std::vector<std::string> kSizes{"0B", "1B", "3B", "63B", "64B", "4KiB", "1MiB", "9GiB", "1e12B", "1e30B", "-1B",
                                      "1.5B", "KiB", "4XB", "0", "-4096", "18446744073709551615B", "\"\"", "1e400B"};
const std::vector<std::string> kTimes{"0s", "1ps", "1e-30s", "10us", "1ms", "1e9s", "1e30s", "-1us", "NaNus", "us",
                                      "5", "0.1ps", "1e400s"};
const std::vector<std::string> kRates{"0bps", "1e-9bps", "1bps", "1kbps", "25Gbps", "1e308Gbps", "-5Gbps", "1e400bps",
                                      "fastbps", "100", "1Tbps"};
const std::vector<std::string> kFreqs{"0Hz", "1Hz", "1e-9Hz", "250MHz", "1e308GHz", "-1MHz", "MHz"};
const std::vector<std::string> kOther{"\"\"", "\"x\"", "null", "[]", "{}", "[1,2,3]", "{\"a\":1}", "true", "false",
                                      "-1", "0", "1e400", "\"\\u0000\"", "[[[[[]]]]]"};

std::string value_for(const Param& p, Gen& g)
{
  if (g.chance(0.1))
    return g.pick(kOther);
  const std::string& t = p.type;
  if (t.rfind("one of", 0) == 0 && !p.choices.empty() && g.chance(0.7))
    return g.pick(p.choices);
  if (t.rfind("list of", 0) == 0) {
    static const std::vector<std::string> lists{"[]", "[0]", "[\"1KiB\", \"1e12B\"]", "[\"0B\"]", "[-1]", "[1e400]",
                                                "[\"x\"]", "[0, 0, 0]", "[7, 2]", "[\"1us\"]", "[\"host\", \"fpga\"]"};
    return g.pick(lists);
  }
  if (t.rfind("size", 0) == 0)
    return g.pick(kSizes);
  if (t.rfind("duration", 0) == 0)
    return g.pick(kTimes);
  if (t.rfind("rate", 0) == 0)
    return g.pick(kRates);
  if (t.rfind("frequency", 0) == 0)
    return g.pick(kFreqs);
  if (t.rfind("bool", 0) == 0)
    return g.chance(0.8) ? (g.chance(0.5) ? "true" : "false") : g.pick(kOther);
  return g.pick(kNumbers);
}

std::string escape(std::string k)
{
  std::string s;
  for (char ch : k)
    s += ch == '~' ? std::string("~0") : ch == '/' ? std::string("~1") : std::string(1, ch);
  return s;
}

/// Every JSON pointer to a value in `j` (objects and arrays included).
void pointers(const Json& j, const std::string& at, std::vector<std::string>& out)
{
  out.push_back(at);
  if (j.is_object())
    for (auto it = j.begin(); it != j.end(); ++it)
      pointers(it.value(), at + "/" + escape(it.key()), out);
  else if (j.is_array())
    for (std::size_t i = 0; i < j.size(); ++i)
      pointers(j[i], at + "/" + std::to_string(i), out);
}

Json parse_value(const std::string& s)
{
  try {
    return Json::parse(s);
  } catch (...) {
    return Json(s);
  }
}

/// A SimGrid log setting, valid or not (a log file goes to the scratch directory, or to a folder that does not exist).
std::string log_setting(Gen& g, const fs::path& scratch)
{
  const std::vector<std::string> logs{"=",
                                      ":",
                                      "",
                                      ".",
                                      "root.thres:bogus",
                                      "root.thres:critical",
                                      "nafsim_engine.thres:info",
                                      "root.thres",
                                      "root.:debug",
                                      ".thres:debug",
                                      "a-b.thres:info",
                                      "root.fmt:%m%n",
                                      "root.fmt:%Q",
                                      "root.add:maybe",
                                      "root.add:off",
                                      "root.app:file:" + (scratch / "fuzz.log").string(),
                                      "root.app:file:/nonexistent/dir/x.log",
                                      "root.app:file:",
                                      "root.app:rollfile:x:" + (scratch / "r.log").string(),
                                      "root.app:splitfile:100:" + (scratch / "s%.log").string(),
                                      "root.app:tcp:localhost",
                                      "root.unknown_key:1",
                                      "/nonexistent/dir/x.log",
                                      std::string(300, 'x') + ".thres:info"};
  return g.pick(logs);
}

/// An odd --out: empty, a device, a file, a path through a file, one too long, one with a newline, a deep new one;
/// for run and sweep (which refuse a folder they did not write) also the root and the working directory.
std::string odd_out(Gen& g, const fs::path& scratch, std::size_t index, bool refuses_foreign_folders = true)
{
  const fs::path file = scratch / fmt::format("a-file-{}", index);
  std::ofstream(file) << "x";
  std::vector<std::string> outs{"",
                                "/dev/null",
                                file.string(),
                                (file / "sub").string(),
                                "/proc/nafsim-fuzz",
                                (scratch / fmt::format("{}-{}", std::string(300, 'n'), index)).string(),
                                (scratch / fmt::format("new\nline-{}", index)).string(),
                                (scratch / fmt::format("deep-{}/a/b/c", index)).string()};
  if (refuses_foreign_folders) {
    outs.push_back("/");
    outs.push_back(".");
  }
  return g.pick(outs);
}

Case make_sweep_case(Gen& g, Case c, const std::vector<std::pair<std::string, Json>>& corpus,
                     const std::vector<Param>& params, const fs::path& scratch);
Case make_bench_case(Gen& g, Case c, const fs::path& scratch);
Case make_figures_case(Gen& g, Case c, const fs::path& scratch);

Case make_case(std::uint64_t seed, std::size_t index, const std::vector<std::pair<std::string, Json>>& corpus,
               const std::vector<Param>& params, const fs::path& scratch)
{
  Gen g(seed, index);
  Case c;
  c.index = index;
  // Case families: 75 % run, 13 % sweep, 7 % bench, 5 % figures.
  if (const std::size_t family = g.below(100); family >= 75) {
    if (family < 88)
      return make_sweep_case(g, c, corpus, params, scratch);
    if (family < 95)
      return make_bench_case(g, c, scratch);
    return make_figures_case(g, c, scratch);
  }
  auto& b   = corpus[g.below(corpus.size())];
  c.base    = b.first;
  Json doc  = b.second;
  // Bound the simulated time so that a mutated but valid scenario stays short (a later --set may change it).
  c.args = {"--set", "max_sim_time=20ms"};
  std::string text_mutation;
  const std::size_t n = 1 + g.below(3);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t op = g.below(100);
    if (op < 45) { // a parameter through --set
      const Param& p = g.pick(params);
      std::string v  = value_for(p, g);
      c.args.push_back("--set");
      c.args.push_back(p.path + "=" + v);
      c.what += fmt::format("set {}={}; ", p.path, v);
    } else if (op < 65) { // a value of the document replaced
      std::vector<std::string> ptrs;
      pointers(doc, "", ptrs);
      std::string at = g.pick(ptrs);
      if (at.empty())
        continue;
      static const std::vector<std::string> vals = [] {
        std::vector<std::string> v = kOther;
        for (auto const* s : {&kNumbers, &kSizes, &kTimes, &kRates})
          v.insert(v.end(), s->begin(), s->end());
        return v;
      }();
      std::string v = g.pick(vals);
      doc[Json::json_pointer(at)] = parse_value(v);
      c.what += fmt::format("doc {}={}; ", at, v);
    } else if (op < 72) { // a key removed
      std::vector<std::string> ptrs;
      pointers(doc, "", ptrs);
      std::string at = g.pick(ptrs);
      if (at.empty())
        continue;
      Json::json_pointer jp(at);
      Json& parent = doc[jp.parent_pointer()];
      if (parent.is_object())
        parent.erase(jp.back());
      else if (parent.is_array() && !parent.empty())
        parent.erase(parent.begin());
      c.what += fmt::format("erase {}; ", at);
    } else if (op < 77) { // an unknown key
      std::vector<std::string> ptrs;
      pointers(doc, "", ptrs);
      std::string at = g.pick(ptrs);
      Json& j        = doc[Json::json_pointer(at)];
      if (j.is_object())
        j["fuzz_unknown"] = 1;
      c.what += fmt::format("unknown key at {}; ", at);
    } else if (op < 81) { // deep nesting
      static const std::vector<std::size_t> depths{40, 200, 5000, 100000};
      std::size_t depth = g.pick(depths);
      std::string deep(depth, '[');
      deep += "1";
      deep.append(depth, ']');
      text_mutation = fmt::format("nest {}", depth);
      std::string s = doc.dump(1);
      auto pos      = s.find("\"workload\"");
      c.text        = pos == std::string::npos ? s : s.substr(0, pos) + "\"fuzz\": " + deep + ", " + s.substr(pos);
      c.what += text_mutation + "; ";
    } else if (op < 86) { // text damage
      std::string s = doc.dump(1);
      switch (g.below(5)) {
        case 0: s = s.substr(0, g.below(s.size())); break;                               // truncated
        case 1: s[g.below(s.size())] = static_cast<char>(g.below(256)); break;          // a byte
        case 2: {                                                                        // a duplicate key
          auto pos = s.find("\"workload\"");
          if (pos != std::string::npos)
            s.insert(pos, "\"workload\": {\"kind\": \"nop\"}, ");
          break;
        }
        case 3: s += "garbage"; break;
        default: s = "{\"workload\": 1e400}"; break;
      }
      c.text = s;
      c.what += "text damage; ";
    } else if (op < 92) { // odd --seed
      static const std::vector<std::string> seeds{"-1", "0", "18446744073709551615", "18446744073709551616", "abc",
                                                  "1.5", ""};
      std::string s = g.pick(seeds);
      c.args.push_back("--seed");
      c.args.push_back(s);
      c.what += "seed " + s + "; ";
    } else { // the workload's own fields
      static const std::vector<std::string> w{"workload.ranks", "workload.sizes", "workload.iterations",
                                              "workload.min_size", "workload.max_size", "workload.root",
                                              "workload.collective", "workload.positions", "workload.pre_barrier",
                                              "name", "seed"};
      Param p{g.pick(w), "", {}};
      std::string v = p.path == "workload.sizes"      ? g.pick(std::vector<std::string>{"[\"0B\"]", "[\"9GiB\"]", "[\"1e12B\"]", "[]", "[\"3B\"]", "[\"64KiB\", \"64KiB\"]"})
                      : p.path == "name"              ? g.pick(std::vector<std::string>{"/tmp", "..", "../../x", "a/b", "", ".", "x"})
                      : p.path == "workload.min_size" || p.path == "workload.max_size" ? g.pick(kSizes)
                                                                                      : g.pick(kNumbers);
      c.args.push_back("--set");
      c.args.push_back(p.path + "=" + v);
      c.what += fmt::format("set {}={}; ", p.path, v);
    }
  }
  if (c.text.empty())
    c.text = doc.dump(1);
  if (g.chance(0.05)) { // critical paths recorded (the causal graph on whatever runs)
    c.args.push_back("--critical-path");
    c.what += "critical path; ";
  }
  if (g.chance(0.1)) { // a SimGrid log setting
    std::string l = log_setting(g, scratch);
    c.args.push_back("--log");
    c.args.push_back(l);
    c.what += "log " + l + "; ";
  }
  c.out = (scratch / fmt::format("out-{}", index)).string();
  if (g.chance(0.05)) { // an odd --out
    c.out = odd_out(g, scratch, index);
    c.what += "out '" + c.out + "'; ";
  }
  c.args.push_back("--out");
  c.args.push_back(c.out);
  if (c.out.empty() || !fs::path(c.out).is_absolute() || c.out.rfind(scratch.string(), 0) != 0)
    c.out.clear(); // outside the scratch directory: not ours to look at
  return c;
}

/// A sweep file: a base (a corpus scenario inline, a file, or damaged), axes of values or ranges (awkward bounds,
/// huge counts), a mode and a points limit.
Case make_sweep_case(Gen& g, Case c, const std::vector<std::pair<std::string, Json>>& corpus,
                     const std::vector<Param>& params, const fs::path& scratch)
{
  c.command = "sweep";
  auto& b   = corpus[g.below(corpus.size())];
  c.base    = b.first;
  Json sw   = Json::object();
  sw["name"] = fmt::format("fuzz-{}", c.index);
  switch (g.below(6)) {
    case 0: sw["base"] = fs::absolute(b.first).string(); c.what += "file base; "; break;
    case 1: sw["base"] = "no-such-base.json"; c.what += "missing base; "; break;
    case 2: sw["base"] = g.pick(std::vector<Json>{Json(1), Json::array(), Json()}); c.what += "bad base; "; break;
    default: {
      Json base          = b.second;
      base["max_sim_time"] = "20ms";
      sw["base"]         = base;
      c.what += "inline base; ";
    }
  }
  const std::size_t n_axes = g.chance(0.05) ? 0 : 1 + g.below(3);
  Json axes                = Json::array();
  // Two in five sweeps are plausible (axes a user would write), so that points really resolve, get checked against
  // their platforms, run, resume and merge; the others are awkward throughout.
  const bool plausible = g.chance(0.4);
  for (std::size_t a = 0; plausible && a < n_axes; ++a) {
    static const std::vector<std::pair<std::string, std::vector<std::string>>> axes_ok{
        {"seed", {"{\"from\": 1, \"to\": 3, \"step\": 1}", "[1, 2]", "[7]"}},
        {"workload.iterations", {"[1, 2]", "{\"from\": 1, \"to\": 2, \"step\": 1}"}},
        {"max_sim_time", {"[\"10ms\", \"20ms\"]", "[\"1us\"]"}},
        {"platform.topology.hosts", {"[2, 4]", "[\"ranks\"]", "[1, 8]", "{\"from\": 2, \"to\": 8, \"factor\": 2}"}},
        {"workload.ranks", {"[2, 3]", "[4, 64]", "{\"from\": 2, \"to\": 8, \"factor\": 2}"}},
        {"platform.network.link.rate", {"[\"10Gbps\", \"100Gbps\"]", "[\"1kbps\"]"}},
        {"platform.network.faults.loss_rate", {"{\"from\": 0, \"to\": 0.02, \"step\": 0.01}", "[0.5]"}}};
    auto const& [path, choices] = g.pick(axes_ok);
    Json v                      = Json::parse(g.pick(choices));
    Json ax                     = {{"path", path}};
    ax[v.is_array() ? "values" : "range"] = v;
    axes.push_back(ax);
  }
  for (std::size_t a = 0; !plausible && a < n_axes; ++a) {
    Json ax         = Json::object();
    const Param& p  = g.pick(params);
    static const std::vector<std::string> small_paths{"seed", "workload.iterations", "workload.ranks",
                                                      "platform.topology.hosts", "max_sim_time"};
    ax["path"]      = g.chance(0.5) ? g.pick(small_paths) : p.path;
    if (g.chance(0.5)) {
      Json vals = Json::array();
      for (std::size_t k = 0, n = 1 + g.below(3); k < n; ++k)
        vals.push_back(parse_value(g.chance(0.5) ? value_for(p, g) : g.pick(kNumbers)));
      if (g.chance(0.05))
        vals = Json::array();
      ax["values"] = vals;
    } else {
      static const std::vector<std::string> bounds{"0",   "1",   "2",    "0.1", "0.5",  "-1", "1e9", "1e300",
                                                   "-1e300", "3", "1e-9", "\"x\"", "null", "8", "16"};
      Json r    = Json::object();
      r["from"] = parse_value(g.pick(bounds));
      r["to"]   = parse_value(g.pick(bounds));
      if (g.chance(0.5))
        r["step"] = parse_value(g.pick(std::vector<std::string>{"1", "0.1", "0", "-1", "1e-300", "2", "1e9"}));
      else
        r["factor"] = parse_value(g.pick(std::vector<std::string>{"2", "1", "1.0000001", "0.5", "10", "1e300"}));
      if (g.chance(0.05))
        r["bogus"] = 1;
      ax["range"] = r;
    }
    if (g.chance(0.03))
      ax.erase("path");
    axes.push_back(ax);
  }
  sw["axes"] = axes;
  if (g.chance(plausible ? 0.1 : 0.3))
    sw["mode"] = g.pick(std::vector<std::string>{"product", "zip", "zip", "diagonal"});
  if (g.chance(0.2))
    sw["max_points"] = parse_value(g.pick(std::vector<std::string>{"0", "1", "3", "10000000", "10000001", "-1", "1.5",
                                                                   "\"many\""}));
  c.text       = sw.dump(1);
  c.time_scale = 4;
  c.what += fmt::format("sweep {}; ", sw["axes"].dump());
  // Keep a valid sweep short: few points, a bounded simulated time per point.
  c.args = {"--jobs", "2", "--set", "max_sim_time=20ms"};
  if (g.chance(0.1)) {
    const std::string m = g.pick(std::vector<std::string>{"0", "1", "4", "-3", "x", "10000001"});
    c.args.push_back("--max-points");
    c.args.push_back(m);
    c.what += "--max-points " + m + "; ";
  } else {
    c.args.push_back("--max-points");
    c.args.push_back("6");
  }
  if (g.chance(0.1)) {
    c.args.push_back("--merge-only");
    c.what += "merge-only; ";
  }
  c.out = (scratch / fmt::format("out-{}", c.index)).string();
  if (g.chance(0.1)) {
    c.out = odd_out(g, scratch, c.index);
    c.what += "out '" + c.out + "'; ";
  }
  c.args.push_back("--out");
  c.args.push_back(c.out);
  if (c.out.empty() || c.out.rfind(scratch.string(), 0) != 0)
    c.out.clear();
  return c;
}

/// A bench command line: awkward sizes, suites and counts; a valid one stays small (a few MiB over few nodes).
Case make_bench_case(Gen& g, Case c, const fs::path& scratch)
{
  c.command = "bench";
  c.args    = {"--repeat", "1"};
  static const std::vector<std::string> nodes{"0", "1", "2", "3", "16", "-1", "abc", "65537", "1e9", "2.5", ""};
  static const std::vector<std::string> totals{"0B", "1B", "64KiB", "1MiB", "-1", "x", "1e30B", "3B", "1e400B", ""};
  static const std::vector<std::string> suites{"hops", "collectives", "all", "bogus", ""};
  c.args.push_back("--suite");
  c.args.push_back(g.pick(suites));
  c.args.push_back("--nodes");
  c.args.push_back(g.pick(nodes));
  c.args.push_back("--total");
  c.args.push_back(g.pick(totals));
  c.args.push_back("--ranks");
  c.args.push_back(g.pick(std::vector<std::string>{"0", "1", "2", "3", "8", "-2", "x"}));
  c.args.push_back("--size");
  c.args.push_back(g.pick(std::vector<std::string>{"0B", "1B", "1KiB", "64KiB", "-1", "1e30B", "x"}));
  if (g.chance(0.5)) {
    c.args.push_back("--collectives");
    c.args.push_back(g.pick(std::vector<std::string>{"bcast", "alltoall", "barrier", "reduce-scatter", "nope"}));
  }
  if (g.chance(0.3)) {
    c.args.push_back("--fidelity");
    c.args.push_back(g.pick(std::vector<std::string>{"packet", "flow", "exact"}));
  }
  if (g.chance(0.2)) {
    const std::string r = g.pick(std::vector<std::string>{"0", "2", "1001", "-1"});
    c.args[1]           = r;
  }
  c.out = (scratch / fmt::format("out-{}", c.index)).string();
  if (g.chance(0.2))
    c.out = odd_out(g, scratch, c.index, false);
  c.args.push_back("--out");
  c.args.push_back(c.out);
  if (c.out.empty() || c.out.rfind(scratch.string(), 0) != 0)
    c.out.clear();
  for (auto const& a : c.args)
    c.what += a + " ";
  return c;
}

/// A figures command line that never runs a real figure: --list, unknown names, or `scale` without benchmark output,
/// with odd --out, --source, --reference, --bench and --jobs values.
Case make_figures_case(Gen& g, Case c, const fs::path& scratch)
{
  c.command = "figures";
  switch (g.below(4)) {
    case 0: c.args = {"--list"}; break;
    case 1: c.args = {"scale", "--bench", (scratch / "no-bench").string()}; break;
    case 2: c.args = {g.pick(std::vector<std::string>{"fig7", "accl", "", "../x", "accl-fig99", "ALL"})}; break;
    default: c.args = {"no-such-figure", "accl-fig8"}; break;
  }
  if (g.chance(0.3)) {
    c.args.push_back("--source");
    c.args.push_back(g.pick(std::vector<std::string>{"/nonexistent", "", "/dev/null", scratch.string()}));
  }
  if (g.chance(0.3)) {
    c.args.push_back("--reference");
    c.args.push_back(g.pick(std::vector<std::string>{"/nonexistent", "", "/dev/null"}));
  }
  if (g.chance(0.3)) {
    c.args.push_back("--jobs");
    c.args.push_back(g.pick(std::vector<std::string>{"0", "1", "-1", "x", "100000"}));
  }
  c.out = (scratch / fmt::format("out-{}", c.index)).string();
  if (g.chance(0.5))
    c.out = odd_out(g, scratch, c.index, false);
  c.args.push_back("--out");
  c.args.push_back(c.out);
  c.out.clear(); // figures writes into an existing folder by design: nothing to check after an exit 2
  for (auto const& a : c.args)
    c.what += a + " ";
  return c;
}

struct Running {
  pid_t pid;
  Case c;
  std::chrono::steady_clock::time_point started;
  fs::path file, err;
};

/// Run `nafsim ARGS` in a forked child, its stdout and stderr to the given descriptors, in `dir`.
pid_t spawn(std::vector<std::string> args, int out, int err, const fs::path& dir)
{
  pid_t pid = fork();
  if (pid != 0)
    return pid;
  dup2(out, 1);
  dup2(err, 2);
  if (chdir(dir.c_str()) != 0)
    _exit(126);
  args.insert(args.begin(), "nafsim");
  std::vector<char*> av;
  for (auto& s : args)
    av.push_back(s.data());
  av.push_back(nullptr);
  int code = nafsim::app::cli_main(static_cast<int>(args.size()), av.data());
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  _exit(code); // the process's static teardown is not what is fuzzed (and costs more than a case)
}

std::vector<Param> load_params()
{
  std::vector<Param> out;
  int fds[2];
  if (pipe(fds) != 0)
    return out;
  int devnull = open("/dev/null", O_WRONLY);
  pid_t pid   = spawn({"params"}, fds[1], devnull, fs::current_path());
  close(fds[1]);
  close(devnull);
  FILE* f = fdopen(fds[0], "r");
  char line[8192];
  bool header = true;
  while (fgets(line, sizeof line, f)) {
    if (header) {
      header = false;
      continue;
    }
    std::istringstream is(line);
    Param p;
    is >> p.path;
    std::string rest;
    std::getline(is, rest);
    rest.erase(0, rest.find_first_not_of(' '));
    p.type = rest;
    if (p.type.rfind("one of ", 0) == 0) {
      std::string list = p.type.substr(7, p.type.find(' ', 7) - 7);
      std::stringstream ls(list);
      std::string item;
      while (std::getline(ls, item, '|'))
        p.choices.push_back(item);
    }
    if (!p.path.empty())
      out.push_back(std::move(p));
  }
  fclose(f);
  waitpid(pid, nullptr, 0);
  return out;
}

} // namespace

int main(int argc, char** argv)
{
  // Sweeps and bench start their points as /proc/self/exe: this program is nafsim for them.
  if (argc > 1) {
    const std::string cmd = argv[1];
    if (cmd == "run" || cmd == "sweep" || cmd == "bench" || cmd == "figures" || cmd == "params")
      return nafsim::app::cli_main(argc, argv);
  }
  // Resolve every symbol once here rather than lazily in each forked child.
  if (!std::getenv("LD_BIND_NOW")) {
    setenv("LD_BIND_NOW", "1", 1);
    execv("/proc/self/exe", argv);
  }
  std::string root = ".", keep, show; // --show FAMILY: each case of that family, its outcome and last stderr line
  std::uint64_t seed = 1;
  std::size_t cases = 3000, jobs = 2, first = 0;
  double timeout = 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i], v = argv[i + 1];
    if (a == "--root")
      root = v;
    else if (a == "--seed")
      seed = std::stoull(v);
    else if (a == "--cases")
      cases = std::stoull(v);
    else if (a == "--jobs")
      jobs = std::max<std::size_t>(1, std::stoull(v));
    else if (a == "--timeout")
      timeout = std::stod(v);
    else if (a == "--keep")
      keep = v;
    else if (a == "--first")
      first = std::stoull(v);
    else if (a == "--show")
      show = v;
    else {
      std::cerr << "nafsim-fuzz: unknown option " << a << "\n";
      return 2;
    }
  }
  std::vector<std::pair<std::string, Json>> corpus;
  for (auto const& dir : {"workloads", "tests/golden"})
    for (auto const& e : fs::recursive_directory_iterator(fs::path(root) / dir)) {
      if (e.path().extension() != ".json" || e.path().filename().string().find("sweep") != std::string::npos)
        continue;
      std::ifstream in(e.path());
      try {
        Json j = Json::parse(in, nullptr, true, true);
        if (j.contains("workload"))
          corpus.emplace_back(e.path().string(), std::move(j));
      } catch (...) {
      }
    }
  std::sort(corpus.begin(), corpus.end(), [](auto const& a, auto const& b) { return a.first < b.first; });
  auto params = load_params();
  if (corpus.empty() || params.empty()) {
    std::cerr << "nafsim-fuzz: no corpus under " << root << " or no parameters from `nafsim params`\n";
    return 2;
  }
  fs::path scratch = fs::temp_directory_path() / fmt::format("nafsim-fuzz-{}", getpid());
  fs::create_directories(scratch);
  fs::path keep_dir = keep.empty() ? scratch / "findings" : fs::path(keep);
  fs::create_directories(keep_dir);

  std::map<std::string, std::size_t> outcomes, families;
  std::map<std::string, std::map<std::string, std::size_t>> by_family;
  std::vector<std::string> findings;
  std::vector<Running> running;
  std::size_t next = first;
  const std::size_t end = first + cases;
  auto finding = [&](const Running& r, const std::string& why) {
    fs::path base = keep_dir / fmt::format("case-{}", r.c.index);
    std::error_code cec;
    if (fs::exists(r.file))
      fs::copy_file(r.file, base.string() + ".json", fs::copy_options::overwrite_existing, cec);
    std::ofstream(base.string() + ".args") << [&] {
      std::string s = r.c.command + " ";
      for (auto const& a : r.c.args)
        s += "'" + a + "' ";
      return s;
    }() << "\n# " << r.c.what << "\n# from " << r.c.base << "\n";
    std::error_code ec;
    fs::copy_file(r.err, base.string() + ".stderr", fs::copy_options::overwrite_existing, ec);
    findings.push_back(fmt::format("case {} ({}): {} [{}]", r.c.index, fs::path(r.c.base).filename().string(), why,
                                   r.c.what));
  };
  while (next < end || !running.empty()) {
    while (next < end && running.size() < jobs) {
      Running r;
      r.c    = make_case(seed, next, corpus, params, scratch);
      ++families[r.c.command];
      std::error_code pec;
      if (!r.c.out.empty() && fs::exists(r.c.out, pec))
        r.c.out.clear(); // made by the case itself (a file in the way): an exit 2 leaves it, rightly
      r.file = scratch / fmt::format("case-{}.json", next);
      r.err  = scratch / fmt::format("case-{}.stderr", next);
      std::vector<std::string> argv_s{r.c.command};
      if (r.c.command == "run" || r.c.command == "sweep") {
        std::ofstream(r.file) << r.c.text;
        argv_s.push_back(r.file.string());
      }
      argv_s.insert(argv_s.end(), r.c.args.begin(), r.c.args.end());
      if (r.c.command == "run") { // a legitimately long run (65,536 hosts, say) stops itself, exit 3: not a hang
        argv_s.push_back("--wall-limit");
        argv_s.push_back(fmt::format("{}", timeout / 4)); // the rest for setting up and a loaded machine
      }
      int devnull = open("/dev/null", O_WRONLY);
      int err     = open(r.err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      r.pid       = spawn(argv_s, devnull, err, scratch);
      close(devnull);
      close(err);
      r.started = std::chrono::steady_clock::now();
      running.push_back(std::move(r));
      ++next;
    }
    bool progressed = false;
    for (auto it = running.begin(); it != running.end();) {
      int status = 0;
      pid_t done = waitpid(it->pid, &status, WNOHANG);
      double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - it->started).count();
      if (done == 0 && elapsed < timeout * it->c.time_scale) {
        ++it;
        continue;
      }
      progressed = true;
      fs::path out = scratch / fmt::format("out-{}", it->c.index);
      if (done == 0) {
        kill(it->pid, SIGKILL);
        waitpid(it->pid, &status, 0);
        ++outcomes["timeout"];
        ++by_family[it->c.command]["timeout"];
        finding(*it, fmt::format("no exit within {} s", timeout * it->c.time_scale));
      } else if (WIFSIGNALED(status)) {
        ++outcomes[fmt::format("signal {}", WTERMSIG(status))];
        ++by_family[it->c.command][fmt::format("signal {}", WTERMSIG(status))];
        finding(*it, fmt::format("killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status))));
      } else {
        int code = WEXITSTATUS(status);
        ++outcomes[fmt::format("exit {}", code)];
        ++by_family[it->c.command][fmt::format("exit {}", code)];
        // 4 (results not written) is the documented outcome only where nothing can be written: /proc.
        const bool unwritable = it->c.args.size() >= 2 && it->c.args.back().rfind("/proc/", 0) == 0;
        if (code != 0 && code != 2 && code != 3 && !(code == 4 && unwritable))
          finding(*it, fmt::format("exit {}", code));
        else if (std::error_code xec; code == 2 && !it->c.out.empty() && fs::exists(it->c.out, xec))
          finding(*it, "exit 2 (bad input) but it wrote output");
      }
      if (show == it->c.command) {
        std::ifstream e(it->err);
        std::string line, last;
        while (std::getline(e, line))
          if (!line.empty())
            last = line;
        std::cout << fmt::format("case {} {}: {} | {}\n", it->c.index, it->c.command,
                                 WIFEXITED(status) ? WEXITSTATUS(status) : -1, last.substr(0, 300));
      }
      std::error_code ec;
      fs::remove_all(out, ec);
      for (auto const& leftover : {fmt::format("a-file-{}", it->c.index), fmt::format("deep-{}", it->c.index),
                                   fmt::format("new\nline-{}", it->c.index)})
        fs::remove_all(scratch / leftover, ec);
      fs::remove(it->file, ec);
      fs::remove(it->err, ec);
      it = running.erase(it);
    }
    if (!progressed)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  std::cout << fmt::format("nafsim-fuzz: {} case(s) from {} (seed {}):", cases, first, seed);
  for (auto const& [k, n] : families)
    std::cout << fmt::format(" {} {};", k, n);
  std::cout << " outcomes:";
  for (auto const& [k, n] : outcomes)
    std::cout << fmt::format(" {} {};", k, n);
  std::cout << "\n";
  for (auto const& [fam, m] : by_family) {
    std::cout << fmt::format("  {}:", fam);
    for (auto const& [k, n] : m)
      std::cout << fmt::format(" {} {};", k, n);
    std::cout << "\n";
  }
  for (auto const& f : findings)
    std::cout << "  " << f << "\n";
  if (!findings.empty())
    std::cout << fmt::format("{} finding(s); kept in {}\n", findings.size(), keep_dir.string());
  std::error_code ec;
  if (findings.empty())
    fs::remove_all(scratch, ec);
  return findings.empty() ? 0 : 1;
}
