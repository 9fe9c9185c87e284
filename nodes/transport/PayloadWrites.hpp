#pragma once
// When every payload a NIC engine has written into memory so far is there, and (critical paths) the rate of the write
// that finished last: what the engine's completions wait for before they reach the node (NoticeQueue). One piece the
// engines share (RdmaPoe, TcpPoe, UdpPoe) instead of each keeping the date and the rate and wording the label.

#include "nodes/transport/RunStart.hpp"
#include "simcore/engine/CausalGraph.hpp"
#include "simcore/engine/Scheduler.hpp"
#include "simcore/units/Units.hpp"

#include <cstdint>
#include <fmt/format.h>

namespace nafsim::nodes {

class PayloadWrites {
public:
  /// `engine` names the engine in critical paths ("RoCE POE"); `host` is its node.
  PayloadWrites(Scheduler& sched, const char* engine, std::uint32_t host) : run_(sched), engine_(engine), host_(host) {}

  /// A payload write into memory, issued now, its first byte in at `first` and its last at `done`; `rate()` (asked
  /// only if it ends last so far) is the rate it was written at: the device memory's or PCIe's
  /// (MemorySystem::write_rate), or a copy engine's below both.
  template <class Rate>
  void wrote(SimTime first, SimTime done, Rate&& rate)
  {
    // (Critical paths) a completion that waits for a run of writes, each behind the one before, walks back to the
    // run's beginning, through the writes, not through the last packet's arrival (which blamed the wire for memory
    // slower than the link).
    run_.issued(first, done);
    if (done >= done_) {
      done_ = done;
      rate_ = rate();
    }
  }

  /// When every payload written so far is in memory.
  SimTime done() const { return done_; }
  /// (Critical paths) the step that began the run of writes ending at done() (Scheduler::kRunningStep: none).
  std::uint32_t busy_cause() const { return run_.began(); }
  /// (Critical paths) what a completion that waits for them waits for: the write that finished last, at its rate.
  CauseLabel why() const
  {
    return CauseLabel::at_host(
        cause_what(engine_, fmt::format("payload written to memory at {:.1f} Gb/s before the completion", rate_.bps / 1e9)),
        host_);
  }

private:
  RunStart run_;
  const char* engine_;
  std::uint32_t host_;
  SimTime done_;
  BitsPerSecond rate_{};
};

} // namespace nafsim::nodes
