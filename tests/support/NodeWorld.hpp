#pragma once
// NodeWorld: an engine-free test world of two to eight nodes (as ns-3's two-node test worlds): the platform of a
// scenario (its preset, its overrides) built in-process on a standalone kernel (Scheduler::run_standalone: no
// SimGrid, no child process), with the real fabric, transports, memories and CCLOs. The CCLO firmware is a task
// actor, and so are the callers a test makes: a call goes straight into a CCLO's call FIFO (no invocation path),
// so a test sees the firmware, the data mover, the Rx buffers and the network as the runs do, on the kernel's
// clock, in milliseconds.

#include "nodes/fpga/FpgaCluster.hpp"
#include "nodes/platform/Cluster.hpp"
#include "simcore/engine/Scheduler.hpp"

#include <memory>
#include <string>
#include <vector>

namespace nafsim::testing {

class NodeWorld {
public:
  /// `platform`: a scenario's "platform" object, e.g. {"preset": "accl-coyote-u55c", "topology": {"kind": "star",
  /// "hosts": 4}}. `real_data`: the nodes carry bytes (memory images), so results can be checked.
  explicit NodeWorld(const std::string& platform, bool real_data = true);
  ~NodeWorld();

  Scheduler& scheduler() { return sched_; }
  nodes::Cluster& cluster() { return *cluster_; }
  nodes::Cclo& cclo(std::size_t node) { return nodes::cclo_of(*cluster_, node); }

  /// The call for rank `rank` of a communicator of the first `ranks` nodes: buffers at fixed device addresses
  /// (input at kUserBase, output 1 GiB above), float32 elements.
  nodes::CcloCall call(coll::Collective c, int ranks, int rank, std::uint64_t count, int root = 0) const;
  /// Fill rank r's input (count elements) with r * 1000 + i, as floats.
  void fill_inputs(const std::vector<nodes::CcloCall>& calls, std::uint64_t elems);
  std::vector<float> read(std::size_t node, std::uint64_t addr, std::uint64_t elems);

  /// Run `calls[r]` on node calls[r].comm[rank] from a task actor each (all issued at time 0, or at `at[r]` when
  /// given), until every call is done; returns the results in call order. Throws the run's error (a deadlock, a
  /// simulation error) like Scheduler::run_standalone.
  std::vector<nodes::CcloResult> run(const std::vector<nodes::CcloCall>& calls, const std::vector<SimTime>& at = {});

private:
  Scheduler sched_;
  std::unique_ptr<nodes::PlatformConfig> cfg_;
  std::unique_ptr<nodes::Cluster> cluster_;
};

} // namespace nafsim::testing
