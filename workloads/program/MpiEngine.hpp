#pragma once
// The `program` workload's MPI engine: the same program run by the hosts' software MPI library (the baseline the
// CCLO is compared with). Each operation becomes what an MPI code would do: a collective is the library's call on
// the communicator (the algorithm its selection rules pick, protocols/mpi); send / recv are MPI_Send / MPI_Recv
// matched within their tag (each tag and each communicator is its own matching context); copy and combine are the
// CPU's memcpy and reduction loop, at the library's copy and reduction rates, without a call's overhead.

#include "nodes/platform/Cluster.hpp"
#include "workloads/program/ProgramPlan.hpp"

#include <string>
#include <vector>

namespace nafsim::workloads {

class MpiEngine {
public:
  /// Checks the platform's MPI configuration (throws config::ConfigError).
  MpiEngine(const nodes::Cluster& c, const ProgramPlan& plan);
  /// Rank `rank` (on host `hosts[rank]`) runs `o`, blocking the actor; with `data`, the operands come from and the
  /// result goes to the host's memory image at the buffers' addresses. Returns the library's algorithm.
  std::string run(ActorContext& ctx, nodes::Cluster& c, const PlannedOp& o, unsigned rank,
                  const std::vector<net::HostId>& hosts, bool data) const;
  mpi::Library library() const { return library_; }

private:
  const ProgramPlan& plan_;
  mpi::Library library_;
};

} // namespace nafsim::workloads
