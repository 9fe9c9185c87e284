#pragma once
// The program run on plain numbers, in the order of its operation list: what every buffer of every rank must hold
// after each operation, so the `program` workload can check the simulated bytes step by step (chained operations
// included: an operation reads what the earlier ones left). Unspecified results (a non-root's gather or reduce
// output, a bcast root's unless in place) are NaN and not checked; anything computed from one is unspecified too.

#include "workloads/program/ProgramPlan.hpp"

#include <deque>
#include <map>
#include <tuple>
#include <vector>

namespace nafsim::workloads {

class ProgramReference {
public:
  /// Run `plan`; `initial(buffer, rank)` gives each buffer's contents before the program.
  ProgramReference(const ProgramPlan& plan, const std::vector<std::vector<std::vector<double>>>& initial);
  /// What rank `rank`'s buffer `dst` of operation `op` holds after it (empty: the rank does not take part, or the
  /// operation writes nothing).
  const std::vector<double>& after(std::size_t op, unsigned rank) const { return after_.at(op).at(rank); }
  /// Every buffer at the end: [buffer][rank].
  const std::vector<std::vector<std::vector<double>>>& final_buffers() const { return buf_; }

private:
  void collective(const PlannedOp& o);
  void local(const PlannedOp& o);
  void send_recv(const PlannedOp& o);
  void stream_put(const PlannedOp& o);

  const ProgramPlan& plan_;
  std::vector<std::vector<std::vector<double>>> buf_;      ///< [buffer][rank][element]
  std::vector<std::vector<std::vector<double>>> after_;    ///< [op][rank]: its dst after it
  std::map<std::tuple<unsigned, unsigned, std::uint32_t>, std::deque<std::vector<double>>> queues_; ///< sent, not received
};

} // namespace nafsim::workloads
