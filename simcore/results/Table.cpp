#include "simcore/results/Table.hpp"

#include <fmt/format.h>
#include <stdexcept>

namespace nafsim::results {

Table::Table(std::string name, std::vector<std::string> columns) : name_(std::move(name)), columns_(std::move(columns))
{
}

namespace {

void append_quoted(std::string& out, std::string_view s)
{
  if (s.find_first_of(",\"\n") == std::string_view::npos) {
    out += s;
    return;
  }
  out += '"';
  for (char c : s) {
    if (c == '"')
      out += '"';
    out += c;
  }
  out += '"';
}

} // namespace

Table& Table::row()
{
  if (rows_ > 0 && cells_ != columns_.size())
    throw std::logic_error(fmt::format("table {}: row {} has {} cells for {} columns", name_, rows_ - 1, cells_,
                                       columns_.size()));
  if (rows_ > 0)
    text_ += '\n';
  ++rows_;
  cells_ = 0;
  return *this;
}

Table& Table::add(std::string_view text)
{
  if (rows_ == 0 || cells_ >= columns_.size())
    throw std::logic_error(fmt::format("table {}: too many cells in a row", name_));
  if (cells_ > 0)
    text_ += ',';
  append_quoted(text_, text);
  ++cells_;
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
  if (rows_ > 0 && cells_ != columns_.size())
    throw std::logic_error(fmt::format("table {}: incomplete row", name_));
  std::string out;
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    if (i)
      out += ',';
    append_quoted(out, columns_[i]);
  }
  out += '\n';
  out.reserve(out.size() + text_.size() + 1);
  out += text_;
  if (rows_ > 0)
    out += '\n';
  return out;
}

} // namespace nafsim::results
