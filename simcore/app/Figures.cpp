#include "simcore/app/Figures.hpp"

#include "simcore/app/FigureTables.hpp"
#include "simcore/app/Gnuplot.hpp"
#include "simcore/app/Plot.hpp"
#include "simcore/app/Scenario.hpp"
#include "simcore/config/ConfigError.hpp"
#include "simcore/results/OutputDir.hpp"
#include "simcore/results/ResultSink.hpp"
#include "simcore/sweep/SweepRunner.hpp"

#include <cstdlib>
#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace nafsim::app {

namespace {

using namespace figtab;

struct Figure {
  FigureInfo info;
  std::function<Built(const CsvTable&, const Reference&, const Companion&)> build;
  std::string table = "collective"; ///< the merged result table the builder reads
  /// Also run <name><companion>.json (software MPI, other traffic) and hand its `companion_table` to the builder.
  bool has_companion = false;
  std::string companion_table = "mpi";
  std::string companion       = "-mpi";
};

/// Figures whose table the gallery also shows as `nafsim plot` draws it with its defaults and these options (issue 52:
/// plots a user makes from a results table, fit to publish): a view of the same data without the figure's template.
const std::map<std::string, PlotOptions>& quick_plots()
{
  static const std::map<std::string, PlotOptions> m = [] {
    std::map<std::string, PlotOptions> r;
    PlotOptions c;
    c.x = "bytes", c.y = "latency_us", c.series = {"series"}, c.facet = "collective", c.logx = true, c.logy = true;
    r["accl-fig10"] = c;
    PlotOptions t;
    t.x = "bytes", t.y = "model_gbps", t.series = {"series"}, t.logx = true;
    r["accl-fig7"] = t;
    return r;
  }();
  return m;
}

/// The `nafsim plot` options of `o` as a command line would give them (the gallery shows the command).
std::string plot_args(const PlotOptions& o)
{
  std::string a = fmt::format("--x {} --y {}", o.x, o.y);
  for (auto const& s : o.series)
    a += " --series " + s;
  if (!o.facet.empty())
    a += " --facet " + o.facet;
  return a + (o.logx ? " --logx" : "") + (o.logy ? " --logy" : "");
}

const std::vector<Figure>& figures()
{
  auto plain = [](auto f) {
    return [f](const CsvTable& t, const Reference& r, const Companion&) { return f(t, r); };
  };
  static const std::vector<Figure> list{
      {{"accl-fig7", "ACCL+ Fig. 7: send/recv throughput, eager and rendezvous, device and host data, and OpenMPI"},
       fig7, "collective_ranks", true},
      {{"accl-fig8", "ACCL+ Fig. 8: CCLO invocation latency (NOP)"}, plain(fig8)},
      {{"accl-tcp-sendrecv", "Calibration of ACCL over XRT and the 100G TCP stack: 2-rank send/recv, each rank's "
                             "time in the K2K, F2F and H2H scopes, model vs measured medians"},
       plain(tcp_sendrecv), "collective_ranks"},
      {{"accl-mpi-sendrecv", "Calibration of Open MPI over UCX and the hosts' RoCE: 2-rank send/recv latency, model vs "
                             "measured medians"},
       plain(mpi_sendrecv), "mpi"},
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
      {{"accl-fig13", "ACCL+ Fig. 13 style: 8-rank gather and reduce over TCP, CCLO (XRT, device and host data) vs MPICH-TCP"},
       [](const CsvTable& t, const Reference&, const Companion& m) { return fig13(t, m); }, "collective", true},
      {{"accl-fig9-copies", "ACCL+ Fig. 9, the copies: FPGA <-> host through the host driver"}, plain(fig9_copies),
       "hostcopy"},
      {{"lant-fig7", "Lant et al. Fig. 7: send / receive / registered receive latency on one hop"},
       plain([](const CsvTable& t, const Reference&) { return lant_fig7(t); }), "connectionless"},
      {{"lant-hops", "Lant et al.: registration gain vs switches on the path and background load"},
       plain([](const CsvTable& t, const Reference&) { return lant_hops(t); }), "connectionless"},
      {{"lant-tables", "Lant et al.: registration table size x bitmask width under many concurrent operations"},
       plain([](const CsvTable& t, const Reference&) { return lant_tables(t); }), "connectionless"},
      {{"accl-fig16", "ACCL+ Fig. 16: distributed FC layer on 1-8 hosts, speed-up and breakdown, ACCL+ vs OpenMPI reduce"},
       [](const CsvTable& t, const Reference&, const Companion& m) { return fig16(t, m); }, "fc", true, "fc"},
      {{"accl-fig17", "ACCL+ Fig. 17: DLRM on 10 FPGAs vs the batched CPU baseline, latency and throughput"},
       plain([](const CsvTable& t, const Reference&) { return fig17(t); }), "dlrm_systems"},
      {{"where-time-goes", "Where time goes: the critical path of an 8-rank allreduce on the CCLO per resource, 100 "
                           "and 400 Gb/s links"},
       plain([](const CsvTable& t, const Reference&) { return where_time_goes(t); }), "critical_path"},
      {{"flow-accuracy", "Flow vs packet fidelity: every collective on 64 CCLO ranks, permutation and incast traffic "
                         "on a 4:1 leaf-spine, flow's error per case"},
       [](const CsvTable& t, const Reference&, const Companion& traffic) { return flow_accuracy(t, traffic); },
       "collective", true, "traffic", "-traffic"},
      {{"reconic-rdma", "RecoNIC Fig. 9-12: RDMA READ / WRITE throughput and latency vs size, single vs batch"},
       plain([](const CsvTable& t, const Reference&) { return reconic_rdma(t); }), "reconic"},
      {{"reconic-memory", "RecoNIC VI-B: host <-> device DMA throughput and FPGA access to host memory vs size"},
       plain([](const CsvTable& t, const Reference&) { return reconic_memory(t); }), "reconic"},
      {{"pac-uq", "PAC Fig. 11-12: worst-case unexpected-queue processing vs queue length, PAC vs E8400 and ARM A9"},
       plain([](const CsvTable& t, const Reference&) { return pac_uq(t); }), "portals_uq"},
      {{"pac-nas", "PAC Fig. 13: NAS IS / FT / EP / DT and GA MD communication speed-up over software Portals on an "
                   "ARM A9, 32 and 128 nodes"},
       plain([](const CsvTable& t, const Reference&) { return pac_nas(t); }), "portals_mpi"},
      {{"pac-alltoall", "PAC Fig. 15: 8 KB all-to-all over PAC, eager vs rendezvous vs triggered rendezvous (eager "
                        "limit 4 KB, 0), 32 and 128 nodes, ideal bus and network"},
       plain([](const CsvTable& t, const Reference&) { return pac_alltoall(t); }), "portals_mpi"},
  };
  return list;
}

/// Draw figure `name` (python-free-tools/figures/<name>.gp over opt.out/<name>.csv) as <name>.svg and <name>.png
/// of `size` pixels, with more gnuplot settings in `extra` ("; name = value ..."). Returns the files drawn; on a
/// gnuplot error, stops and sets `error`.
std::vector<std::string> draw(const FigureOptions& opt, const fs::path& dir, const std::string& name,
                              const std::string& size, const std::string& extra, std::string& error)
{
  std::vector<std::string> drawn;
  for (auto [term, ext] : {std::pair{fmt::format("svg size {} dynamic font 'sans,11'", size), "svg"},
                           std::pair{fmt::format("pngcairo size {} font 'sans,10'", size), "png"}}) {
    std::string setup = fmt::format("set terminal {}; set output {}; csv = {}{}", term,
                                    gp_quote((opt.out / (name + "." + ext)).string()),
                                    gp_quote((opt.out / (name + ".csv")).string()), extra);
    error = gnuplot(setup, dir / (name + ".gp"), opt.out / "runs" / (name + ".gnuplot.log"));
    if (!error.empty())
      break;
    drawn.push_back(name + "." + ext);
  }
  return drawn;
}

const FigureInfo kScaleInfo{"scale", "nafsim at scale: packet-hops per second vs nodes, the collectives' wall time and "
                                    "memory per node vs ranks (drawn from nafsim bench)"};

/// The figure `scale`: no sweep, it draws what `nafsim bench` wrote in `opt.bench`. Returns false (with a
/// message) when there is nothing to draw.
bool draw_scale(const FigureOptions& opt, const fs::path& dir, const std::string& to_figs, std::vector<std::string>& page,
                std::string& error)
{
  const fs::path hops_csv = opt.bench / "bench.csv", coll_csv = opt.bench / "bench_collectives.csv";
  // Its three panels need both benches: a panel with no series fails inside gnuplot ("all points y value
  // undefined"), after a half-drawn figure. (figures_command refuses this first when `scale` is asked for.)
  if (!fs::exists(hops_csv) || !fs::exists(coll_csv)) {
    error = fmt::format("{} or {} does not exist: run `nafsim bench --suite all` first (or name its output with "
                        "--bench DIR)",
                        hops_csv.string(), coll_csv.string());
    return false;
  }
  results::Table t("scale", {"series", "x", "wall_s", "process_s", "mhops_per_s", "bytes_per_node"});
  std::vector<std::string> hop_series, coll_series;
  auto note = [](std::vector<std::string>& v, const std::string& s) {
    if (std::find(v.begin(), v.end(), s) == v.end())
      v.push_back(s);
  };
  auto num = [](const CsvTable& c, std::size_t i, const std::string& col) {
    const std::string& v = c.cell(i, col);
    return v.empty() ? std::string("NaN") : v;
  };
  if (fs::exists(hops_csv)) {
    auto c = results::read_csv(hops_csv);
    for (std::size_t i = 0; i < c.rows.size(); ++i) {
      t.row()
          .add("packet-hops")
          .add(c.cell(i, "nodes"))
          .add(num(c, i, "wall_s_median"))
          .add("NaN")
          .add(num(c, i, "mpackethops_per_s"))
          .add(num(c, i, "bytes_per_node"));
      note(hop_series, "packet-hops");
    }
  }
  if (fs::exists(coll_csv)) {
    auto c = results::read_csv(coll_csv);
    for (std::size_t i = 0; i < c.rows.size(); ++i) {
      std::string fid    = c.cell(i, "fidelity").empty() ? "packet" : c.cell(i, "fidelity");
      std::string series = c.cell(i, "collective") + "-" + fid;
      // The all-to-all study's spaced solves (flow@f) are a series of their own, not points of the exact flow's.
      if (auto const& f = c.cell(i, "flow_resolve_fraction"); !f.empty() && std::strtod(f.c_str(), nullptr) > 0)
        series += fmt::format("@{:g}", std::strtod(f.c_str(), nullptr));
      // The forced eager ring (issue 53's heaviest case) likewise, not a point of the firmware's allreduce.
      if (!c.cell(i, "forced").empty())
        series += "-" + c.cell(i, "forced");
      std::string proc   = c.cell(i, "process_s_median").empty() ? num(c, i, "wall_s_median")
                                                                 : c.cell(i, "process_s_median");
      t.row()
          .add(series)
          .add(c.cell(i, "ranks"))
          .add(num(c, i, "wall_s_median"))
          .add(proc)
          .add(num(c, i, "mpackethops_per_s"))
          .add(num(c, i, "bytes_per_node"));
      note(coll_series, series);
    }
  }
  if (t.row_count() == 0) {
    error = fmt::format("{} holds no benchmark rows", opt.bench.string());
    return false;
  }
  results::write_file_atomic(opt.out / "scale.csv", t.csv());
  auto words = [](const std::vector<std::string>& v) {
    return v.empty() ? std::string("none") : fmt::format("{}", fmt::join(v, " "));
  };
  draw(opt, dir, "scale", "1440,520",
       fmt::format("; hop_series = {}; coll_series = {}", gp_text(words(hop_series)), gp_text(words(coll_series))),
       error);
  if (!error.empty())
    return false;
  page.push_back(fmt::format("## {}", kScaleInfo.title));
  page.push_back("");
  page.push_back(fmt::format("![scale]({}scale.svg)", to_figs));
  page.push_back("");
  page.push_back(fmt::format("Data: `{}scale.csv`, from `{}/bench.csv` and `bench_collectives.csv`; regenerate with "
                             "`./build/nafsim bench --suite all` (add `--fidelity packet flow` and the rank counts you "
                             "want), then `./build/nafsim figures scale`.",
                             to_figs, opt.bench.filename().string()));
  page.push_back("");
  return true;
}

} // namespace

const std::vector<FigureInfo>& figure_list()
{
  static const std::vector<FigureInfo> v = [] {
    std::vector<FigureInfo> r;
    for (auto const& f : figures())
      r.push_back(f.info);
    r.push_back(kScaleInfo);
    return r;
  }();
  return v;
}

namespace {

/// The figures named (every one when none is), and whether `scale` is among them.
std::vector<const Figure*> select_figures(const std::vector<std::string>& names, bool& scale)
{
  std::vector<const Figure*> selected;
  scale = names.empty();
  for (auto const& n : names) {
    if (n == kScaleInfo.name) {
      scale = true;
      continue;
    }
    auto it = std::find_if(figures().begin(), figures().end(), [&](auto const& f) { return f.info.name == n; });
    if (it == figures().end()) {
      std::string known;
      for (auto const& f : figures())
        known += (known.empty() ? "" : ", ") + f.info.name;
      known += ", " + kScaleInfo.name;
      throw config::ConfigError("nafsim figures", "", fmt::format("no figure named '{}' (figures: {})", n, known));
    }
    selected.push_back(&*it);
  }
  if (names.empty())
    for (auto const& f : figures())
      selected.push_back(&f);
  return selected;
}

/// What the figures of one `nafsim figures` share.
struct FigureRun {
  const FigureOptions& opt;
  const workloads::WorkloadRegistry& reg;
  fs::path dir;        ///< python-free-tools/figures: the sweeps and gnuplot templates
  std::string to_figs; ///< the figure directory, relative to the gallery page ("" or ending in '/')
  Reference ref;
  std::map<std::string, std::vector<std::string>> pages; ///< the gallery's sections drawn now, by figure
  bool interrupted = false;
};

/// The sweep `sweep_name` of figure `name`, always from scratch: its points must come from this build of the model.
/// Returns the sweep's output directory, or nothing if a point failed (reported) or it was interrupted
/// (`run.interrupted`).
std::optional<fs::path> run_figure_sweep(FigureRun& run, const std::string& name, const std::string& sweep_name)
{
  const FigureOptions& opt = run.opt;
  sweep::SweepSpec spec    = sweep::SweepSpec::load((run.dir / (sweep_name + ".json")).string());
  sweep::SweepOptions so;
  so.out_dir  = opt.out / "runs" / sweep_name;
  so.program  = opt.program;
  so.jobs     = opt.jobs;
  so.progress = opt.progress;
  // Replace only a sweep directory (one holding sweep.json): never what the user put under --out.
  if (fs::exists(so.out_dir) && !fs::is_regular_file(so.out_dir / "sweep.json") && !fs::is_empty(so.out_dir))
    throw config::ConfigError("--out", "",
                              fmt::format("{} exists and is not a sweep directory nafsim wrote; name another "
                                          "figure directory",
                                          so.out_dir.string()));
  fs::remove_all(so.out_dir);
  auto validate = [&](const std::vector<std::string>& sets) {
    return resolve_sweep_point(spec.base, spec.base_file, spec.file, sets, run.reg);
  };
  // The figures' sweeps ship with the source and run in the suite: a platform check of every point in a child
  // process would only double their set-up time.
  so.check_against_platform = false;
  sweep::SweepRunner runner(spec, so, validate);
  auto s = runner.run();
  if (s.interrupted) {
    run.interrupted = true;
    return std::nullopt;
  }
  if (s.failed > 0) {
    for (auto const& e : s.failures)
      std::cerr << "  failed " << e << "\n";
    std::cerr << fmt::format("figure {}: {} point(s) of sweep {} failed; not drawn\n", name, s.failed, sweep_name);
    return std::nullopt;
  }
  return so.out_dir;
}

/// Figure `name`'s section of the gallery: the figure, where its data came from, the builder's text and (when the
/// figure was drawn) its table as `nafsim plot` draws it. Returns 3 if that plot failed, else 0.
int figure_page(FigureRun& run, const Figure& f, const Built& b, bool drawn)
{
  const std::string& name    = f.info.name;
  const std::string& to_figs = run.to_figs;
  auto& page                 = run.pages[name];
  page.push_back(fmt::format("## {}", f.info.title));
  page.push_back("");
  page.push_back(fmt::format("![{}]({}{}.svg)", name, to_figs, name));
  page.push_back("");
  page.push_back(fmt::format("Data: `{}{}.csv`; sweep: `python-free-tools/figures/{}.json`; regenerate with "
                             "`./build/nafsim figures {}`.",
                             to_figs, name, name, name));
  page.push_back("");
  for (auto const& l : b.gallery)
    page.push_back(l);
  page.push_back("");
  auto q = quick_plots().find(name);
  if (q == quick_plots().end() || !drawn)
    return 0;
  PlotOptions o = q->second;
  o.csv         = (run.opt.out / (name + ".csv")).string();
  o.out         = (run.opt.out / (name + "-plot.png")).string();
  try {
    plot_command(o);
    page.push_back(fmt::format("The same table as `nafsim plot` draws it with its defaults (`nafsim plot {}{}.csv {} "
                               "--out {}-plot.png`):",
                               to_figs, name, plot_args(o), name));
    page.push_back("");
    page.push_back(fmt::format("![{} by nafsim plot]({}{}-plot.png)", name, to_figs, name));
    page.push_back("");
  } catch (const config::ConfigError& e) {
    std::cerr << fmt::format("figure {}: nafsim plot of its table: {}\n", name, e.what());
    return 3;
  }
  return 0;
}

/// Figure f: its sweeps, its tables, its drawing and its page. Returns 0, 3 (not drawn, or drawn in part) or 130
/// (interrupted).
int draw_figure(FigureRun& run, const Figure& f)
{
  const FigureOptions& opt = run.opt;
  const std::string& name  = f.info.name;
  std::cout << fmt::format("figure {}: {}\n", name, f.info.title);
  auto main_dir = run_figure_sweep(run, name, name);
  std::optional<fs::path> companion_dir;
  if (main_dir && f.has_companion)
    companion_dir = run_figure_sweep(run, name, name + f.companion);
  if (run.interrupted)
    return 130;
  if (!main_dir || (f.has_companion && !companion_dir))
    return 3;
  Built b = f.build(results::read_csv(*main_dir / (f.table + ".csv")), run.ref,
                    companion_dir ? results::read_csv(*companion_dir / (f.companion_table + ".csv")) : Companion{});
  results::write_file_atomic(opt.out / (name + ".csv"), b.data.csv());
  if (b.errors)
    results::write_file_atomic(opt.out / (name + "-errors.csv"), b.errors->csv());
  int status = 0;
  std::string err;
  std::vector<std::string> drawn = draw(opt, run.dir, name, "960,640", "", err);
  if (!err.empty()) {
    std::cerr << fmt::format("figure {}: {}\n", name, err);
    status = 3;
  }
  std::cout << fmt::format("  wrote {}.csv{}{} in {}/\n", name, b.errors ? fmt::format(", {}-errors.csv", name) : "",
                           drawn.empty() ? "" : ", " + fmt::format("{}", fmt::join(drawn, ", ")), opt.out.string());
  return std::max(status, figure_page(run, f, b, err.empty()));
}

/// The figure `scale` and its page, from `nafsim bench`'s output. Returns 0, or 3 if that output is there and could
/// not be drawn.
int scale_figure(FigureRun& run, bool bench_present)
{
  std::cout << fmt::format("figure scale: {}\n", kScaleInfo.title);
  results::make_directories(run.opt.out / "runs");
  std::vector<std::string> page;
  std::string err;
  if (draw_scale(run.opt, run.dir, run.to_figs, page, err)) {
    run.pages["scale"] = page;
    std::cout << fmt::format("  wrote scale.csv, scale.svg, scale.png in {}/\n", run.opt.out.string());
  } else if (!bench_present) {
    std::cout << fmt::format("  not drawn: {}\n", err);
  } else {
    std::cerr << fmt::format("figure scale: {}\n", err);
    return 3;
  }
  return 0;
}

/// The gallery lists every figure drawn so far, in the registry's order (one run may draw a subset): the sections
/// of figures not redrawn now are kept from the page as it was.
void write_gallery(const fs::path& gallery, const std::string& to_figs,
                   const std::map<std::string, std::vector<std::string>>& pages)
{
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
                     (to_figs.empty() ? std::string("./") : to_figs) +
                     "`; the images are generated output (not committed), the page `results/gallery.md` is (`nafsim "
                     "figures --gallery results/gallery.md` refreshes it). Each section names the "
                     "sweep behind the figure; measured points come from `shared/reference/accl/` (ACCL+) or the "
                     "paper's text (Lant et al.).\n\n";
  for (auto const& f : figure_list())
    if (auto it = sections.find(f.name); it != sections.end())
      text += "<!-- figure " + f.name + " -->\n" + it->second;
  results::write_file_atomic(gallery, text);
  std::cout << fmt::format("gallery: {}\n", gallery.string());
}

} // namespace

int run_figures(const FigureOptions& opt, const workloads::WorkloadRegistry& reg)
{
  // The gallery page and where its links point: the figure directory, relative to the page.
  const fs::path gallery = opt.gallery.empty() ? opt.out / "gallery.md" : opt.gallery;
  const fs::path rel     = fs::absolute(opt.out).lexically_normal().lexically_relative(
      fs::absolute(gallery).lexically_normal().parent_path());
  bool scale = false;
  const std::vector<const Figure*> selected = select_figures(opt.names, scale);

  require_printable_name(opt.out, "--out", "the figure directory's name"); // its files' names reach gnuplot
  const fs::path dir = opt.source / "python-free-tools" / "figures";
  if (!fs::is_directory(dir))
    throw config::ConfigError("nafsim figures", "",
                              fmt::format("{} not found: run from the nafsim source tree or pass --source DIR",
                                          dir.string()));
  // The figure `scale` draws `nafsim bench` output, both benches (a panel without its bench fails in gnuplot):
  // asked for by name, they must be there.
  const bool hops = fs::exists(opt.bench / "bench.csv"), colls = fs::exists(opt.bench / "bench_collectives.csv");
  const bool bench_present = hops && colls;
  if (scale && !bench_present && !opt.names.empty())
    throw config::ConfigError("nafsim figures scale", "",
                              fmt::format("{} benchmark output in {} ({}): run `nafsim bench --suite all` first (it "
                                          "writes both bench.csv and bench_collectives.csv), or name its output "
                                          "directory with --bench DIR",
                                          hops || colls ? "incomplete" : "no", opt.bench.string(),
                                          hops    ? "bench_collectives.csv is missing"
                                          : colls ? "bench.csv is missing"
                                                  : "bench.csv, bench_collectives.csv"));
  FigureRun run{opt, reg, dir, rel.empty() || rel == "." ? "" : rel.generic_string() + "/",
                Reference::load(opt.reference), {}, false};
  if (!run.ref.present)
    std::cerr << fmt::format("note: no reference data in {}: figures are drawn without measured points\n",
                             opt.reference.string());
  results::claim_own_dir(opt.out, "--out", "figures");
  int status = 0;
  for (const Figure* f : selected) {
    const int s = draw_figure(run, *f);
    if (s == 130)
      return 130;
    status = std::max(status, s);
  }
  if (scale)
    status = std::max(status, scale_figure(run, bench_present));
  write_gallery(gallery, run.to_figs, run.pages);
  return status;
}

} // namespace nafsim::app
