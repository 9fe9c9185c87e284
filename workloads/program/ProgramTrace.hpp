#pragma once
// A program's operations in the run's Chrome trace (`--trace messages` or finer): one track per rank, in its node's
// process beside the CCLO's or the NIC's tracks, each operation a span named after it with its kind, communicator,
// bytes, protocol and algorithm. Operations a rank runs at once (non-blocking calls, compute beside them) go on
// lanes of that track, each taking the first lane free when it starts, so spans on one lane never overlap.

#include "simcore/results/Trace.hpp"
#include "simcore/units/Units.hpp"

#include <string>
#include <vector>

namespace nafsim::workloads {

class ProgramTrace {
public:
  static constexpr std::uint32_t kTrackBase = 60; ///< lane k of a rank is thread kTrackBase + k of its node
  /// `pids[r]`: rank r's node in `trace`; a null trace records nothing.
  ProgramTrace(results::Trace* trace, std::vector<std::uint32_t> pids);
  bool on() const { return trace_ != nullptr; }
  /// An operation of `rank` starts: the lane it takes.
  std::size_t begin(unsigned rank);
  /// It ended: its span, and the lane freed.
  void end(unsigned rank, std::size_t lane, const std::string& name, SimTime start, SimTime end, std::string args);

private:
  results::Trace* trace_;
  std::vector<std::uint32_t> pids_;
  std::vector<std::vector<bool>> busy_; ///< [rank][lane]
};

} // namespace nafsim::workloads
