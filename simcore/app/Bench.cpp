#include "simcore/app/Bench.hpp"

#include "simcore/app/Runner.hpp"
#include "simcore/app/Scenario.hpp"
#include "simcore/results/ResultSink.hpp"

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

} // namespace

int run_bench(const std::vector<unsigned>& sizes, std::uint64_t total_bytes, unsigned repeat, const fs::path& out,
              const workloads::WorkloadRegistry& reg)
{
  results::Table t("bench", {"nodes", "fat_tree_k", "messages_per_node", "packet_hops", "events", "wall_s_median",
                             "wall_s_min", "wall_s_max", "mpackethops_per_s", "simulated_us", "peak_rss_mib", "peak_pending_events"});
  std::cout << fmt::format("{:>6} {:>4} {:>12} {:>12} {:>8} {:>14} {:>10}\n", "nodes", "k", "packet-hops", "events",
                           "wall_s", "M hops/s", "peak MiB");
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
    fs::path dir = out / fmt::format("bench-{}", n);
    std::vector<double> walls;
    config::Json meta;
    for (unsigned r = 0; r < std::max(1u, repeat); ++r) {
      std::cout << std::flush;
      pid_t pid = fork();
      if (pid == 0) { // one simulation per process; peak memory is then per size
        try {
          auto sc = load_scenario_doc(config::parse_json_text(doc, "bench"), "bench", ".", {}, reg);
          run_scenario(sc, dir, {}, {"nafsim", "bench"});
          _exit(0);
        } catch (const std::exception& e) {
          std::cerr << "bench " << n << " nodes failed: " << e.what() << "\n";
          _exit(3);
        }
      }
      int status = 0;
      waitpid(pid, &status, 0);
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return 3;
      meta = config::load_json_file((dir / "metadata.json").string());
      walls.push_back(meta["wall_seconds"].get<double>());
    }
    std::sort(walls.begin(), walls.end());
    double hops  = meta["packets"]["packet_hops"].get<double>();
    double wall  = walls[walls.size() / 2];
    double rss   = meta["peak_rss_bytes"].get<double>() / (1 << 20);
    double rate  = hops / wall / 1e6;
    auto events  = meta["events"].get<std::uint64_t>();
    t.row()
        .add(n)
        .add(k)
        .add(messages)
        .add(static_cast<std::uint64_t>(hops))
        .add(events)
        .add(wall, 3)
        .add(walls.front(), 3)
        .add(walls.back(), 3)
        .add(rate, 3)
        .add(meta["simulated_seconds"].get<double>() * 1e6, 3)
        .add(rss, 1)
        .add(meta["peak_pending_events"].get<std::uint64_t>());
    std::cout << fmt::format("{:>6} {:>4} {:>12} {:>12} {:>8.3f} {:>14.3f} {:>10.1f}\n", n, k,
                             static_cast<std::uint64_t>(hops), events, wall, rate, rss);
  }
  fs::create_directories(out);
  results::write_file_atomic(out / "bench.csv", t.csv());
  std::cout << "results in " << (out / "bench.csv").string() << " (target: >= 1 M packet-hops/s, DESIGN.md section 6)\n";
  return 0;
}

} // namespace nafsim::app
