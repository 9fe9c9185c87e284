#pragma once
// The critical path of a call (`nafsim run --critical-path`): the chain of causes that set its latency, read from the
// run's causal graph (simcore/engine/CausalGraph.hpp) by walking back from the end of the slowest rank's call to the
// start of its call. Each segment names its resource (the firmware, the data mover's bottleneck engine and rate,
// a wire, a switch queue, an engine, the invocation path...) and where it was spent (a rank's node, a switch); the
// segments add up to the latency exactly. Every workload that reports calls writes its paths with CriticalPathTable.

#include "simcore/engine/CausalGraph.hpp"
#include "simcore/results/ResultSink.hpp"
#include "simcore/results/Table.hpp"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace nafsim::workloads {

/// A step of a critical path: its consecutive segments spent in one place (a rank's node, a switch), and the place
/// the path came from (whom this place waited on: the message that arrived, or "-" for the first step).
struct PathStep {
  SimTime begin, end;
  std::string place, after;
  std::string resource, detail; ///< where most of the step's time went
  unsigned segments = 0;
};

struct CriticalPath {
  SimTime start, end;
  std::vector<CausalGraph::Segment> segments;
  int rank = -1; ///< whose call it is (its place's rank), when it is one rank's

  /// The chain that ends at record `end_record` (dated `end`: any time after the record shows as "other"), from
  /// `start` on.
  static CriticalPath walk(const CausalGraph& g, std::uint32_t end_record, SimTime start, SimTime end);
  SimTime latency() const { return end - start; }
  /// Time per resource, largest first (ties by name).
  std::vector<std::pair<std::string, SimTime>> by_resource() const;
  /// Time per (resource, detail), largest first: the first one is the bottleneck.
  std::vector<std::pair<std::string, SimTime>> by_detail() const;
  /// "61.0 us = 31 % wire, 24 % firmware, ..." (shares of the latency, largest first, rounded).
  std::string summary() const;
  /// "bottleneck: data mover, memory read (operand 1) at 115.2 Gb/s: 62 % of the path".
  std::string bottleneck() const;
  /// The same, and how busy the bottleneck was over the whole call where the path spent most of it, from every step of
  /// the run's causal graph `g` with its label and place (the union of their intervals within the call, as a share of
  /// the latency): "...: 81 % of the path; at rank 1 busy 97 % of the call".
  std::string bottleneck(const CausalGraph& g, const std::function<int(std::uint32_t host)>& rank_of) const;
  /// Where the path was spent besides rank `own`'s node: "on other ranks' nodes 35 % (most: rank 3, 20 %), on
  /// switches 2 %" (`rank_of`: a host's rank, or -1).
  std::string elsewhere(int own, const std::function<int(std::uint32_t host)>& rank_of) const;
  /// The path by place: a new step each time it moves to another node or switch.
  std::vector<PathStep> steps(const std::function<int(std::uint32_t host)>& rank_of) const;
  /// "steps: 14 over 8 places (critical_path_steps.csv); longest: rank 0 after rank 3, 520.1 us (82 %), wire".
  std::string steps_line(const std::function<int(std::uint32_t host)>& rank_of) const;
};

/// The median of `paths` by latency (sorted in place, stable: equal latencies keep their order). Not empty.
const CriticalPath& median_path(std::vector<CriticalPath>& paths);

/// A host's rank among `hosts` (the ranks' hosts in rank order), or -1: the places of the paths of a call.
std::function<int(std::uint32_t host)> rank_in(const std::vector<std::uint32_t>& hosts);

/// Where a segment was spent, as the tables write it: "rank 3" (a host of the call's ranks, via `rank_of`), "host 5",
/// "switch 12", or "-".
std::string place_name(const CauseLabel& l, const std::function<int(std::uint32_t host)>& rank_of);

/// The critical_path table: `keys` (the call's own columns, e.g. collective, bytes, iteration) then, per segment, its
/// number, start and duration (us from the call's start), share of the latency, resource, detail and place; and the
/// critical_path_steps table: the same keys, then per step (PathStep) its number, start, duration, share, place, the
/// place it waited on, its main resource and detail, and its segments.
class CriticalPathTable {
public:
  explicit CriticalPathTable(std::vector<std::string> keys);
  /// The rows of one call's path (`key_values`: its values of the key columns).
  void add(const std::vector<std::string>& key_values, const CriticalPath& p,
           const std::function<int(std::uint32_t host)>& rank_of);
  /// Both tables into the run's results.
  void write(results::ResultSink& sink);

private:
  results::Table t_, steps_;
  std::size_t keys_;
};

/// What every workload that reports calls does with their paths: each call's path walked into the tables
/// (CriticalPathTable), the calls grouped for the summary (a size's iterations, an operation), and each group's median
/// (median_path) handed back for the workload to word its own summary lines.
class CriticalPathGroups {
public:
  using RankOf = std::function<int(std::uint32_t host)>;
  CriticalPathGroups(const CausalGraph& g, std::vector<std::string> keys, RankOf rank_of);
  /// A call: its path from `start` to `end`, walked back from record `end_record`, with its key columns' values, in
  /// group `order` (groups are summarized in increasing order) under `label`; `rank`: whose call it is (-1: none).
  void add(std::uint64_t order, std::string label, const std::vector<std::string>& key_values,
           std::uint32_t end_record, SimTime start, SimTime end, int rank = -1);
  /// Each group's median path, by increasing order.
  void each_median(const std::function<void(const std::string& label, const CriticalPath& median)>& fn);
  /// Each group's median into the run's summary, under its label (right-aligned in 10 columns): its summary and its
  /// bottleneck, then, with `slowest_rank`, where the slowest rank's time went, and with `steps`, the path by the
  /// algorithm's steps.
  void summarize_medians(std::vector<std::string>& summary, bool slowest_rank, bool steps);
  /// Both tables into the run's results.
  void write(results::ResultSink& sink) { table_.write(sink); }
  const RankOf& rank_of() const { return rank_of_; }

private:
  const CausalGraph& g_;
  RankOf rank_of_;
  CriticalPathTable table_;
  std::map<std::uint64_t, std::pair<std::string, std::vector<CriticalPath>>> groups_;
};

/// One call of a collective benchmark as its critical path is taken: the slowest rank's (the call's latency), from its
/// start to the record `end_cause` at `end`.
struct SlowestCall {
  std::uint32_t end_cause = 0;
  SimTime start, end;
  std::size_t rank = 0;
};
/// The critical paths of a collective benchmark (the CCLO's, MPI's) into critical_path.csv and the summary: a call per
/// size and iteration on the ranks of `comm`, `slowest(sample)` the one of sample `size index * iterations +
/// iteration`; with `by_rank`, each path knows its rank and the summary says where the slowest rank's time went.
void report_bench_paths(const CausalGraph& g, const std::vector<std::uint32_t>& comm, const std::string& collective,
                        const std::vector<std::uint64_t>& sizes, unsigned iterations,
                        const std::function<SlowestCall(std::size_t sample)>& slowest, bool by_rank,
                        results::ResultSink& sink, std::vector<std::string>& summary);

/// The critical path of a whole run of ranks (a program, a Chakra trace): the chain that set when the last rank
/// ended, from the run's start (time 0) to rank `last`'s last record `end_cause` at `end`, into critical_path.csv
/// (keys: rank) and three summary lines; `hosts` are the ranks' positions (the paths' places).
void report_run_path(const CausalGraph& g, const std::vector<std::uint32_t>& hosts, unsigned last,
                     std::uint32_t end_cause, SimTime end, results::ResultSink& sink, std::vector<std::string>& summary);

} // namespace nafsim::workloads
