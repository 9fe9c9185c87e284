#pragma once
// A long run's progress on stderr: after a few seconds of wall-clock time, the simulated time reached, the events
// run and their rate, and, when the workload can tell how much of it is done, an estimate of the time left. On a
// terminal one line rewritten every second; otherwise (a log file, a pipe) a line every 10 seconds. `run --quiet`
// turns it off; a sweep's points run quiet (the sweep shows points done).

#include "simcore/units/Units.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>

namespace nafsim::app {

class ProgressLine {
public:
  using Clock = std::chrono::steady_clock;
  /// `done`: the share of the workload done so far (nothing: not known).
  ProgressLine(std::ostream& out, bool terminal, std::function<std::optional<double>()> done);
  ~ProgressLine();
  ProgressLine(const ProgressLine&)            = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  /// Called as the run goes (every 65,536 events): prints when a line is due.
  void tick(SimTime now, std::uint64_t events) { tick_at(Clock::now(), now, events); }
  /// tick() at wall-clock time `wall` (tests).
  void tick_at(Clock::time_point wall, SimTime now, std::uint64_t events);
  /// The line for a run `elapsed` seconds in, at `now`, after `events` events, `done` of it done.
  static std::string line(double elapsed, SimTime now, std::uint64_t events, std::optional<double> done);
  /// Nothing is shown before this many seconds of wall-clock time.
  static constexpr double kQuietStart = 3.0;

private:
  std::ostream& out_;
  bool terminal_;
  std::function<std::optional<double>()> done_;
  Clock::time_point start_;
  double next_ = kQuietStart;
  bool shown_  = false;
};

} // namespace nafsim::app
