// The `nafsim` command line: subcommands run, sweep, figures, bench, params; exit codes 0 (done), 2 (bad
// input), 3 (the simulated run failed), 1 (internal error).
#include "simcore/app/Cli.hpp"
#include "simcore/app/Bench.hpp"
#include "simcore/app/Explain.hpp"
#include "simcore/app/Figures.hpp"
#include "simcore/app/LogSetting.hpp"
#include "simcore/app/Params.hpp"
#include "simcore/app/Plot.hpp"
#include "simcore/app/Runner.hpp"
#include "simcore/app/Scenario.hpp"
#include "simcore/config/ConfigError.hpp"
#include "simcore/engine/Scheduler.hpp"
#include "simcore/results/OutputDir.hpp"
#include "simcore/sweep/SweepRunner.hpp"

#include <CLI/CLI.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <fmt/ranges.h>
#include <charconv>
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <optional>
#include <iostream>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace nafsim;

namespace {

/// --out given as "": no folder, said so (it used to mean the default silently).
CLI::Validator non_empty_out()
{
  return CLI::Validator(
      [](std::string& s) {
        return s.empty() ? std::string("an empty path names no folder: give one, or leave --out out for the default")
                         : std::string{};
      },
      "DIR");
}

int run_command(const std::string& scenario, const app::ScenarioOptions& opt, const std::string& out,
                const std::vector<std::string>& logs, const std::vector<std::string>& argv,
                const workloads::WorkloadRegistry& reg, const app::RunOptions& run_opt, bool check_only)
{
  app::Scenario sc = app::load_scenario(scenario, opt, reg);
  if (check_only) {
    std::cout << app::check_scenario(sc, logs) << "\n";
    return 0;
  }
  fs::path dir;
  if (out.empty()) { // results/<name>: the name must stay one folder inside results/
    if (auto why = results::result_name_problem(sc.header.name); !why.empty())
      throw config::ConfigError(sc.origins.of("/name"), "/name", fmt::format("'{}': {}", sc.header.name, why));
    dir = results::checked_run_dir(fs::path("results") / sc.header.name, sc.origins.of("/name"), "/name");
  } else {
    dir = results::checked_run_dir(out, "--out", "");
  }
  auto rep         = app::run_scenario(sc, dir, logs, argv, run_opt);
  for (auto const& l : rep.summary)
    std::cout << l << "\n";
  std::cerr << fmt::format("wall time {:.3f} s, {:.2f} M {}-hops/s\n", rep.wall_seconds,
                           rep.wall_seconds > 0 ? static_cast<double>(rep.packet_hops) / rep.wall_seconds / 1e6 : 0.0,
                           sc.platform.network.fidelity == net::Fidelity::Flow ? "flow" : "packet");
  return 0;
}

int sweep_command(const std::string& file, unsigned jobs, const std::string& out, const std::vector<std::string>& sets,
                  bool merge_only, std::optional<std::size_t> max_points, const workloads::WorkloadRegistry& reg)
{
  sweep::SweepSpec spec = sweep::SweepSpec::load(file, max_points);
  sweep::SweepOptions opt;
  // Under mpirun (or srun --mpi=pmi2) each rank takes its share of the points (OpenMPI, PMI); in a Slurm job array
  // each array task does (its id counted from the array's first). Not SLURM_PROCID: a batch script sees it too,
  // and a plain sweep there would silently run a share.
  auto env_number = [](const char* name) -> std::optional<unsigned> {
    const char* v = std::getenv(name);
    if (!v)
      return std::nullopt;
    char* end = nullptr;
    errno     = 0;
    unsigned long n = std::strtoul(v, &end, 10);
    if (errno != 0 || end == v || *end != '\0' || n > 1000000)
      throw config::ConfigError(fmt::format("environment variable {}", name), "",
                                fmt::format("'{}' is not a rank or task count", v));
    return static_cast<unsigned>(n);
  };
  struct Share {
    const char *rank, *size, *first;
  };
  for (auto sh : {Share{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", nullptr}, Share{"PMI_RANK", "PMI_SIZE", nullptr},
                  Share{"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN"}}) {
    auto r = env_number(sh.rank), s = env_number(sh.size);
    if (!r || !s)
      continue;
    unsigned first = sh.first ? env_number(sh.first).value_or(0) : 0;
    if (*r < first || *r - first >= *s || *s == 0)
      throw config::ConfigError(fmt::format("environment variables {} and {}", sh.rank, sh.size), "",
                                fmt::format("rank {} is not one of {} (counted from {})", *r, *s, first));
    opt.rank  = *r - first;
    opt.ranks = *s;
    break;
  }
  if (out.empty()) {
    if (auto why = results::result_name_problem(spec.name); !why.empty())
      throw config::ConfigError(file, "/name", fmt::format("'{}': {}", spec.name, why));
    opt.out_dir = results::checked_sweep_dir(fs::path("results") / spec.name, file, "/name", opt.ranks > 1);
  } else {
    opt.out_dir = results::checked_sweep_dir(out, "--out", "", opt.ranks > 1);
  }
  opt.program    = fs::read_symlink("/proc/self/exe").string();
  opt.jobs       = jobs > 0 ? jobs : std::max(1u, std::thread::hardware_concurrency());
  opt.extra_sets = sets;
  opt.progress   = isatty(2) != 0;
  auto validate = [&](const std::vector<std::string>& point_sets) {
    return app::resolve_sweep_point(spec.base, spec.base_file, spec.file, point_sets, reg);
  };
  sweep::SweepRunner runner(spec, opt, validate);
  if (merge_only) {
    std::error_code ec;
    if (!fs::is_regular_file(opt.out_dir / "sweep.json", ec))
      throw config::ConfigError(out.empty() ? file : "--out", "",
                                fmt::format("{} holds no sweep (no sweep.json): nothing to merge; run the sweep first, "
                                            "or name its directory with --out",
                                            opt.out_dir.string()));
    auto files = runner.merge();
    std::cout << fmt::format("sweep {}: merged {} in {}/\n", spec.name, fmt::join(files, ", "), opt.out_dir.string());
    return 0;
  }
  auto s = runner.run();
  std::cout << fmt::format("sweep {}: {} point(s){}, {} already done, {} ran now, {} failed; merged {} in {}/\n",
                           spec.name, s.total, opt.ranks > 1 ? fmt::format(" (rank {} of {})", opt.rank, opt.ranks) : "",
                           s.already, s.succeeded, s.failed, fmt::join(s.merged_files, ", "), opt.out_dir.string());
  for (auto const& f : s.failures)
    std::cout << "  failed " << f << "\n";
  for (auto const& u : s.unread)
    std::cout << "  warning: " << u << "\n";
  if (s.interrupted) {
    std::cout << "interrupted: run the same command again to resume\n";
    return 130;
  }
  return s.failed > 0 ? 3 : 0;
}

/// `figures --gallery PAGE` rewrites PAGE: refuse, before any figure runs, a folder or a file that is not a gallery
/// page nafsim wrote (the page starts with its title), so a user's file is never overwritten.
void check_gallery_page(const std::string& page)
{
  if (page.empty())
    return;
  std::error_code ec;
  if (fs::is_directory(page, ec))
    throw config::ConfigError("--gallery", "",
                              fmt::format("{} is a folder; --gallery names the page to write, e.g. {}", page,
                                          (fs::path(page) / "gallery.md").string()));
  if (!fs::exists(page, ec)) {
    // (its folder must take it: learnt now, not once every figure has run)
    const fs::path dir = fs::path(page).has_parent_path() ? fs::path(page).parent_path() : fs::path(".");
    if (!fs::is_directory(dir, ec))
      throw config::ConfigError("--gallery", "",
                                fmt::format("the folder {} of the gallery page does not exist: create it or name a "
                                            "page in an existing folder",
                                            dir.string()));
    return;
  }
  std::ifstream in(page);
  std::string first;
  std::getline(in, first);
  if (first != "# nafsim figure gallery")
    throw config::ConfigError("--gallery", "",
                              fmt::format("{} exists and is not a gallery page nafsim wrote (its first line is not "
                                          "'# nafsim figure gallery'): it is left as it is; name a new file",
                                          page));
}

/// One subcommand of nafsim's command line: its options (its constructor adds them) and what it does once chosen.
struct Command {
  CLI::App* sub = nullptr;
  virtual ~Command()                                              = default;
  virtual int execute(const workloads::WorkloadRegistry& reg) = 0;
};

struct RunCommand final : Command {
  std::string scenario, out;
  app::ScenarioOptions opt;
  std::uint64_t seed = 0;
  std::vector<std::string> logs;
  CLI::Option* seed_opt = nullptr;
  bool check_only = false;
  std::string trace_level = "off";
  bool critical_path = false;
  bool event_profile = false;
  bool quiet         = false;
  double wall_limit  = 0;
  std::vector<std::string> args; ///< the whole command line (metadata.json)
  RunCommand(CLI::App& cli, std::vector<std::string> argv) : args(std::move(argv))
  {
    auto* run = cli.add_subcommand("run", "simulate one scenario and write results/<name>/");
    run->add_option("scenario", scenario, "scenario JSON file")->required();
    run->add_option("--set", opt.sets, "override a parameter: --set platform.network.link.rate=25Gbps (repeatable)");
    seed_opt = run->add_option("--seed", seed, "seed of every random stream (overrides the scenario's)")
                     ->check(CLI::Validator(
                         [](std::string& s) {
                           // CLI11 would wrap "-1" into 2^64 - 1 silently: only digits are a seed.
                           std::uint64_t v = 0;
                           auto [end, ec]  = std::from_chars(s.data(), s.data() + s.size(), v);
                           return !s.empty() && s[0] != '-' && ec == std::errc{} && end == s.data() + s.size()
                                      ? std::string{}
                                      : "a seed is a whole number from 0 to 18446744073709551615, got '" + s + "'";
                         },
                         "SEED"));
    run->add_option("--out", out, "result directory (default results/<scenario name>)")
        ->check(non_empty_out());
    run->add_option("--log", logs, "SimGrid log setting, e.g. nafsim_engine.thres:debug (repeatable)")
        ->check(CLI::Validator([](std::string& s) { return app::check_log_setting(s); }, "CATEGORY.KEY:VALUE"));
    run->add_flag("--check-only", check_only,
                  "check the scenario (build its platform and start its workload) and stop before the run: exit 0 if it "
                  "would run, 2 naming the file and path if not; nothing is written");
    run->add_option("--trace", trace_level,
                    "write trace.json (Chrome trace format): messages (work requests, inbound messages), blocks "
                    "(also, per FPGA, the CCLO's micro-controller primitives and waits, data-mover moves and Rx-buffer "
                    "occupancy) or packets (messages, and every transmission and drop per port)")
        ->check(CLI::IsMember({"off", "messages", "blocks", "packets"}));
    run->add_flag("--quiet", quiet,
                  "no progress line on stderr (otherwise a run longer than a few seconds shows its simulated time, "
                  "events per second and, when the workload can tell, the time left: on a terminal one line rewritten "
                  "every second, else a line every 10 s)");
    run->add_option("--wall-limit", wall_limit,
                    "stop the run (exit 3, nothing written) once this many seconds of wall-clock time have passed since it "
                    "started (its setup included; checked as its events run); 0, the default: no limit")
        ->check(CLI::Validator(
            [](std::string& v) {
              const double x = std::strtod(v.c_str(), nullptr); // (CLI::Range lets nan through: no comparison holds)
              return std::isnan(x) ? std::string("a number of seconds, not nan") : std::string();
            },
            "SECONDS"))
        ->check(CLI::Range(0.0, 1e9));
    run->add_flag("--critical-path", critical_path,
                  "record every event's cause and write each call's critical path (critical_path.csv: the chain of "
                  "activities that set its latency, each with its resource and place; critical_path_steps.csv: the "
                  "same by node and switch) and its summary, bottleneck and longest step (40 bytes of memory per "
                  "simulated event)");
    run->add_flag("--event-profile", event_profile,
                  "count the run's events by the component that handled them (metadata.json event_profile: handler, "
                  "kind, events, and per CCLO message where CCLOs sent messages)");
    sub = run;
  }
  int execute(const workloads::WorkloadRegistry& reg) override
  {
    if (*seed_opt)
      opt.seed = seed;
    auto level = trace_level == "packets"    ? results::TraceLevel::Packets
                 : trace_level == "blocks"   ? results::TraceLevel::Blocks
                 : trace_level == "messages" ? results::TraceLevel::Messages
                                             : results::TraceLevel::Off;
    return run_command(scenario, opt, out, logs, args, reg, app::RunOptions{level, critical_path, wall_limit, quiet, event_profile}, check_only);
  }
};

struct PlotCommand final : Command {
  app::PlotOptions plot_opt;
  explicit PlotCommand(CLI::App& cli)
  {
    auto* plot = cli.add_subcommand("plot", "draw a results CSV (a run's table or a merged sweep's) with gnuplot, PNG or SVG");
    plot->add_option("csv", plot_opt.csv, "the CSV file")->required();
    plot->add_option("--x", plot_opt.x, "the numeric column on the x axis")->required();
    plot->add_option("--y", plot_opt.y, "the numeric column on the y axis")->required();
    plot->add_option("--series", plot_opt.series, "one line per value (or combination of values) of these columns");
    plot->add_option("--facet", plot_opt.facet, "one panel per value of this column");
    plot->add_option("--where", plot_opt.where, "keep the rows where COLUMN=VALUE (repeatable; all must hold)");
    plot->add_flag("--logx", plot_opt.logx, "logarithmic x axis");
    plot->add_flag("--logy", plot_opt.logy, "logarithmic y axis");
    plot->add_option("--out", plot_opt.out, "the figure, .png or .svg (default: <csv stem>-<y>-vs-<x>.png beside the CSV)");
    plot->add_option("--title", plot_opt.title,
                     "the figure's title (default: the y label vs the x label, and the CSV's file name)");
    plot->add_option("--xlabel", plot_opt.xlabel,
                     "the x axis label (default: from the column name, its unit in brackets: latency_us -> latency [us])");
    plot->add_option("--ylabel", plot_opt.ylabel, "the y axis label (default: from the column name, as --xlabel)");
    plot->add_option("--legend", plot_opt.legend, "where the series' legend goes: below (default), right, inside, none")
        ->check(CLI::IsMember({"below", "right", "inside", "none"}));
    plot->add_flag("--shared-y", plot_opt.shared_y, "facets share one y range (default: each panel its own)");
    sub = plot;
  }
  int execute(const workloads::WorkloadRegistry&) override
  {
    return app::plot_command(plot_opt);
  }
};

struct ExplainCommand final : Command {
  app::ExplainOptions explain_opt;
  std::string goal;
  explicit ExplainCommand(CLI::App& cli)
  {
    auto* explain = cli.add_subcommand("explain", "run a scenario with its critical paths, name the bottleneck, rerun it "
                                                  "with that resource made ideal and report what each call would gain");
    explain->add_option("scenario", explain_opt.scenario,
                        "scenario JSON file (a collective, mpi, sendrecv, connectionless, fc, dlrm, program or chakra "
                        "workload)")
        ->required();
    explain->add_option("--set", explain_opt.sets, "override a parameter in both runs (repeatable)");
    explain->add_option("--out", explain_opt.out,
                        "folder of its runs: the baseline, each step's ideal run, each change proposed (default "
                        "results/explain-<scenario name>)")
        ->check([](const std::string& v) { return v.empty() ? std::string("an empty folder name") : std::string(); });
    explain->add_option("--steps", explain_opt.steps,
                        "make the bottleneck ideal, then the one that leaves, and so on: this many times (default 1)")
        ->check(CLI::Range(1u, 8u));
    explain->add_flag("--propose", explain_opt.propose,
                      "also try the changes a user can make (a CCLO build, an algorithm, 2x links, 2x memory bandwidth, a "
                      "2x datapath, half the switch latency, bigger Rx buffers; for MPI the library's algorithm, segment size and, "
                      "over RDMA, the receive queue), each alone, ranked by speedup, each with its --set list");
    explain->add_option("--goal", goal,
                        "proposes (as --propose does) and searches combinations of up to three changes for this speedup (e.g. 2x), each "
                        "combination run to confirm it")
        ->check([](const std::string& v) {
          char* end      = nullptr;
          const double g = std::strtod(v.c_str(), &end);
          const std::string rest(end);
          return g > 1 && g <= 1e6 && (rest.empty() || rest == "x")
                     ? std::string()
                     : std::string("a speedup above 1 and at most 1000000, e.g. 2x");
        });
    sub = explain;
  }
  int execute(const workloads::WorkloadRegistry& reg) override
  {
    explain_opt.program = fs::read_symlink("/proc/self/exe").string();
    if (!goal.empty())
      explain_opt.goal = std::strtod(goal.c_str(), nullptr);
    return app::explain_command(explain_opt, reg);
  }
};

struct BenchCommand final : Command {
  std::string bench_suite = "hops", bench_size = "1MiB";
  std::vector<unsigned> bench_ranks{8, 64, 512, 1024, 4096};
  std::vector<std::string> bench_colls{"allreduce", "bcast"};
  std::vector<unsigned> bench_a2a_ranks{16, 64};
  std::string bench_a2a_size = "64KiB";
  double bench_a2a_resolve = 0.05;
  std::vector<unsigned> bench_eager_ring{256};
  std::vector<std::string> bench_fidelity{"packet"};
  std::vector<unsigned> bench_sizes{16, 256, 1024};
  std::string bench_total = "4GiB", bench_out = "results/bench";
  unsigned bench_repeat = 3;
  explicit BenchCommand(CLI::App& cli)
  {
    auto* bench = cli.add_subcommand(
        "bench", "simulator speed and memory vs cluster size: packet-hops per wall second (suite hops), collectives on "
                 "CCLO ranks (suite collectives)");
    bench->add_option("--suite", bench_suite, "hops (packet-hops/s vs nodes), collectives (collectives vs ranks) or all")
        ->check(CLI::IsMember({"hops", "collectives", "all"}));
    bench->add_option("--ranks", bench_ranks, "collectives: rank counts (default 8 64 512 1024 4096)")
        ->check(CLI::Range(2u, 1u << 16)); // at most topology.hosts allows
    bench->add_option("--collectives", bench_colls, "collectives: which ones (default allreduce bcast)")
        ->check(CLI::IsMember({"bcast", "scatter", "gather", "allgather", "reduce", "allreduce", "reduce-scatter",
                               "alltoall", "barrier"}));
    bench->add_option("--size", bench_size, "collectives: the message size (default 1MiB)");
    bench->add_option("--alltoall-ranks", bench_a2a_ranks,
                      "collectives: the all-to-all study's rank counts, each at packet and flow fidelity (default 16 64; "
                      "0: none)")
        ->check(CLI::Range(0u, 1u << 16));
    bench->add_option("--alltoall-size", bench_a2a_size, "collectives: the all-to-all study's bytes per peer (default 64KiB)");
    bench->add_option("--alltoall-resolve", bench_a2a_resolve,
                      "collectives: the all-to-all study also runs at flow fidelity with this "
                      "platform.network.flow_resolve_fraction (default 0.05; 0: not)")
        ->check(CLI::Range(0.0, 1.0));
    bench->add_option("--eager-ring-ranks", bench_eager_ring,
                      "collectives: rank counts of the allreduce of --size with the eager protocol and the ring forced "
                      "(one message per Rx-buffer segment and ring step; default 256; 0: none)")
        ->check(CLI::Range(0u, 1u << 16));
    bench->add_option("--fidelity", bench_fidelity,
                      "collectives: network fidelities to run each point at, packet, flow and/or fast-forward (packet "
                      "fidelity with platform.network.fast_forward.train 16; default packet)")
        ->check(CLI::IsMember({"packet", "flow", "fast-forward"}));
    bench->add_option("--nodes", bench_sizes, "cluster sizes (default 16 256 1024)")
        ->check(CLI::Range(2u, 1u << 16)); // at most topology.hosts allows
    bench->add_option("--total", bench_total, "traffic of a run, split over the nodes (default 4GiB)");
    bench->add_option("--out", bench_out, "output directory (default results/bench)")
        ->check(non_empty_out());
    bench->add_option("--repeat", bench_repeat, "runs per size; the median wall time is reported (default 3)")
        ->check(CLI::Range(1u, 1000u));
    sub = bench;
  }
  int execute(const workloads::WorkloadRegistry& reg) override
  {
    Bytes total;
    try {
      total = parse_bytes(bench_total);
    } catch (const UnitError& e) {
      throw config::ConfigError("--total", "", e.message);
    }
    try {
      // The collectives run on float32 elements: a size is a whole number of them.
      for (auto [flag, v] : {std::pair{"--size", &bench_size}, std::pair{"--alltoall-size", &bench_a2a_size}}) {
        Bytes sz;
        try {
          sz = parse_bytes(*v);
        } catch (const UnitError& e) {
          throw config::ConfigError(flag, "", e.message);
        }
        if (sz.count % 4 != 0)
          throw config::ConfigError(flag, "",
                                    fmt::format("{} is not a whole number of 4-byte float32 elements (the "
                                                "collectives' data type): give a multiple of 4 B",
                                                *v));
      }
    } catch (const UnitError& e) {
      throw config::ConfigError("--size", "", e.message);
    }
    std::erase(bench_a2a_ranks, 0u); // 0: no all-to-all study
    std::erase(bench_eager_ring, 0u);
    for (unsigned p : bench_eager_ring)
      if (p < 2)
        throw config::ConfigError("--eager-ring-ranks", "", fmt::format("{} rank(s): a ring needs 2 or more", p));
    for (unsigned p : bench_a2a_ranks)
      if (p < 2)
        throw config::ConfigError("--alltoall-ranks", "", fmt::format("{} rank(s): an all-to-all needs 2 or more", p));
    const auto points = app::bench_points(bench_ranks, bench_colls, bench_size, bench_fidelity, bench_a2a_ranks,
                                          bench_a2a_size, bench_a2a_resolve, bench_eager_ring);
    if (bench_suite != "hops")
      app::check_bench_points(points, reg); // (what loading a point's scenario checks, before the folder is
                                            // claimed; a workload's own checks come in the point's run: exit 2 too)
    // The hops bench: each node sends whole messages of 1 MiB (less than one per node had run one each, unsaid:
    // --total 0 ran 4 MiB on 4 nodes).
    if (bench_suite != "collectives")
      for (unsigned n : bench_sizes)
        if (total.count / n < (1u << 20))
          throw config::ConfigError("--total", "",
                                    fmt::format("{} over {} nodes is less than one message of 1 MiB per node (the hops "
                                                "bench sends whole 1 MiB messages): give at least {}",
                                                format_bytes(total), n, format_bytes(Bytes{std::uint64_t{n} << 20})));
    results::claim_own_dir(bench_out, "--out", "bench"); // a user's folder (and its bench.csv) is left alone
    int rc = 0;
    if (bench_suite != "collectives")
      rc = app::run_bench(bench_sizes, total.count, bench_repeat, bench_out, reg);
    if (rc == 0 && bench_suite != "hops")
      rc = app::run_bench_collectives(points, bench_repeat, bench_out, reg);
    return rc;
  }
};

struct FiguresCommand final : Command {
  std::vector<std::string> fig_names;
  std::string fig_out = "results/figures", fig_source, fig_reference;
  unsigned fig_jobs = 0;
  bool fig_list     = false;
  std::string fig_gallery;
  std::string fig_bench;
  explicit FiguresCommand(CLI::App& cli)
  {
    auto* figs = cli.add_subcommand("figures", "re-run the sweeps behind the papers' figures and draw them (gnuplot, SVG + PNG)");
    figs->add_option("name", fig_names, "figures to draw (default: all; --list shows them)");
    figs->add_option("--gallery", fig_gallery, "the gallery page to write (default: gallery.md in --out; "
                                               "--gallery results/gallery.md refreshes the committed page)");
    figs->add_option("--out", fig_out, "figure directory (default results/figures; the gallery page goes into it)")
        ->check(non_empty_out());
    figs->add_option("--source", fig_source, "nafsim source tree holding python-free-tools/figures (default: the current "
                                             "directory if it has them, else the tree this binary was built from)");
    figs->add_option("--reference", fig_reference, "measured ACCL+ data (default <source>/../shared/reference/accl)");
    figs->add_option("--jobs,-j", fig_jobs, "simulations run at once (default: the number of cores)");
    figs->add_flag("--list", fig_list, "list the figures and exit");
    figs->add_option("--bench", fig_bench, "scale: the `nafsim bench` output it draws (default: bench/ beside --out)");
    sub = figs;
  }
  int execute(const workloads::WorkloadRegistry& reg) override
  {
    if (fig_list) {
      for (auto const& f : app::figure_list())
        std::cout << fmt::format("{:12}  {}\n", f.name, f.title);
      return 0;
    }
    app::FigureOptions fo;
    fo.names   = fig_names;
    fo.out     = fig_out;
    fo.source  = !fig_source.empty()                                   ? fs::path(fig_source)
                 : fs::is_directory("python-free-tools/figures") ? fs::current_path()
                                                                     : fs::path(NAFSIM_SOURCE_DIR);
    fo.reference = !fig_reference.empty() ? fs::path(fig_reference) : fo.source / ".." / "shared" / "reference" / "accl";
    fo.program   = fs::read_symlink("/proc/self/exe").string();
    fo.gallery   = fig_gallery;
    fo.bench     = !fig_bench.empty() ? fs::path(fig_bench) : fs::path(fig_out).parent_path() / "bench";
    results::check_own_dir(fo.out, "--out", "figures"); // a user's folder (its gallery.md, its images) is left alone
    check_gallery_page(fo.gallery);
    fo.jobs      = fig_jobs > 0 ? fig_jobs : std::max(1u, std::thread::hardware_concurrency());
    fo.progress  = isatty(2) != 0;
    return app::run_figures(fo, reg);
  }
};

struct SweepCommand final : Command {
  std::string sweep_file, sweep_out;
  unsigned jobs = 0;
  std::vector<std::string> sweep_sets;
  bool merge_only = false;
  std::size_t max_points = 0;
  CLI::Option* max_points_opt = nullptr;
  explicit SweepCommand(CLI::App& cli)
  {
    auto* sw = cli.add_subcommand("sweep", "run a sweep of scenarios in parallel processes and merge their tables");
    sw->add_option("sweep", sweep_file, "sweep JSON file")->required();
    sw->add_option("--jobs,-j", jobs, "points run at once (default: the number of cores)");
    sw->add_option("--out", sweep_out, "output directory (default results/<sweep name>)")
        ->check(non_empty_out());
    sw->add_option("--set", sweep_sets, "override a parameter in every point (axis values win)");
    sw->add_flag("--merge-only", merge_only, "only merge the tables of the points already done");
    max_points_opt =
        sw->add_option("--max-points", max_points,
                       "the most points the sweep may have, checked before they are made (default: the file's "
                       "max_points, else 1000000)")
            ->check(CLI::Range(std::size_t{1}, sweep::kMaxPointsCeiling));
    sub = sw;
  }
  int execute(const workloads::WorkloadRegistry& reg) override
  {
    return sweep_command(sweep_file, jobs, sweep_out, sweep_sets, merge_only,
                         *max_points_opt ? std::optional<std::size_t>(max_points) : std::nullopt, reg);
  }
};

struct ParamsCommand final : Command {
  std::string prefix;
  std::string preset;
  bool one_line = false;
  explicit ParamsCommand(CLI::App& cli)
  {
    auto* params = cli.add_subcommand("params", "list every parameter: path, type, default, meaning");
    params->add_option("prefix", prefix, "only paths starting with this (e.g. platform.network)");
    params->add_option("--preset", preset, "show a platform preset's values and sources as defaults");
    params->add_flag("--one-line", one_line,
                     "one line per parameter (path, type, default, meaning: a table for grep and scripts); otherwise "
                     "each meaning is wrapped below its parameter at the terminal's width (100 columns when not a "
                     "terminal)");
    sub = params;
  }
  int execute(const workloads::WorkloadRegistry& reg) override
  {
    std::size_t width = 100;
    if (winsize ws{}; isatty(1) && ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
      width = ws.ws_col;
    app::print_params(std::cout, prefix, preset.empty() ? std::nullopt : std::optional<std::string>(preset), reg,
                      one_line ? 0 : width);
    return 0;
  }
};
} // namespace

namespace nafsim::app {

int cli_main(int argc, char** argv)
{
  workloads::WorkloadRegistry reg;
  workloads::register_all_workloads(reg);
  CLI::App cli{"nafsim: discrete-event simulator of network-attached FPGA clusters (SimGrid 3.32)"};
  cli.require_subcommand(1);
  std::vector<std::unique_ptr<Command>> commands;
  commands.push_back(std::make_unique<RunCommand>(cli, std::vector<std::string>(argv, argv + argc)));
  commands.push_back(std::make_unique<ParamsCommand>(cli));
  commands.push_back(std::make_unique<SweepCommand>(cli));
  commands.push_back(std::make_unique<FiguresCommand>(cli));
  commands.push_back(std::make_unique<ExplainCommand>(cli));
  commands.push_back(std::make_unique<PlotCommand>(cli));
  commands.push_back(std::make_unique<BenchCommand>(cli));
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = cli.exit(e);
    return code == 0 ? 0 : 2;
  }
  try {
    for (auto const& c : commands)
      if (*c->sub)
        return c->execute(reg);
  } catch (const config::ConfigError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const DeadlockError& e) {
    std::cerr << "simulation failed: " << e.what() << "\n";
    return 3;
  } catch (const SimulationError& e) {
    std::cerr << "simulation failed: " << e.what() << "\n";
    return 3;
  } catch (const TimeRangeError& e) {
    std::cerr << "simulation failed: " << e.what() << "\n";
    return 3;
  } catch (const results::OutputError& e) {
    std::cerr << "error: results not written: " << e.what() << "\n";
    return 4;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
} // namespace nafsim::app
