#pragma once
// What `nafsim explain --propose` / `--goal` tries: the changes a user can make to a scenario's platform and
// workload (a CCLO build, an algorithm, bigger Rx buffers, 2x link rate, 2x memory bandwidth, a 2x wider datapath,
// half the switch latency; for MPI the library's algorithm and segment size and, over RDMA, a 2x receive queue), each a --set list to paste, and which
// of them cannot go together (one build, one algorithm at a time).

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace nafsim::app {

struct Change {
  std::string name;              ///< what it is, for the report ("links at 200Gbps")
  std::vector<std::string> sets; ///< the overrides
  std::string group;             ///< the parts it sets, comma-separated: changes sharing one exclude each other
};

/// Whether two changes set the same part (two builds, two algorithms, a link rate twice).
bool conflict(const Change& a, const Change& b);

/// The actionable changes of `scenario` (a run's resolved scenario: metadata.json's "scenario"), the ones it already
/// has left out.
std::vector<Change> actionable_changes(const nlohmann::json& scenario);

} // namespace nafsim::app
