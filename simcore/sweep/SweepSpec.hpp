#pragma once
// A sweep: a base scenario and axes over any parameter path, expanded into points.
//
//   {
//     "name": "sendrecv-rates",
//     "base": "../examples/sendrecv.json",            // a scenario file (relative to this file) or object
//     "mode": "product",                              // or "zip" (axes of equal length, walked together)
//     "max_points": 1000000,                          // optional: the most points it may have (checked first)
//     "axes": [
//       {"path": "platform.network.link.rate", "values": ["25Gbps", "100Gbps"]},
//       {"path": "platform.topology.hosts", "range": {"from": 2, "to": 16, "factor": 2}},
//       {"path": "workload.iterations", "range": {"from": 1, "to": 5, "step": 2}}
//     ]
//   }

#include "simcore/config/Schema.hpp"

#include <optional>
#include <filesystem>
#include <string>
#include <vector>

namespace nafsim::sweep {

struct Axis {
  std::string path;
  std::vector<config::Json> values;
};

struct Point {
  std::size_t index = 0;
  std::vector<config::Json> values; ///< one per axis
  /// `--set` arguments for this point ("path=<json>"); with `here` (the sweep file's folder) the file paths among
  /// the values made absolute against it (file_paths_absolute), since a run reads a --set's paths against its
  /// working directory.
  std::vector<std::string> sets(const std::vector<Axis>& axes, const std::filesystem::path& here = {}) const;
};

/// `value`, given at dotted path `at` ("" for a whole scenario) in a sweep file, with the file paths it holds made
/// absolute against `here`: a platform file (by itself or as a preset), a workload's trace and groups files, and
/// those in a scenario's overrides. A path in a file is read against that file's folder (README, Scenarios).
config::Json file_paths_absolute(const std::string& at, config::Json value, const std::filesystem::path& here);

/// The most points `max_points` may allow (each point costs about 100 B before it runs; 10 million is about 1 GB).
inline constexpr std::size_t kMaxPointsCeiling = 10'000'000;

struct SweepSpec {
  std::string name;
  std::string file;           ///< the sweep file
  config::Json base;          ///< the base scenario document
  std::string base_file;      ///< where the base came from (file path, or the sweep file)
  std::vector<Axis> axes;
  std::vector<Point> points;
  bool zip = false;
  /// Points allowed (the file's "max_points", or --max-points): checked before the points are made.
  std::size_t max_points = 1'000'000;

  /// Parse and expand; throws config::ConfigError naming the file and JSON path. `max_points`, when given,
  /// replaces the file's limit.
  static SweepSpec load(const std::string& path, std::optional<std::size_t> max_points = std::nullopt);
  static SweepSpec from_json(const config::Json& doc, const std::string& origin, const std::string& base_dir,
                             std::optional<std::size_t> max_points = std::nullopt);
  /// A stable fingerprint of what the sweep computes (resume refuses a different sweep).
  std::string fingerprint() const;
};

/// How an axis value appears in a CSV cell.
std::string cell_text(const config::Json& v);

} // namespace nafsim::sweep
