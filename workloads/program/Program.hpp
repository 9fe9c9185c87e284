#pragma once
// The `program` workload: any sequence of CCLO calls per rank. Named buffers that keep their data between
// operations, communicators over subsets of the ranks (several running at once), send / recv with tags between
// any ranks (a send may come before its receive is posted: the Rx-buffer path), local copy / combine, and compute
// phases; on the FPGAs' CCLOs or on the hosts' MPI library (MpiEngine). Each rank runs the operations it takes part in, in list order, one after the other. With `verify` every
// operation's result is checked on every rank against the program run on plain numbers (ProgramReference).

#include "workloads/program/DramShare.hpp"
#include "nodes/cclo/CallPlan.hpp"
#include "workloads/Workload.hpp"
#include "workloads/program/MpiEngine.hpp"
#include "workloads/program/ProgramPlan.hpp"
#include "workloads/program/ProgramReference.hpp"
#include "workloads/program/ProgramTrace.hpp"

#include <deque>
#include <memory>

namespace nafsim::workloads {

class Program final : public Workload {
public:
  explicit Program(const ProgramConfig& cfg);
  /// A program built otherwise (a Chakra trace), checked already.
  explicit Program(ProgramPlan plan);
  void start(nodes::Cluster& c) override;
  const ProgramPlan& plan() const { return plan_; }
  void report(const nodes::Cluster& c, results::ResultSink& sink, std::vector<std::string>& summary) const override;
  std::optional<unsigned> rank_count() const override { return plan_.cfg.ranks; }
  std::string unread_reason(std::string_view key) const override;
  std::optional<double> progress() const override
  {
    std::size_t all = 0;
    for (auto const& o : plan_.ops)
      all += o.runs.size();
    return all ? std::optional<double>(static_cast<double>(ops_done_) / static_cast<double>(all)) : std::nullopt;
  }

private:
  struct Record {
    SimTime start, end;
    std::uint32_t end_cause = 0; ///< the causal record of its end (--critical-path)
    bool started = false;
    bool ran     = false;
    std::string protocol, algorithm;
  };
  void run_rank(ActorContext& ctx, nodes::Cluster& c, unsigned rank);
  /// A rank's operations (positions in mine_[rank]): who waits for each (`users`), how many it waits for (`missing`).
  struct RankGraph {
    std::vector<std::vector<std::size_t>> users;
    std::vector<std::size_t> missing;
  };
  RankGraph rank_graph(unsigned rank) const;
  /// Rank `rank`, the j-th of those that run `o`, runs it.
  void execute(ActorContext& ctx, nodes::Cluster& c, const PlannedOp& o, std::size_t j, unsigned rank);
  void place(const nodes::Cluster& c);
  /// The summary's note on eager messages cut into Rx-buffer segments (CCLO engine).
  void note_segments(const nodes::Cluster& c, std::vector<std::string>& summary) const;
  /// Whether operation `index`, a compute phase, holds its rank's MPI progress: on the MPI engine, by work, on every
  /// core, in a program (not a trace replay: ProgramPlan::holds_mpi_progress).
  bool holds_mpi_progress(const nodes::Cluster& c, std::size_t index) const;
  /// Where rank `rank`'s actors run (its FPGA's or its host's SimGrid host).
  simgrid::s4u::Host* sim_host(nodes::Cluster& c, unsigned rank) const;
  void fill_buffers(nodes::Cluster& c);
  void check(nodes::Cluster& c, const PlannedOp& o, unsigned rank) const;
  /// A race the program allows with after / wait that may explain a wrong result of `o` on `rank`: an operation
  /// beside `o` on its rank, or two on any rank before `o` ended, at the same time, one writing a buffer the other
  /// uses; described ("": none).
  std::string concurrent_user(const PlannedOp& o, unsigned rank) const;

  ProgramPlan plan_;
  std::vector<net::HostId> hosts_;                 ///< FPGA position of each program rank
  std::vector<std::vector<SimTime>> compute_free_; ///< per rank, when each compute slot is free (compute_end)
  std::vector<std::unique_ptr<DramShare>> dram_;    ///< per rank, host phases side by side (run_compute); or none
  std::unique_ptr<ProgramReference> reference_;    ///< with verify
  std::unique_ptr<MpiEngine> mpi_;                 ///< engine mpi
  std::unique_ptr<ProgramTrace> trace_;            ///< each rank's track in the Chrome trace
  std::uint64_t ops_done_ = 0; ///< operations finished so far, over the ranks (progress)
  std::vector<std::vector<Record>> records_;       ///< [op][j]: the j-th rank that runs it
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> mine_; ///< [rank]: (op, j) it runs, in list order
  std::uint64_t checked_ = 0;                      ///< elements verified
  /// A communicator's collectives in the order its members call them: the operation at each place, how many of its
  /// ranks have called it, and the place of calls.front().
  struct CallOrder {
    std::deque<std::pair<std::size_t, std::size_t>> calls; ///< (operation, ranks arrived)
    std::uint64_t base = 0;
  };
  std::vector<CallOrder> order_;                   ///< [comm]
  std::vector<std::vector<std::uint64_t>> called_; ///< [rank][comm]: collectives called so far
  /// Every member calls a communicator's collectives in one order (MPI's rule and the CCLO's): throws naming the two
  /// operations when rank `rank`'s next one there is not the one its peers called at that place.
  void check_call_order(const PlannedOp& o, unsigned rank);
  /// Every call planned as its firmware will plan it, and every message's send and receive in one protocol (throws
  /// config::ConfigError naming the operation).
  void check_calls(nodes::Cluster& c) const;
  void check_message_protocols(nodes::Cluster& c) const;
  /// Operation `o` as program rank `r`'s CCLO will plan it.
  nodes::CallPlan planned(nodes::Cluster& c, const PlannedOp& o, unsigned r) const;
};

} // namespace nafsim::workloads
