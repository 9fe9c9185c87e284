#pragma once
// Faults applied to a packet as it arrives at the end of a cable: random loss, corruption and
// duplication (independently per cable crossing), and deterministic drops matched on the first
// cable of a flow.

#include "simcore/net/NetworkConfig.hpp"
#include "simcore/net/Packet.hpp"
#include "simcore/net/Port.hpp"

#include <vector>

namespace nafsim::net {

enum class FaultVerdict { Deliver, Drop, Duplicate, Delay };

class FaultInjector {
public:
  explicit FaultInjector(const FaultConfig& cfg);
  bool active() const { return active_; }
  /// Decide the fate of `p` at the end of the cable driven by `port`; may mark it corrupted.
  /// Delay: hand it on `delay` later.
  FaultVerdict on_arrival(Port& port, Packet& p, SimTime& delay);
  std::uint64_t rule_drops() const { return rule_drops_; }

private:
  struct Rule {
    DropRule rule;
    unsigned remaining;
  };
  FaultConfig cfg_;
  std::vector<Rule> rules_;
  bool active_;
  std::uint64_t rule_drops_ = 0;
};

} // namespace nafsim::net
