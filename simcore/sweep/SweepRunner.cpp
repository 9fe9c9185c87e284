#include "simcore/sweep/SweepRunner.hpp"

#include "simcore/config/ConfigError.hpp"
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

/// The error a failed point printed (its last non-empty stderr lines).
std::string last_error(const fs::path& log)
{
  std::istringstream in(read_text(log));
  std::string line, last;
  while (std::getline(in, line))
    if (line.rfind("error:", 0) == 0 || line.rfind("simulation failed:", 0) == 0 ||
        line.rfind("internal error:", 0) == 0)
      last = line;
  return last.empty() ? "no error message (see " + log.string() + ")" : last;
}

} // namespace

SweepRunner::SweepRunner(SweepSpec spec, SweepOptions opt, std::function<void(const std::vector<std::string>&)> validate)
    : spec_(std::move(spec)), opt_(std::move(opt)), validate_(std::move(validate))
{
  if (opt_.jobs == 0)
    opt_.jobs = 1;
  if (opt_.ranks == 0)
    opt_.ranks = 1;
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
  for (auto& x : p.sets(spec_.axes))
    s.push_back(std::move(x));
  return s;
}

void SweepRunner::prepare_directory()
{
  fs::create_directories(opt_.out_dir / "points");
  fs::create_directories(opt_.out_dir / "logs");
  Json manifest;
  manifest["name"]        = spec_.name;
  manifest["fingerprint"] = spec_.fingerprint();
  fs::path mpath          = opt_.out_dir / "sweep.json";
  if (fs::exists(mpath)) {
    Json old = config::load_json_file(mpath.string());
    if (old.value("fingerprint", "") != manifest["fingerprint"].get<std::string>())
      throw config::ConfigError(opt_.out_dir.string(), "",
                                "this directory holds the results of a different sweep (other base or axes); "
                                "choose another --out or remove it");
  } else {
    Json points = Json::array();
    for (auto const& p : spec_.points) {
      Json vals = Json::object();
      for (std::size_t a = 0; a < spec_.axes.size(); ++a)
        vals[spec_.axes[a].path] = p.values[a];
      points.push_back({{"point", p.index}, {"values", vals}});
    }
    manifest["points"] = points;
    if (opt_.rank == 0)
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
    Json base = spec_.base;
    if (base.contains("platform") && base["platform"].is_string()) {
      std::string ref = base["platform"].get<std::string>();
      if (ref.size() > 5 && ref.substr(ref.size() - 5) == ".json" && !fs::path(ref).is_absolute())
        base["platform"] = fs::absolute(fs::path(spec_.file).parent_path() / ref).string();
    }
    base_path_ = (opt_.out_dir / "base-scenario.json").string();
    if (opt_.rank == 0 || !fs::exists(base_path_))
      results::write_file_atomic(base_path_, base.dump(2) + "\n");
  } else {
    base_path_ = spec_.base_file;
  }
}

SweepSummary SweepRunner::run()
{
  // Validate every point first: a bad axis value is reported before anything runs.
  for (auto const& p : spec_.points) {
    try {
      validate_(point_sets(p));
    } catch (const config::ConfigError& e) {
      throw config::ConfigError(spec_.file, "", describe_point(p) + ": " + e.what());
    }
  }
  prepare_directory();

  std::vector<const Point*> todo;
  SweepSummary sum;
  for (auto const& p : spec_.points) {
    if (p.index % opt_.ranks != opt_.rank)
      continue;
    ++sum.total;
    if (fs::exists(opt_.out_dir / "points" / point_name(p.index) / "metadata.json"))
      ++sum.already;
    else
      todo.push_back(&p);
  }

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
      std::vector<std::string> args{opt_.program, "run", base_path_, "--out",
                                    (opt_.out_dir / "points" / point_name(p->index)).string()};
      for (auto const& s : point_sets(*p)) {
        args.push_back("--set");
        args.push_back(s);
      }
      fs::path log = opt_.out_dir / "logs" / (point_name(p->index) + ".log");
      std::cout << std::flush;
      std::cerr << std::flush;
      pid_t pid = fork();
      if (pid == 0) {
        int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
          dup2(fd, 1);
          dup2(fd, 2);
          close(fd);
        }
        std::vector<char*> argv;
        for (auto& a : args)
          argv.push_back(a.data());
        argv.push_back(nullptr);
        execv(opt_.program.c_str(), argv.data());
        std::fprintf(stderr, "internal error: cannot execute %s: %s\n", opt_.program.c_str(), std::strerror(errno));
        _exit(127);
      }
      if (pid < 0)
        throw std::runtime_error(fmt::format("fork failed: {}", std::strerror(errno)));
      running[pid] = p;
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
      failures.emplace_back(p, last_error(log));
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

  if (!failures.empty() || opt_.ranks == 1) {
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
  sum.merged_files = merge();
  return sum;
}

std::vector<std::string> SweepRunner::merge() const
{
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
    std::vector<fs::path> csvs;
    for (auto const& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".csv")
        csvs.push_back(e.path());
    std::sort(csvs.begin(), csvs.end());
    for (auto const& csv : csvs) {
      Merged& m = tables[csv.stem().string()];
      std::istringstream in(read_text(csv));
      std::string line;
      if (!std::getline(in, line))
        continue;
      auto header = results::split_csv_line(line);
      for (auto const& h : header)
        if (std::find(m.columns.begin(), m.columns.end(), h) == m.columns.end())
          m.columns.push_back(h);
      while (std::getline(in, line)) {
        auto cells = results::split_csv_line(line);
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
