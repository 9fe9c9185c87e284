#include "simcore/app/Plot.hpp"

#include "simcore/app/Gnuplot.hpp"
#include "simcore/config/ConfigError.hpp"
#include "simcore/results/CsvReader.hpp"
#include "simcore/results/OutputDir.hpp"
#include "simcore/units/Units.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <unistd.h>

namespace fs = std::filesystem;

namespace nafsim::app {

namespace {

void need_column(const results::CsvTable& t, const std::string& col, const std::string& option, const std::string& csv)
{
  if (std::find(t.columns.begin(), t.columns.end(), col) == t.columns.end())
    throw config::ConfigError(option, "",
                              fmt::format("{} has no column '{}'; its columns are: {}", csv, col,
                                          fmt::join(t.columns, ", ")));
}

/// The number in a cell, or nothing if the cell is empty (a failed sweep point); an error if it is not a number.
std::optional<double> number(const std::string& cell, const std::string& col, std::size_t row, const std::string& option,
                             const std::string& csv)
{
  if (cell.empty())
    return std::nullopt;
  char* end = nullptr;
  double v  = std::strtod(cell.c_str(), &end);
  if (end != cell.c_str() + cell.size())
    throw config::ConfigError(option, "",
                              fmt::format("{} row {}: column '{}' holds '{}', not a number: plot numeric columns on x "
                                          "and y (a text column can be a --series or a --facet)",
                                          csv, row + 2, col, cell));
  return v;
}

struct Series {
  std::vector<std::pair<double, double>> points;
};
/// Names in natural order: numbers by value (ranks 2 before 10), quantities with a unit by value too (a swept
/// rate's 25Gbps before 100Gbps, 1Tbps after them; sizes and durations alike), then text.
struct NaturalLess {
  /// The value of a plain number (kind 0) or of a size, a rate or a duration in nafsim's units (kinds 1-3).
  static std::optional<std::pair<int, double>> value(const std::string& s)
  {
    char* end = nullptr;
    double v  = std::strtod(s.c_str(), &end);
    if (s.empty() || end == s.c_str())
      return std::nullopt;
    if (end == s.c_str() + s.size())
      return std::pair{0, v};
    try { // the parsers throw a UnitError on a text that is not theirs
      return std::pair{1, static_cast<double>(parse_bytes(s).count)};
    } catch (const UnitError&) {
    }
    try {
      return std::pair{2, parse_rate(s).bps};
    } catch (const UnitError&) {
    }
    try {
      return std::pair{3, static_cast<double>(parse_time(s).ps())};
    } catch (const UnitError&) {
    }
    return std::nullopt;
  }
  bool operator()(const std::string& a, const std::string& b) const
  {
    // (kind, value, text): a strict weak order, as std::map needs (numbers, then sizes, rates, durations, then text)
    auto va = value(a), vb = value(b);
    if (va.has_value() != vb.has_value())
      return va.has_value();
    if (va && *va != *vb)
      return *va < *vb;
    return a < b;
  }
};
} // namespace

bool natural_less(const std::string& a, const std::string& b) { return NaturalLess{}(a, b); }

namespace {

struct Panel {
  std::map<std::string, Series, NaturalLess> series;
};

/// A column that counts bytes (its values drawn as 512 B, 4 KiB, ...).
bool is_bytes(const std::string& col)
{
  auto ends = [&](const std::string& suffix) {
    return col.size() >= suffix.size() && col.compare(col.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return col == "bytes" || col == "size" || ends("_bytes") || ends("_size");
}

} // namespace

std::string axis_label(const std::string& column)
{
  // Longer suffixes first: a rate per second ends in "_s" too.
  static const std::pair<const char*, const char*> units[] = {
      {"_gbytes_per_s", "GB/s"}, {"_gbytes_s", "GB/s"}, {"_per_s", "per s"}, {"_us", "us"},   {"_ns", "ns"},
      {"_ms", "ms"},             {"_s", "s"},           {"_gbps", "Gb/s"},   {"_mbps", "Mb/s"}, {"_pct", "%"},
      {"_bytes", "bytes"},       {"_mib", "MiB"}};
  if (column == "bytes" || column == "size")
    return "size [bytes]";
  for (auto const& [suffix, unit] : units) {
    const std::string sfx = suffix;
    if (column == sfx.substr(1))
      return fmt::format("[{}]", unit); // the unit alone names the column (gbytes_per_s)
    if (column.size() > sfx.size() && column.compare(column.size() - sfx.size(), sfx.size(), sfx) == 0) {
      std::string base = column.substr(0, column.size() - sfx.size());
      std::replace(base.begin(), base.end(), '_', ' ');
      return fmt::format("{} [{}]", base, unit);
    }
  }
  std::string s = column;
  std::replace(s.begin(), s.end(), '_', ' ');
  return s;
}

std::string bytes_label(double v)
{
  static const char* names[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int k = 0;
  while (k < 4 && std::abs(v) >= 1024) {
    v /= 1024;
    ++k;
  }
  return fmt::format("{:.3g} {}", v, names[k]);
}

namespace {

using Filters = std::vector<std::pair<std::string, std::string>>;

/// The columns the options name, checked against the table; returns --where's filters.
Filters check_columns(const results::CsvTable& t, const PlotOptions& o)
{
  need_column(t, o.x, "--x", o.csv);
  need_column(t, o.y, "--y", o.csv);
  for (auto const& s : o.series)
    need_column(t, s, "--series", o.csv);
  if (!o.facet.empty())
    need_column(t, o.facet, "--facet", o.csv);
  Filters filters;
  for (auto const& w : o.where) {
    auto eq = w.find('=');
    if (eq == std::string::npos || eq == 0)
      throw config::ConfigError("--where", "", fmt::format("'{}' is not COLUMN=VALUE (e.g. --where protocol=eager)", w));
    filters.emplace_back(w.substr(0, eq), w.substr(eq + 1));
    need_column(t, filters.back().first, "--where", o.csv);
  }
  return filters;
}

/// --out, or the CSV's name with the axes' columns, checked: a PNG or SVG in a folder that can be made.
fs::path output_path(const PlotOptions& o)
{
  fs::path out = o.out.empty() ? fs::path(o.csv).parent_path() / fmt::format("{}-{}-vs-{}.png", fs::path(o.csv).stem().string(), o.y, o.x)
                               : fs::path(o.out);
  require_printable_name(out, "--out", "the output name");
  const std::string ext = out.extension().string();
  if (ext != ".png" && ext != ".svg")
    throw config::ConfigError("--out", "", fmt::format("{}: the plot is drawn as PNG or SVG: end the name in .png or .svg",
                                                       out.string()));
  if (out.has_parent_path())
    results::check_creatable(out.parent_path(), "--out", "");
  std::error_code ec;
  const auto st = fs::status(out, ec);
  if (fs::is_directory(st))
    throw config::ConfigError("--out", "", fmt::format("{} is a folder: name the plot's file (a .png or .svg in it)",
                                                       out.string()));
  // A file of the default name is replaced only when plot drew it there (the folder's list of plots); --out names
  // the file to replace.
  if (o.out.empty() && fs::exists(st) && !results::listed_plot(out))
    throw config::ConfigError("--out", "",
                              fmt::format("{} exists and plot did not draw it: give --out {} to replace it, or "
                                          "another name",
                                          out.string(), out.string()));
  return out;
}

using Panels = std::map<std::string, Panel, NaturalLess>;

/// Rows -> panels -> series -> points; `kept` and `empty` count the rows drawn and those without a value.
Panels group_rows(const results::CsvTable& t, const PlotOptions& o, const Filters& filters, std::size_t& kept,
                  std::size_t& empty, std::size_t& off_log)
{
  Panels panels;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    bool keep = true;
    for (auto const& [col, val] : filters)
      keep = keep && t.cell(i, col) == val;
    if (!keep)
      continue;
    auto x = number(t.cell(i, o.x), o.x, i, "--x", o.csv);
    auto y = number(t.cell(i, o.y), o.y, i, "--y", o.csv);
    if (!x || !y) {
      ++empty;
      continue;
    }
    if ((o.logx && *x <= 0) || (o.logy && *y <= 0)) { // (a log axis has no place for it: gnuplot drops it unsaid)
      ++off_log;
      continue;
    }
    std::vector<std::string> parts;
    for (auto const& s : o.series)
      parts.push_back(o.series.size() == 1 ? t.cell(i, s) : s + "=" + t.cell(i, s));
    const std::string name = parts.empty() ? o.y : fmt::format("{}", fmt::join(parts, ", "));
    const std::string panel = o.facet.empty() ? "" : t.cell(i, o.facet);
    panels[panel].series[name].points.emplace_back(*x, *y);
    ++kept;
  }
  if (kept == 0)
    throw config::ConfigError(filters.empty() ? "csv" : "--where", "",
                              fmt::format("no row of {} has numbers in '{}' and '{}'{}{}: nothing to draw", o.csv, o.x,
                                          o.y, filters.empty() ? "" : " and passes the --where filters",
                                          off_log ? fmt::format(" ({} row(s) with a value <= 0 on a log axis)", off_log)
                                                  : ""));

  return panels;
}

/// The axes' settings: labels, log scales, number formats, a byte axis's tics, a shared y range.
std::string axis_settings(const Panels& panels, const PlotOptions& o, const std::string& xlabel,
                          const std::string& ylabel)
{
  std::string script;
  script += "set grid\n";
  if (o.legend == "below")
    script += "set key below horizontal center\n";
  else if (o.legend == "right")
    script += "set key outside right top vertical\n";
  else if (o.legend == "inside")
    script += "set key inside top left vertical opaque\n";
  else
    script += "unset key\n";
  script += fmt::format("set xlabel {}\nset ylabel {}\n", gp_text(xlabel), gp_text(ylabel));
  if (o.logx)
    script += "set logscale x 2\n";
  if (o.logy)
    script += "set logscale y\n";
  // Numbers as numbers (1000000, not 1e+06); a byte axis in KiB / MiB at the values drawn (at most 12 of them).
  script += "set format x '%.10g'\nset format y '%.10g'\n";
  std::vector<double> xs, ys;
  for (auto const& [pname, panel] : panels)
    for (auto const& [sname, se] : panel.series)
      for (auto [x, y] : se.points) {
        xs.push_back(x);
        ys.push_back(y);
      }
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  if (is_bytes(o.x) && !xs.empty()) {
    const std::size_t step = (xs.size() + 11) / 12;
    std::vector<std::string> tics;
    for (std::size_t i = 0; i < xs.size(); i += step)
      tics.push_back(fmt::format("{} {:.12g}", gp_text(bytes_label(xs[i])), xs[i]));
    script += fmt::format("set xtics ({}) rotate by -30\n", fmt::join(tics, ", "));
    // A margin each side, so the outer tick labels are not cut by the frame.
    const double lo = xs.front(), hi = xs.back();
    if (o.logx && lo > 0)
      script += fmt::format("set xrange [{:.12g}:{:.12g}]\n", lo / 1.25, hi * 1.25);
    else if (hi > lo)
      script += fmt::format("set xrange [{:.12g}:{:.12g}]\n", lo - (hi - lo) * 0.04, hi + (hi - lo) * 0.04);
  }
  if (o.shared_y && !ys.empty()) { // one y range over every panel, so panels compare at a glance
    auto [lo, hi] = std::minmax_element(ys.begin(), ys.end());
    double a = *lo, b = *hi;
    if (o.logy) {
      a = std::max(a, 1e-300);
      script += fmt::format("set yrange [{:.12g}:{:.12g}]\n", a / 1.2, b * 1.2);
    } else {
      const double pad = (b - a) * 0.05 + (b == a ? std::max(1.0, std::abs(a) * 0.05) : 0.0);
      script += fmt::format("set yrange [{:.12g}:{:.12g}]\n", a >= 0 ? 0.0 : a - pad, b + pad); // from 0 when >= 0
    }
  }
  return script;
}

/// The gnuplot script: the data inline (datablocks), the axes, one panel per facet value in a grid of `cols`.
std::string gnuplot_script(Panels& panels, const PlotOptions& o, std::size_t cols, std::size_t rows)
{
  std::string script;
  std::size_t block = 0;
  std::vector<std::vector<std::pair<std::string, std::string>>> plots; // per panel: (datablock, title)
  for (auto& [pname, panel] : panels) {
    plots.emplace_back();
    for (auto& [sname, s] : panel.series) {
      std::sort(s.points.begin(), s.points.end());
      const std::string db = fmt::format("$d{}", block++);
      script += db + " << EOD\n";
      for (auto [x, y] : s.points)
        script += fmt::format("{:.12g} {:.12g}\n", x, y);
      script += "EOD\n";
      plots.back().emplace_back(db, sname);
    }
  }
  const std::size_t n = panels.size();
  const std::string xlabel = o.xlabel.empty() ? axis_label(o.x) : o.xlabel;
  const std::string ylabel = o.ylabel.empty() ? axis_label(o.y) : o.ylabel;
  const std::string title  = o.title.empty()
                                 ? fmt::format("{} vs {} ({})", ylabel, xlabel, fs::path(o.csv).filename().string())
                                 : o.title;
  script += axis_settings(panels, o, xlabel, ylabel);
  if (n > 1)
    script += fmt::format("set multiplot layout {},{} title {}\n", rows, cols, gp_text(title));
  std::size_t k = 0;
  for (auto const& [pname, panel] : panels) {
    script += fmt::format("set title {}\n", gp_text(n > 1 ? o.facet + " = " + pname : title));
    std::vector<std::string> parts;
    for (auto const& [db, sname] : plots[k])
      parts.push_back(fmt::format("{} using 1:2 with linespoints title {}", db, gp_text(sname)));
    script += fmt::format("plot {}\n", fmt::join(parts, ", \\\n     "));
    ++k;
  }
  if (n > 1)
    script += "unset multiplot\n";

  return script;
}

/// Runs gnuplot on `script` into `out` (a size of `cols` x `rows` panels), by rename: a failure leaves an existing
/// `out` whole.
void draw(const std::string& script, const fs::path& out, std::size_t cols, std::size_t rows, const std::string& csv)
{
  const std::string ext = out.extension().string();
  const fs::path tmp = fs::temp_directory_path() / fmt::format("nafsim-plot-{}", ::getpid());
  fs::create_directories(tmp);
  {
    std::ofstream f(tmp / "plot.gp");
    f << script;
  }
  const std::string size = fmt::format("{},{}", 640 * cols + 160, 420 * rows);
  const std::string term = ext == ".svg" ? fmt::format("svg size {} dynamic noenhanced font 'sans,11'", size)
                                         : fmt::format("pngcairo size {} noenhanced font 'sans,10'", size);
  // gnuplot draws into a file beside --out, renamed over it once drawn: a failure leaves an existing --out whole
  // and no partial file, and the scratch folder goes either way (gnuplot's own words go into the error).
  const fs::path drawing = out.parent_path() / fmt::format(".{}.nafsim-{}{}", out.stem().string(), ::getpid(), ext);
  if (out.has_parent_path())
    fs::create_directories(out.parent_path()); // (output_path checked that it can be made)
  const std::string err =
      gnuplot(fmt::format("set terminal {}; set output {}", term, gp_quote(drawing.string())), tmp / "plot.gp",
              tmp / "gnuplot.log");
  if (!err.empty()) {
    std::string said;
    {
      std::ifstream log(tmp / "gnuplot.log");
      for (std::string line; std::getline(log, line);)
        if (!line.empty())
          said = line; // gnuplot's last word: the reason
    }
    std::error_code ec;
    fs::remove(drawing, ec);
    fs::remove_all(tmp, ec);
    throw config::ConfigError(csv, "",
                              fmt::format("gnuplot could not draw this data{}: check the columns' values (a value "
                                          "gnuplot cannot scale, such as +-1e308, stops it); {} was left as it was",
                                          said.empty() ? "" : " (" + said + ")", out.string()));
  }
  fs::rename(drawing, out);
  fs::remove_all(tmp);
}

} // namespace

int plot_command(const PlotOptions& o)
{
  results::CsvTable t;
  try {
    t = results::read_csv(o.csv);
  } catch (const std::runtime_error& e) { // unreadable, or not CSV: the user's input
    throw config::ConfigError("csv", "", std::string(e.what()) + ": give a CSV table with a header line (a run's or a merged sweep's)");
  }
  if (t.columns.empty() || (t.columns.size() == 1 && t.columns[0].empty()))
    throw config::ConfigError("csv", "", fmt::format("{} is empty: give a CSV table with a header line (a run's or a "
                                                     "merged sweep's)",
                                                     o.csv));
  const Filters filters = check_columns(t, o);
  const fs::path out    = output_path(o);
  std::size_t kept = 0, empty = 0, off_log = 0;
  Panels panels = group_rows(t, o, filters, kept, empty, off_log);
  const std::size_t n = panels.size();
  const std::size_t cols = n <= 1 ? 1 : n <= 4 ? 2 : 3, rows = (n + cols - 1) / cols;
  // A panel is 420 pixels high and the PNG renderer (Cairo) draws no image taller than 32,767: more rows than fit
  // would fail inside gnuplot, with advice about the values that would be wrong. (SVG has no such bound.)
  constexpr std::size_t kMaxRows = 32767 / 420;
  if (rows > kMaxRows && out.extension() == ".png")
    throw config::ConfigError("--facet", "",
                              fmt::format("'{}' has {} values to draw, one panel each: at most {} panels ({} rows of "
                                          "{}) fit one PNG image; keep some with --where {}=VALUE, draw '{}' as a "
                                          "--series, facet by a column with fewer values, or draw an .svg",
                                          o.facet, n, kMaxRows * cols, kMaxRows, cols, o.facet, o.facet));
  draw(gnuplot_script(panels, o, cols, rows), out, cols, rows, o.csv);
  // In a run's folder a rerun replaces the folder whole, plots and all (they drew its old results); in any folder
  // the list says which files plot drew, which a plot without --out may replace.
  results::note_plot(out);
  std::size_t nseries = 0;
  for (auto const& [pname, panel] : panels)
    nseries += panel.series.size();
  std::cout << fmt::format("plotted {} point(s) in {} series{} into {}{}{}\n", kept, nseries,
                           n > 1 ? fmt::format(" and {} panels", n) : "", out.string(),
                           empty ? fmt::format(" ({} row(s) without a value left out)", empty) : "",
                           off_log ? fmt::format(" ({} row(s) with a value <= 0 left off the log axis)", off_log) : "");
  return 0;
}

} // namespace nafsim::app
