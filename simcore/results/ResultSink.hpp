#pragma once
// Writes a run's results (DESIGN.md section 4): results/<run>/metadata.json and one CSV per table.
// Files are written into a temporary sibling directory and renamed into place at the end, so an
// interrupted or failed run never leaves a half-written result directory.

#include "simcore/config/Schema.hpp"
#include "simcore/results/Table.hpp"

#include <filesystem>
#include <vector>

namespace nafsim::results {

class ResultSink {
public:
  explicit ResultSink(std::filesystem::path dir) : dir_(std::move(dir)) {}
  void add(Table t) { tables_.push_back(std::move(t)); }
  void set_metadata(config::Json m) { metadata_ = std::move(m); }
  /// Another file of the run (e.g. trace.json), written with the tables.
  void add_file(std::string name, std::string text) { files_.emplace_back(std::move(name), std::move(text)); }
  const std::vector<Table>& tables() const { return tables_; }
  const std::vector<std::pair<std::string, std::string>>& files() const { return files_; }
  const std::filesystem::path& dir() const { return dir_; }
  /// Write everything; replaces an earlier result directory of the same name.
  void commit() const;

private:
  std::filesystem::path dir_;
  std::vector<Table> tables_;
  std::vector<std::pair<std::string, std::string>> files_;
  config::Json metadata_;
};

/// Write `text` to `path` atomically (temporary file + rename).
void write_file_atomic(const std::filesystem::path& path, const std::string& text);

} // namespace nafsim::results
