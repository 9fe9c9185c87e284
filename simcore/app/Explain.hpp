#pragma once
// `nafsim explain SCENARIO`: run a scenario with its critical paths (--critical-path), name the bottleneck (the
// resource and limit that took the largest share of its calls' critical paths), rerun it with that resource made
// ideal, and report what each call size would gain.

#include "workloads/WorkloadRegistry.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace nafsim::app {

/// What makes a resource of the critical path ideal: the overrides (--set) and what they mean. Empty `sets`: no
/// what-if for it (`why` says so).
struct WhatIf {
  std::vector<std::string> sets;
  std::string meaning;
  std::string why_not;
};
/// Where a run lost packets, from its outputs (metadata.json's packets, tcp_nodes.csv): a retransmission timeout's
/// what-if lifts what dropped. `known` false: not read (every loss the platform can have is lifted).
struct RunLosses {
  bool known                 = false;
  std::uint64_t queue_drops  = 0; ///< the switches' and ports' queues
  std::uint64_t tcp_fifo     = 0; ///< TCP stacks' shared receive FIFOs (fifo_dropped)
  std::uint64_t tcp_stalls   = 0; ///< TCP streams stalled on their consumer (consumer_stalls)
  std::vector<std::string> fifo_kinds; ///< the node kinds whose stacks dropped at their FIFO (empty: not known)
};
/// The what-if for a bottleneck (`resource`, `detail` as critical_path.csv writes them) on the platform `platform`
/// (the resolved scenario's platform section, from metadata.json) and, for the application kernels, its workload
/// section `workload_json`; `losses`, where the run lost packets.
WhatIf ideal_what_if(const std::string& resource, const std::string& detail, const std::string& platform_json,
                     const std::string& workload_json = "{}", const RunLosses& losses = {});

struct ExplainOptions {
  std::string scenario;
  std::vector<std::string> sets; ///< --set of both runs
  std::string out;               ///< holds baseline/ and ideal/ (default results/explain-<scenario name>)
  std::string program;           ///< this executable
  unsigned steps = 1;            ///< bottlenecks made ideal one after the other (cumulatively)
  bool propose   = false;        ///< also try the actionable changes (ExplainChanges.hpp), ranked by gain
  double goal    = 0;            ///< with it: search combinations of up to three changes reaching this speedup
};

/// Runs both simulations in child processes; prints the report on stdout. Returns the exit code.
int explain_command(const ExplainOptions& opt, const workloads::WorkloadRegistry& reg);

} // namespace nafsim::app
