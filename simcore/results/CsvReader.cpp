#include "simcore/results/CsvReader.hpp"

#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace nafsim::results {

namespace {
/// The one reading of a CSV line: its cells into `cells` (when given), and whether it ends inside a quoted cell (one a
/// quote opened as its first character: RFC 4180; a quote within a cell is only a character), which a line break of
/// that cell continues on the next line.
bool scan_csv(const std::string& line, std::vector<std::string>* cells)
{
  std::string cell;
  bool quoted = false, at_start = true;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cell += c;
      }
    } else if (c == '"' && at_start) {
      quoted = true;
    } else if (c == ',') {
      if (cells)
        cells->push_back(cell);
      cell.clear();
      at_start = true;
      continue;
    } else if (c != '\r') {
      cell += c;
    }
    at_start = false;
  }
  if (cells)
    cells->push_back(cell);
  return quoted;
}
} // namespace

std::vector<std::string> split_csv_line(const std::string& line)
{
  std::vector<std::string> cells;
  scan_csv(line, &cells);
  return cells;
}

bool read_csv_record(std::istream& in, std::string& record)
{
  if (!std::getline(in, record))
    return false;
  // A quoted cell may hold line breaks (Table quotes them): while the record ends inside one, it goes on.
  for (std::string more; scan_csv(record, nullptr) && std::getline(in, more);)
    record += "\n" + more;
  return true;
}

const std::string& CsvTable::cell(std::size_t i, const std::string& column) const
{
  static const std::string empty;
  auto const& r = rows.at(i);
  auto it       = r.find(column);
  return it == r.end() ? empty : it->second;
}

CsvTable parse_csv(const std::string& text, const std::string& origin)
{
  CsvTable t;
  std::istringstream in(text);
  std::string line;
  if (!read_csv_record(in, line))
    return t;
  if (line.starts_with("\xEF\xBB\xBF")) // a UTF-8 byte-order mark (spreadsheets write one) is not the first name's
    line.erase(0, 3);
  t.columns = split_csv_line(line);
  std::size_t n = 1;
  while (read_csv_record(in, line)) {
    ++n;
    if (line.empty() || line == "\r")
      continue;
    auto cells = split_csv_line(line);
    if (cells.size() > t.columns.size())
      throw std::runtime_error(fmt::format("{}:{}: {} cells, but the header has {} columns", origin, n, cells.size(),
                                           t.columns.size()));
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < cells.size(); ++i)
      row[t.columns[i]] = cells[i];
    t.rows.push_back(std::move(row));
  }
  return t;
}

CsvTable read_csv(const std::filesystem::path& file)
{
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec))
    throw std::runtime_error(fmt::format("{}: is a folder, not a CSV file", file.string()));
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw std::runtime_error(fmt::format("{}: cannot read the file", file.string()));
  std::ostringstream s;
  s << in.rdbuf();
  return parse_csv(s.str(), file.string());
}

} // namespace nafsim::results
