// nafsim-fuzz: sweep files, bench and figures command lines.
#include "tests/fuzz/FuzzCase.hpp"

#include <fmt/format.h>
#include <fstream>

namespace nafsim::fuzz {

/// A sweep file: a base (a corpus scenario inline, a file, or damaged), axes of values or ranges (awkward bounds,
/// huge counts), a mode and a points limit.
Case make_sweep_case(Gen& g, Case c, const Corpus& corpus, const std::vector<Param>& params, const fs::path& scratch)
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
  // The all-to-all study stays small (or off): 64 ranks at flow fidelity would take a case's whole bound.
  c.args.push_back("--alltoall-ranks");
  c.args.push_back(g.pick(std::vector<std::string>{"0", "0", "4", "1", "x"}));
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

} // namespace nafsim::fuzz
