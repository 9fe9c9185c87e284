#pragma once
// A result table: named columns, rows of cells formatted once (fixed precision, so that the same
// run always writes the same bytes). Components emit Tables; only the ResultSink writes files.
// Rows are kept as their CSV text (about 8 bytes a cell instead of a 32-byte string object each): a run with
// a row per rank per call holds its tables until they are written.

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
  /// Rows added so far (the last one possibly incomplete).
  std::size_t row_count() const { return rows_; }
  /// CSV text (RFC 4180 quoting where needed).
  std::string csv() const;

private:
  std::string name_;
  std::vector<std::string> columns_;
  std::string text_;         ///< the rows' CSV text
  std::size_t rows_  = 0;
  std::size_t cells_ = 0;    ///< cells of the last row so far
};

} // namespace nafsim::results
