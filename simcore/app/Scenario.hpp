#pragma once
// A scenario = a platform (preset by name, preset file, or inline, merged) + a workload + overrides
// (`overrides` in the file, then --set on the command line, then --seed). Everything is validated
// here, before anything is simulated or written.

#include "nodes/platform/PlatformConfig.hpp"
#include "simcore/config/JsonDoc.hpp"
#include "workloads/WorkloadRegistry.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace nafsim::app {

struct ScenarioOptions {
  std::vector<std::string> sets; ///< "dotted.path=value"
  std::optional<std::uint64_t> seed;
};

struct ScenarioHeader {
  std::string name;
  std::string description;
  std::uint64_t seed   = 1;
  SimTime max_sim_time = SimTime::from_seconds(100);
  bool critical_path   = false;
  template <class V> void describe(V& v)
  {
    v.field("name", name, "run name; results go to results/<name> unless --out is given (default: file name)");
    v.field("description", description, "free text");
    v.field("seed", seed, "seed of every random stream (faults, routing); --seed overrides it");
    v.field("max_sim_time", max_sim_time,
            "stop with an error if simulated time passes this (guards against runaway runs)");
    v.field("critical_path", critical_path,
            "record every event's cause and write each call's critical path, as `nafsim run --critical-path` (so that "
            "sweeps and figures can ask for it)");
  }
};

struct Scenario {
  ScenarioHeader header;
  std::string file;
  nodes::PlatformConfig platform;
  config::Json platform_sources = config::Json::object();
  std::string workload_kind;
  std::unique_ptr<workloads::Workload> workload;
  config::Json resolved; ///< the complete scenario after overrides, defaults included
  config::Origins origins; ///< where each part came from (for errors found later)
  /// The settings given by path (the scenario's `overrides`, `--set`, a sweep's axes), each with where it came
  /// from: a run says which of them nothing read (UnreadSettings.hpp). An object given at a path is held key by key
  /// (each key it gives, at any depth, named "<key> (given by <where>)"); it patches what is there (apply_path_set).
  struct PathSet {
    std::string path;  ///< dotted, e.g. platform.network.flow_sharing
    std::string where; ///< "--set platform.network.flow_sharing=input-ports", "file.json (overrides.x)"
  };
  std::vector<PathSet> path_sets;
};

/// Load and validate a scenario file.
Scenario load_scenario(const std::string& path, const ScenarioOptions& opt, const workloads::WorkloadRegistry& reg);
/// Load and validate a scenario document; `origin` names it in errors, `base_dir` resolves the relative file paths
/// it holds (platform files, traces).
Scenario load_scenario_doc(const config::Json& doc, const std::string& origin, const std::string& base_dir,
                           const ScenarioOptions& opt, const workloads::WorkloadRegistry& reg);
/// A sweep point's resolved scenario: the sweep's base (from `base_file`, or inline in `sweep_file` when the two
/// are one) with the point's `sets`, its relative paths read as the point's run reads them.
config::Json resolve_sweep_point(const config::Json& base, const std::string& base_file, const std::string& sweep_file,
                                 const std::vector<std::string>& sets, const workloads::WorkloadRegistry& reg);

/// The JSON of a platform preset by name; throws ConfigError listing the presets.
/// `names_only`: the caller takes a preset's name alone (`params --preset`), so the error offers no file or object.
config::Json preset_json(const std::string& name, const std::string& origin, const std::string& pointer,
                         bool names_only = false);
std::vector<std::string> preset_names();

} // namespace nafsim::app
