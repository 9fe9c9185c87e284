#pragma once
// A node's own clock (issue 33). Everything a Portals node does (its engine's commands, its host's MPI
// steps) is dated on the node's clock; the engine's clock orders the events. On a timed platform the two are
// the same (EngineClock). On the PAC paper's virtual platform the nodes run one after another in time slices
// (TimeSlices.hpp), and a node's clock only advances while its slice runs.

#include "simcore/engine/Scheduler.hpp"

#include <functional>

namespace nafsim::nodes {

class NodeClock {
public:
  virtual ~NodeClock() = default;
  /// The node's clock now (what the node reads when it next runs, if its slice is not running).
  virtual SimTime now() const = 0;
  /// Run `fn` when the node's clock reads `t` (or now if that is past).
  virtual void at(SimTime t, std::function<void()> fn) = 0;
};

/// A timed platform: the node's clock is the engine's.
class EngineClock final : public NodeClock {
public:
  explicit EngineClock(Scheduler& s) : s_(s) {}
  SimTime now() const override { return s_.now(); }
  void at(SimTime t, std::function<void()> fn) override { s_.call_at(std::max(t, s_.now()), std::move(fn)); }

private:
  Scheduler& s_;
};

} // namespace nafsim::nodes
