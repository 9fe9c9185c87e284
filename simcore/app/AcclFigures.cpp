// The ACCL+ figures' tables (FigureTables.hpp).
#include "simcore/app/FigureTables.hpp"

#include <algorithm>
#include <fmt/ranges.h>
#include <functional>
#include <set>
#include <tuple>

namespace nafsim::app::figtab {

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

namespace {


/// A comparison figure's latency vs size per (collective, series): its data table and its gallery grid.
/// Each first-iteration row of the CCLO table becomes series `cclo_series(row)` with latency from column
/// `cclo_latency`; each MPI row becomes series `mpi_series`. `series` orders the rows of each collective.
Built latency_by_size(const std::string& name, const CsvTable& merged, const Companion& mpi,
                      const std::vector<std::string>& series,
                      const std::function<std::string(const std::map<std::string, std::string>&)>& cclo_series,
                      const std::function<Scoped(const std::map<std::string, std::string>&)>& cclo_latency,
                      const std::string& mpi_series, const std::string& intro,
                      const std::function<Scoped(const std::map<std::string, std::string>&)>& mpi_latency)
{
  Built b;
  b.data = results::Table(name, {"collective", "series", "algorithm", "bytes", "latency_us", "scope"});
  Grid at;
  std::vector<std::pair<std::string, std::string>> order;
  std::set<std::uint64_t> sizes;
  auto add = [&](const std::string& coll, const std::string& s, const std::string& alg, const std::string& bytes,
                 const std::string& latency, const std::string& scope) {
    b.data.row().add(coll).add(s).add(alg).add(bytes).add(latency).add(scope);
    if (std::none_of(order.begin(), order.end(), [&](auto const& k) { return k.first == coll; }))
      for (auto const& p : series)
        order.emplace_back(coll, p);
    sizes.insert(std::stoull(bytes));
    at[{coll, s}][std::stoull(bytes)] = {num(latency), alg};
  };
  for (auto const& r : iteration_means(merged)) {
    Scoped l = cclo_latency(r);
    add(r.at("collective"), cclo_series(r), r.at("algorithm"), r.at("bytes"), l.value, l.scope);
  }
  for (auto const& r : first_iterations(mpi)) {
    Scoped l = mpi_latency(r);
    add(r.at("collective"), mpi_series, r.at("library_algorithm"), r.at("bytes"), l.value, l.scope);
  }
  b.gallery.push_back(intro);
  b.gallery.push_back("");
  grid_lines(b.gallery, "| collective | series |", order, sizes, size_label, at);
  return b;
}

} // namespace

namespace {

/// Fig. 7's mean absolute errors per series (sender, receiver, throughput), and the series in the order they came.
struct Fig7Errors {
  struct Sum {
    double send = 0, recv = 0, thr = 0;
    int ns = 0, nr = 0, nt = 0;
  };
  std::map<std::string, Sum> sums;
  std::vector<std::string> order;
  void saw(const std::string& series)
  {
    if (std::find(order.begin(), order.end(), series) == order.end())
      order.push_back(series);
  }
};

void add_error(double e, double& s, int& n)
{
  if (!std::isnan(e)) {
    s += std::abs(e);
    ++n;
  }
}

/// The CCLO's rows: each rank's own counter against the per-rank measurements, throughput against Fig. 7's.
void fig7_cclo_rows(const CsvTable& merged, const Reference& ref, Built& b, Fig7Errors& e)
{
  // Each rank's mean over the run's iterations, as the measurements are means over runs (a single iteration is one
  // draw of the host invocation's jitter, which moves the receiver's counter through the barrier's skew).
  std::map<std::pair<std::string, std::uint64_t>, std::pair<double, double>> lat; // (series, bytes) -> sender, receiver
  std::map<std::pair<std::string, std::uint64_t>, std::pair<int, int>> its;
  for (auto const& r : merged.rows) {
    if (!r.count("iteration"))
      continue;
    const std::string series = r.at("protocol") + "/" + r.at("location");
    e.saw(series);
    auto& v = lat[{series, std::stoull(r.at("bytes"))}];
    auto& n = its[{series, std::stoull(r.at("bytes"))}];
    (r.at("rank") == "0" ? v.first : v.second) += num(r.at("latency_us"));
    ++(r.at("rank") == "0" ? n.first : n.second);
  }
  for (auto& [key, v] : lat) {
    v.first /= std::max(1, its[key].first);
    v.second /= std::max(1, its[key].second);
  }
  for (auto const& s : e.order)
    for (auto const& [key, v] : lat) {
      if (key.first != s)
        continue;
      auto const& [series, bytes] = key;
      const std::string loc   = series.substr(series.find('/') + 1);
      const std::string proto = series.substr(0, series.find('/'));
      const double mg         = static_cast<double>(bytes) * 8 / (v.second * 1e3);
      auto measured           = [&](unsigned rank) {
        return ref.present ? ref.sendrecv_latency(loc, proto, bytes, rank) : std::nan("");
      };
      const double rs = measured(0), rr = measured(1);
      std::string col = fmt::format("cclo_{}_rdma_{}", proto == "rendezvous" ? "rndzvs" : "eager", loc);
      const double rg = ref.present ? ref.sendrecv_throughput(col, bytes) : std::nan("");
      const double es = error_pct(v.first, rs), er = error_pct(v.second, rr), eg = error_pct(mg, rg);
      for (auto* t : {&b.data, &*b.errors})
        t->row().add(series).add(bytes).add(fixed(mg, 3)).add(fixed(rg, 3)).add(fixed(eg, 1)).add(fixed(v.first, 3))
            .add(fixed(rs, 3)).add(fixed(es, 1)).add(fixed(v.second, 3)).add(fixed(rr, 3)).add(fixed(er, 1));
      auto& x = e.sums[series];
      add_error(es, x.send, x.ns);
      add_error(er, x.recv, x.nr);
      add_error(eg, x.thr, x.nt);
    }
}

/// The software-MPI baseline (OpenMPI over the host's RDMA NIC, workload mpi): throughput = size / latency.
void fig7_mpi_rows(const Companion& mpi, const Reference& ref, Built& b, Fig7Errors& e)
{
  for (auto const& r : first_iterations(mpi)) {
    const std::string series = "openmpi-rdma/host";
    e.saw(series);
    const std::uint64_t bytes = std::stoull(r.at("bytes"));
    double mg = num(r.at("throughput_gbps"));
    double rg = ref.present ? ref.sendrecv_throughput("mpi_rdma_host", bytes) : std::nan("");
    double eg = error_pct(mg, rg);
    for (auto* t : {&b.data, &*b.errors})
      t->row().add(series).add(bytes).add(fixed(mg, 3)).add(fixed(rg, 3)).add(fixed(eg, 1)).add("").add("").add("")
          .add("").add("").add("");
    add_error(eg, e.sums[series].thr, e.sums[series].nt);
  }
}

/// The gallery's text: what the model was fitted to, the mean errors per series, then every size.
void fig7_gallery(Built& b, Fig7Errors& e)
{
  auto& g = b.gallery;
  g.push_back("Model: calibrated on these very measurements, each rank's own CCLO counter "
              "(`sendrecv_latency_by_rank_us.csv`: rank 0 sends, rank 1 receives), run as the benchmark ran them "
              "(host-invoked, MPI_Barrier and the CCLO's barrier() before each call: the receiver starts after the "
              "sender by the barrier's release; each rank's mean over ten iterations, as the measured value is a mean over runs: "
              "one iteration is one draw of the host invocation's jitter); see `platforms/accl-coyote-u55c.json`. Throughput = size / the "
              "receiver's time, as the benchmark's plot, against `sendrecv_throughput_gbps.csv`. The OpenMPI series: "
              "`platforms/accl-cpu-cx5.json`, calibrated on the MPI send/recv latencies (figure accl-mpi-sendrecv), "
              "so its column here is a check.");
  g.push_back("");
  g.push_back("| series | mean abs error, sender | receiver | throughput |");
  g.push_back("|---|---|---|---|");
  auto cell = [](double s, int n) { return n ? fmt::format("{:.1f} % ({} sizes)", s / n, n) : std::string("-"); };
  for (auto const& s : e.order) {
    auto const& x = e.sums[s];
    g.push_back(fmt::format("| {} | {} | {} | {} |", s, cell(x.send, x.ns), cell(x.recv, x.nr), cell(x.thr, x.nt)));
  }
  g.push_back("");
  g.push_back("| series | size | sender us | measured | error | receiver us | measured | error | Gb/s | measured | "
              "error |");
  g.push_back("|---|---|---|---|---|---|---|---|---|---|---|");
  const results::CsvTable errors = results::parse_csv(b.errors->csv(), b.errors->name());
  for (auto const& r : errors.rows) {
    std::vector<std::string> row;
    for (auto const& c : errors.columns)
      row.push_back(r.at(c));
    g.push_back(fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |", row[0],
                            size_label(std::stoull(row[1])), row[5], row[6], row[7].empty() ? "" : row[7] + " %", row[8],
                            row[9], row[10].empty() ? "" : row[10] + " %", row[2], row[3],
                            row[4].empty() ? "" : row[4] + " %"));
  }
}

} // namespace

Built fig7(const CsvTable& merged, const Reference& ref, const Companion& mpi)
{
  // The per-rank table: each rank's own counter, as the benchmark logs them; throughput = size / the
  // receiver's time (the benchmark's plot takes rank 1's).
  Built b;
  b.data   = results::Table("accl-fig7", {"series", "bytes", "model_gbps", "measured_gbps", "gbps_error_pct", "sender_us",
                                          "sender_measured_us", "sender_error_pct", "receiver_us",
                                          "receiver_measured_us", "receiver_error_pct"});
  b.errors = results::Table("accl-fig7-errors", b.data.columns());
  Fig7Errors e;
  fig7_cclo_rows(merged, ref, b, e);
  fig7_mpi_rows(mpi, ref, b, e);
  fig7_gallery(b, e);
  return b;
}

Built fig8(const CsvTable& merged, const Reference& ref)
{
  Built b;
  b.data   = results::Table("accl-fig8", {"path", "model_us", "measured_us", "error_pct"});
  b.errors = results::Table("accl-fig8-errors", {"path", "model_us", "measured_us", "error_pct"});
  b.gallery.push_back("Host-visible NOP latency (call to completion seen by the caller). Model calibrated on these "
                      "measurements (firmware call/finalize cycles, invocation path latencies); the model's mean over "
                      "the sweep's 20 calls, each drawn from the path's measured spread (`invocation.jitter`).");
  b.gallery.push_back("");
  b.gallery.push_back("| path | model us | measured us (mean) | error |");
  b.gallery.push_back("|---|---|---|---|");
  const std::map<std::string, std::string> names{
      {"kernel", "fpga_kernel"}, {"coyote", "coyote_host_driver"}, {"xrt", "xrt_host_driver"}};
  for (auto const& r : iteration_means(merged)) {
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

Built collectives(const std::string& name, const CsvTable& merged, const Companion& mpi)
{
  const bool f2f = name == "accl-fig10";
  return latency_by_size(
      name, merged, mpi, {"cclo-eager", "cclo-rendezvous", "mpi"},
      [](auto const& r) { return "cclo-" + benchmark_build(r); }, benchmark_scope, "mpi",
      fmt::format("Predictions: the CCLO model was calibrated on send/recv and NOP only, the MPI model on the MPI "
                  "send/recv latencies only (figure accl-mpi-sendrecv). CCLO: run as the ACCL+ benchmark ran it "
                  "(host-invoked, MPI_Barrier "
                  "and the CCLO's barrier() before each call; the eager build with 4 MiB Rx buffers, the rendezvous "
                  "build with 64 B ones, the firmware choosing protocol and algorithm: all-to-all runs rendezvous in "
                  "both); cycle counter (firmware pick-up to finalize) in the benchmark plots' scope: the root's for "
                  "reduce and gather, the mean over the 8 ranks otherwise (column `scope`), with the algorithm the "
                  "firmware ran, averaged over 5 iterations (each draws the host invocations' jitter). MPI: OpenMPI over the hosts' RDMA NICs with OpenMPI's algorithm choice, run in the "
                  "same harness (MPI_Barrier before each call, each rank timing its own call from when it leaves the "
                  "barrier) and shown in the same scope: the root's time for reduce and gather, the mean over the "
                  "ranks otherwise{}. us.",
                  f2f ? "; FPGA data staged as ACCL+ Fig. 9 (FPGA -> host copy, MPI, host -> FPGA copy, next-kernel "
                        "invocation)"
                      : ", host data"),
      benchmark_scope);
}

Built fig12(const CsvTable& merged, const Companion& mpi)
{
  Built b;
  b.data = results::Table("accl-fig12", {"bytes", "series", "ranks", "algorithm", "latency_us", "scope"});
  Grid at;
  std::set<std::uint64_t> ranks, sizes;
  struct Row {
    std::uint64_t bytes;
    std::string series;
    int ranks;
    std::string algorithm, latency, scope;
  };
  std::vector<Row> rows;
  for (auto const& r : iteration_means(merged)) {
    Scoped l = benchmark_scope(r);
    rows.push_back({std::stoull(r.at("bytes")), "cclo-" + benchmark_build(r), std::stoi(r.at("ranks")), r.at("algorithm"),
                    l.value, l.scope});
  }
  for (auto const& r : first_iterations(mpi)) {
    Scoped l = benchmark_scope(r); // the same harness and scope as the CCLO's: the root's time for reduce
    rows.push_back({std::stoull(r.at("bytes")), "mpi", std::stoi(r.at("ranks")), r.at("library_algorithm"), l.value,
                    l.scope});
  }
  std::sort(rows.begin(), rows.end(), [](auto const& x, auto const& y) {
    return std::tie(x.bytes, x.series, x.ranks) < std::tie(y.bytes, y.series, y.ranks);
  });
  for (auto const& r : rows) {
    b.data.row().add(r.bytes).add(r.series).add(r.ranks).add(r.algorithm).add(r.latency).add(r.scope);
    ranks.insert(static_cast<std::uint64_t>(r.ranks));
    sizes.insert(r.bytes);
    at[{size_label(r.bytes), r.series}][static_cast<std::uint64_t>(r.ranks)] = {num(r.latency), r.algorithm};
  }
  auto& g = b.gallery;
  g.push_back("Predictions: reduce latency (us) vs ranks, device data for the CCLO (run as the ACCL+ benchmark ran it: "
              "host-invoked, MPI_Barrier and the CCLO's barrier() before each call, the eager build with ranks+2 Rx "
              "buffers of 4 MiB, the rendezvous build with 64 B ones; the root's cycle counter, as the benchmark's "
              "plots show reduce, averaged over 5 iterations; the algorithm the firmware selected) and host data for "
              "OpenMPI over RDMA NICs "
              "(the root's time after MPI_Barrier, as the CCLO's; the algorithm OpenMPI's tuned rules selected).");
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
              "(`platforms/accl-coyote-u55c.json`); the MPI host costs on the MPI send/recv latencies only, so the broadcast "
              "column is a prediction checked here.");
  g.push_back("");
  g.push_back("| size | OpenMPI algorithm | bcast us | measured | error | total us | measured | error |");
  g.push_back("|---|---|---|---|---|---|---|---|");
  double sb = 0, st = 0;
  int n = 0;
  for (auto const& r : iteration_means(merged)) {
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
  for (auto const& r : iteration_means(merged)) {
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

} // namespace nafsim::app::figtab

namespace nafsim::app::figtab {

Built fig13(const CsvTable& merged, const Companion& mpi)
{
  // What the application sees: the CCLO's host-side latency (invocation, and for host data XRT's staging
  // copies, included); MPI from the common start to the return.
  return latency_by_size(
      "accl-fig13", merged, mpi, {"cclo-device", "cclo-host", "mpi-tcp"},
      [](auto const& r) { return "cclo-" + r.at("location"); },
      [](auto const& r) { return Scoped{r.at("host_latency_us"), "slowest rank, host-visible"}; }, "mpi-tcp",
      "Predictions: 8-rank gather and reduce over TCP, the CCLO's TCP path calibrated on send/recv only (figure "
      "accl-tcp-sendrecv). CCLO on the XRT platform "
      "(`platforms/accl-xrt-u55c.json`, hardware TCP stack, eager): device data invoked by an FPGA kernel, and host "
      "data invoked through XRT (45 us on average, drawn per call from its measured spread: the mean over 5 "
      "iterations) with XRT's staging copies, as the application sees them. MPICH over the "
      "hosts' kernel TCP stacks (`platforms/accl-cpu-mpich-tcp.json`, uncalibrated assumptions), host data, from "
      "the common start to the slowest rank's return. us.",
      [](auto const& r) { return Scoped{r.at("latency_us"), "slowest rank"}; });
}

} // namespace nafsim::app::figtab
