#include "simcore/sweep/SweepRunner.hpp"
#include "simcore/sweep/ChildProcess.hpp"

#include "simcore/config/ConfigError.hpp"
#include "simcore/results/OutputDir.hpp"
#include "simcore/config/JsonDoc.hpp"
#include "simcore/results/CsvReader.hpp"
#include "simcore/results/ResultSink.hpp"
#include "simcore/results/Table.hpp"

#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace nafsim::sweep {

using config::Json;

namespace {

volatile std::sig_atomic_t g_interrupted = 0;
void on_signal(int)
{
  g_interrupted = 1;
}

std::string read_text(const fs::path& p)
{
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

} // namespace

std::string exit_text(int status)
{
  if (WIFSIGNALED(status)) {
    const int sig    = WTERMSIG(status);
    const char* name = sigabbrev_np(sig);
    return fmt::format("killed by signal {} (SIG{}{})", sig, name ? name : "?",
                       sig == SIGKILL ? ": out of memory, or killed from outside" : "");
  }
  if (WIFEXITED(status))
    return fmt::format("exit {}", WEXITSTATUS(status));
  return fmt::format("ended with wait status {}", status);
}

namespace {

/// Why a point's process ended as `status` said (a signal or an exit code), and the error it printed (its last
/// error line on stderr).
std::string last_error(const fs::path& log, int status)
{
  const std::string how = exit_text(status);
  std::istringstream in(read_text(log));
  std::string line, last;
  while (std::getline(in, line))
    if (line.rfind("error:", 0) == 0 || line.rfind("simulation failed:", 0) == 0 ||
        line.rfind("internal error:", 0) == 0)
      last = line;
  if (last.empty())
    return fmt::format("{}, no error message (see {})", how, log.string());
  return WIFSIGNALED(status) ? how + ": " + last : last;
}

/// Where `a` (what a point ran) and `b` (what it is now) first differ, as "<JSON path>: <a> then, <b> now"; empty
/// when equal.
std::string first_difference(const Json& a, const Json& b, const std::string& path)
{
  auto shown = [](const Json& j) {
    std::string s = j.is_null() ? std::string("absent") : j.dump();
    return s.size() > 60 ? s.substr(0, 57) + "..." : s;
  };
  if (a.is_object() && b.is_object()) {
    std::set<std::string> keys;
    for (auto it = a.begin(); it != a.end(); ++it)
      keys.insert(it.key());
    for (auto it = b.begin(); it != b.end(); ++it)
      keys.insert(it.key());
    for (auto const& k : keys) {
      const Json none;
      auto d = first_difference(a.contains(k) ? a[k] : none, b.contains(k) ? b[k] : none, path + "/" + k);
      if (!d.empty())
        return d;
    }
    return {};
  }
  if (a.is_array() && b.is_array() && a.size() == b.size()) {
    for (std::size_t i = 0; i < a.size(); ++i)
      if (auto d = first_difference(a[i], b[i], fmt::format("{}/{}", path, i)); !d.empty())
        return d;
    return {};
  }
  if (a == b)
    return {};
  return fmt::format("{}: {} then, {} now", path.empty() ? "/" : path, shown(a), shown(b));
}

} // namespace

SweepRunner::SweepRunner(SweepSpec spec, SweepOptions opt, Resolve resolve)
    : spec_(std::move(spec)), opt_(std::move(opt)), resolve_(std::move(resolve))
{
  if (opt_.jobs == 0)
    opt_.jobs = 1;
  if (opt_.ranks == 0)
    opt_.ranks = 1;
}

std::optional<std::string> SweepRunner::missing_output(const fs::path& dir, const Json& listed)
{
  if (!listed.is_array())
    return std::nullopt; // (a run's metadata always lists its files: an old one may not)
  for (auto const& f : listed) {
    std::error_code ec;
    if (f.is_string() && !fs::is_regular_file(dir / f.get<std::string>(), ec))
      return f.get<std::string>();
  }
  return std::nullopt;
}

std::string SweepRunner::point_name(std::size_t i) const
{
  return fmt::format("{:05d}", i);
}

std::string SweepRunner::describe_point(const Point& p) const
{
  std::string s;
  for (std::size_t a = 0; a < spec_.axes.size(); ++a)
    s += (a ? ", " : "") + spec_.axes[a].path + "=" + cell_text(p.values[a]);
  return fmt::format("point {} ({})", p.index, s);
}

std::vector<std::string> SweepRunner::point_sets(const Point& p) const
{
  std::vector<std::string> s = opt_.extra_sets;
  for (auto& x : p.sets(spec_.axes, sweep_folder())) // (an axis' file paths are the sweep file's)
    s.push_back(std::move(x));
  return s;
}

void SweepRunner::check_manifest() const
{
  const fs::path mpath = opt_.out_dir / "sweep.json";
  std::error_code ec;
  if (!fs::exists(mpath, ec))
    return;
  Json old = config::load_json_file(mpath.string());
  if (!old.is_object() || old.value("fingerprint", "") != spec_.fingerprint())
    throw config::ConfigError(opt_.out_dir.string(), "",
                              "this directory holds the results of a different sweep (other base or axes); "
                              "choose another --out or remove it");
}

Json SweepRunner::inline_base() const
{
  // An inline base's relative paths are the sweep file's; the runs read a copy written elsewhere (the sweep's
  // directory, or a scratch folder while the points are checked).
  return file_paths_absolute("", spec_.base, sweep_folder());
}

fs::path SweepRunner::sweep_folder() const
{
  return spec_.file.empty() ? fs::current_path() : fs::absolute(spec_.file).parent_path();
}

void SweepRunner::prepare_directory()
{
  results::make_directories(opt_.out_dir / "points");
  results::make_directories(opt_.out_dir / "logs");
  Json manifest;
  manifest["name"]        = spec_.name;
  manifest["fingerprint"] = spec_.fingerprint();
  fs::path mpath          = opt_.out_dir / "sweep.json";
  check_manifest();
  if (!fs::exists(mpath)) {
    Json points = Json::array();
    for (auto const& p : spec_.points) {
      Json vals = Json::object();
      for (std::size_t a = 0; a < spec_.axes.size(); ++a)
        vals[spec_.axes[a].path] = p.values[a];
      points.push_back({{"point", p.index}, {"values", vals}});
    }
    manifest["points"] = points;
    // Every rank writes it (the same text, atomically): when only rank 0 did, a rank that finished first left its
    // merged tables in a directory without it, which rank 0, --merge-only and a rerun then refused as no sweep's.
    results::write_file_atomic(mpath, manifest.dump(2) + "\n");
  }
  // Leftovers of interrupted points (partial result directories, ".<point>.partial-<pid>") are discarded; under
  // mpirun only this rank's own: a sibling rank may be writing one of its points right now.
  for (auto const& e : fs::directory_iterator(opt_.out_dir / "points")) {
    auto n = e.path().filename().string();
    if (n.empty() || n[0] != '.')
      continue;
    bool mine = opt_.ranks <= 1;
    for (auto const& p : spec_.points)
      mine = mine || (p.index % opt_.ranks == opt_.rank && n.rfind("." + point_name(p.index) + ".", 0) == 0);
    if (mine)
      fs::remove_all(e.path());
  }
  // An inline base scenario is written out for the children (relative platform files resolved).
  if (spec_.base_file == spec_.file || spec_.file.empty()) {
    // Every rank writes it (atomically; the same text from one sweep file): one that kept an earlier copy ran the
    // scenario of that copy, not the one its points were checked as.
    base_path_ = (opt_.out_dir / "base-scenario.json").string();
    results::write_file_atomic(base_path_, inline_base().dump(2) + "\n");
  } else {
    base_path_ = spec_.base_file;
  }
}

std::vector<const Point*> SweepRunner::resolve_points()
{
  std::vector<const Point*> todo;
  for (auto const& p : spec_.points) {
    Json resolved;
    try {
      resolved = resolve_(point_sets(p));
    } catch (const config::ConfigError& e) {
      throw config::ConfigError(spec_.file, "", describe_point(p) + ": " + e.what());
    }
    if (p.index % opt_.ranks != opt_.rank)
      continue;
    const fs::path meta = opt_.out_dir / "points" / point_name(p.index) / "metadata.json";
    std::error_code ec;
    if (!fs::is_regular_file(meta, ec)) {
      todo.push_back(&p);
      continue;
    }
    // Done before: it must have run what this point is now. Names and descriptions only label a run.
    Json ran, listed;
    try {
      const Json m = config::load_json_file(meta.string());
      ran          = m.value("scenario", Json());
      listed       = m.value("files", Json());
    } catch (const config::ConfigError&) {
    }
    if (missing_output(opt_.out_dir / "points" / point_name(p.index), listed)) { // (a file lost since: run it again)
      todo.push_back(&p);
      continue;
    }
    for (auto* j : {&ran, &resolved})
      if (j->is_object()) {
        j->erase("name");
        j->erase("description");
      }
    if (auto diff = first_difference(ran, resolved, ""); !diff.empty())
      throw config::ConfigError(
          opt_.out_dir.string(), "",
          fmt::format("{} was run with a different scenario than this sweep gives it now ({}), so its results would be "
                      "mixed with the others into one table; run the sweep into a new --out, or remove {} to run "
                      "it again",
                      describe_point(p), diff, opt_.out_dir.string()));
  }
  return todo;
}

void SweepRunner::check_points(const std::vector<const Point*>& todo) const
{
  if (todo.empty())
    return;
  // The children read the base as the runs will: an inline base is written to a scratch file first.
  char tmpl[] = "/tmp/nafsim-sweep-check-XXXXXX";
  if (!::mkdtemp(tmpl))
    throw results::OutputError(fmt::format("cannot make a scratch directory in /tmp: {}", std::strerror(errno)));
  const fs::path scratch = tmpl;
  std::string base       = spec_.base_file;
  if (spec_.base_file == spec_.file || spec_.file.empty()) {
    base = (scratch / "base-scenario.json").string();
    results::write_file_atomic(base, inline_base().dump(2) + "\n");
  }
  struct Cleanup {
    fs::path dir;
    ~Cleanup()
    {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{scratch};

  std::map<pid_t, const Point*> running;
  std::map<std::size_t, std::string> failed; // point index -> its error, in point order
  std::size_t next = 0;
  while (next < todo.size() || !running.empty()) {
    while (next < todo.size() && running.size() < opt_.jobs) {
      const Point* p = todo[next++];
      std::vector<std::string> args{opt_.program, "run", base, "--check-only"};
      for (auto const& s : point_sets(*p)) {
        args.push_back("--set");
        args.push_back(s);
      }
      const fs::path log = scratch / (point_name(p->index) + ".log");
      pid_t pid = spawn_logged(args, log);
      if (pid < 0)
        throw results::OutputError(fmt::format("cannot start a process to check {}: {}", describe_point(*p),
                                               std::strerror(errno)));
      running[pid] = p;
    }
    int status = 0;
    pid_t pid  = waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR)
        continue;
      break;
    }
    auto it = running.find(pid);
    if (it == running.end())
      continue;
    const Point* p = it->second;
    running.erase(it);
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
      std::string err = last_error(scratch / (point_name(p->index) + ".log"), status);
      if (err.rfind("error: ", 0) == 0)
        err = err.substr(7);
      failed[p->index] = describe_point(*p) + ": " + err;
    }
  }
  if (!failed.empty())
    throw config::ConfigError(spec_.file, "",
                              fmt::format("{}{}; nothing was run", failed.begin()->second,
                                          failed.size() > 1
                                              ? fmt::format(" (and {} more point(s) that cannot run)", failed.size() - 1)
                                              : std::string{}));
}

pid_t SweepRunner::launch(const Point& p) const
{
  std::vector<std::string> args{opt_.program, "run", base_path_, "--out",
                                (opt_.out_dir / "points" / point_name(p.index)).string()};
  for (auto const& s : point_sets(p)) {
    args.push_back("--set");
    args.push_back(s);
  }
  fs::path log = opt_.out_dir / "logs" / (point_name(p.index) + ".log");
  pid_t pid    = spawn_logged(args, log);
  if (pid < 0)
    throw std::runtime_error(fmt::format("fork failed: {}", std::strerror(errno)));
  return pid;
}

void SweepRunner::write_failures(const std::vector<std::pair<const Point*, std::string>>& failures) const
{
  results::Table ft("failures", [&] {
    std::vector<std::string> cols{"point"};
    for (auto const& a : spec_.axes)
      cols.push_back(a.path);
    cols.push_back("error");
    return cols;
  }());
  for (auto const& [p, err] : failures) {
    ft.row().add(p->index);
    for (auto const& v : p->values)
      ft.add(cell_text(v));
    ft.add(err);
  }
  results::write_file_atomic(opt_.out_dir / (opt_.ranks == 1 ? "failures.csv" : fmt::format("failures.rank{}.csv", opt_.rank)),
                             ft.csv());
}

SweepSummary SweepRunner::run()
{
  // Resolve every point first, and check those still to run against their platforms: a bad axis value is reported
  // before anything runs, and a directory whose points ran something else is refused.
  check_manifest();
  std::vector<const Point*> todo = resolve_points();
  if (opt_.check_against_platform)
    check_points(todo);
  prepare_directory();

  SweepSummary sum;
  for (auto const& p : spec_.points)
    if (p.index % opt_.ranks == opt_.rank)
      ++sum.total;
  sum.already = sum.total - todo.size();

  g_interrupted = 0;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  struct sigaction old_int {}, old_term {};
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);

  std::map<pid_t, const Point*> running;
  std::size_t next = 0;
  std::vector<std::pair<const Point*, std::string>> failures;
  auto show = [&] {
    if (opt_.progress)
      std::cerr << fmt::format("\r[sweep {}] {}/{} done, {} failed, {} running   ", spec_.name,
                               sum.already + sum.succeeded + sum.failed, sum.total, sum.failed, running.size())
                << std::flush;
  };
  show();
  while ((next < todo.size() && !g_interrupted) || !running.empty()) {
    while (next < todo.size() && running.size() < opt_.jobs && !g_interrupted) {
      const Point* p = todo[next++];
      running[launch(*p)] = p;
      show();
    }
    if (running.empty())
      break;
    int status = 0;
    pid_t pid  = waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) {
        if (g_interrupted) // stop the points in flight; their partial results are discarded
          for (auto const& [child, pt] : running)
            kill(child, SIGTERM);
        continue;
      }
      break;
    }
    auto it = running.find(pid);
    if (it == running.end())
      continue;
    const Point* p = it->second;
    running.erase(it);
    bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (ok) {
      ++sum.succeeded;
    } else if (!g_interrupted) {
      ++sum.failed;
      fs::path log = opt_.out_dir / "logs" / (point_name(p->index) + ".log");
      failures.emplace_back(p, last_error(log, status));
      std::string msg = describe_point(*p) + ": " + failures.back().second;
      sum.failures.push_back(msg);
      std::cerr << (opt_.progress ? "\n" : "") << "[sweep " << spec_.name << "] failed " << msg << "\n";
    }
    show();
  }
  if (opt_.progress)
    std::cerr << "\n";
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  sum.interrupted = g_interrupted != 0;

  if (!failures.empty() || opt_.ranks == 1)
    write_failures(failures);
  sum.merged_files = merge();
  sum.unread       = unread_settings();
  return sum;
}

std::vector<std::string> SweepRunner::unread_settings() const
{
  struct Unread {
    std::vector<std::size_t> points;
    std::string why; ///< the first point's
  };
  std::map<std::string, Unread> by_path;
  std::size_t ran = 0;
  for (auto const& p : spec_.points) {
    const fs::path meta = opt_.out_dir / "points" / point_name(p.index) / "metadata.json";
    std::error_code ec;
    if (!fs::is_regular_file(meta, ec))
      continue;
    ++ran;
    Json m;
    try {
      m = config::load_json_file(meta.string());
    } catch (const config::ConfigError&) {
      continue;
    }
    for (auto const& u : m.value("unread_settings", Json::array())) {
      Unread& e = by_path[u.value("path", std::string())];
      if (e.points.empty())
        e.why = u.value("why", std::string());
      e.points.push_back(p.index);
    }
  }
  std::vector<std::string> out;
  for (auto const& [path, e] : by_path) {
    std::string which;
    for (std::size_t i = 0; i < e.points.size() && i < 8; ++i)
      which += (i ? ", " : "") + std::to_string(e.points[i]);
    if (e.points.size() > 8)
      which += ", ...";
    out.push_back(fmt::format("{}: read by nothing in {} of {} point(s) ({}): {}; those points' results are the same as "
                              "without it",
                              path, e.points.size(), ran, which, e.why));
  }
  return out;
}

std::vector<std::string> SweepRunner::merge() const
{
  check_manifest(); // (--merge-only with another sweep's file would label these results with its axes)
  std::error_code ec;
  if (!fs::is_directory(opt_.out_dir / "points", ec))
    throw config::ConfigError(opt_.out_dir.string(), "",
                              "holds no points/ folder: no point's results to merge; run the sweep (without "
                              "--merge-only) to make them");
  // table name -> (columns in order of first appearance, rows)
  struct Merged {
    std::vector<std::string> columns;
    std::vector<std::map<std::string, std::string>> rows;
  };
  std::map<std::string, Merged> tables;
  for (auto const& p : spec_.points) {
    fs::path dir = opt_.out_dir / "points" / point_name(p.index);
    if (!fs::exists(dir / "metadata.json"))
      continue;
    Json listed;
    try {
      listed = config::load_json_file((dir / "metadata.json").string()).value("files", Json());
    } catch (const config::ConfigError&) {
    }
    if (auto lost = missing_output(dir, listed))
      throw config::ConfigError((dir / *lost).string(), "",
                                fmt::format("{}'s result {} is missing: its table cannot be merged; run the sweep "
                                            "again (without --merge-only: it runs that point again)",
                                            describe_point(p), *lost));
    std::vector<fs::path> csvs;
    for (auto const& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".csv")
        csvs.push_back(e.path());
    std::sort(csvs.begin(), csvs.end());
    for (auto const& csv : csvs) {
      Merged& m = tables[csv.stem().string()];
      std::istringstream in(read_text(csv));
      std::string line;
      if (!results::read_csv_record(in, line))
        continue;
      auto header = results::split_csv_line(line);
      for (auto const& h : header)
        if (std::find(m.columns.begin(), m.columns.end(), h) == m.columns.end())
          m.columns.push_back(h);
      for (std::size_t at = 1; results::read_csv_record(in, line); ++at) {
        auto cells = results::split_csv_line(line);
        if (cells.size() != header.size())
          throw config::ConfigError(csv.string(), "",
                                    fmt::format("row {} has {} cell(s) where the header has {}: {}'s table is "
                                                "damaged; remove {} and run the sweep again (it runs that point "
                                                "again)",
                                                at, cells.size(), header.size(), describe_point(p), dir.string()));
        std::map<std::string, std::string> row;
        row["point"] = std::to_string(p.index);
        for (std::size_t a = 0; a < spec_.axes.size(); ++a)
          row["axis:" + spec_.axes[a].path] = cell_text(p.values[a]);
        for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i)
          row[header[i]] = cells[i];
        m.rows.push_back(std::move(row));
      }
    }
  }
  std::vector<std::string> files;
  for (auto const& [name, m] : tables) {
    std::vector<std::string> cols{"point"};
    for (auto const& a : spec_.axes)
      cols.push_back(a.path);
    for (auto const& c : m.columns)
      cols.push_back(c);
    results::Table t(name, cols);
    for (auto const& r : m.rows) {
      t.row().add(r.at("point"));
      for (auto const& a : spec_.axes)
        t.add(r.at("axis:" + a.path));
      for (auto const& c : m.columns) {
        auto it = r.find(c);
        t.add(it == r.end() ? std::string() : it->second);
      }
    }
    results::write_file_atomic(opt_.out_dir / (name + ".csv"), t.csv());
    files.push_back(name + ".csv");
  }
  return files;
}

} // namespace nafsim::sweep
