#include "simcore/net/FaultInjector.hpp"

namespace nafsim::net {

FaultInjector::FaultInjector(const FaultConfig& cfg) : cfg_(cfg), active_(cfg.any())
{
  for (auto const& r : cfg.drops)
    rules_.push_back(Rule{r, r.count});
}

FaultVerdict FaultInjector::on_arrival(Port& port, Packet& p, SimTime& delay)
{
  if (p.ecc_protected) // strong ECC: no injected fault touches it
    return FaultVerdict::Deliver;
  if (p.hops == 1) {
    for (auto& r : rules_) {
      if (r.remaining > 0 && r.rule.src == p.src && r.rule.dst == p.dst && r.rule.seq == p.seq) {
        --r.remaining;
        ++rule_drops_;
        ++port.counters.fault_drops;
        return FaultVerdict::Drop;
      }
    }
  }
  // Draw in a fixed order so that the stream consumption does not depend on earlier outcomes
  // (the reorder draws only when reordering is on, so older scenarios keep their streams).
  bool lost      = port.rng.chance(cfg_.loss_rate);
  bool corrupt   = port.rng.chance(cfg_.corruption_rate);
  bool duplicate = port.rng.chance(cfg_.duplicate_rate);
  bool reorder   = false;
  SimTime extra;
  if (cfg_.reorder_rate > 0) {
    reorder = port.rng.chance(cfg_.reorder_rate);
    extra   = SimTime::ps(1 + static_cast<std::int64_t>(port.rng.below(
                                  static_cast<std::uint64_t>(std::max<std::int64_t>(cfg_.reorder_delay.ps(), 1)))));
  }
  if (lost) {
    ++port.counters.fault_drops;
    return FaultVerdict::Drop;
  }
  if (corrupt && !p.corrupted) {
    p.corrupted = true;
    ++port.counters.corrupted;
  }
  if (duplicate) {
    ++port.counters.duplicated;
    return FaultVerdict::Duplicate;
  }
  if (reorder) {
    ++port.counters.held_back;
    delay = extra;
    return FaultVerdict::Delay;
  }
  return FaultVerdict::Deliver;
}

} // namespace nafsim::net
