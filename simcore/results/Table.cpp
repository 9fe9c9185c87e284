#include "simcore/results/Table.hpp"

#include <fmt/format.h>
#include <stdexcept>

namespace nafsim::results {

Table::Table(std::string name, std::vector<std::string> columns) : name_(std::move(name)), columns_(std::move(columns))
{
}

Table& Table::row()
{
  if (!rows_.empty() && rows_.back().size() != columns_.size())
    throw std::logic_error(fmt::format("table {}: row {} has {} cells for {} columns", name_, rows_.size(),
                                       rows_.back().size(), columns_.size()));
  rows_.emplace_back();
  rows_.back().reserve(columns_.size());
  return *this;
}

Table& Table::add(std::string_view text)
{
  if (rows_.empty() || rows_.back().size() >= columns_.size())
    throw std::logic_error(fmt::format("table {}: too many cells in a row", name_));
  rows_.back().emplace_back(text);
  return *this;
}

Table& Table::add(std::int64_t v)
{
  return add(std::string_view(fmt::format("{}", v)));
}

Table& Table::add(std::uint64_t v)
{
  return add(std::string_view(fmt::format("{}", v)));
}

Table& Table::add(double v, int decimals)
{
  return add(std::string_view(fmt::format("{:.{}f}", v, decimals)));
}

std::string Table::csv() const
{
  auto quote = [](const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos)
      return s;
    std::string q = "\"";
    for (char c : s)
      q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  std::string out;
  for (std::size_t i = 0; i < columns_.size(); ++i)
    out += (i ? "," : "") + quote(columns_[i]);
  out += "\n";
  for (auto const& r : rows_) {
    if (r.size() != columns_.size())
      throw std::logic_error(fmt::format("table {}: incomplete row", name_));
    for (std::size_t i = 0; i < r.size(); ++i)
      out += (i ? "," : "") + quote(r[i]);
    out += "\n";
  }
  return out;
}

} // namespace nafsim::results
