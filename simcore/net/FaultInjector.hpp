#pragma once
// Faults applied to a packet as it arrives at the end of a cable: random loss, corruption and
// duplication (independently per cable crossing), and deterministic drops matched on the first
// cable of a flow.

#include "simcore/net/NetworkConfig.hpp"
#include "simcore/net/Packet.hpp"
#include "simcore/net/Port.hpp"

#include <string>
#include <unordered_map>
#include <vector>

namespace nafsim::net {

enum class FaultVerdict { Deliver, Drop, Duplicate, Delay };

/// Faults that hit the packets of one source -> destination pair (any cable on the way).
struct FlowFaults {
  std::uint64_t lost       = 0;
  std::uint64_t corrupted  = 0;
  std::uint64_t duplicated = 0;
  std::uint64_t held_back  = 0;
};

class FaultInjector {
public:
  explicit FaultInjector(const FaultConfig& cfg);
  bool active() const { return active_; }
  /// Decide the fate of `p` at the end of the cable driven by `port`; may mark it corrupted.
  /// Delay: hand it on `delay` later.
  FaultVerdict on_arrival(Port& port, Packet& p, SimTime& delay);
  std::uint64_t rule_drops() const { return rule_drops_; }
  /// A corrupted `p` dropped by a switch on its FCS check (it had the whole frame): lost.
  void fcs_drop(const Packet& p)
  {
    ++flow(p).lost;
    ++fcs_drops_;
  }
  /// Per (source host << 32 | destination host).
  const std::unordered_map<std::uint64_t, FlowFaults>& flows() const { return flows_; }
  /// One paragraph for failure reports: the faults injected so far and the pairs most hit by loss.
  std::string summary() const;

private:
  struct Rule {
    DropRule rule;
    unsigned remaining;
  };
  FaultConfig cfg_;
  std::vector<Rule> rules_;
  bool active_;
  std::uint64_t rule_drops_ = 0;
  std::uint64_t fcs_drops_ = 0;
  FlowFaults& flow(const Packet& p);
  std::unordered_map<std::uint64_t, FlowFaults> flows_;
};

} // namespace nafsim::net
