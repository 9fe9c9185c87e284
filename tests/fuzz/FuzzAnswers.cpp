// nafsim-fuzz: the commands that answer from results: `plot` (odd CSVs, titles that try to end gnuplot's strings and
// run `system`, odd --out, a user's file in the way) and `explain` (odd --out, a user's folder in the way).
#include "tests/fuzz/FuzzCase.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace nafsim::fuzz {

namespace {

/// A CSV table, plausible or odd: a byte-order mark, names with quotes, newlines or gnuplot syntax, empty or huge
/// values, one column, no rows, ragged rows, binary bytes.
std::string odd_csv(Gen& g, std::size_t index)
{
  static const std::vector<std::string> names{"bytes",     "latency_us", "ranks",        "protocol", "x y",
                                              "a\"b",      "t'\\n",      "\xEF\xBB\xBF" "bytes", "",       "set output",
                                              "`touch x`", "\x01\x02",   "\xFF\xFE"};
  static const std::vector<std::string> cells{"1",    "2.5",  "-3",   "0",     "1e308", "-1e308", "nan", "inf",
                                              "",     "x",    "\"q\"", "1e-320", "4096", "65536", "eager",
                                              "rendezvous", "\"a,b\""};
  std::string s;
  if (g.chance(0.1))
    s += "\xEF\xBB\xBF";
  const std::size_t ncol = g.chance(0.1) ? 1 : 2 + g.below(3);
  std::vector<std::string> cols{"bytes", "latency_us", "protocol", "ranks"};
  for (std::size_t k = 0; k < ncol; ++k)
    s += (k ? "," : "") + (g.chance(0.85) && k < cols.size() ? cols[k] : g.pick(names));
  s += g.chance(0.1) ? "\r\n" : "\n";
  const std::size_t rows = g.chance(0.1) ? 0 : 1 + g.below(12);
  for (std::size_t r = 0; r < rows; ++r) {
    const std::size_t n = g.chance(0.05) ? g.below(ncol + 2) : ncol;
    for (std::size_t k = 0; k < n; ++k)
      s += (k ? "," : "") + (g.chance(0.85) ? std::to_string((r + 1) * (k + 1) * 512) : g.pick(cells));
    s += "\n";
  }
  if (g.chance(0.03))
    s = fmt::format("garbage {}\x01", index);
  return s;
}

/// A title or label meant to break out of gnuplot's quoted string and run a command.
std::string hostile_text(Gen& g, std::size_t index)
{
  const std::string cmd = fmt::format("system \"touch INJECTED-{}\"", index);
  return g.pick(std::vector<std::string>{"plain title", "t\n" + cmd + "\nset title 'x", "t'\n" + cmd + "\n#",
                                         "t\"\n" + cmd + "\n#", "\\\n" + cmd, "`touch INJECTED-backtick`",
                                         "t\r" + cmd, std::string(5000, 'w'), "", "\x01\x7F", "a;b", "$(touch x)"});
}

} // namespace

Case make_plot_case(Gen& g, Case c, const fs::path& scratch)
{
  c.command      = "plot";
  const auto csv = fmt::format("case-{}.csv", c.index);
  c.files.emplace_back(csv, odd_csv(g, c.index));
  c.args = {g.chance(0.05) ? std::string("/nonexistent.csv") : (scratch / csv).string()};
  static const std::vector<std::string> columns{"bytes", "latency_us", "protocol", "ranks", "nope", ""};
  c.args.insert(c.args.end(), {"--x", g.chance(0.75) ? std::string("bytes") : g.pick(columns), "--y",
                               g.chance(0.75) ? std::string("latency_us") : g.pick(columns)});
  if (g.chance(0.3))
    c.args.insert(c.args.end(), {"--series", g.pick(columns)});
  if (g.chance(0.2))
    c.args.insert(c.args.end(), {"--facet", g.pick(columns)});
  for (const char* opt : {"--title", "--xlabel", "--ylabel"})
    if (g.chance(0.4))
      c.args.insert(c.args.end(), {opt, hostile_text(g, c.index)});
  if (g.chance(0.2))
    c.args.push_back(g.pick(std::vector<std::string>{"--logx", "--logy", "--shared-y"}));
  if (g.chance(0.2))
    c.args.insert(c.args.end(), {"--legend", g.pick(std::vector<std::string>{"below", "right", "inside", "none", "x"})});
  // --out: a new file, an odd path, or a user's file in the way, which a failing plot must leave whole.
  std::string out = (scratch / fmt::format("plot-{}.{}", c.index, g.pick(std::vector<std::string>{"png", "svg", "png", "svg", "pdf"})))
                        .string();
  if (g.chance(0.3)) {
    const auto mine = fmt::format("mine-{}.png", c.index);
    c.files.emplace_back(mine, "mine");
    out = (scratch / mine).string();
    c.keep.emplace_back(out, "mine");
    c.keep_only_on_failure = true; // asked for by name: a plot that succeeds replaces it
  } else if (g.chance(0.2)) {
    out = odd_out(g, scratch, c.index, false);
  }
  c.args.insert(c.args.end(), {"--out", out});
  c.forbidden = (scratch / fmt::format("INJECTED-{}", c.index)).string();
  for (auto const& a : c.args)
    c.what += a.size() > 60 ? a.substr(0, 60) + "... " : a + " ";
  return c;
}

Case make_explain_case(Gen& g, Case c, const Corpus& corpus, const fs::path& scratch)
{
  c.command = "explain";
  // explain runs the scenario a few times: the collective example, small, or a corpus scenario it may refuse.
  if (g.chance(0.6)) {
    auto const& b = *std::find_if(corpus.begin(), corpus.end(), [](auto const& e) {
      return e.first.find("workloads/collective/example.json") != std::string::npos;
    });
    c.base = b.first;
    c.text = b.second.dump();
    c.args = {"--set", "workload.sizes=[\"4KiB\"]"};
  } else {
    auto const& b = corpus[g.below(corpus.size())];
    c.base        = b.first;
    c.text        = b.second.dump();
  }
  c.args.insert(c.args.end(), {"--set", "max_sim_time=20ms"});
  if (g.chance(0.3))
    c.args.push_back(g.pick(std::vector<std::string>{"--propose", "--goal", "--goal=2x", "--goal=0x", "--goal=x"}));
  c.out = (scratch / fmt::format("out-{}", c.index)).string();
  if (g.chance(0.3)) { // a user's folder holding files of the names explain writes: left whole, whatever happens
    const auto dir = fmt::format("user-{}", c.index);
    for (const char* name : {"baseline.log", "ideal.log", "mine.txt"}) {
      c.files.emplace_back(dir + "/" + name, "mine");
      c.keep.emplace_back((scratch / dir / name).string(), "mine");
    }
    c.out = (scratch / dir).string();
  } else if (g.chance(0.3)) {
    c.out = odd_out(g, scratch, c.index);
  }
  c.args.insert(c.args.end(), {"--out", c.out});
  if (c.out.empty() || c.out.rfind(scratch.string(), 0) != 0 || !c.keep.empty())
    c.out.clear();
  // explain runs the scenario once per what-if; --propose and --goal run up to some thirty (the 64-rank flow
  // all-to-all of the corpus takes 54 s so on an idle machine).
  c.time_scale = std::any_of(c.args.begin(), c.args.end(), [](auto const& a) { return a.rfind("--", 0) == 0 &&
                                                                                      (a.find("goal") != std::string::npos ||
                                                                                       a.find("propose") != std::string::npos); })
                     ? 8
                     : 3;
  for (auto const& a : c.args)
    c.what += a + " ";
  return c;
}

} // namespace nafsim::fuzz
