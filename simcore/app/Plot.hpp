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
  std::string title; ///< figure title (default: the CSV's name)
};

/// Draw the plot; bad input throws config::ConfigError naming the option (exit 2). Returns 0.
int plot_command(const PlotOptions& o);

} // namespace nafsim::app
