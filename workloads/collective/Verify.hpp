#pragma once
// Real-data checks shared by the collective benchmarks (CCLO and software MPI): every input is
// filled with small exact integers, and every output element is compared with what the
// collective's definition says it must hold.

#include "nodes/cclo/Plugins.hpp"
#include "protocols/collectives/Schedule.hpp"

#include <functional>
#include <span>
#include <string>

namespace nafsim::workloads {

struct DataPattern {
  nodes::DataType dtype = nodes::DataType::Float32;
  bool half_precision   = false; ///< values travel as float16 somewhere (dtype or compression)
  unsigned ranks        = 1;
  /// Element `i` of `rank`'s input in `iteration`: small positive integers, exact in every type;
  /// sums over all ranks stay exact in float16 (<= 1024); never -1 (the output poison).
  double operator()(unsigned rank, std::uint64_t i, unsigned iteration) const;
  /// Element i and element i + period() of an input hold the same value.
  unsigned period() const;
  /// `rank`'s input buffer for call `cc`.
  std::vector<std::byte> input(const coll::CollectiveCall& cc, unsigned rank, unsigned iteration) const;
};

/// What element i of `rank`'s output holds after `cc` (inputs from `pattern`), or an empty function
/// where the collective leaves the output unspecified (a bcast root's, a non-root's reduce output).
/// `combine_second` (the combine operation's second operand) is the pattern of rank + ranks.
std::function<double(std::uint64_t)> expected_output(const coll::CollectiveCall& cc, unsigned rank,
                                                     unsigned iteration, const DataPattern& pattern);

/// Throw SimulationError naming `what` and the first wrong element unless `out` (rank's output) is right.
void check_output(const coll::CollectiveCall& cc, unsigned rank, unsigned iteration, const DataPattern& pattern,
                  std::span<const std::byte> out, const std::string& what, const std::string& engine);

} // namespace nafsim::workloads
