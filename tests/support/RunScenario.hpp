#pragma once
// Run a whole scenario (as `nafsim run` does) in a child process and bring back its tables.

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace nafsim::testing {

/// A parsed CSV table: column name -> cell per row.
struct Csv {
  std::vector<std::string> columns;
  std::vector<std::map<std::string, std::string>> rows;
  double num(std::size_t row, const std::string& col) const { return std::stod(rows.at(row).at(col)); }
  /// Sum of a numeric column.
  double sum(const std::string& col) const;
};

struct ScenarioRun {
  bool ok = false;
  std::string error;       ///< the error text when !ok
  std::string error_kind;  ///< "config", "simulation", "deadlock" or "other"
  std::vector<std::string> summary;
  std::map<std::string, Csv> tables;
  nlohmann::json metadata;
  nlohmann::json trace; ///< trace.json, when requested
};

Csv parse_csv(const std::string& text);
/// Load `scenario` (JSON text of a scenario document) with `sets`, run it in a child process.
ScenarioRun run_scenario_isolated(const std::string& scenario, const std::vector<std::string>& sets = {},
                                  const std::string& trace = "off", bool critical_path = false);

} // namespace nafsim::testing
