// nafsim-fuzz: a bounded, deterministic mutation fuzzer of nafsim's command line (issues 16 and 28).
//
// Most cases take one of the example scenarios, mutate it (values of every parameter `nafsim params`
// lists set to awkward values through --set, JSON structure and text damaged, odd command-line values,
// `--log` settings, odd `--out` paths) and run it in its own process with a wall-clock bound. The others are
// sweep files (ranges, modes, huge products, limits, inline or file bases), `bench` and `figures` command lines
// (kept cheap: a figure case never names a figure that would really run), and one case in 20 each: a Chakra trace,
// built valid and then damaged (FuzzTrace.cpp); a `plot` of an odd CSV with titles that try to run gnuplot's
// `system` and a user's file at --out, an `explain` with a user's folder at --out (FuzzAnswers.cpp); a generated
// program with streams and dependencies, and faults of every kind on every fabric (FuzzProgram.cpp). Besides the
// exit code, a user's file must be left whole (a plot's only when it fails) and no injected command may have run.
// This file runs them. A case passes when nafsim exits with 0 (ran),
// 2 (bad input, and then it wrote nothing) or 3 (the simulated run failed), in time. Anything else, a
// signal, exit 1 ("internal error"), a hang, or output left behind by an exit 2, is a finding: the case
// is kept (scenario, command line, stderr) for replay with `nafsim run`. Case i depends only on (seed, i),
// so runs with any --jobs find the same things. Each case is a forked child calling nafsim's command line
// in-process (loading the program and its libraries would cost 50 ms a case).
//
//   nafsim-fuzz --root . [--seed 1] [--cases 3000] [--jobs 2] [--timeout 20]
//               [--keep DIR] [--first N] [--show run|sweep|bench|figures|plot|explain]
#include "simcore/app/Cli.hpp"
#include "tests/fuzz/FuzzCase.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iterator>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>


using namespace nafsim::fuzz;

namespace {

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
  // One line per parameter: path, type, default, meaning (the default output wraps each meaning below its path, whose
  // words this reader took for parameters, and puts the type in parentheses).
  pid_t pid   = spawn({"params", "--one-line"}, fds[1], devnull, fs::current_path());
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
    if (p.path.empty())
      continue;
    if (p.path.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_.[]") != std::string::npos || p.type.empty()) {
      std::cerr << "nafsim-fuzz: cannot read this line of `nafsim params --one-line` (path, type, default, meaning): "
                << line;
      std::exit(2);
    }
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
  for (int i = 1; i < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::cout << "nafsim-fuzz --root . [--seed 1] [--cases 3000] [--jobs 2] [--timeout 20]\n"
                   "            [--keep DIR] [--first N] [--show run|sweep|bench|figures|plot|explain]\n";
      return 0;
    }
    if (i + 1 == argc) { // (a lone last word would otherwise be ignored and the default 3,000 cases run)
      std::cerr << "nafsim-fuzz: option " << a << " needs a value (--help lists them)\n";
      return 2;
    }
    const std::string v = argv[i + 1];
    auto number = [&](auto parse) {
      try {
        std::size_t end = 0;
        auto x          = parse(v, &end);
        if (end == v.size() && !v.empty() && v[0] != '-')
          return x;
      } catch (const std::exception&) {
      }
      std::cerr << "nafsim-fuzz: " << a << " takes a non-negative number, not '" << v << "'\n";
      std::exit(2);
    };
    auto whole = [&] { return number([](const std::string& t, std::size_t* e) { return std::stoull(t, e); }); };
    if (a == "--root")
      root = v;
    else if (a == "--seed")
      seed = whole();
    else if (a == "--cases")
      cases = whole();
    else if (a == "--jobs")
      jobs = std::max<std::size_t>(1, whole());
    else if (a == "--timeout")
      timeout = number([](const std::string& t, std::size_t* e) { return std::stod(t, e); });
    else if (a == "--keep")
      keep = v;
    else if (a == "--first")
      first = whole();
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
    for (auto const& f : r.c.files) // a trace's rank files, beside the scenario that names them
      fs::copy_file(scratch / f.first, keep_dir / f.first, fs::copy_options::overwrite_existing, ec);
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
      if (r.c.command == "run" || r.c.command == "sweep" || r.c.command == "explain") {
        std::ofstream(r.file) << r.c.text;
        argv_s.push_back(r.file.string());
      }
      for (auto const& [name, bytes] : r.c.files) {
        fs::create_directories((scratch / name).parent_path(), pec);
        std::ofstream(scratch / name, std::ios::binary) << bytes;
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
        if (code != 0 || !it->c.keep_only_on_failure)
          for (auto const& [path, contents] : it->c.keep) {
            std::ifstream in(path, std::ios::binary);
            std::string now((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            if (now != contents)
              finding(*it, fmt::format("exit {}, and the user's file {} changed", code, path));
          }
      }
      if (std::error_code fec; !it->c.forbidden.empty() && fs::exists(it->c.forbidden, fec)) {
        finding(*it, fmt::format("{} exists: a command was injected", it->c.forbidden));
        fs::remove(it->c.forbidden, fec);
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
      if (findings.empty() || findings.back().rfind(fmt::format("case {} ", it->c.index), 0) != 0)
        for (auto const& f : it->c.files) {
          fs::remove(scratch / f.first, ec);
          if (auto dir = fs::path(f.first).parent_path(); !dir.empty())
            fs::remove_all(scratch / dir, ec);
        }
      for (auto const& leftover : {fmt::format("plot-{}.png", it->c.index), fmt::format("plot-{}.svg", it->c.index),
                                   fmt::format("plot-{}.pdf", it->c.index)})
        fs::remove(scratch / leftover, ec);
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

