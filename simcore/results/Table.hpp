#pragma once
// A result table: named columns, rows of cells formatted once (fixed precision, so that the same
// run always writes the same bytes). Components emit Tables; only the ResultSink writes files.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace nafsim::results {

class Table {
public:
  Table(std::string name, std::vector<std::string> columns);

  /// Start a row; then add one cell per column, in order.
  Table& row();
  Table& add(std::string_view text);
  Table& add(std::int64_t v);
  Table& add(std::uint64_t v);
  Table& add(int v) { return add(static_cast<std::int64_t>(v)); }
  Table& add(unsigned v) { return add(static_cast<std::uint64_t>(v)); }
  /// A real number with `decimals` digits after the point.
  Table& add(double v, int decimals);

  const std::string& name() const { return name_; }
  const std::vector<std::string>& columns() const { return columns_; }
  const std::vector<std::vector<std::string>>& rows() const { return rows_; }
  /// CSV text (RFC 4180 quoting where needed).
  std::string csv() const;

private:
  std::string name_;
  std::vector<std::string> columns_;
  std::vector<std::vector<std::string>> rows_;
};

} // namespace nafsim::results
