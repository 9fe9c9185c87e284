#pragma once
// A Chakra trace replayed as it is read (`stream: true`): each rank's actor reads its own file (RankReader) a
// window of nodes ahead, runs every node whose dependencies are done (the CCLO's calls, or MPI's, compute and memory
// phases), and forgets what it ran: memory grows with the window and the ranks, not with the trace. What the
// whole-trace loader checks before the run is checked as the nodes come: the k-th collective of every member of a
// communicator must agree (type and size), a receive and its send must carry the same bytes, a dependency must
// come (a node never ready at the end of its file is reported with one dependency it waits for).
// Outputs: program_ranks.csv (each rank's totals: operations, end, communication, compute, exposed communication,
// summed as the run goes), the summary and, with --trace, each rank's track; no per-operation table (a trace this
// size would write one row per node).

#include "workloads/program/DramShare.hpp"
#include "nodes/cclo/Cclo.hpp"
#include "workloads/Workload.hpp"
#include "workloads/chakra/ChakraNodes.hpp"
#include "workloads/program/MpiEngine.hpp"
#include "workloads/program/ProgramTrace.hpp"

#include <deque>
#include <map>
#include <memory>
#include <unordered_map>

namespace nafsim::workloads {

class ChakraStream {
public:
  /// Nodes a rank holds read but not yet run (beyond them it reads only to find a node that can run).
  static constexpr std::size_t kWindow = 256;
  /// Nodes a rank may hold while none can run (their dependencies further ahead in the file).
  static constexpr std::size_t kMaxHeld = 1'000'000;

  explicit ChakraStream(const ChakraConfig& cfg);
  void start(nodes::Cluster& c);
  void report(const nodes::Cluster& c, results::ResultSink& sink, std::vector<std::string>& summary) const;
  unsigned ranks() const { return ctx_.ranks; }
  /// Nodes the window held back (ready before it read them), and the longest such wait.
  std::uint64_t window_late_nodes() const { return window_late_.nodes; }
  SimTime window_late_most() const { return window_late_.most; }
  /// Nodes that waited for their file's end to drop a dependency it does not hold, and the longest such wait.
  std::uint64_t absent_late_nodes() const { return absent_late_.nodes; }
  SimTime absent_late_most() const { return absent_late_.most; }
  /// What was repaired so far (workload.strict false).
  const ChakraRepairs& repairs() const { return ctx_.repairs; }

private:
  struct Node;
  struct RankRun;
  struct Totals {
    std::uint64_t operations = 0;
    SimTime end, last, communication, compute, exposed;
    std::uint32_t end_cause = 0; ///< the causal record of its last end (--critical-path)
    int in_comm = 0, in_compute = 0;
    /// Time passes to `t`: add it to what was in flight.
    void advance(SimTime t);
  };
  /// The signature of a communicator's k-th call, as its first member made it.
  struct CallSeen {
    ProgramOpKind kind;
    std::uint64_t given = 0, node = 0; ///< (given: comm_size as given, which fixes the share too)
    unsigned rank = 0, arrived = 0;
  };
  void run_rank(ActorContext& ctx, nodes::Cluster& c, unsigned rank);
  void execute(ActorContext& ctx, nodes::Cluster& c, unsigned rank, const Node& n);
  /// The collective's or message's counterpart agrees (throws if not).
  void match_collective(unsigned rank, const Node& n);
  void match_message(unsigned rank, const Node& n);
  const nodes::Communicator& communicator(std::size_t comm);

  ChakraConfig cfg_;
  chakra::Ctx ctx_;
  std::vector<net::HostId> hosts_;
  std::unique_ptr<MpiEngine> mpi_;
  std::unique_ptr<ProgramTrace> trace_;
  std::vector<nodes::Communicator> comm_hosts_;            ///< per communicator, built on first use
  std::vector<std::vector<std::uint64_t>> calls_made_;     ///< [rank][comm]: collectives issued
  std::map<std::size_t, std::deque<CallSeen>> calls_seen_; ///< per comm, from its oldest call not all made
  std::map<std::size_t, std::uint64_t> calls_base_;        ///< per comm: the call number of the deque's front
  /// Per (sender, receiver, tag): bytes of sends (positive count) or receives not yet matched.
  std::map<std::tuple<unsigned, unsigned, std::uint32_t>, std::deque<std::pair<bool, std::uint64_t>>> messages_;
  std::vector<Totals> totals_;
  std::vector<std::vector<SimTime>> compute_free_; ///< per rank, when each compute slot is free (compute_end)
  std::vector<std::unique_ptr<DramShare>> dram_;    ///< per rank, host phases side by side (run_compute); or none
  std::uint64_t nodes_read_ = 0;
  /// Nodes read ready at a later instant than their dependencies had finished (or than 0, without any): held back
  /// by the window, where read whole they start at once.
  struct WindowLate {
    std::uint64_t nodes = 0, id = 0; ///< how many, and the node of the longest wait
    unsigned rank       = 0;
    SimTime most;
    void note(unsigned r, std::uint64_t node, SimTime late)
    {
      if (nodes++ == 0 || late > most) {
        most = late;
        rank = r;
        id   = node;
      }
    }
  } window_late_;
  WindowLate absent_late_; ///< nodes made ready at their file's end, their absent dependencies dropped
};

} // namespace nafsim::workloads
