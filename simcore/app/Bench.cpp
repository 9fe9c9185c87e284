#include "simcore/app/Bench.hpp"

#include "simcore/app/Runner.hpp"
#include "simcore/app/Scenario.hpp"
#include "simcore/results/OutputDir.hpp"
#include "simcore/results/CsvReader.hpp"
#include "simcore/results/ResultSink.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <iostream>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace nafsim::app {

namespace {

unsigned fat_tree_k(unsigned hosts)
{
  unsigned k = 4;
  while (k * k * k / 4 < hosts)
    k += 2;
  return k;
}

/// What one benchmark point measured: the median wall time of `repeat` runs, each in its own process (one
/// SimGrid engine per process; peak memory is then the point's own), and the last run's metadata.
struct Measured {
  std::vector<double> walls; ///< sorted
  std::vector<double> process; ///< whole-process wall times (set-up and tear-down included), sorted
  config::Json meta;
  double median() const { return walls[walls.size() / 2]; }
  double process_median() const { return process[process.size() / 2]; }
};

/// (`input`: the option a configuration error of the point's scenario comes from; such a point exits 2, and so does
/// the bench: bad input, not a failed simulation)
std::optional<Measured> measure(const std::string& doc, const fs::path& dir, unsigned repeat,
                                const workloads::WorkloadRegistry& reg, const std::string& what, const char* input,
                                bool& bad_input)
{
  Measured m;
  for (unsigned r = 0; r < std::max(1u, repeat); ++r) {
    std::cout << std::flush;
    auto t0   = std::chrono::steady_clock::now();
    pid_t pid = fork();
    if (pid == 0) {
      try {
        auto sc = load_scenario_doc(config::parse_json_text(doc, "bench"), "bench", ".", {}, reg);
        run_scenario(sc, dir, {}, {"nafsim", "bench"});
        _exit(0);
      } catch (const config::ConfigError& e) {
        std::cerr << "Error: " << input << ": " << what << ": " << e.what() << "\n";
        _exit(2);
      } catch (const std::exception& e) {
        std::cerr << "bench " << what << " failed: " << e.what() << "\n";
        _exit(3);
      }
    }
    int status = 0;
    waitpid(pid, &status, 0);
    m.process.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      bad_input = WIFEXITED(status) && WEXITSTATUS(status) == 2;
      if (WIFSIGNALED(status))
        std::cerr << "bench " << what << " ended by signal " << WTERMSIG(status) << "\n";
      return std::nullopt;
    }
    m.meta = config::load_json_file((dir / "metadata.json").string());
    m.walls.push_back(m.meta["wall_seconds"].get<double>());
  }
  std::sort(m.walls.begin(), m.walls.end());
  std::sort(m.process.begin(), m.process.end());
  return m;
}

} // namespace

int run_bench(const std::vector<unsigned>& sizes, std::uint64_t total_bytes, unsigned repeat, const fs::path& out,
              const workloads::WorkloadRegistry& reg)
{
  results::Table t("bench", {"nodes", "fat_tree_k", "messages_per_node", "packet_hops", "events", "wall_s_median",
                             "wall_s_min", "wall_s_max", "mpackethops_per_s", "ns_per_hop", "simulated_us",
                             "peak_rss_mib", "bytes_per_node", "peak_pending_events"});
  std::cout << fmt::format("{:>6} {:>4} {:>12} {:>12} {:>8} {:>10} {:>10} {:>10} {:>12}\n", "nodes", "k", "packet-hops",
                           "events", "wall_s", "M hops/s", "ns/hop", "peak MiB", "bytes/node");
  std::cout << fmt::format("(median of {} run(s) per size)\n", std::max(1u, repeat));
  for (unsigned n : sizes) {
    unsigned k        = fat_tree_k(n);
    std::uint64_t msg = 1 << 20;
    auto messages     = static_cast<unsigned>(std::max<std::uint64_t>(1, total_bytes / n / msg));
    std::string doc   = fmt::format(
        R"({{"name": "bench-{0}", "platform": {{"preset": "fat-tree", "topology": {{"hosts": {0}, "fat_tree": {{"k": {1}}}}},
              "network": {{"routing": "dmodk"}}}},
            "workload": {{"kind": "traffic", "pattern": "shift", "message": "1MiB", "messages": {2}, "window": 4}}}})",
        n, k, messages);
    bool bad_input = false;
    auto m = measure(doc, out / fmt::format("bench-{}", n), repeat, reg, fmt::format("{} nodes", n), "--nodes",
                     bad_input);
    if (!m)
      return bad_input ? 2 : 3;
    auto const& meta = m->meta;
    double hops      = meta["packets"]["packet_hops"].get<double>();
    double wall      = m->median();
    double rss       = meta["peak_rss_bytes"].get<double>() / (1 << 20);
    double rate      = hops / wall / 1e6;
    auto events      = meta["events"].get<std::uint64_t>();
    auto per_node    = meta["bytes_per_node"].get<std::uint64_t>();
    t.row()
        .add(n)
        .add(k)
        .add(messages)
        .add(static_cast<std::uint64_t>(hops))
        .add(events)
        .add(wall, 3)
        .add(m->walls.front(), 3)
        .add(m->walls.back(), 3)
        .add(rate, 3)
        .add(1e3 / rate, 1)
        .add(meta["simulated_seconds"].get<double>() * 1e6, 3)
        .add(rss, 1)
        .add(per_node)
        .add(meta["peak_pending_events"].get<std::uint64_t>());
    std::cout << fmt::format("{:>6} {:>4} {:>12} {:>12} {:>8.3f} {:>10.3f} {:>10.1f} {:>10.1f} {:>12}\n", n, k,
                             static_cast<std::uint64_t>(hops), events, wall, rate, 1e3 / rate, rss, per_node);
  }
  results::make_directories(out);
  results::write_file_atomic(out / "bench.csv", t.csv());
  std::cout << "results in " << (out / "bench.csv").string()
            << " (targets: >= 10 M packet-hops/s at 16 nodes, per-hop cost within 1.5x up to 4,096 nodes)\n";
  return 0;
}

namespace {
// `--fidelity fast-forward`: packet fidelity with trains of up to this many packets (NetworkConfig::fast_forward;
// simcore/net/README.md: 16 is the faster of 16 and 64 on the 1,024-rank allreduce)
constexpr const char* kFastForward = "fast-forward";
constexpr unsigned kBenchTrain     = 16;
} // namespace

std::vector<BenchPoint> bench_points(const std::vector<unsigned>& ranks, const std::vector<std::string>& collectives,
                                     const std::string& size, const std::vector<std::string>& fidelities,
                                     const std::vector<unsigned>& alltoall_ranks, const std::string& alltoall_size,
                                     double alltoall_resolve, const std::vector<unsigned>& eager_ring_ranks)
{
  std::vector<BenchPoint> v;
  for (auto const& coll : collectives)
    for (auto const& fid : fidelities)
      for (unsigned p : ranks)
        v.push_back({coll, fid, p, size});
  for (unsigned p : alltoall_ranks) {
    for (const char* fid : {"packet", "flow"})
      v.push_back({"alltoall", fid, p, alltoall_size, 0, false, "--alltoall-size"});
    if (alltoall_resolve > 0)
      v.push_back({"alltoall", "flow", p, alltoall_size, alltoall_resolve, false, "--alltoall-size"});
  }
  for (unsigned p : eager_ring_ranks)
    v.push_back({"allreduce", "packet", p, size, 0, true});
  return v;
}

namespace {
/// The scenario of one point of the collectives suite.
std::string bench_doc(const BenchPoint& b)
{
  auto const& [coll, fid, p, size, resolve, eager_ring, option] = b;
  return fmt::format(
      R"({{"name": "bench-{0}-{1}", "platform": {{"preset": "accl-coyote-u55c",
            "topology": {{"kind": "fat-tree", "hosts": {1}, "fat_tree": {{"k": {2}}}}},
            "network": {{"fidelity": "{4}", "flow_resolve_fraction": {5}{7}}}}},
          "workload": {{"kind": "collective", "collective": "{0}", "ranks": {1}, "sizes": ["{3}"],
                        "verify": false{6}}}}})",
      coll, p, fat_tree_k(p), size, fid == kFastForward ? "packet" : fid, resolve,
      eager_ring ? R"(, "protocol": "eager", "algorithm": "ring")" : "",
      fid == kFastForward ? fmt::format(R"(, "fast_forward": {{"train": {}}})", kBenchTrain) : "");
}
} // namespace

void check_bench_points(const std::vector<BenchPoint>& points, const workloads::WorkloadRegistry& reg)
{
  for (auto const& b : points)
    try {
      load_scenario_doc(config::parse_json_text(bench_doc(b), "bench"), "bench", ".", {}, reg);
    } catch (const config::ConfigError& e) {
      throw config::ConfigError(b.size_option, "",
                                fmt::format("{} on {} ranks ({}): {}", b.collective, b.ranks, b.fidelity, e.what()));
    }
}

int run_bench_collectives(const std::vector<BenchPoint>& points, unsigned repeat, const fs::path& out,
                          const workloads::WorkloadRegistry& reg)
{
  results::Table t("bench_collectives",
                   {"collective", "fidelity", "ranks", "bytes", "fat_tree_k", "algorithm", "protocol", "latency_us", "wall_s_median",
                    "wall_s_min", "wall_s_max", "process_s_median", "events", "events_per_cclo_message", "packet_hops",
                    "mpackethops_per_s", "peak_rss_mib", "bytes_per_node", "flow_resolve_fraction", "forced"});
  std::cout << fmt::format("{:>10} {:>9} {:>6} {:>32} {:>12} {:>9} {:>9} {:>12} {:>10} {:>10} {:>11} {:>10}\n", "collective",
                           "fidel.", "ranks", "protocol/algorithm", "latency_us", "wall_s", "process_s", "packet-hops",
                           "M hops/s", "peak MiB", "bytes/node", "ev/message");
  std::cout << fmt::format("(on CCLO ranks of the ACCL+ testbed's FPGAs in a fat-tree, median of {} run(s); all-to-all "
                           "sizes are per peer; flow@f: flow fidelity with flow_resolve_fraction f; (forced): the "
                           "eager protocol and the ring forced)\n",
                           std::max(1u, repeat));
  for (auto const& point : points) {
      auto const& [coll, fid, p, size, resolve, eager_ring, option] = point;
      const unsigned k = fat_tree_k(p);
      const std::string doc = bench_doc(point);
      const std::string how_fid = resolve > 0 ? fmt::format("{}@{}", fid, resolve) : fid;
      const fs::path dir =
          out / fmt::format("bench-{}{}-{}-{}-{}", coll, eager_ring ? "-eager-ring" : "", how_fid, p, size);
      bool bad_input = false;
      auto m         = measure(doc, dir, repeat, reg, fmt::format("{} on {} ranks ({})", coll, p, how_fid),
                               option, bad_input);
      if (!m)
        return bad_input ? 2 : 3;
      auto const& meta = m->meta;
      auto table       = results::read_csv(dir / "collective.csv");
      const double hops = meta["packets"]["packet_hops"].get<double>();
      const double wall = m->median();
      const double rss  = meta["peak_rss_bytes"].get<double>() / (1 << 20);
      auto per_node     = meta["bytes_per_node"].get<std::uint64_t>();
      std::string how   = table.cell(0, "protocol") + "/" + table.cell(0, "algorithm") + (eager_ring ? " (forced)" : "");
      const double per_message = meta.contains("cclo") ? meta["cclo"]["events_per_message"].get<double>() : 0.0;
      t.row()
          .add(coll)
          .add(fid)
          .add(p)
          .add(table.cell(0, "bytes"))
          .add(k)
          .add(table.cell(0, "algorithm"))
          .add(table.cell(0, "protocol"))
          .add(table.cell(0, "latency_us"))
          .add(wall, 3)
          .add(m->walls.front(), 3)
          .add(m->walls.back(), 3)
          .add(m->process_median(), 3)
          .add(meta["events"].get<std::uint64_t>())
          .add(per_message, 2)
          .add(static_cast<std::uint64_t>(hops))
          .add(hops / wall / 1e6, 3)
          .add(rss, 1)
          .add(per_node)
          .add(resolve, 3)
          .add(eager_ring ? "eager/ring" : "");
      std::cout << fmt::format("{:>10} {:>9} {:>6} {:>32} {:>12} {:>9.3f} {:>9.3f} {:>12} {:>10.3f} {:>10.1f} {:>11} {:>10.2f}\n",
                               coll, how_fid, p, how, table.cell(0, "latency_us"), wall, m->process_median(),
                               static_cast<std::uint64_t>(hops), hops / wall / 1e6, rss, per_node, per_message);
    }
  results::make_directories(out);
  results::write_file_atomic(out / "bench_collectives.csv", t.csv());
  std::cout << "results in " << (out / "bench_collectives.csv").string()
            << " (targets: at most 10 events per CCLO message; the forced eager ring allreduce of 1 MiB on 256 ranks "
               "< 4 s; 1 MiB allreduce on 1,024 ranks < 2 s and < 200 MiB; on 4,096 ranks < 2.5 s and < 100 KiB "
               "per node; flow fidelity: 65,536 ranks < 60 s and < 64 KiB per node; all-to-all of 64 KiB per peer at "
               "flow fidelity: 256 ranks < 2 s, 1,024 ranks < 60 s, never slower than packet fidelity at 64+ ranks)\n";
  return 0;
}

} // namespace nafsim::app
