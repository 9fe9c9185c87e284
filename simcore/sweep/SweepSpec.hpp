#pragma once
// A sweep: a base scenario and axes over any parameter path, expanded into points.
//
//   {
//     "name": "sendrecv-rates",
//     "base": "../examples/sendrecv.json",            // a scenario file (relative to this file) or object
//     "mode": "product",                              // or "zip" (axes of equal length, walked together)
//     "axes": [
//       {"path": "platform.network.link.rate", "values": ["25Gbps", "100Gbps"]},
//       {"path": "platform.topology.hosts", "range": {"from": 2, "to": 16, "factor": 2}},
//       {"path": "workload.iterations", "range": {"from": 1, "to": 5, "step": 2}}
//     ]
//   }

#include "simcore/config/Schema.hpp"

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
  /// `--set` arguments for this point ("path=<json>").
  std::vector<std::string> sets(const std::vector<Axis>& axes) const;
};

struct SweepSpec {
  std::string name;
  std::string file;           ///< the sweep file
  config::Json base;          ///< the base scenario document
  std::string base_file;      ///< where the base came from (file path, or the sweep file)
  std::vector<Axis> axes;
  std::vector<Point> points;
  bool zip = false;

  /// Parse and expand; throws config::ConfigError naming the file and JSON path.
  static SweepSpec load(const std::string& path);
  static SweepSpec from_json(const config::Json& doc, const std::string& origin, const std::string& base_dir);
  /// A stable fingerprint of what the sweep computes (resume refuses a different sweep).
  std::string fingerprint() const;
};

/// How an axis value appears in a CSV cell.
std::string cell_text(const config::Json& v);

} // namespace nafsim::sweep
