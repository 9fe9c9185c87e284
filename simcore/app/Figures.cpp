#include "simcore/app/Figures.hpp"

#include "simcore/app/Scenario.hpp"
#include "simcore/config/ConfigError.hpp"
#include "simcore/results/CsvReader.hpp"
#include "simcore/results/ResultSink.hpp"
#include "simcore/results/Table.hpp"
#include "simcore/sweep/SweepRunner.hpp"

#include <cmath>
#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace nafsim::app {

namespace {

using results::CsvTable;

double num(const std::string& s)
{
  return s.empty() ? std::nan("") : std::stod(s);
}

std::string fixed(double v, int decimals)
{
  return std::isnan(v) ? std::string() : fmt::format("{:.{}f}", v, decimals);
}

double error_pct(double model, double measured)
{
  return (std::isnan(model) || std::isnan(measured) || measured == 0) ? std::nan("") : 100 * (model - measured) / measured;
}

std::string size_label(std::uint64_t b)
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
  CsvTable latency, throughput, invocation, f2f_breakdown;
  static Reference load(const fs::path& dir)
  {
    Reference r;
    r.where = dir.string();
    try {
      r.latency    = results::read_csv(dir / "sendrecv_latency_us.csv");
      r.throughput = results::read_csv(dir / "sendrecv_throughput_gbps.csv");
      r.invocation = results::read_csv(dir / "invocation_latency_us.csv");
      r.f2f_breakdown = results::read_csv(dir / "mpi_bcast_8ranks_fpga_data_breakdown_us.csv");
      r.present    = true;
    } catch (const std::exception&) {
      r.present = false;
    }
    return r;
  }
  double sendrecv_latency(const std::string& location, const std::string& protocol, std::uint64_t bytes) const
  {
    const std::string p = protocol == "rendezvous" ? "rndzvs" : "eager";
    for (std::size_t i = 0; i < latency.rows.size(); ++i)
      if (latency.cell(i, "data_location") == location && latency.cell(i, "protocol") == p &&
          latency.cell(i, "size_B") == std::to_string(bytes))
        return num(latency.cell(i, "mean_us"));
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

/// The software-MPI side of a comparison: the merged `mpi` table of the figure's companion sweep
/// (python-free-tools/figures/<name>-mpi.json); empty for figures without one.
using Companion = CsvTable;

/// Rows of a merged collective table (first iteration of each point and size).
std::vector<std::map<std::string, std::string>> first_iterations(const CsvTable& t)
{
  std::vector<std::map<std::string, std::string>> v;
  for (auto const& r : t.rows)
    if (r.count("iteration") && r.at("iteration") == "0")
      v.push_back(r);
  return v;
}

// ---------------- the figures ----------------

Built fig7(const CsvTable& merged, const Reference& ref, const Companion& mpi)
{
  Built b;
  b.data   = results::Table("accl-fig7", {"series", "bytes", "model_gbps", "measured_gbps", "gbps_error_pct",
                                          "model_latency_us", "measured_latency_us", "latency_error_pct"});
  b.errors = results::Table("accl-fig7-errors", {"series", "bytes", "model_latency_us", "measured_latency_us",
                                                 "latency_error_pct", "model_gbps", "measured_gbps", "gbps_error_pct"});
  struct Sum {
    double lat = 0, thr = 0;
    int nl = 0, nt = 0;
  };
  std::map<std::string, Sum> sums;
  std::vector<std::string> order;
  auto rows = first_iterations(merged);
  for (auto const& r : rows) {
    const std::string series = r.at("protocol") + "/" + r.at("location");
    if (std::find(order.begin(), order.end(), series) == order.end())
      order.push_back(series);
    const std::uint64_t bytes = std::stoull(r.at("bytes"));
    double ml = num(r.at("latency_us")), mg = num(r.at("throughput_gbps"));
    double rl = ref.present ? ref.sendrecv_latency(r.at("location"), r.at("protocol"), bytes) : std::nan("");
    std::string col = fmt::format("cclo_{}_rdma_{}", r.at("protocol") == "rendezvous" ? "rndzvs" : "eager",
                                  r.at("location"));
    double rg = ref.present ? ref.sendrecv_throughput(col, bytes) : std::nan("");
    double el = error_pct(ml, rl), eg = error_pct(mg, rg);
    b.data.row().add(series).add(bytes).add(fixed(mg, 3)).add(fixed(rg, 3)).add(fixed(eg, 1)).add(fixed(ml, 3))
        .add(fixed(rl, 3)).add(fixed(el, 1));
    b.errors->row().add(series).add(bytes).add(fixed(ml, 3)).add(fixed(rl, 3)).add(fixed(el, 1)).add(fixed(mg, 3))
        .add(fixed(rg, 3)).add(fixed(eg, 1));
    auto& s = sums[series];
    if (!std::isnan(el)) {
      s.lat += std::abs(el);
      ++s.nl;
    }
    if (!std::isnan(eg)) {
      s.thr += std::abs(eg);
      ++s.nt;
    }
  }
  // The software-MPI baseline (OpenMPI over the host's RDMA NIC, workload mpi): throughput = size / latency.
  for (auto const& r : first_iterations(mpi)) {
    const std::string series = "openmpi-rdma/host";
    if (std::find(order.begin(), order.end(), series) == order.end())
      order.push_back(series);
    const std::uint64_t bytes = std::stoull(r.at("bytes"));
    double mg = num(r.at("throughput_gbps")), mlat = num(r.at("latency_us"));
    double rg = ref.present ? ref.sendrecv_throughput("mpi_rdma_host", bytes) : std::nan("");
    double eg = error_pct(mg, rg);
    b.data.row().add(series).add(bytes).add(fixed(mg, 3)).add(fixed(rg, 3)).add(fixed(eg, 1)).add(fixed(mlat, 3)).add("")
        .add("");
    b.errors->row().add(series).add(bytes).add(fixed(mlat, 3)).add("").add("").add(fixed(mg, 3)).add(fixed(rg, 3))
        .add(fixed(eg, 1));
    if (!std::isnan(eg)) {
      sums[series].thr += std::abs(eg);
      ++sums[series].nt;
    }
  }
  auto& g = b.gallery;
  g.push_back("Model: calibrated on these very measurements (see `platforms/accl-coyote-u55c.json`; the OpenMPI "
              "series: `platforms/accl-cpu-cx5.json`, host CPU costs and eager threshold fitted on its column). Latency "
              "errors are against `sendrecv_latency_us.csv` (512 B - 256 KiB), throughput errors against "
              "`sendrecv_throughput_gbps.csv` (512 B - 4 MiB). The measured eager throughputs imply 1.2-1.4x "
              "longer times than the measured eager latencies of the same sizes, so no model fits both.");
  g.push_back("");
  g.push_back("| series | mean abs latency error | mean abs throughput error |");
  g.push_back("|---|---|---|");
  for (auto const& s : order) {
    auto const& x = sums[s];
    g.push_back(fmt::format("| {} | {} | {} |", s, x.nl ? fmt::format("{:.1f} % ({} sizes)", x.lat / x.nl, x.nl) : "-",
                            x.nt ? fmt::format("{:.1f} % ({} sizes)", x.thr / x.nt, x.nt) : "-"));
  }
  g.push_back("");
  g.push_back("| series | size | model us | measured us | error | model Gb/s | measured Gb/s | error |");
  g.push_back("|---|---|---|---|---|---|---|---|");
  for (auto const& row : b.errors->rows())
    if (!row[3].empty() || !row[6].empty())
      g.push_back(fmt::format("| {} | {} | {} | {} | {} % | {} | {} | {} % |", row[0], size_label(std::stoull(row[1])),
                              row[2], row[3], row[4], row[5], row[6], row[7]));
  return b;
}

Built fig8(const CsvTable& merged, const Reference& ref)
{
  Built b;
  b.data   = results::Table("accl-fig8", {"path", "model_us", "measured_us", "error_pct"});
  b.errors = results::Table("accl-fig8-errors", {"path", "model_us", "measured_us", "error_pct"});
  b.gallery.push_back("Host-visible NOP latency (call to completion seen by the caller). Model calibrated on these "
                      "measurements (firmware call/finalize cycles, invocation path latencies).");
  b.gallery.push_back("");
  b.gallery.push_back("| path | model us | measured us (mean) | error |");
  b.gallery.push_back("|---|---|---|---|");
  const std::map<std::string, std::string> names{
      {"kernel", "fpga_kernel"}, {"coyote", "coyote_host_driver"}, {"xrt", "xrt_host_driver"}};
  for (auto const& r : first_iterations(merged)) {
    std::string path = names.count(r.at("invocation")) ? names.at(r.at("invocation")) : r.at("invocation");
    double m = num(r.at("host_latency_us")), meas = std::nan("");
    if (ref.present)
      for (std::size_t i = 0; i < ref.invocation.rows.size(); ++i)
        if (ref.invocation.cell(i, "path") == path)
          meas = num(ref.invocation.cell(i, "mean_us"));
    double e = error_pct(m, meas);
    b.data.row().add(path).add(fixed(m, 3)).add(fixed(meas, 3)).add(fixed(e, 1));
    b.errors->row().add(path).add(fixed(m, 3)).add(fixed(meas, 3)).add(fixed(e, 1));
    b.gallery.push_back(fmt::format("| {} | {:.3f} | {} | {} |", path, m, fixed(meas, 3),
                                    std::isnan(e) ? "-" : fmt::format("{:+.1f} %", e)));
  }
  return b;
}

/// Latencies (us) labelled with the algorithm that ran, by row (two labels) and column key.
using Cell = std::pair<double, std::string>;
using Grid = std::map<std::pair<std::string, std::string>, std::map<std::uint64_t, Cell>>;

/// `grid` as a markdown table: `corner` names the two row-label columns, rows in `order` (those
/// with data), one column per key of `columns`; "-" where a run is missing.
void grid_lines(std::vector<std::string>& g, const std::string& corner,
                const std::vector<std::pair<std::string, std::string>>& order, const std::set<std::uint64_t>& columns,
                const std::function<std::string(std::uint64_t)>& label, const Grid& grid)
{
  std::string head = corner, rule = "|---|---|";
  for (auto c : columns) {
    head += fmt::format(" {} |", label(c));
    rule += "---|";
  }
  g.push_back(head);
  g.push_back(rule);
  for (auto const& key : order) {
    auto it = grid.find(key);
    if (it == grid.end())
      continue;
    std::string line = fmt::format("| {} | {} |", key.first, key.second);
    for (auto c : columns) {
      auto v = it->second.find(c);
      line += v == it->second.end() ? " - |" : fmt::format(" {:.2f} {} |", v->second.first, v->second.second);
    }
    g.push_back(line);
  }
}

Built collectives(const std::string& name, const CsvTable& merged, const Companion& mpi)
{
  Built b;
  b.data = results::Table(name, {"collective", "series", "algorithm", "bytes", "latency_us"});
  Grid at;
  std::vector<std::pair<std::string, std::string>> order;
  std::set<std::uint64_t> sizes;
  auto add = [&](const std::string& coll, const std::string& series, const std::string& alg, const std::string& bytes,
                 const std::string& latency) {
    b.data.row().add(coll).add(series).add(alg).add(bytes).add(latency);
    if (std::none_of(order.begin(), order.end(), [&](auto const& k) { return k.first == coll; }))
      for (auto p : {"cclo-eager", "cclo-rendezvous", "mpi"})
        order.emplace_back(coll, p);
    sizes.insert(std::stoull(bytes));
    at[{coll, series}][std::stoull(bytes)] = {num(latency), alg};
  };
  for (auto const& r : first_iterations(merged))
    add(r.at("collective"), "cclo-" + r.at("protocol"), r.at("algorithm"), r.at("bytes"), r.at("latency_us"));
  for (auto const& r : first_iterations(mpi))
    add(r.at("collective"), "mpi", r.at("library_algorithm"), r.at("bytes"), r.at("latency_us"));
  const bool f2f = name == "accl-fig10";
  auto& g = b.gallery;
  g.push_back(fmt::format(
      "Predictions: the CCLO model was calibrated on send/recv and NOP only, the MPI model on the MPI send/recv "
      "column of Fig. 7 only. CCLO: cycle counter (firmware pick-up to finalize), longest over the 8 ranks, with the "
      "algorithm the firmware ran. MPI: OpenMPI over the hosts' RDMA NICs, longest over the ranks from the common "
      "start to the return, with OpenMPI's algorithm choice{}. us.",
      f2f ? "; FPGA data staged as ACCL+ Fig. 9 (FPGA -> host copy, MPI, host -> FPGA copy, next-kernel invocation)"
          : ", host data"));
  g.push_back("");
  grid_lines(g, "| collective | series |", order, sizes, size_label, at);
  return b;
}

Built fig12(const CsvTable& merged, const Companion& mpi)
{
  Built b;
  b.data = results::Table("accl-fig12", {"bytes", "series", "ranks", "algorithm", "latency_us"});
  Grid at;
  std::set<std::uint64_t> ranks, sizes;
  struct Row {
    std::uint64_t bytes;
    std::string series;
    int ranks;
    std::string algorithm, latency;
  };
  std::vector<Row> rows;
  for (auto const& r : first_iterations(merged))
    rows.push_back({std::stoull(r.at("bytes")), "cclo-" + r.at("protocol"), std::stoi(r.at("ranks")), r.at("algorithm"),
                    r.at("latency_us")});
  for (auto const& r : first_iterations(mpi))
    rows.push_back({std::stoull(r.at("bytes")), "mpi", std::stoi(r.at("ranks")), r.at("library_algorithm"),
                    r.at("latency_us")});
  std::sort(rows.begin(), rows.end(), [](auto const& x, auto const& y) {
    return std::tie(x.bytes, x.series, x.ranks) < std::tie(y.bytes, y.series, y.ranks);
  });
  for (auto const& r : rows) {
    b.data.row().add(r.bytes).add(r.series).add(r.ranks).add(r.algorithm).add(r.latency);
    ranks.insert(static_cast<std::uint64_t>(r.ranks));
    sizes.insert(r.bytes);
    at[{size_label(r.bytes), r.series}][static_cast<std::uint64_t>(r.ranks)] = {num(r.latency), r.algorithm};
  }
  auto& g = b.gallery;
  g.push_back("Predictions: reduce latency (us) vs ranks, device data for the CCLO (cycle counter; the algorithm the "
              "firmware selected) and host data for OpenMPI over RDMA NICs (the algorithm OpenMPI's tuned rules "
              "selected).");
  g.push_back("");
  std::vector<std::pair<std::string, std::string>> order;
  for (auto s : sizes)
    for (auto p : {"cclo-eager", "cclo-rendezvous", "mpi"})
      order.emplace_back(size_label(s), p);
  grid_lines(g, "| size | series |", order, ranks, [](std::uint64_t n) { return fmt::format("{} ranks", n); }, at);
  return b;
}

/// ACCL+ Fig. 9: the software-MPI F2F broadcast, phase by phase, model vs measured.
Built fig9(const CsvTable& merged, const Reference& ref)
{
  Built b;
  const std::vector<std::pair<std::string, std::string>> phases{{"invocation_us", "kernel_invocation_us"},
                                                                {"to_host_us", "fpga_to_host_copy_us"},
                                                                {"collective_us", "mpi_rdma_bcast_us"},
                                                                {"to_device_us", "host_to_fpga_copy_us"}};
  std::vector<std::string> cols{"bytes", "size"};
  for (auto const& [m, r] : phases) {
    cols.push_back(m);
    cols.push_back(r.substr(0, r.size() - 3) + "_measured_us");
  }
  cols.insert(cols.end(), {"total_us", "total_measured_us", "total_error_pct", "bcast_error_pct"});
  b.data   = results::Table("accl-fig9", cols);
  b.errors = results::Table("accl-fig9-errors", {"bytes", "invocation_error_pct", "to_host_error_pct",
                                                 "collective_error_pct", "to_device_error_pct", "total_error_pct"});
  auto& g = b.gallery;
  g.push_back("8-rank broadcast of FPGA data through OpenMPI over RDMA (the F2F baseline): next-kernel invocation, "
              "FPGA -> host copy, MPI broadcast, host -> FPGA copy, stacked. Copies calibrated on this file "
              "(`platforms/accl-coyote-u55c.json`); the MPI host costs on Fig. 7's MPI column only, so the broadcast "
              "column is a prediction checked here.");
  g.push_back("");
  g.push_back("| size | OpenMPI algorithm | bcast us | measured | error | total us | measured | error |");
  g.push_back("|---|---|---|---|---|---|---|---|");
  double sb = 0, st = 0;
  int n = 0;
  for (auto const& r : first_iterations(merged)) {
    std::uint64_t bytes = std::stoull(r.at("bytes"));
    auto& row = b.data.row();
    row.add(bytes).add(size_label(bytes));
    auto& erow = b.errors->row();
    erow.add(bytes);
    double total = 0, total_meas = 0;
    for (auto const& [m, c] : phases) {
      double v = num(r.at(m)), mv = ref.f2f(bytes, c);
      row.add(fixed(v, 3)).add(fixed(mv, 3));
      erow.add(fixed(error_pct(v, mv), 1));
      total += v;
      total_meas += mv;
    }
    double et = error_pct(total, total_meas);
    double bc = num(r.at("collective_us")), bm = ref.f2f(bytes, "mpi_rdma_bcast_us");
    double eb = error_pct(bc, bm);
    row.add(fixed(total, 3)).add(fixed(total_meas, 3)).add(fixed(et, 1)).add(fixed(eb, 1));
    erow.add(fixed(et, 1));
    g.push_back(fmt::format("| {} | {} | {:.2f} | {} | {} | {:.2f} | {} | {} |", size_label(bytes),
                            r.at("library_algorithm"), bc, fixed(bm, 2),
                            std::isnan(eb) ? "-" : fmt::format("{:+.1f} %", eb), total, fixed(total_meas, 2),
                            std::isnan(et) ? "-" : fmt::format("{:+.1f} %", et)));
    if (!std::isnan(eb) && !std::isnan(et)) {
      sb += std::abs(eb);
      st += std::abs(et);
      ++n;
    }
  }
  if (n > 0) {
    g.push_back("");
    g.push_back(fmt::format("Mean absolute error over {} sizes: MPI broadcast {:.1f} %, total {:.1f} %.", n, sb / n,
                            st / n));
  }
  return b;
}

Built fig9_copies(const CsvTable& merged, const Reference& ref)
{
  Built b;
  b.data   = results::Table("accl-fig9-copies", {"bytes", "size", "to_host_us", "to_host_measured_us", "to_host_error_pct",
                                                 "to_device_us", "to_device_measured_us", "to_device_error_pct"});
  b.errors = results::Table("accl-fig9-copies-errors", {"bytes", "to_host_error_pct", "to_device_error_pct"});
  auto& g = b.gallery;
  g.push_back("The two copies of ACCL+ Fig. 9 (software staging FPGA data through the host for MPI): FPGA -> host and "
              "host -> FPGA through the Coyote host driver. The model's call costs and rates are calibrated on these "
              "measurements (`workloads/hostcopy/README.md`); the MPI broadcast between them comes with the host "
              "MPI model (issue 5).");
  g.push_back("");
  g.push_back("| size | FPGA -> host us | measured | error | host -> FPGA us | measured | error |");
  g.push_back("|---|---|---|---|---|---|---|");
  double sh = 0, sd = 0;
  int n = 0;
  for (auto const& r : first_iterations(merged)) {
    std::uint64_t bytes = std::stoull(r.at("bytes"));
    double h = num(r.at("to_host_us")), d = num(r.at("to_device_us"));
    double mh = ref.f2f(bytes, "fpga_to_host_copy_us"), md = ref.f2f(bytes, "host_to_fpga_copy_us");
    double eh = error_pct(h, mh), ed = error_pct(d, md);
    b.data.row().add(bytes).add(size_label(bytes)).add(fixed(h, 3)).add(fixed(mh, 3)).add(fixed(eh, 1)).add(fixed(d, 3))
        .add(fixed(md, 3)).add(fixed(ed, 1));
    b.errors->row().add(bytes).add(fixed(eh, 1)).add(fixed(ed, 1));
    g.push_back(fmt::format("| {} | {:.3f} | {} | {} | {:.3f} | {} | {} |", size_label(bytes), h, fixed(mh, 3),
                            std::isnan(eh) ? "-" : fmt::format("{:+.1f} %", eh), d, fixed(md, 3),
                            std::isnan(ed) ? "-" : fmt::format("{:+.1f} %", ed)));
    if (!std::isnan(eh) && !std::isnan(ed)) {
      sh += std::abs(eh);
      sd += std::abs(ed);
      ++n;
    }
  }
  if (n > 0) {
    g.push_back("");
    g.push_back(fmt::format("Mean absolute error over {} sizes: FPGA -> host {:.1f} %, host -> FPGA {:.1f} %.", n, sh / n,
                            sd / n));
  }
  return b;
}

// ---------------- Lant et al. (connectionless transport) ----------------

/// Mean of `col` over the rows of a merged connectionless latency table matching `keep`.
double mean_of(const std::vector<std::map<std::string, std::string>>& rows, const std::string& col,
               const std::function<bool(const std::map<std::string, std::string>&)>& keep)
{
  double s = 0;
  int n    = 0;
  for (auto const& r : rows)
    if (keep(r)) {
      s += num(r.at(col));
      ++n;
    }
  return n ? s / n : std::nan("");
}

Built lant_fig7(const CsvTable& merged)
{
  Built b;
  b.data = results::Table("lant-fig7", {"bytes", "size", "send_us", "recv_unregistered_us", "recv_registered_us",
                                        "complete_us", "gain_pct"});
  std::set<std::uint64_t> sizes;
  for (auto const& r : merged.rows)
    sizes.insert(std::stoull(r.at("bytes")));
  auto& g = b.gallery;
  g.push_back("One hop (the paper's loopback), mean of the iterations. send: post -> the sender sees all data pushed "
              "(non-blocking send); recv: post -> the receiver sees the notification (unregistered: the sender's "
              "notification after the last ACK; registered: its own registration table); complete: post -> every "
              "packet acknowledged (blocking send). The two 1 KB receive latencies are the preset's calibration "
              "points; everything else is predicted.");
  g.push_back("");
  g.push_back("| size | send us | recv unregistered us | recv registered us | complete us | gain |");
  g.push_back("|---|---|---|---|---|---|");
  double u1 = 0, r1 = 0;
  for (auto bytes : sizes) {
    auto is = [&](const char* notify) {
      return [&, notify](auto const& r) { return std::stoull(r.at("bytes")) == bytes && r.at("notify") == notify; };
    };
    auto any = [&](auto const& r) { return std::stoull(r.at("bytes")) == bytes; };
    double send = mean_of(merged.rows, "send_us", any), u = mean_of(merged.rows, "recv_us", is("unregistered")),
           reg = mean_of(merged.rows, "recv_us", is("registered")), comp = mean_of(merged.rows, "complete_us", any);
    double gain = 100 * (u - reg) / u;
    if (bytes == 1024) {
      u1 = u;
      r1 = reg;
    }
    b.data.row().add(bytes).add(size_label(bytes)).add(fixed(send, 3)).add(fixed(u, 3)).add(fixed(reg, 3))
        .add(fixed(comp, 3)).add(fixed(gain, 1));
    g.push_back(fmt::format("| {} | {} | {} | {} | {} | {} |", size_label(bytes), fixed(send, 3), fixed(u, 3),
                            std::isnan(reg) ? "- (not registrable)" : fixed(reg, 3), fixed(comp, 3),
                            std::isnan(gain) ? "-" : fmt::format("{:.1f} %", gain)));
  }
  if (u1 > 0) {
    g.push_back("");
    g.push_back(fmt::format("Paper (section 4.1): 1 KB receive 5.23 us unregistered, 4.21 us registered (~20 % "
                            "less); model {:.3f} us ({:+.1f} %) and {:.3f} us ({:+.1f} %), gain {:.1f} %. Paper: the "
                            "gain becomes insignificant around 32 KB.",
                            u1, error_pct(u1, 5.23), r1, error_pct(r1, 4.21), 100 * (u1 - r1) / u1));
  }
  return b;
}

Built lant_hops(const CsvTable& merged)
{
  Built b;
  const std::string sw = "platform.topology.chain.switches", ld = "workload.background.load";
  std::set<unsigned> switches;
  std::set<double> loads;
  std::set<std::uint64_t> sizes;
  for (auto const& r : merged.rows) {
    switches.insert(static_cast<unsigned>(std::stoul(r.at(sw))));
    loads.insert(num(r.at(ld)));
    sizes.insert(std::stoull(r.at("bytes")));
  }
  auto cell = [&](unsigned s, double l, std::uint64_t bytes, const char* notify) {
    return mean_of(merged.rows, "recv_us", [&](auto const& r) {
      return std::stoul(r.at(sw)) == s && num(r.at(ld)) == l && std::stoull(r.at("bytes")) == bytes &&
             r.at("notify") == notify;
    });
  };
  std::vector<std::string> cols{"switches"};
  for (auto bytes : sizes)
    for (double l : loads)
      cols.push_back(fmt::format("gain_{}_load{:.0f}", size_label(bytes), 100 * l));
  b.data = results::Table("lant-hops", cols);
  for (unsigned s : switches) {
    b.data.row().add(s);
    for (auto bytes : sizes)
      for (double l : loads) {
        double u = cell(s, l, bytes, "unregistered"), r = cell(s, l, bytes, "registered");
        b.data.add(fixed(100 * (u - r) / u, 2));
      }
  }
  auto& g = b.gallery;
  g.push_back("Predictions: receive latency saved by registration (unregistered - registered, us) and in % of the "
              "unregistered latency, node 0 -> node 3 across a chain of switches (25-cycle cut-through FPGA switches, "
              "lossless links), with Poisson background load from the other two nodes into the receiver (fraction "
              "of the 10 Gb/s link). The paper argues the gain grows with distance and load (section 4.1).");
  g.push_back("");
  std::string head = "| size | load |", rule = "|---|---|";
  for (unsigned s : switches) {
    head += fmt::format(" {} switch{} |", s, s == 1 ? "" : "es");
    rule += "---|";
  }
  g.push_back(head);
  g.push_back(rule);
  for (auto bytes : sizes)
    for (double l : loads) {
      std::string line = fmt::format("| {} | {:.0f} % |", size_label(bytes), 100 * l);
      for (unsigned s : switches) {
        double u = cell(s, l, bytes, "unregistered"), r = cell(s, l, bytes, "registered");
        line += fmt::format(" {:.2f} us ({:.1f} %) |", u - r, 100 * (u - r) / u);
      }
      g.push_back(line);
    }
  return b;
}

Built lant_tables(const CsvTable& merged)
{
  Built b;
  b.data = results::Table("lant-tables", {"registration_entries", "bitmask_bits", "throughput_gbps", "registered_ops",
                                          "registration_full_drops", "escaped", "escape_timeouts",
                                          "escape_overflow_drops", "retransmitted", "op_table_stalls",
                                          "transaction_table_stalls", "luts", "brams"});
  auto rows = merged.rows;
  std::sort(rows.begin(), rows.end(), [](auto const& x, auto const& y) {
    return std::pair(std::stoul(x.at("bitmask_bits")), std::stoul(x.at("registration_entries"))) <
           std::pair(std::stoul(y.at("bitmask_bits")), std::stoul(y.at("registration_entries")));
  });
  auto& g = b.gallery;
  g.push_back("Predictions: 2000 operations of 2, 8 and 32 KiB between random pairs of 8 nodes on one switch "
              "(lossless links), 1 % loss per cable, each node keeping 4 commands in flight, for registration table "
              "sizes x bitmask widths (a W-bit mask registers operations up to W x 512 B; larger ones complete by "
              "the sender's notification). Area from the Table 1 fit.");
  g.push_back("");
  g.push_back("| entries | mask bits | Gb/s | registered ops | reg-full drops | escaped | escape timeouts | escape "
              "overflows | retransmitted | LUTs | BRAM36 |");
  g.push_back("|---|---|---|---|---|---|---|---|---|---|---|");
  for (auto const& r : rows) {
    b.data.row().add(r.at("registration_entries")).add(r.at("bitmask_bits")).add(r.at("throughput_gbps"))
        .add(r.at("registered_ops")).add(r.at("registration_full_drops")).add(r.at("escaped"))
        .add(r.at("escape_timeouts")).add(r.at("escape_overflow_drops")).add(r.at("retransmitted"))
        .add(r.at("op_table_stalls")).add(r.at("transaction_table_stalls")).add(r.at("luts")).add(r.at("brams"));
    g.push_back(fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |", r.at("registration_entries"),
                            r.at("bitmask_bits"), r.at("throughput_gbps"), r.at("registered_ops"),
                            r.at("registration_full_drops"), r.at("escaped"), r.at("escape_timeouts"),
                            r.at("escape_overflow_drops"), r.at("retransmitted"), r.at("luts"), r.at("brams")));
  }
  return b;
}

struct Figure {
  FigureInfo info;
  std::function<Built(const CsvTable&, const Reference&, const Companion&)> build;
  std::string table = "collective"; ///< the merged result table the builder reads
  bool mpi_companion = false;       ///< also run <name>-mpi.json and hand its `mpi` table to the builder
};

const std::vector<Figure>& figures()
{
  auto plain = [](auto f) {
    return [f](const CsvTable& t, const Reference& r, const Companion&) { return f(t, r); };
  };
  static const std::vector<Figure> list{
      {{"accl-fig7", "ACCL+ Fig. 7: send/recv throughput, eager and rendezvous, device and host data, and OpenMPI"},
       fig7, "collective", true},
      {{"accl-fig8", "ACCL+ Fig. 8: CCLO invocation latency (NOP)"}, plain(fig8)},
      {{"accl-fig9", "ACCL+ Fig. 9: 8-rank broadcast of FPGA data through software MPI, stacked breakdown"},
       plain(fig9), "mpi"},
      {{"accl-fig10", "ACCL+ Fig. 10 style: 8-rank collectives on FPGA data, CCLO vs software MPI (F2F)"},
       [](const CsvTable& t, const Reference&, const Companion& m) { return collectives("accl-fig10", t, m); },
       "collective", true},
      {{"accl-fig11", "ACCL+ Fig. 11 style: 8-rank collectives on host data, CCLO vs software MPI (H2H)"},
       [](const CsvTable& t, const Reference&, const Companion& m) { return collectives("accl-fig11", t, m); },
       "collective", true},
      {{"accl-fig12", "ACCL+ Fig. 12 style: reduce latency vs ranks at 8 KiB and 128 KiB, CCLO and software MPI"},
       [](const CsvTable& t, const Reference&, const Companion& m) { return fig12(t, m); }, "collective", true},
      {{"accl-fig9-copies", "ACCL+ Fig. 9, the copies: FPGA <-> host through the host driver"}, plain(fig9_copies),
       "hostcopy"},
      {{"lant-fig7", "Lant et al. Fig. 7: send / receive / registered receive latency on one hop"},
       plain([](const CsvTable& t, const Reference&) { return lant_fig7(t); }), "connectionless"},
      {{"lant-hops", "Lant et al.: registration gain vs switches on the path and background load"},
       plain([](const CsvTable& t, const Reference&) { return lant_hops(t); }), "connectionless"},
      {{"lant-tables", "Lant et al.: registration table size x bitmask width under many concurrent operations"},
       plain([](const CsvTable& t, const Reference&) { return lant_tables(t); }), "connectionless"},
  };
  return list;
}

std::string gp_quote(const std::string& s)
{
  std::string q = "'";
  for (char c : s)
    q += c == '\'' ? std::string("''") : std::string(1, c);
  return q + "'";
}

/// Run gnuplot on `script` with `setup` executed first; stderr to `log`. Returns an error text or "".
std::string gnuplot(const std::string& setup, const fs::path& script, const fs::path& log)
{
  pid_t pid = fork();
  if (pid < 0)
    return "cannot fork to run gnuplot";
  if (pid == 0) {
    int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    std::string s = script.string();
    execlp("gnuplot", "gnuplot", "-e", setup.c_str(), s.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
    return "gnuplot not found: install it (Debian: apt-get install gnuplot-nox, or sh python-free-tools/install-deps.sh)";
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return fmt::format("gnuplot failed on {} (see {})", script.string(), log.string());
  return {};
}

} // namespace

const std::vector<FigureInfo>& figure_list()
{
  static const std::vector<FigureInfo> v = [] {
    std::vector<FigureInfo> r;
    for (auto const& f : figures())
      r.push_back(f.info);
    return r;
  }();
  return v;
}

int run_figures(const FigureOptions& opt, const workloads::WorkloadRegistry& reg)
{
  std::vector<const Figure*> selected;
  for (auto const& n : opt.names) {
    auto it = std::find_if(figures().begin(), figures().end(), [&](auto const& f) { return f.info.name == n; });
    if (it == figures().end()) {
      std::string known;
      for (auto const& f : figures())
        known += (known.empty() ? "" : ", ") + f.info.name;
      throw config::ConfigError("nafsim figures", "", fmt::format("no figure named '{}' (figures: {})", n, known));
    }
    selected.push_back(&*it);
  }
  if (selected.empty())
    for (auto const& f : figures())
      selected.push_back(&f);

  const fs::path dir = opt.source / "python-free-tools" / "figures";
  if (!fs::is_directory(dir))
    throw config::ConfigError("nafsim figures", "",
                              fmt::format("{} not found: run from the nafsim source tree or pass --source DIR",
                                          dir.string()));
  const Reference ref = Reference::load(opt.reference);
  if (!ref.present)
    std::cerr << fmt::format("note: no reference data in {}: figures are drawn without measured points\n",
                             opt.reference.string());
  fs::create_directories(opt.out);
  int status = 0;
  std::map<std::string, std::vector<std::string>> pages;
  for (const Figure* f : selected) {
    const std::string& name = f->info.name;
    std::cout << fmt::format("figure {}: {}\n", name, f->info.title);
    // The sweep, always from scratch: its points must come from this build of the model.
    // Returns the sweep's output directory, or nothing if a point failed (reported) or it was interrupted.
    bool interrupted = false;
    auto run_sweep = [&](const std::string& sweep_name) -> std::optional<fs::path> {
      sweep::SweepSpec spec = sweep::SweepSpec::load((dir / (sweep_name + ".json")).string());
      sweep::SweepOptions so;
      so.out_dir  = opt.out / "runs" / sweep_name;
      so.program  = opt.program;
      so.jobs     = opt.jobs;
      so.progress = opt.progress;
      fs::remove_all(so.out_dir);
      auto validate = [&](const std::vector<std::string>& sets) {
        ScenarioOptions o;
        o.sets = sets;
        load_scenario_doc(spec.base, spec.file, fs::path(spec.file).parent_path().string(), o, reg);
      };
      sweep::SweepRunner runner(spec, so, validate);
      auto s = runner.run();
      if (s.interrupted) {
        interrupted = true;
        return std::nullopt;
      }
      if (s.failed > 0) {
        for (auto const& e : s.failures)
          std::cerr << "  failed " << e << "\n";
        std::cerr << fmt::format("figure {}: {} point(s) of sweep {} failed; not drawn\n", name, s.failed, sweep_name);
        return std::nullopt;
      }
      return so.out_dir;
    };
    auto main_dir = run_sweep(name);
    std::optional<fs::path> mpi_dir;
    if (main_dir && f->mpi_companion)
      mpi_dir = run_sweep(name + "-mpi");
    if (interrupted)
      return 130;
    if (!main_dir || (f->mpi_companion && !mpi_dir)) {
      status = 3;
      continue;
    }
    Built b = f->build(results::read_csv(*main_dir / (f->table + ".csv")), ref,
                       mpi_dir ? results::read_csv(*mpi_dir / "mpi.csv") : Companion{});
    results::write_file_atomic(opt.out / (name + ".csv"), b.data.csv());
    if (b.errors)
      results::write_file_atomic(opt.out / (name + "-errors.csv"), b.errors->csv());
    std::vector<std::string> drawn;
    for (auto [term, ext] : {std::pair{"svg size 960,640 dynamic font 'sans,11'", "svg"},
                             std::pair{"pngcairo size 960,640 font 'sans,10'", "png"}}) {
      std::string setup = fmt::format("set terminal {}; set output {}; csv = {}", term,
                                      gp_quote((opt.out / (name + "." + ext)).string()),
                                      gp_quote((opt.out / (name + ".csv")).string()));
      auto err = gnuplot(setup, dir / (name + ".gp"), opt.out / "runs" / (name + ".gnuplot.log"));
      if (!err.empty()) {
        std::cerr << fmt::format("figure {}: {}\n", name, err);
        status = 3;
        break;
      }
      drawn.push_back(name + "." + ext);
    }
    std::cout << fmt::format("  wrote {}.csv{}{} in {}/\n", name, b.errors ? fmt::format(", {}-errors.csv", name) : "",
                             drawn.empty() ? "" : ", " + fmt::format("{}", fmt::join(drawn, ", ")), opt.out.string());
    auto& page = pages[name];
    page.push_back(fmt::format("## {}", f->info.title));
    page.push_back("");
    page.push_back(fmt::format("![{}]({}/{}.svg)", name, opt.out.filename().string(), name));
    page.push_back("");
    page.push_back(fmt::format("Data: `{}/{}.csv`; sweep: `python-free-tools/figures/{}.json`; regenerate with "
                               "`./build/nafsim figures {}`.",
                               opt.out.filename().string(), name, name, name));
    page.push_back("");
    for (auto const& l : b.gallery)
      page.push_back(l);
    page.push_back("");
  }

  // The gallery lists every figure drawn so far, in the registry's order (one run may draw a subset).
  const fs::path gallery = opt.out.parent_path() / "gallery.md";
  std::map<std::string, std::string> sections;
  if (fs::exists(gallery)) { // keep the sections of figures not redrawn now
    std::ifstream in(gallery);
    std::string line, current;
    while (std::getline(in, line)) {
      if (line.rfind("<!-- figure ", 0) == 0) {
        current = line.substr(12, line.find(' ', 12) - 12);
        continue;
      }
      if (!current.empty())
        sections[current] += line + "\n";
    }
  }
  for (auto const& [name, lines] : pages) {
    std::string text;
    for (auto const& l : lines)
      text += l + "\n";
    sections[name] = text;
  }
  std::string text = "# nafsim figure gallery\n\nDrawn by `nafsim figures` (gnuplot, SVG + PNG) into `" +
                     opt.out.filename().string() +
                     "/`; the images are generated output (not committed), this page is. Each section names the "
                     "sweep behind the figure; measured points come from `shared/reference/accl/` (ACCL+) or the "
                     "paper's text (Lant et al.).\n\n";
  for (auto const& f : figures())
    if (auto it = sections.find(f.info.name); it != sections.end())
      text += "<!-- figure " + f.info.name + " -->\n" + it->second;
  results::write_file_atomic(gallery, text);
  std::cout << fmt::format("gallery: {}\n", gallery.string());
  return status;
}

} // namespace nafsim::app
