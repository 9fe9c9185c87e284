#pragma once
// HostWorld: an engine-free test world of two to eight CPU hosts running the MPI library (nodes/host/MpiProcess),
// as NodeWorld is for the CCLO: the platform of a scenario (its preset, its overrides) built in-process on a
// standalone kernel (Scheduler::run_standalone: no SimGrid, no child process), with the real fabric, RDMA NICs and
// memories. Each rank runs its schedule from a task actor (MpiProcess::run_task), with real bytes, so a test sees
// the library, the receive queue and the network as the runs do, in milliseconds.

#include "nodes/host/MpiProcess.hpp"
#include "nodes/platform/Cluster.hpp"
#include "protocols/collectives/AlgorithmOptions.hpp"
#include "simcore/engine/Scheduler.hpp"

#include <memory>
#include <string>
#include <vector>

namespace nafsim::testing {

class HostWorld {
public:
  /// `platform`: a scenario's "platform" object, e.g. {"preset": "accl-cpu-cx5", "topology": {"kind": "star",
  /// "hosts": 4}}.
  explicit HostWorld(const std::string& platform);
  ~HostWorld();

  Scheduler& scheduler() { return sched_; }
  nodes::Cluster& cluster() { return *cluster_; }
  nodes::MpiProcess& mpi(std::size_t host);

  struct Rank {
    nodes::RankBuffers bufs; ///< input as given (rank r's byte i: r * 31 + i, mod 256), output as the call left it
    SimTime end;             ///< when its call returned
  };
  /// Run `call` on ranks 0 .. call.size - 1 (rank r on host r), each from a task actor started at 0 (or at[r]),
  /// with `alg` and `opt` (coll::build_schedule), until every rank is done. Throws the run's error (a deadlock, a
  /// simulation error) like Scheduler::run_standalone.
  std::vector<Rank> run(const coll::CollectiveCall& call, coll::Algorithm alg, const coll::AlgorithmOptions& opt = {},
                        const std::vector<SimTime>& at = {});

private:
  Scheduler sched_;
  std::unique_ptr<nodes::PlatformConfig> cfg_;
  std::unique_ptr<nodes::Cluster> cluster_;
};

} // namespace nafsim::testing
