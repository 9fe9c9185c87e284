#pragma once
// The CCLO micro-controller running the ACCL+ firmware: one call at a time, taken from the call FIFO;
// for each call it selects the protocol and algorithm as the firmware does, then walks the schedule,
// issuing moves to the data-movement processor and notifications to the Tx system, and waiting on their
// completions and on notifications from peers. Every control step costs micro-controller cycles.

#include "nodes/cclo/Cclo.hpp"

namespace nafsim::nodes {

class Firmware {
public:
  explicit Firmware(Cclo& cclo) : c_(cclo) {}
  /// The firmware's main loop (a daemon actor).
  void run(ActorContext& ctx);

private:
  struct CallState;
  void execute(ActorContext& ctx, Cclo::Pending& p);
  void charge(ActorContext& ctx, unsigned cycles);
  Cclo& c_;
};

} // namespace nafsim::nodes
