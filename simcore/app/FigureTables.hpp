#pragma once
// Internal to simcore/app: the tables behind `nafsim figures`. Each builder turns the merged result
// table of a figure's sweep (and, for comparisons, its software-MPI companion sweep) into the
// figure's CSV, its model-vs-measured errors and its gallery text. AcclFigures.cpp: the ACCL+
// figures; LantFigures.cpp: Lant et al.'s. Figures.cpp runs the sweeps, gnuplot and the gallery.

#include "simcore/results/CsvReader.hpp"
#include "simcore/results/Table.hpp"

#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <set>
#include <fmt/format.h>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nafsim::app::figtab {

using results::CsvTable;

inline double num(const std::string& s)
{
  return s.empty() ? std::nan("") : std::stod(s);
}

inline std::string fixed(double v, int decimals)
{
  return std::isnan(v) ? std::string() : fmt::format("{:.{}f}", v, decimals);
}

inline double error_pct(double model, double measured)
{
  return (std::isnan(model) || std::isnan(measured) || measured == 0) ? std::nan("") : 100 * (model - measured) / measured;
}

inline std::string size_label(std::uint64_t b)
{
  if (b >= (1u << 20) && b % (1u << 20) == 0)
    return fmt::format("{} MiB", b >> 20);
  if (b >= 1024 && b % 1024 == 0)
    return fmt::format("{} KiB", b >> 10);
  return fmt::format("{} B", b);
}

/// What a figure builder produces besides its CSV.
struct Built {
  results::Table data{"", {}};
  std::optional<results::Table> errors;
  std::vector<std::string> gallery; ///< markdown lines
};

/// Measured ACCL+ numbers, when the reference directory has them.
struct Reference {
  bool present = false;
  std::string where;
  CsvTable by_rank, throughput, invocation, f2f_breakdown;
  CsvTable tcp_by_rank;   ///< tcp_xrt_sendrecv_by_rank_us.csv (empty when absent)
  CsvTable mpi_sendrecv;  ///< mpi_rdma_sendrecv_latency_us.csv (empty when absent)
  static Reference load(const std::filesystem::path& dir)
  {
    Reference r;
    r.where = dir.string();
    try {
      r.by_rank    = results::read_csv(dir / "sendrecv_latency_by_rank_us.csv");
      r.throughput = results::read_csv(dir / "sendrecv_throughput_gbps.csv");
      r.invocation = results::read_csv(dir / "invocation_latency_us.csv");
      r.f2f_breakdown = results::read_csv(dir / "mpi_bcast_8ranks_fpga_data_breakdown_us.csv");
      r.present    = true;
    } catch (const std::exception&) {
      r.present = false;
    }
    // The point-to-point files of the baselines came later: each is optional on its own.
    auto optional = [&](CsvTable& t, const char* file) {
      try {
        if (r.present)
          t = results::read_csv(dir / file);
      } catch (const std::exception&) {
        t = CsvTable{};
      }
    };
    optional(r.tcp_by_rank, "tcp_xrt_sendrecv_by_rank_us.csv");
    optional(r.mpi_sendrecv, "mpi_rdma_sendrecv_latency_us.csv");
    return r;
  }
  /// Median of `table` (tcp_by_rank, mpi_sendrecv) where every (column, value) of `match` holds; NaN if absent.
  static double median_of(const CsvTable& table, const std::vector<std::pair<std::string, std::string>>& match)
  {
    for (std::size_t i = 0; i < table.rows.size(); ++i) {
      bool all = true;
      for (auto const& [c, v] : match)
        all = all && table.cell(i, c) == v;
      if (all)
        return num(table.cell(i, "median_us"));
    }
    return std::nan("");
  }
  /// Mean send/recv latency of `rank` (0 = sender, 1 = receiver: its own CCLO counter); NaN if absent.
  double sendrecv_latency(const std::string& location, const std::string& protocol, std::uint64_t bytes,
                          unsigned rank) const
  {
    const std::string p = protocol == "rendezvous" ? "rndzvs" : "eager";
    for (std::size_t i = 0; i < by_rank.rows.size(); ++i)
      if (by_rank.cell(i, "data_location") == location && by_rank.cell(i, "protocol") == p &&
          by_rank.cell(i, "size_B") == std::to_string(bytes) && by_rank.cell(i, "rank") == std::to_string(rank))
        return num(by_rank.cell(i, "mean_us"));
    return std::nan("");
  }
  /// Column `column` of the F2F breakdown (Fig. 9) at `bytes`; NaN if absent.
  double f2f(std::uint64_t bytes, const std::string& column) const
  {
    for (std::size_t i = 0; i < f2f_breakdown.rows.size(); ++i)
      if (f2f_breakdown.cell(i, "size_B") == std::to_string(bytes))
        return num(f2f_breakdown.cell(i, column));
    return std::nan("");
  }
  double sendrecv_throughput(const std::string& column, std::uint64_t bytes) const
  {
    for (std::size_t i = 0; i < throughput.rows.size(); ++i)
      if (throughput.cell(i, "size_B") == std::to_string(bytes))
        return num(throughput.cell(i, column));
    return std::nan("");
  }
};

/// The other side of a comparison: the merged table of the figure's companion sweep (the software-MPI side,
/// python-free-tools/figures/<name>-mpi.json; flow-accuracy: its traffic, <name>-traffic.json); empty for figures
/// without one.
using Companion = CsvTable;

/// Rows of a merged collective table (first iteration of each point and size).
inline std::vector<std::map<std::string, std::string>> first_iterations(const CsvTable& t)
{
  std::vector<std::map<std::string, std::string>> v;
  for (auto const& r : t.rows)
    if (r.count("iteration") && r.at("iteration") == "0")
      v.push_back(r);
  return v;
}

/// The first iteration's rows of a merged collective table, each measurement (a column ending in _us, _gbps or
/// _pct) the mean over the iterations of its point and size: a figure set against measured means over runs compares
/// means, not one draw of the host invocation's jitter (HostInvocation). A table of one iteration: its rows as they are.
inline std::vector<std::map<std::string, std::string>> iteration_means(const CsvTable& t)
{
  auto measure = [](const std::string& c) {
    auto ends = [&](const char* s) {
      const std::string x = s;
      return c.size() > x.size() && c.compare(c.size() - x.size(), x.size(), x) == 0;
    };
    return ends("_us") || ends("_gbps") || ends("_pct");
  };
  auto key = [&](const std::map<std::string, std::string>& r) {
    std::string k;
    for (auto const& [c, v] : r)
      if (c != "iteration" && !measure(c))
        k += c + "=" + v + ";";
    return k;
  };
  std::map<std::string, std::pair<std::map<std::string, double>, int>> sums;
  for (auto const& r : t.rows) {
    if (!r.count("iteration"))
      continue;
    auto& [sum, n] = sums[key(r)];
    for (auto const& [c, v] : r)
      if (measure(c) && !v.empty())
        sum[c] += std::strtod(v.c_str(), nullptr);
    ++n;
  }
  std::vector<std::map<std::string, std::string>> v;
  for (auto r : first_iterations(t)) {
    auto const& [sum, n] = sums.at(key(r));
    if (n > 1)
      for (auto& [c, cell] : r)
        if (measure(c) && !cell.empty())
          cell = fmt::format("{:.4f}", sum.at(c) / n);
    v.push_back(std::move(r));
  }
  return v;
}

/// A latency and the scope it stands for (which rank or ranks).
struct Scoped {
  std::string value;
  std::string scope;
};

/// What the ACCL+ benchmark's plots show for a collective-table row (zhenhaohe/ACCL
/// test/host/Coyote/run_scripts/plot.py, read_accl_log_files and generate_time_*_plots: each rank logs
/// its counter; the plots average over the logged rows, after dropping every rank but 0 for reduce
/// and gather): the root's counter for reduce and gather, the mean over ranks otherwise.
inline Scoped benchmark_scope(const std::map<std::string, std::string>& r)
{
  auto const& c = r.at("collective");
  if ((c == "reduce" || c == "gather") && r.count("root_latency_us") && r.at("root") == "0")
    return {r.at("root_latency_us"), "root (rank 0)"};
  if (r.count("latency_mean_us"))
    return {r.at("latency_mean_us"), "mean over ranks"};
  return {r.at("latency_us"), "slowest rank"};
}

/// The benchmark build a row ran with: "eager" (Rx buffers of 4 MiB, max_eager_size above every
/// message) or "rendezvous" (64 B Rx buffers), from the sweep's platform.node.fpga.cclo.build axis; without that
/// axis, the protocol the firmware ran.
inline std::string benchmark_build(const std::map<std::string, std::string>& r)
{
  auto it = r.find("platform.node.fpga.cclo.build");
  if (it == r.end())
    return r.at("protocol");
  return it->second;
}

// ---- the builders ----
Built fig7(const CsvTable& merged, const Reference& ref, const Companion& mpi);
Built fig8(const CsvTable& merged, const Reference& ref);
Built fig9(const CsvTable& merged, const Reference& ref);
Built fig9_copies(const CsvTable& merged, const Reference& ref);
/// ACCL+ Fig. 10 / 11 style (`name`): 8-rank collectives, CCLO and software MPI.
Built collectives(const std::string& name, const CsvTable& merged, const Companion& mpi);
Built fig12(const CsvTable& merged, const Companion& mpi);
/// ACCL+ Fig. 13 style: gather and reduce over TCP, CCLO (device and host data) vs MPICH over TCP.
Built fig13(const CsvTable& merged, const Companion& mpi);
/// Latencies (us) labelled with the algorithm that ran (or any note), by row (two labels) and column key.
using Cell = std::pair<double, std::string>;
using Grid = std::map<std::pair<std::string, std::string>, std::map<std::uint64_t, Cell>>;
/// `grid` as a markdown table: `corner` names the two row-label columns, rows in `order` (those
/// with data), one column per key of `columns`; "-" where a run is missing.
void grid_lines(std::vector<std::string>& g, const std::string& corner,
                const std::vector<std::pair<std::string, std::string>>& order, const std::set<std::uint64_t>& columns,
                const std::function<std::string(std::uint64_t)>& label, const Grid& grid);

/// CalibrationFigures.cpp: the baselines' point-to-point calibration, model against the measured medians.
/// ACCL over XRT and the 100G TCP stack (platforms/accl-xrt-u55c.json): each rank's own time in the three scopes.
Built tcp_sendrecv(const CsvTable& merged, const Reference& ref);
/// Open MPI over UCX and the hosts' RoCE (platforms/accl-cpu-cx5.json): the pair's send/recv time.
Built mpi_sendrecv(const CsvTable& merged, const Reference& ref);

/// ACCL+ section 6 (AppFigures.cpp): the FC layer (ACCL+ and MPI fc tables) and DLRM vs the CPU baseline.
Built fig16(const CsvTable& accl, const Companion& mpi);
Built fig17(const CsvTable& merged);
/// PathFigures.cpp: where time goes (critical paths per resource).
Built where_time_goes(const CsvTable& merged);
/// FlowFigures.cpp: flow fidelity's error against packet fidelity (collectives; permutation traffic, the companion).
Built flow_accuracy(const CsvTable& coll, const Companion& traffic);
Built lant_fig7(const CsvTable& merged);
Built lant_hops(const CsvTable& merged);
Built lant_tables(const CsvTable& merged);
Built reconic_rdma(const CsvTable& merged);
Built pac_uq(const CsvTable& merged);
Built pac_nas(const CsvTable& merged);
Built pac_alltoall(const CsvTable& merged);
Built reconic_memory(const CsvTable& merged);

} // namespace nafsim::app::figtab
