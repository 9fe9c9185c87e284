#pragma once
// The `program` workload's MPI engine: the same program run by the hosts' software MPI library (the baseline the
// CCLO is compared with). Each operation becomes what an MPI code would do: a collective is the library's call on
// the communicator (the algorithm its selection rules pick, protocols/mpi); send / recv are MPI_Send / MPI_Recv
// matched within their tag (each tag and each communicator is its own matching context); copy and combine are the
// CPU's memcpy and reduction loop, at the library's copy and reduction rates, without a call's overhead.

#include "nodes/platform/Cluster.hpp"
#include "protocols/mpi/MpiPlan.hpp"
#include "workloads/program/ProgramPlan.hpp"

#include <string>
#include <vector>

namespace nafsim::workloads {

/// One rank's call as the MPI engine runs it.
struct MpiCall {
  coll::CollectiveCall cc;       ///< collective (Send / Recv: root is the peer; Copy / Combine: local)
  std::vector<net::HostId> comm; ///< host of each rank of the communicator (world for send / recv)
  int me = 0;                    ///< the rank's rank in it
  std::uint32_t context = 0;     ///< matching context (context_of)
  std::uint64_t src = 0, dst = 0; ///< operand and result addresses in the host's memory image (runs with data)
  net::HostId host = 0;
  DataType dtype   = DataType::Float32;
  bool eager       = false; ///< send / recv: sends eager whatever their size (nodes::MpiProcess::RunOptions::eager)
};

class MpiEngine {
public:
  /// Communicators' contexts lie below kP2pContexts, point-to-point tags above it.
  static constexpr std::uint32_t kP2pContexts = 1U << 22;
  /// Checks the platform's MPI configuration (throws config::ConfigError).
  explicit MpiEngine(const nodes::Cluster& c);
  /// Checks what a program asks of MPI (no streams; tags and communicators within the contexts).
  static void check(const ProgramPlan& plan);
  /// The matching context of a collective on communicator `comm`, or of a send / recv with `tag`.
  static std::uint32_t collective_context(std::size_t comm) { return static_cast<std::uint32_t>(comm); }
  static std::uint32_t p2p_context(std::uint32_t tag) { return kP2pContexts + tag; }
  /// Rank `rank` (on host `hosts[rank]`) runs program operation `o`, blocking the actor; with `data`, the
  /// operands come from and the result goes to the host's memory image. Returns the library's algorithm.
  std::string run(ActorContext& ctx, nodes::Cluster& c, const ProgramPlan& plan, const PlannedOp& o, unsigned rank,
                  const std::vector<net::HostId>& hosts, bool data) const;
  /// The same for a call built otherwise (a streamed trace).
  std::string run(ActorContext& ctx, nodes::Cluster& c, const MpiCall& call, bool data) const;
  mpi::Library library() const { return library_; }

private:
  mpi::Library library_;
};

} // namespace nafsim::workloads
