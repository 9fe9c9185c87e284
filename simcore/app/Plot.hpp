#pragma once
// `nafsim plot`: draw any results CSV (a run's table or a merged sweep's) with gnuplot, PNG or SVG.

#include <string>
#include <vector>

namespace nafsim::app {

struct PlotOptions {
  std::string csv;                 ///< the table
  std::string x, y;                ///< numeric columns
  std::vector<std::string> series; ///< one line per combination of these columns' values
  std::string facet;               ///< one panel per value of this column ("": one panel)
  std::vector<std::string> where;  ///< keep rows where column=value (all must hold)
  bool logx = false, logy = false;
  std::string out;   ///< .png or .svg (default: beside the CSV, <stem>-<y>-vs-<x>.png)
  std::string title;  ///< figure title (default: "<y label> vs <x label>" and the CSV's name)
  std::string xlabel; ///< axis labels (default: from the column names, units in brackets: latency_us -> latency [us])
  std::string ylabel;
  std::string legend = "below"; ///< below, right, inside or none
  bool shared_y = false;        ///< facets share one y range (default: each its own)
};

/// An axis label from a column name: underscores as spaces, a unit suffix in brackets (latency_us -> "latency [us]",
/// throughput_gbps -> "throughput [Gb/s]", bytes -> "size [bytes]").
std::string axis_label(const std::string& column);
/// A byte count as a tick label: 512 B, 4 KiB, 1 MiB, 1.5 GiB.
std::string bytes_label(double v);

/// The order of series and panels: numbers by value (2 before 10), quantities with one of nafsim's units by value
/// within their kind (25Gbps before 100Gbps and 1Tbps, 512B before 4KiB), then text.
bool natural_less(const std::string& a, const std::string& b);

/// Draw the plot; bad input throws config::ConfigError naming the option (exit 2). Returns 0.
int plot_command(const PlotOptions& o);

} // namespace nafsim::app
