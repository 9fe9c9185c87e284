#include "simcore/results/OutputDir.hpp"

#include "simcore/config/ConfigError.hpp"
#include "simcore/config/JsonDoc.hpp"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <climits>
#include <unistd.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace fs = std::filesystem;

namespace nafsim::results {

std::string result_name_problem(const std::string& name)
{
  if (name.empty())
    return "the name is empty";
  if (name == "." || name == "..")
    return "'" + name + "' is not a name";
  if (name.size() > 200)
    return "the name is longer than 200 characters";
  for (char ch : name) {
    const auto u = static_cast<unsigned char>(ch);
    if (!(std::isalnum(u) || ch == '.' || ch == '_' || ch == '-' || ch == '+'))
      return fmt::format("the name is used as a folder under results/, so it may hold only letters, digits and . _ - + "
                         "('{}' is not allowed); use --out to write elsewhere",
                         ch == '/' ? std::string("/") : std::isprint(u) ? std::string(1, ch) : fmt::format("\\x{:02x}", u));
  }
  return {};
}

fs::path absolute_normal(const fs::path& requested)
{
  std::error_code ec;
  fs::path p = fs::absolute(requested, ec);
  if (ec)
    p = requested;
  p = p.lexically_normal();
  if (p.has_relative_path() && p.filename().empty()) // "dir/" -> "dir"
    p = p.parent_path();
  return p;
}

namespace {

// The path as the user wrote it, tidied: what messages and the run summary show (golden outputs stay relative).
fs::path shown(const fs::path& requested)
{
  fs::path p = requested.lexically_normal();
  if (p.has_relative_path() && p.filename().empty())
    p = p.parent_path();
  return p.empty() ? fs::path(".") : p;
}

bool empty_dir(const fs::path& p)
{
  std::error_code ec;
  return fs::is_empty(p, ec) && !ec;
}

/// Why a directory is not one a run wrote whole (`why` empty when it is); `foreign`: because of entries its run did
/// not write (which the user can move out), not for want of nafsim metadata.
struct RunDirCheck {
  std::string why;
  bool foreign = false;
};

/// Whether `dir` is a directory a run wrote whole: no nafsim metadata, or the entries (up to three named) that its
/// run did not write, say why not.
RunDirCheck not_a_run_dir(const fs::path& dir)
{
  std::error_code ec;
  const RunDirCheck no_meta{"it has no nafsim metadata.json"};
  if (!fs::is_regular_file(dir / "metadata.json", ec))
    return no_meta;
  config::Json meta;
  try {
    meta = config::load_json_file((dir / "metadata.json").string());
  } catch (const std::exception&) {
    return no_meta;
  }
  if (!meta.is_object() || !meta.contains("nafsim_version") || !meta.contains("files") || !meta["files"].is_array())
    return no_meta;
  std::set<std::string> ours;
  for (auto const& f : meta["files"])
    if (f.is_string())
      ours.insert(f.get<std::string>());
  // The plots `nafsim plot` drew beside the tables (its list names them) are nafsim's too.
  if (std::ifstream plots(dir / kPlotsList); plots) {
    ours.insert(kPlotsList);
    for (std::string name; std::getline(plots, name);)
      if (!name.empty())
        ours.insert(name);
  }
  // Only the files that run wrote: anything else (a user's notes, a plot, a folder) makes it not ours to replace.
  std::vector<std::string> theirs;
  std::size_t count = 0;
  for (auto const& e : fs::directory_iterator(dir, ec))
    if (!e.is_regular_file(ec) || !ours.count(e.path().filename().string())) {
      if (theirs.size() < 3)
        theirs.push_back(e.path().filename().string());
      ++count;
    }
  if (ec)
    return {fmt::format("it cannot be listed ({})", ec.message())};
  if (count == 0)
    return {};
  return {fmt::format("it holds {} that its run did not write ({}{})", count == 1 ? "an entry" : "entries",
                      fmt::join(theirs, ", "),
                      count > theirs.size() ? fmt::format(" and {} more", count - theirs.size()) : std::string()),
          true};
}
} // namespace

bool is_run_result_dir(const fs::path& dir)
{
  return not_a_run_dir(dir).why.empty();
}

bool listed_plot(const fs::path& plot)
{
  const fs::path dir     = absolute_normal(plot).parent_path();
  const std::string name = plot.filename().string();
  std::ifstream in(dir / kPlotsList);
  for (std::string line; std::getline(in, line);)
    if (line == name)
      return true;
  return false;
}

void note_plot(const fs::path& plot)
{
  if (!listed_plot(plot))
    std::ofstream(absolute_normal(plot).parent_path() / kPlotsList, std::ios::app) << plot.filename().string() << "\n";
}

fs::path checked_run_dir(const fs::path& requested, const std::string& origin, const std::string& json_path)
{
  fs::path p = absolute_normal(requested);
  if (!p.has_relative_path())
    throw config::ConfigError(origin, json_path, "results cannot replace the root directory; name a new folder");
  std::error_code ec;
  auto st = fs::symlink_status(p, ec);
  if (ec || !fs::exists(st)) {
    check_creatable(p, origin, json_path);
    return shown(requested);
  }
  if (fs::is_symlink(st))
    throw config::ConfigError(origin, json_path,
                              fmt::format("{} is a symbolic link; nafsim replaces its result directory whole, so name "
                                          "a new folder (or an earlier result directory)",
                                          p.string()));
  if (!fs::is_directory(st))
    throw config::ConfigError(origin, json_path,
                              fmt::format("{} exists and is not a directory; results go to a directory: name a new one",
                                          p.string()));
  if (const RunDirCheck check = empty_dir(p) ? RunDirCheck{} : not_a_run_dir(p); !check.why.empty())
    throw config::ConfigError(origin, json_path,
                              fmt::format("{} exists and is not a nafsim result directory: {}; nafsim replaces its "
                                          "result directory whole and never deletes what it did not write: {}name a "
                                          "new folder or an earlier result directory",
                                          p.string(), check.why, check.foreign ? "move them out, or " : ""));
  return shown(requested);
}

fs::path checked_sweep_dir(const fs::path& requested, const std::string& origin, const std::string& json_path,
                           bool shared_by_ranks)
{
  fs::path p = absolute_normal(requested);
  std::error_code ec;
  auto st = fs::symlink_status(p, ec);
  if (ec || !fs::exists(st)) {
    check_creatable(p, origin, json_path);
    return shown(requested);
  }
  if (!fs::is_directory(st))
    throw config::ConfigError(origin, json_path,
                              fmt::format("{} exists and is not a directory; a sweep writes a directory: name a new one",
                                          p.string()));
  auto sweep_started = [&] {
    for (auto const& e : fs::directory_iterator(p, ec)) {
      auto n = e.path().filename().string();
      if (n != "points" && n != "logs" && n.rfind("base-scenario.json", 0) != 0 && n.rfind("sweep.json", 0) != 0)
        return false;
    }
    return !ec;
  };
  if (!empty_dir(p) && !fs::is_regular_file(p / "sweep.json", ec) && !(shared_by_ranks && sweep_started()))
    throw config::ConfigError(origin, json_path,
                              fmt::format("{} exists and holds no sweep.json: it is not a sweep's directory; name a "
                                          "new folder (a sweep resumes only in its own directory)",
                                          p.string()));
  return shown(requested);
}

void check_own_dir(const fs::path& dir, const std::string& origin, const std::string& command)
{
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw config::ConfigError(origin, "", fmt::format("{} exists and is not a directory: name a folder", dir.string()));
  const fs::path marker = dir / (".nafsim-" + command);
  if (fs::is_directory(dir, ec) && !fs::exists(marker, ec)) {
    auto it = fs::directory_iterator(dir, ec);
    if (ec)
      throw config::ConfigError(origin, "", fmt::format("cannot read the folder {}: {}", dir.string(), ec.message()));
    if (it != fs::directory_iterator())
      throw config::ConfigError(origin, "",
                                fmt::format("{} holds {}, and nafsim {} did not make this folder: name a new or "
                                            "empty folder (it replaces files only in its own)",
                                            dir.string(), it->path().filename().string(), command));
  }
  check_creatable(dir, origin, "");
}

void claim_own_dir(const fs::path& dir, const std::string& origin, const std::string& command)
{
  check_own_dir(dir, origin, command);
  make_directories(dir);
  const fs::path marker = dir / (".nafsim-" + command);
  std::ofstream f(marker);
  f << "nafsim " << command << " writes into this folder and replaces its own files here\n";
  if (!f)
    throw_write_error(marker, errno);
}

void check_creatable(const fs::path& requested, const std::string& origin, const std::string& json_path)
{
  const fs::path p = absolute_normal(requested);
  std::error_code ec;
  for (auto const& part : p)
    if (part.native().size() > NAME_MAX)
      throw config::ConfigError(origin, json_path,
                                fmt::format("cannot make {}: a folder name of {} characters is longer than the {} a file "
                                            "system allows; name a shorter one",
                                            p.string().substr(0, 80) + "...", part.native().size(), NAME_MAX));
  if (p.native().size() >= PATH_MAX)
    throw config::ConfigError(origin, json_path,
                              fmt::format("cannot make a folder whose path is {} characters long (at most {})",
                                          p.native().size(), PATH_MAX - 1));
  // The nearest part of the path that exists: it must be a directory nafsim may write into.
  fs::path q = p;
  while (q.has_relative_path() && !fs::exists(fs::symlink_status(q, ec)))
    q = q.parent_path();
  if (q == p && fs::is_directory(q, ec))
    return; // exists already: the callers' own checks (sweep.json, a run's metadata) apply
  if (!fs::is_directory(q, ec))
    throw config::ConfigError(origin, json_path,
                              fmt::format("cannot make {}: {} exists and is not a directory; name a folder elsewhere",
                                          p.string(), q.string()));
  if (::access(q.c_str(), W_OK | X_OK) != 0)
    throw config::ConfigError(origin, json_path,
                              fmt::format("cannot make {}: {} is not writable ({}); name a folder elsewhere", p.string(),
                                          q.string(), std::strerror(errno)));
}

void make_directories(const fs::path& p)
{
  std::error_code ec;
  fs::create_directories(p, ec);
  if (ec)
    throw OutputError(fmt::format("cannot make the directory {}: {}", p.string(), ec.message()));
}

void throw_write_error(const fs::path& p, int err)
{
  throw OutputError(fmt::format("cannot write {}: {}{}", p.string(), std::strerror(err),
                                err == ENOSPC ? " (no space left: free some or write elsewhere with --out)" : ""));
}

} // namespace nafsim::results
