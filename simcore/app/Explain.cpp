#include "simcore/app/Explain.hpp"

#include "simcore/app/ExplainChanges.hpp"
#include "simcore/app/Scenario.hpp"
#include "simcore/config/ConfigError.hpp"
#include "simcore/engine/Scheduler.hpp"
#include "simcore/results/CsvReader.hpp"
#include "simcore/results/OutputDir.hpp"
#include "simcore/sweep/ChildProcess.hpp"
#include "simcore/units/Units.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <map>
#include <fmt/ranges.h>
#include <optional>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <sys/wait.h>

namespace fs = std::filesystem;

namespace nafsim::app {
namespace {
/// Run `nafsim run` in a child (its output in `dir`.log); throws with the log's tail if it failed.
void run_child(const ExplainOptions& opt, const std::vector<std::string>& extra, const fs::path& dir,
               bool critical_path = true)
{
  std::vector<std::string> args{opt.program, "run", opt.scenario, "--quiet", "--out", dir.string()};
  if (critical_path)
    args.push_back("--critical-path");
  for (auto const* sets : {&opt.sets, &extra})
    for (auto const& s : *sets) {
      args.push_back("--set");
      args.push_back(s);
    }
  const fs::path log = fs::path(dir.string() + ".log");
  pid_t pid          = sweep::spawn_logged(args, log);
  if (pid < 0)
    throw std::runtime_error("explain: cannot start a simulation (fork failed)");
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return;
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  const int code   = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  const auto what  = fmt::format("the run into {} failed (exit {}):\n{}", dir.string(), code, text.str());
  if (code == 2) // bad input (a what-if value the platform refuses, say): the run's message says what
    throw config::ConfigError("explain", "", what);
  if (code == 3)
    throw SimulationError(what);
  throw std::runtime_error(what);
}

struct PathTotals {
  std::vector<std::pair<std::string, double>> by_detail; ///< "resource|detail" -> us, largest first
  double total = 0;
};

PathTotals path_totals(const fs::path& dir)
{
  if (!fs::exists(dir / "critical_path.csv"))
    throw config::ConfigError("explain", "",
                              "the scenario's workload reports no critical paths (critical_path.csv): explain needs "
                              "one that does (collective, mpi, sendrecv, connectionless in mode latency (its stream "
                              "mode writes none), fc, dlrm, program or chakra)");
  auto t = results::read_csv(dir / "critical_path.csv");
  std::map<std::string, double> m;
  PathTotals p;
  // DLRM's paths of the stream's inferences (phase "stream") are mostly their wait for credits; the latencies explain
  // reports are the probes' (phase "latency"), so the bottleneck is weighed on their paths alone (summing both named
  // the FC2 kernel 91 % of "10 calls" whose probe paths give it 16 %).
  const bool phased = std::find(t.columns.begin(), t.columns.end(), "phase") != t.columns.end();
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    if (phased && t.cell(i, "phase") != "latency")
      continue;
    const double d = std::stod(t.cell(i, "duration_us"));
    m[t.cell(i, "resource") + "|" + t.cell(i, "detail")] += d;
    p.total += d;
  }
  p.by_detail.assign(m.begin(), m.end());
  std::stable_sort(p.by_detail.begin(), p.by_detail.end(), [](auto const& a, auto const& b) { return a.second > b.second; });
  return p;
}

/// The calls' latencies a run reports, by size: the collective and mpi workloads' (latency_us by bytes), the fc
/// layer's (total_us by input size), DLRM's probes (latency_us of the "latency" phase), a program's end (end_us of
/// its last rank).
struct Latencies {
  std::string key = "bytes";
  std::map<std::uint64_t, double> median;
  std::size_t calls = 0;
};

Latencies latencies(const fs::path& dir)
{
  struct Source {
    const char* file;
    const char* key;
    const char* column;
  };
  for (auto src : {Source{"collective.csv", "bytes", "latency_us"}, Source{"mpi.csv", "bytes", "latency_us"},
                   Source{"sendrecv.csv", "bytes", "latency_us"}, Source{"connectionless.csv", "bytes", "recv_us"},
                   Source{"fc.csv", "in", "total_us"}, Source{"dlrm.csv", "", "latency_us"}}) {
    if (!fs::exists(dir / src.file))
      continue;
    auto t = results::read_csv(dir / src.file);
    Latencies l;
    l.key = *src.key ? src.key : "probes";
    std::map<std::uint64_t, std::vector<double>> v;
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      if (!*src.key && t.cell(i, "phase") != "latency")
        continue;
      v[*src.key ? std::stoull(t.cell(i, src.key)) : 0].push_back(std::stod(t.cell(i, src.column)));
      ++l.calls;
    }
    for (auto& [k, xs] : v) {
      std::sort(xs.begin(), xs.end());
      l.median[k] = xs[xs.size() / 2];
    }
    return l;
  }
  // A program or a trace: its run's length, to the last rank's end (its critical path ends there too).
  if (fs::exists(dir / "program_ranks.csv")) {
    auto t = results::read_csv(dir / "program_ranks.csv");
    Latencies l;
    l.key = "program";
    for (std::size_t i = 0; i < t.rows.size(); ++i)
      l.median[0] = std::max(l.median[0], std::stod(t.cell(i, "end_us")));
    l.calls = t.rows.empty() ? 0 : 1;
    return l;
  }
  return {};
}

// A row of the what-if table: a probe run's median, a program's or trace's end (its one row), else the size in bytes.
std::string row_label(const std::string& key, std::uint64_t value)
{
  if (key == "probes")
    return "median";
  if (key == "program")
    return "last end";
  return std::to_string(value);
}

std::pair<std::string, std::string> split_key(const std::string& key)
{
  auto bar = key.find('|');
  return {key.substr(0, bar), key.substr(bar + 1)};
}

/// The platform a run simulated (its metadata.json), as JSON text.
std::string platform_of(const fs::path& dir)
{
  std::ifstream in(dir / "metadata.json");
  return nlohmann::json::parse(in).at("scenario").at("platform").dump();
}

std::string workload_of(const fs::path& dir)
{
  std::ifstream in(dir / "metadata.json");
  return nlohmann::json::parse(in).at("scenario").at("workload").dump();
}

/// Where a run lost packets: its queues' drops (metadata.json) and its TCP stacks' (tcp_nodes.csv, when it wrote one).
RunLosses losses_of(const fs::path& dir)
{
  RunLosses l;
  std::ifstream in(dir / "metadata.json");
  const nlohmann::json packets = nlohmann::json::parse(in).value("packets", nlohmann::json::object());
  l.queue_drops = packets.value("queue_drops", std::uint64_t{0});
  l.known       = packets.contains("queue_drops");
  if (fs::exists(dir / "tcp_nodes.csv")) {
    std::map<std::string, std::string> kind_of; // node -> its kind (nodes.csv)
    if (fs::exists(dir / "nodes.csv")) {
      const results::CsvTable n = results::read_csv(dir / "nodes.csv");
      for (std::size_t i = 0; i < n.rows.size(); ++i)
        kind_of[n.cell(i, "node")] = n.cell(i, "kind");
    }
    const results::CsvTable t = results::read_csv(dir / "tcp_nodes.csv");
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      const std::uint64_t dropped = std::stoull(t.cell(i, "fifo_dropped"));
      l.tcp_fifo += dropped;
      l.tcp_stalls += std::stoull(t.cell(i, "consumer_stalls"));
      if (auto k = kind_of.find(t.cell(i, "node")); dropped > 0 && k != kind_of.end() &&
                                                      std::find(l.fifo_kinds.begin(), l.fifo_kinds.end(), k->second) ==
                                                          l.fifo_kinds.end())
        l.fifo_kinds.push_back(k->second);
    }
  }
  return l;
}

/// The largest (resource, detail) of `p`, with its share.
std::string describe_top(const PathTotals& p)
{
  auto [r, d] = split_key(p.by_detail.front().first);
  return fmt::format("{}, {}: {:.0f} % of the critical paths", r, d, 100 * p.by_detail.front().second / p.total);
}
/// `key` with its rates ("at 100 Gb/s", "at 98.0 Gb/s") as "#": a stage lifted 10x keeps its name.
std::string without_rates(std::string key)
{
  for (const char* unit : {" Tb/s", " Gb/s", " Mb/s", " kb/s"})
    for (std::size_t at = key.find(unit); at != std::string::npos; at = key.find(unit, at + 1)) {
      std::size_t b = at;
      while (b > 0 && (std::isdigit(static_cast<unsigned char>(key[b - 1])) || key[b - 1] == '.' || key[b - 1] == ','))
        --b;
      key.replace(b, at + std::strlen(unit) - b, "#");
      at = b;
    }
  return key;
}

/// When lifting the bottleneck of `before` (the run before a step) gained far less than its share of the critical
/// paths (`after`: the what-if run), a stage that runs at nearly its rate took over the time it gave up (a wire at
/// 100 Gb/s and writes at 98 Gb/s; a wire and a TCP stack's handshake per segment): say which (the stage whose time
/// grew most, rates aside, if it took at least half of what the lift removed) and how to lift both, for a researcher
/// reads "52 % on the wire" and "10x links gain 3 %" as a contradiction. Nothing when the step slowed the run
/// (another effect: the what-if runs into losses), gained its share's worth, or no one stage took the time over.
std::optional<std::string> small_gain_note(const PathTotals& before, const PathTotals& after, unsigned step, bool last)
{
  if (before.total <= 0 || after.by_detail.empty())
    return std::nullopt;
  const double share = before.by_detail.front().second / before.total;
  const double gain  = 1 - after.total / before.total;
  if (share < 0.2 || gain < 0 || gain >= share / 4) // (0.2: a 24.8 % wire, printed "25 %", was left unsaid)
    return std::nullopt;
  std::map<std::string, double> was, now; // us per stage, rates aside
  for (auto const& [k, us] : before.by_detail)
    was[without_rates(k)] += us;
  for (auto const& [k, us] : after.by_detail)
    now[without_rates(k)] += us;
  const std::string lifted = without_rates(before.by_detail.front().first);
  const double removed     = was[lifted] - now[lifted];
  std::string took;
  double grew = 0;
  for (auto const& [k, us] : now)
    if (k != lifted && us - was[k] > grew) {
      grew = us - was[k];
      took = k;
    }
  if (removed <= 0 || took.empty() || grew < removed / 2) // (the lift did not shorten what it lifted: nothing to say)
    return std::nullopt;
  const std::string top = without_rates(after.by_detail.front().first);
  std::string name = took;
  for (auto const& [k, us] : after.by_detail) // its name as the what-if run spells it (its rate)
    if (without_rates(k) == took) {
      name = k;
      break;
    }
  auto [r, d] = split_key(name);
  const std::string next = top != took ? fmt::format(" (the what-if run's paths are led by another: {})",
                                                     describe_top(after))
                           : last      ? fmt::format(" (explain --steps {} lifts it too)", step + 1)
                                       : std::string(" (the next step lifts it)");
  return fmt::format("this step gained {:.1f} % of the paths' time where what it lifted held {:.0f} %: {}, {} took "
                     "its place ({:.0f} % of the paths before, {:.0f} % in the what-if run), a stage at nearly its "
                     "rate, so the two must be lifted together{}",
                     100 * gain, 100 * share, r, d, 100 * was[took] / before.total, 100 * now[took] / after.total, next);
}

/// How much faster `after` runs than `before`: per size, and their geometric mean (the sizes both have).
struct Gain {
  double geo = 0;
  std::map<std::uint64_t, double> per;
};
Gain gain_of(const Latencies& before, const Latencies& after)
{
  Gain g;
  double log_sum = 0;
  for (auto const& [key, us] : before.median)
    if (auto it = after.median.find(key); it != after.median.end() && it->second > 0 && us > 0) {
      g.per[key] = us / it->second;
      log_sum += std::log(us / it->second);
    }
  g.geo = g.per.empty() ? 0.0 : std::exp(log_sum / static_cast<double>(g.per.size()));
  return g;
}

std::string sets_text(const std::vector<std::string>& sets)
{
  std::string s;
  for (auto const& x : sets)
    s += (s.empty() ? "--set " : " --set ") + x;
  return s;
}

/// A change run alone, and its speedup.
struct Tried {
  Change change;
  Gain gain;
};
/// Changes to run together, and the product of their speedups alone.
struct Combo {
  std::vector<const Tried*> parts;
  double predicted = 1;
};

/// Combinations of up to three changes of different kinds among the six best that help (`ran`, best first), pairs
/// before triples, each by its predicted speedup (the product of its parts' alone).
std::vector<Combo> combinations(const std::vector<Tried>& ran)
{
  std::vector<const Tried*> good;
  for (auto const& t : ran)
    if (t.gain.geo > 1.01 && good.size() < 6)
      good.push_back(&t);
  std::vector<Combo> combos;
  for (std::size_t a = 0; a < good.size(); ++a)
    for (std::size_t b = a + 1; b < good.size(); ++b) {
      if (conflict(good[a]->change, good[b]->change))
        continue;
      combos.push_back({{good[a], good[b]}, good[a]->gain.geo * good[b]->gain.geo});
      for (std::size_t c = b + 1; c < good.size(); ++c)
        if (!conflict(good[c]->change, good[a]->change) && !conflict(good[c]->change, good[b]->change))
          combos.push_back({{good[a], good[b], good[c]}, good[a]->gain.geo * good[b]->gain.geo * good[c]->gain.geo});
    }
  std::stable_sort(combos.begin(), combos.end(), [](auto const& x, auto const& y) {
    return x.parts.size() != y.parts.size() ? x.parts.size() < y.parts.size() : x.predicted > y.predicted;
  });
  return combos;
}

/// Rank the changes run alone by speedup and print them, then those that did not apply.
void rank_and_print(const fs::path& out, std::vector<Tried>& ran, const std::vector<std::string>& refused)
{
  std::stable_sort(ran.begin(), ran.end(), [](auto const& a, auto const& b) { return a.gain.geo > b.gain.geo; });
  std::cout << fmt::format("changes, each alone (speedup: the sizes' geometric mean; runs in {}):\n",
                           (out / "changes").string());
  for (auto const& t : ran)
    std::cout << fmt::format("  {:>6.2f}x  {:<48}  {}\n", t.gain.geo, t.change.name, sets_text(t.change.sets));
  if (!refused.empty())
    std::cout << fmt::format("  not applicable: {}\n", fmt::join(refused, "; "));
}

/// Drop from `sets` what the run in `dir` read by nothing (its metadata's unread_settings); why the first went unread.
std::string drop_unread(const fs::path& dir, std::vector<std::string>& sets)
{
  std::ifstream meta(dir / "metadata.json");
  std::string why;
  for (auto const& u : nlohmann::json::parse(meta).value("unread_settings", nlohmann::json::array())) {
    const std::string path = u.value("path", std::string());
    const auto before      = sets.size();
    std::erase_if(sets, [&](const std::string& s) { return s.substr(0, s.find('=')) == path; });
    if (sets.size() != before && why.empty())
      why = u.value("why", std::string());
  }
  return why;
}

/// Run each actionable change alone, rank them, and with a goal search combinations of up to three.
void propose(const ExplainOptions& opt, const fs::path& out, const Latencies& before)
{
  std::ifstream in(out / "baseline" / "metadata.json");
  const auto scenario = nlohmann::json::parse(in).at("scenario");
  const auto changes  = actionable_changes(scenario);
  std::vector<Tried> ran;
  std::vector<std::string> refused;
  std::size_t n = 0;
  // A setting the run read by nothing (a CCLO's on nodes that run none) changes nothing: it is dropped from the
  // change's --set list, and a change all of whose settings went unread is named as not applicable (it ranked as
  // 1.00x, and combinations carried it into the lists to paste).
  auto attempt = [&](std::vector<std::string>& sets, std::string& name) -> std::optional<Gain> {
    const fs::path dir = out / "changes" / fmt::format("{:03}", n++);
    try {
      run_child(opt, sets, dir, false);
    } catch (const config::ConfigError&) {
      refused.push_back(name + " (cannot run this scenario)");
      return std::nullopt;
    } catch (const SimulationError&) {
      refused.push_back(name + " (the run fails)");
      return std::nullopt;
    }
    const std::string why = drop_unread(dir, sets);
    if (sets.empty()) {
      refused.push_back(fmt::format("{} (read by nothing: {})", name, why));
      return std::nullopt;
    }
    if (!why.empty())
      name += fmt::format(" (part read by nothing: {})", why);
    return gain_of(before, latencies(dir));
  };
  fs::create_directories(out / "changes");
  for (auto c : changes)
    if (auto g = attempt(c.sets, c.name))
      ran.push_back({c, *g});
  rank_and_print(out, ran, refused);
  if (opt.goal <= 0)
    return;
  // Combinations of the changes that help, the most promising first, each run: at most 20 runs.
  const std::vector<Combo> combos = combinations(ran);
  struct Reached {
    std::string name;
    std::vector<std::string> sets;
    double geo;
  };
  std::vector<Reached> reached;
  for (auto const& t : ran)
    if (t.gain.geo >= opt.goal)
      reached.push_back({t.change.name, t.change.sets, t.gain.geo});
  Reached best{"", {}, ran.empty() ? 0.0 : ran.front().gain.geo};
  if (!ran.empty())
    best = {ran.front().change.name, ran.front().change.sets, ran.front().gain.geo};
  std::size_t runs = 0;
  for (auto const& c : combos) {
    if (runs == 20 || reached.size() >= 3)
      break;
    std::vector<std::string> sets, names;
    for (auto const* t : c.parts) {
      sets.insert(sets.end(), t->change.sets.begin(), t->change.sets.end());
      names.push_back(t->change.name);
    }
    std::string name = fmt::format("{}", fmt::join(names, " + "));
    ++runs;
    auto g = attempt(sets, name);
    if (!g)
      continue;
    if (g->geo >= opt.goal)
      reached.push_back({name, sets, g->geo});
    if (g->geo > best.geo)
      best = {name, sets, g->geo};
  }
  if (reached.empty()) {
    std::cout << fmt::format("goal {:g}x: not reached by any change alone or by {} combination(s) of up to three; the "
                             "best, {:.2f}x: {} ({})\n",
                             opt.goal, runs, best.geo, best.name, sets_text(best.sets));
    return;
  }
  std::cout << fmt::format("goal {:g}x: reached by (each run; paste its --set list):\n", opt.goal);
  for (auto const& r : reached)
    std::cout << fmt::format("  {:>6.2f}x  {}\n           {}\n", r.geo, r.name, sets_text(r.sets));
}

} // namespace

namespace {
/// The workloads that record critical paths (their report_critical_paths), which explain reads.
const std::vector<std::string> kExplained{"collective", "mpi",  "sendrecv", "connectionless",
                                          "fc",         "dlrm", "program",  "chakra"};
} // namespace

int explain_into(const ExplainOptions& opt, const Scenario& sc, const fs::path& out);

int explain_command(const ExplainOptions& opt, const workloads::WorkloadRegistry& reg)
{
  ScenarioOptions so;
  so.sets = opt.sets;
  Scenario sc = load_scenario(opt.scenario, so, reg); // bad input fails here, before any run
  if (!std::count(kExplained.begin(), kExplained.end(), sc.workload_kind))
    throw config::ConfigError(sc.origins.of("/workload/kind"), "/workload/kind",
                              fmt::format("explain reads the critical paths a run records, which the {} workload does "
                                          "not: use one of {}",
                                          sc.workload_kind, fmt::join(kExplained, ", ")));
  const fs::path out = opt.out.empty() ? fs::path("results") / ("explain-" + sc.header.name) : fs::path(opt.out);
  std::error_code ec;
  const bool made = !fs::exists(out, ec);
  results::claim_own_dir(out, "--out", "explain"); // a user's folder (and its baseline.log) is left alone
  try {
    return explain_into(opt, sc, out);
  } catch (const config::ConfigError&) { // bad input writes nothing: the folder this call made goes
    if (made)
      fs::remove_all(out, ec);
    throw;
  }
}

int explain_into(const ExplainOptions& opt, const Scenario& sc, const fs::path& out)
{
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec || !fs::is_directory(out))
    throw config::ConfigError("--out", "", fmt::format("cannot make the folder {}: {}", out.string(),
                                                       ec ? ec.message() : "a file is in the way"));
  run_child(opt, {}, out / "baseline");
  PathTotals paths = path_totals(out / "baseline");
  if (paths.by_detail.empty())
    throw config::ConfigError("explain", "", "the calls took no time: nothing to explain");
  const Latencies before = latencies(out / "baseline");
  std::cout << (before.key == "program"
                    ? fmt::format("scenario {}: the critical path to its last rank's end, {:.3f} us\n", sc.header.name,
                                  paths.total)
                    : fmt::format("scenario {}: critical paths of {} call(s), {:.3f} us in all\n", sc.header.name,
                                  before.calls, paths.total));
  // Each step makes the bottleneck left by the steps before ideal too (the limits it reveals are often close), from
  // the platform the last run simulated (links 10x faster again if the wire is still the limit).
  std::vector<std::string> lifted;
  fs::path last = out / "baseline";
  for (unsigned step = 1; step <= opt.steps; ++step) {
    std::cout << fmt::format("bottleneck: {}\n", describe_top(paths));
    auto [resource, detail] = split_key(paths.by_detail.front().first);
    WhatIf w = ideal_what_if(resource, detail, platform_of(last), workload_of(last), losses_of(last));
    if (w.sets.empty()) {
      std::cout << w.why_not << "\n";
      break;
    }
    if (std::all_of(w.sets.begin(), w.sets.end(),
                    [&](const std::string& s) { return std::find(lifted.begin(), lifted.end(), s) != lifted.end(); })) {
      std::cout << "it is already ideal in the last run: lifting it again changes nothing\n";
      break;
    }
    lifted.insert(lifted.end(), w.sets.begin(), w.sets.end());
    const fs::path dir = out / (step == 1 ? std::string("ideal") : fmt::format("ideal-{}", step));
    std::cout << fmt::format("what if{}: {} (--set {})\n", step > 1 ? " also" : "", w.meaning,
                             fmt::join(w.sets, " --set "));
    run_child(opt, lifted, dir);
    const Latencies after = latencies(dir);
    std::cout << fmt::format("  {:>10}  {:>12}  {:>12}  {:>6}\n", before.key, "latency_us", "what-if_us", "gain");
    for (auto const& [key, us] : before.median) {
      const double w_us = after.median.count(key) ? after.median.at(key) : 0.0;
      std::cout << fmt::format("  {:>10}  {:>12.3f}  {:>12.3f}  {:>5.1f}%\n",
                               row_label(before.key, key), us, w_us,
                               us > 0 ? 100 * (us - w_us) / us : 0.0);
    }
    const PathTotals before_step = std::move(paths);
    paths = path_totals(dir);
    last  = dir;
    if (paths.by_detail.empty())
      break;
    if (auto note = small_gain_note(before_step, paths, step, step == opt.steps))
      std::cout << *note << "\n";
  }
  if (!paths.by_detail.empty())
    std::cout << fmt::format("{}bottleneck left: {}\n", lifted.empty() ? "" : "then the ", describe_top(paths));
  if (opt.propose || opt.goal > 0)
    propose(opt, out, before);
  std::cout << fmt::format("runs in {}\n", out.string());
  return 0;
}

} // namespace nafsim::app
