#pragma once
// Settings a run read nothing of. A researcher who sets or sweeps a parameter that the run's system does not have
// (a CCLO register on a cluster of MPI hosts, the flow solver's fraction at packet fidelity) gets the same results
// for every value, which reads as "it changes nothing" when the truth is "nothing here runs it". After a run the
// cluster tells which parts it built, and each setting the user gave explicitly (`--set`, a scenario's
// `overrides`, a sweep's axes) is checked against them: the run's summary, its metadata.json and the sweep say so.
// The rules name a part of the platform by its section and the condition under which nothing reads it; a setting
// outside every rule is taken as read (no rule, no claim). A workload judges its own settings (a reduction function
// on an allgather, min_size beside a list of sizes). A setting of a whole section (`--set 'platform.node.fpga={...}'`)
// is judged key by key, each key it gives (Scenario::path_sets holds them one by one): it patches the section.

#include <string>
#include <string_view>

namespace nafsim::nodes {
class Cluster;
}
namespace nafsim::workloads {
class Workload;
}

namespace nafsim::app {

/// Why nothing in this run of `c` read the platform setting at `dotted` ("platform.network.flow_sharing"), or ""
/// when it may have been read. Call after the run: a CCLO, say, is built by the workload as it first needs it.
std::string unread_reason(const nodes::Cluster& c, std::string_view workload_kind, std::string_view dotted);

/// The same for any setting: one under `workload` is judged by the run's workload (Workload::unread_reason), the
/// others as above.
std::string unread_reason(const nodes::Cluster& c, const workloads::Workload& w, std::string_view workload_kind,
                          std::string_view dotted);

} // namespace nafsim::app
