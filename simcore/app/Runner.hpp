#pragma once
// Simulate one scenario and write its results.

#include "simcore/app/Scenario.hpp"
#include "simcore/results/ResultSink.hpp"
#include "simcore/results/Trace.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace nafsim::app {

struct RunReport {
  std::vector<std::string> summary; ///< deterministic lines for stdout
  double wall_seconds = 0;
  double simulated_seconds = 0;
  std::uint64_t packet_hops = 0;
};

/// How a run is observed.
struct RunOptions {
  results::TraceLevel trace = results::TraceLevel::Off;
  /// Record every event's cause and report each call's critical path (critical_path.csv; 24 B per event).
  bool critical_path = false;
  /// Stop with an error after this many seconds of wall-clock time in the event loop (0: none).
  double wall_limit = 0;
  /// No progress line on stderr (app/Progress.hpp).
  bool quiet = false;
  /// Count the events by the component that handles them (metadata.json `event_profile`).
  bool event_profile = false;
};

/// Run `sc` (in this process: one run per process), write results into `out_dir`.
/// Throws config::ConfigError (bad input), SimulationError / DeadlockError (the run failed).
RunReport run_scenario(Scenario& sc, const std::filesystem::path& out_dir, const std::vector<std::string>& log_settings,
                       const std::vector<std::string>& command_line,
                       const RunOptions& options = {});

/// Build `sc`'s platform and start its workload, as run_scenario does, and stop before simulated time starts: the
/// checks of the workload against the platform (ranks beyond the hosts, node kinds, registration ranges...) without
/// the run. Throws config::ConfigError naming the file and path. Returns a line describing what was built.
std::string check_scenario(Scenario& sc, const std::vector<std::string>& log_settings);

} // namespace nafsim::app
