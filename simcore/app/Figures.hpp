#pragma once
// `nafsim figures [NAME ...]`: re-runs the sweeps behind the papers' figures
// (python-free-tools/figures/<name>.json), builds each figure's table (with the measured reference
// points and the error per point where reference data exists), draws it with gnuplot
// (python-free-tools/figures/<name>.gp) as SVG and PNG, and writes the gallery page.
//
// Output (default results/figures/):
//   <name>.csv, <name>.svg, <name>.png   the figure, its data
//   <name>-errors.csv                    model vs measured per point (figures with reference data)
//   runs/<name>/                         the sweep behind it (points, logs, merged tables)
// The figure `scale` has no sweep: it draws what `nafsim bench` wrote (FigureOptions::bench).
//   ../gallery.md                        every figure with its summary table

#include "workloads/WorkloadRegistry.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace nafsim::app {

struct FigureOptions {
  std::vector<std::string> names;       ///< empty: every figure
  std::filesystem::path out;            ///< figure directory
  std::filesystem::path source;         ///< the nafsim source tree (sweeps and gnuplot templates)
  std::filesystem::path reference;      ///< measured data (shared/reference/accl); may be absent
  std::filesystem::path bench;          ///< `nafsim bench` output, for the figure `scale`
  std::filesystem::path gallery;        ///< the gallery page (default: out/gallery.md; never a tracked file unless asked)
  std::string program;                  ///< the nafsim executable, for the sweeps' child processes
  unsigned jobs = 1;
  bool progress = false;
};

struct FigureInfo {
  std::string name;
  std::string title;
};
/// Every figure `nafsim figures` knows.
const std::vector<FigureInfo>& figure_list();

/// Run, tabulate and draw the selected figures; returns the process exit code (0, or 3 if a sweep
/// point or gnuplot failed). Throws config::ConfigError for an unknown figure name.
int run_figures(const FigureOptions& opt, const workloads::WorkloadRegistry& reg);

} // namespace nafsim::app
