#include "simcore/results/ResultSink.hpp"

#include "simcore/results/OutputDir.hpp"

#include <cerrno>
#include <cstdio>
#include <fmt/format.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace nafsim::results {

namespace {
void write_plain(const fs::path& p, const std::string& text)
{
  // stdio, to learn why a write failed (errno: a full disk says so).
  std::FILE* f = std::fopen(p.c_str(), "wb");
  if (!f)
    throw_write_error(p, errno);
  errno        = 0;
  bool ok      = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  int err      = errno;
  ok           = std::fflush(f) == 0 && ok;
  err          = err ? err : errno;
  const int rc = std::fclose(f);
  err          = err ? err : errno;
  if (!ok || rc != 0)
    throw_write_error(p, err ? err : EIO);
}

void make_dirs(const fs::path& p)
{
  std::error_code ec;
  fs::create_directories(p, ec);
  if (ec)
    throw_write_error(p, ec.value());
}

void rename_or_throw(const fs::path& from, const fs::path& to)
{
  std::error_code ec;
  fs::rename(from, to, ec);
  if (ec)
    throw_write_error(to, ec.value());
}
} // namespace

void write_file_atomic(const fs::path& path, const std::string& text)
{
  // (the host's name too: ranks of one sweep on several machines may share a file system and a process id)
  char host[64] = {};
  ::gethostname(host, sizeof host - 1);
  fs::path tmp = path;
  tmp += fmt::format(".tmp-{}-{}", host, ::getpid());
  try {
    write_plain(tmp, text);
    rename_or_throw(tmp, path);
  } catch (...) {
    std::error_code ec;
    fs::remove(tmp, ec);
    throw;
  }
}

void ResultSink::commit() const
{
  // The directory was checked before the run (checked_run_dir); check again, since the run took time.
  const fs::path dir = absolute_normal(checked_run_dir(dir_, "result directory", ""));
  const fs::path parent = dir.parent_path();
  make_dirs(parent);
  fs::path tmp = parent / fmt::format(".{}.partial-{}", dir.filename().string(), ::getpid());
  fs::path old = parent / fmt::format(".{}.old-{}", dir.filename().string(), ::getpid());
  std::error_code ec;
  try {
    fs::remove_all(tmp, ec); // our own leftover of an earlier process with this pid
    make_dirs(tmp);
    for (auto const& t : tables_)
      write_plain(tmp / (t.name() + ".csv"), t.csv());
    for (auto const& [name, text] : files_)
      write_plain(tmp / name, text);
    // Every file written, so that a later run recognises this directory as its own to replace
    // (is_run_result_dir) and never removes a file a user put beside them.
    config::Json meta  = metadata_;
    config::Json files = config::Json::array();
    for (auto const& t : tables_)
      files.push_back(t.name() + ".csv");
    for (auto const& [name, text] : files_)
      files.push_back(name);
    files.push_back("metadata.json");
    meta["files"] = files;
    write_plain(tmp / "metadata.json", meta.dump(2) + "\n");
    if (fs::equivalent(dir, fs::current_path(), ec)) {
      // The working directory (--out .): replace its files, not the directory the shell is in.
      for (auto const& e : fs::directory_iterator(dir))
        fs::remove(e.path());
      for (auto const& e : fs::directory_iterator(tmp))
        rename_or_throw(e.path(), dir / e.path().filename());
      fs::remove_all(tmp, ec);
      return;
    }
    if (fs::exists(dir, ec))
      rename_or_throw(dir, old);
  } catch (...) {
    fs::remove_all(tmp, ec); // nothing partial stays behind
    throw;
  }
  try {
    rename_or_throw(tmp, dir);
  } catch (...) {
    if (fs::exists(old, ec)) // put the earlier results back
      fs::rename(old, dir, ec);
    fs::remove_all(tmp, ec);
    throw;
  }
  fs::remove_all(old, ec);
}

} // namespace nafsim::results
