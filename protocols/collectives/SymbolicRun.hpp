#pragma once
// A reference executor of one collective's schedules (all ranks), without time: it matches messages
// between ranks, finds deadlocks, counts what every rank sends and receives, and tracks for every
// element which ranks' data it holds, so a schedule can be checked against the collective's
// definition. Used by the unit tests of every algorithm.

#include "protocols/collectives/Schedule.hpp"

#include <string>
#include <vector>

namespace nafsim::coll {

/// What an element holds: the ranks whose inputs were combined into it, and the input index.
struct Val {
  std::uint64_t ranks = 0; ///< bit r: rank r's input contributed (0: never written)
  std::int64_t index  = -1;
  bool operator==(const Val&) const = default;
};

struct SymbolicResult {
  bool completed = false;
  std::string problem;                        ///< deadlock or semantic error, when not completed
  std::vector<std::uint64_t> elements_sent;   ///< per rank
  std::vector<std::uint64_t> elements_received;
  std::vector<std::uint64_t> messages_sent;
  std::vector<std::vector<Val>> output;       ///< per rank: the output buffer (input for bcast roots)
};

/// Run `schedules` (index = rank). With `rendezvous`, a send waits until the receiver has posted
/// the matching receive (its dependencies are done), as a rendezvous transfer needs the address.
SymbolicResult run_symbolic(const std::vector<Schedule>& schedules, bool rendezvous);

/// Empty if the outputs are what the collective defines; otherwise the first difference.
std::string check_outputs(const CollectiveCall& call, const SymbolicResult& r);

} // namespace nafsim::coll
