#pragma once
// Reading back the CSV files nafsim writes (RFC 4180 quoting), for merging and figures.

#include <filesystem>
#include <istream>
#include <map>
#include <string>
#include <vector>

namespace nafsim::results {

std::vector<std::string> split_csv_line(const std::string& line);

struct CsvTable {
  std::vector<std::string> columns;
  std::vector<std::map<std::string, std::string>> rows;
  /// The cell of `column` in row `i` ("" if absent).
  const std::string& cell(std::size_t i, const std::string& column) const;
};

/// Parse CSV text whose first line is the header; throws std::runtime_error naming `origin` on a
/// row with more cells than the header.
CsvTable parse_csv(const std::string& text, const std::string& origin);
/// The next record of a CSV text into `record` (its line, and the lines a quoted cell's line breaks continue it on);
/// false at the end.
bool read_csv_record(std::istream& in, std::string& record);
/// Read and parse a CSV file; throws std::runtime_error naming the file if it cannot be read.
CsvTable read_csv(const std::filesystem::path& file);

} // namespace nafsim::results
