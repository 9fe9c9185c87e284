#pragma once
// The SimGrid engine of one run (one per process: SimGrid keeps global state) and its event kernel.

#include "simcore/engine/Scheduler.hpp"

#include <memory>
#include <string>
#include <vector>

namespace simgrid::s4u {
class Engine;
class Host;
} // namespace simgrid::s4u

namespace nafsim {

class Simulation {
public:
  /// Create the engine with a pure network model (CM02, no cross-traffic) and quiet logs.
  /// `log_settings` are SimGrid --log= values (e.g. "nafsim_engine.thres:debug").
  /// `hosts`: the platform's size; above kGuardedHosts actors get 1 MiB heap stacks without guard pages.
  explicit Simulation(const std::vector<std::string>& log_settings = {}, std::size_t hosts = 0);
  static constexpr std::size_t kGuardedHosts     = 4096;
  static constexpr unsigned kLargeRunStackKiB = 1024;
  ~Simulation();
  Simulation(const Simulation&)            = delete;
  Simulation& operator=(const Simulation&) = delete;

  Scheduler& scheduler() { return sched_; }
  /// Run to completion: the event kernel runs in an actor on `kernel_host`. Re-throws the first
  /// error of the run (DeadlockError, SimulationError, or what a model threw).
  void run(simgrid::s4u::Host* kernel_host);
  /// Wall-clock seconds spent in run().
  double wall_seconds() const { return wall_; }
  /// Peak resident memory of this process so far, in bytes.
  static std::uint64_t peak_rss_bytes();

private:
  std::vector<std::string> args_;
  std::vector<char*> argv_;
  std::unique_ptr<simgrid::s4u::Engine> engine_;
  Scheduler sched_;
  double wall_ = 0;
};

} // namespace nafsim
