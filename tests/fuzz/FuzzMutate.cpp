// nafsim-fuzz: scenarios run with mutations (parameters set to awkward values through --set, the document's values
// replaced or removed, unknown keys, deep nesting, damaged text, odd --seed, --log and --out), and the choice of
// each case's family.
#include "tests/fuzz/FuzzCase.hpp"

#include <fmt/format.h>
#include <fstream>

namespace nafsim::fuzz {

namespace {
std::string escape(std::string k)
{
  std::string s;
  for (char ch : k)
    s += ch == '~' ? std::string("~0") : ch == '/' ? std::string("~1") : std::string(1, ch);
  return s;
}
} // namespace

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
std::string odd_out(Gen& g, const fs::path& scratch, std::size_t index, bool refuses_foreign_folders)
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

Case make_case(std::uint64_t seed, std::size_t index, const Corpus& corpus, const std::vector<Param>& params,
               const fs::path& scratch)
{
  Gen g(seed, index);
  Case c;
  c.index = index;
  if (index % 20 == 19) // one case in 20: a Chakra trace (the other indices draw as before the family existed)
    return make_trace_case(g, c, scratch);
  switch (index % 20) { // issue 55's families: one case in 20 each
    case 4: return make_program_case(g, c);
    case 9: return make_plot_case(g, c, scratch);
    case 11: return make_fault_case(g, c, corpus);
    case 14: return make_explain_case(g, c, corpus, scratch);
    default: break;
  }
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

} // namespace nafsim::fuzz
