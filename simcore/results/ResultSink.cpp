#include "simcore/results/ResultSink.hpp"

#include <fmt/format.h>
#include <fstream>
#include <stdexcept>
#include <unistd.h>

namespace fs = std::filesystem;

namespace nafsim::results {

namespace {
void write_plain(const fs::path& p, const std::string& text)
{
  std::ofstream out(p, std::ios::binary);
  out << text;
  out.close();
  if (!out)
    throw std::runtime_error(fmt::format("cannot write {}", p.string()));
}
} // namespace

void write_file_atomic(const fs::path& path, const std::string& text)
{
  fs::path tmp = path;
  tmp += fmt::format(".tmp-{}", ::getpid());
  write_plain(tmp, text);
  fs::rename(tmp, path);
}

void ResultSink::commit() const
{
  fs::path parent = dir_.parent_path().empty() ? fs::path(".") : dir_.parent_path();
  fs::create_directories(parent);
  fs::path tmp = parent / fmt::format(".{}.partial-{}", dir_.filename().string(), ::getpid());
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  for (auto const& t : tables_)
    write_plain(tmp / (t.name() + ".csv"), t.csv());
  for (auto const& [name, text] : files_)
    write_plain(tmp / name, text);
  write_plain(tmp / "metadata.json", metadata_.dump(2) + "\n");
  fs::path old = parent / fmt::format(".{}.old-{}", dir_.filename().string(), ::getpid());
  if (fs::exists(dir_))
    fs::rename(dir_, old);
  fs::rename(tmp, dir_);
  fs::remove_all(old);
}

} // namespace nafsim::results
