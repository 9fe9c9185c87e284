// nafsim-fuzz: a bounded, deterministic mutation fuzzer of `nafsim run` (issue 16).
//
// Each case takes one of the example scenarios, mutates it (values of every parameter `nafsim params`
// lists set to awkward values through --set, JSON structure and text damaged, odd command-line values)
// and runs it in its own process with a wall-clock bound. A case passes when nafsim exits with 0 (ran),
// 2 (bad input, and then it wrote nothing) or 3 (the simulated run failed), in time. Anything else, a
// signal, exit 1 ("internal error"), a hang, or output left behind by an exit 2, is a finding: the case
// is kept (scenario, command line, stderr) for replay with `nafsim run`. Case i depends only on (seed, i),
// so runs with any --jobs find the same things. Each case is a forked child calling nafsim's command line
// in-process (loading the program and its libraries would cost 50 ms a case).
//
//   nafsim-fuzz --root . [--seed 1] [--cases 3000] [--jobs 2] [--timeout 20]
//               [--keep DIR] [--first N]
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
  std::string base;              ///< corpus file it came from
  std::string text;              ///< scenario file contents
  std::vector<std::string> args; ///< after `run <file>`
  std::string what;              ///< mutations applied
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

Case make_case(std::uint64_t seed, std::size_t index, const std::vector<std::pair<std::string, Json>>& corpus,
               const std::vector<Param>& params, const fs::path& scratch)
{
  Gen g(seed, index);
  Case c;
  c.index   = index;
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
  c.args.push_back("--out");
  c.args.push_back((scratch / fmt::format("out-{}", index)).string());
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
  // Resolve every symbol once here rather than lazily in each forked child.
  if (!std::getenv("LD_BIND_NOW")) {
    setenv("LD_BIND_NOW", "1", 1);
    execv("/proc/self/exe", argv);
  }
  std::string root = ".", keep;
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

  std::map<std::string, std::size_t> outcomes;
  std::vector<std::string> findings;
  std::vector<Running> running;
  std::size_t next = first;
  const std::size_t end = first + cases;
  auto finding = [&](const Running& r, const std::string& why) {
    fs::path base = keep_dir / fmt::format("case-{}", r.c.index);
    fs::copy_file(r.file, base.string() + ".json", fs::copy_options::overwrite_existing);
    std::ofstream(base.string() + ".args") << [&] {
      std::string s;
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
      r.file = scratch / fmt::format("case-{}.json", next);
      r.err  = scratch / fmt::format("case-{}.stderr", next);
      std::ofstream(r.file) << r.c.text;
      std::vector<std::string> argv_s{"run", r.file.string()};
      argv_s.insert(argv_s.end(), r.c.args.begin(), r.c.args.end());
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
      if (done == 0 && elapsed < timeout) {
        ++it;
        continue;
      }
      progressed = true;
      fs::path out = scratch / fmt::format("out-{}", it->c.index);
      if (done == 0) {
        kill(it->pid, SIGKILL);
        waitpid(it->pid, &status, 0);
        ++outcomes["timeout"];
        finding(*it, fmt::format("no exit within {} s", timeout));
      } else if (WIFSIGNALED(status)) {
        ++outcomes[fmt::format("signal {}", WTERMSIG(status))];
        finding(*it, fmt::format("killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status))));
      } else {
        int code = WEXITSTATUS(status);
        ++outcomes[fmt::format("exit {}", code)];
        if (code != 0 && code != 2 && code != 3)
          finding(*it, fmt::format("exit {}", code));
        else if (code == 2 && fs::exists(out))
          finding(*it, "exit 2 (bad input) but it wrote output");
      }
      std::error_code ec;
      fs::remove_all(out, ec);
      fs::remove(it->file, ec);
      fs::remove(it->err, ec);
      it = running.erase(it);
    }
    if (!progressed)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  std::cout << fmt::format("nafsim-fuzz: {} case(s) from {} (seed {}):", cases, first, seed);
  for (auto const& [k, n] : outcomes)
    std::cout << fmt::format(" {} {};", k, n);
  std::cout << "\n";
  for (auto const& f : findings)
    std::cout << "  " << f << "\n";
  if (!findings.empty())
    std::cout << fmt::format("{} finding(s); kept in {}\n", findings.size(), keep_dir.string());
  std::error_code ec;
  if (findings.empty())
    fs::remove_all(scratch, ec);
  return findings.empty() ? 0 : 1;
}
