// nafsim: discrete-event simulator of network-attached FPGA clusters, on SimGrid.
#include "simcore/app/Params.hpp"
#include "simcore/app/Runner.hpp"
#include "simcore/app/Scenario.hpp"
#include "simcore/config/ConfigError.hpp"
#include "simcore/engine/Scheduler.hpp"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fmt/format.h>
#include <iostream>

namespace fs = std::filesystem;
using namespace nafsim;

namespace {

int run_command(const std::string& scenario, const app::ScenarioOptions& opt, const std::string& out,
                const std::vector<std::string>& logs, const std::vector<std::string>& argv,
                const workloads::WorkloadRegistry& reg)
{
  app::Scenario sc = app::load_scenario(scenario, opt, reg);
  fs::path dir     = out.empty() ? fs::path("results") / sc.header.name : fs::path(out);
  auto rep         = app::run_scenario(sc, dir, logs, argv);
  for (auto const& l : rep.summary)
    std::cout << l << "\n";
  std::cerr << fmt::format("wall time {:.3f} s, {:.2f} M packet-hops/s\n", rep.wall_seconds,
                           rep.wall_seconds > 0 ? static_cast<double>(rep.packet_hops) / rep.wall_seconds / 1e6 : 0.0);
  return 0;
}

} // namespace

int main(int argc, char** argv)
{
  std::vector<std::string> args(argv, argv + argc);
  workloads::WorkloadRegistry reg;
  workloads::register_all_workloads(reg);

  CLI::App cli{"nafsim: discrete-event simulator of network-attached FPGA clusters (SimGrid 3.32)"};
  cli.require_subcommand(1);

  auto* run = cli.add_subcommand("run", "simulate one scenario and write results/<name>/");
  std::string scenario, out;
  app::ScenarioOptions opt;
  std::uint64_t seed = 0;
  std::vector<std::string> logs;
  run->add_option("scenario", scenario, "scenario JSON file")->required();
  run->add_option("--set", opt.sets, "override a parameter: --set platform.network.link.rate=25Gbps (repeatable)");
  auto* seed_opt = run->add_option("--seed", seed, "seed of every random stream (overrides the scenario's)");
  run->add_option("--out", out, "result directory (default results/<scenario name>)");
  run->add_option("--log", logs, "SimGrid log setting, e.g. nafsim_engine.thres:debug (repeatable)");

  auto* params = cli.add_subcommand("params", "list every parameter: path, type, default, meaning");
  std::string prefix;
  std::string preset;
  params->add_option("prefix", prefix, "only paths starting with this (e.g. platform.network)");
  params->add_option("--preset", preset, "show a platform preset's values and sources as defaults");

  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = cli.exit(e);
    return code == 0 ? 0 : 2;
  }

  try {
    if (*run) {
      if (*seed_opt)
        opt.seed = seed;
      return run_command(scenario, opt, out, logs, args, reg);
    }
    if (*params) {
      app::print_params(std::cout, prefix, preset.empty() ? std::nullopt : std::optional<std::string>(preset), reg);
      return 0;
    }
  } catch (const config::ConfigError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const DeadlockError& e) {
    std::cerr << "simulation failed: " << e.what() << "\n";
    return 3;
  } catch (const SimulationError& e) {
    std::cerr << "simulation failed: " << e.what() << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
