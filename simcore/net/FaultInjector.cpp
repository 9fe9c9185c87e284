#include "simcore/net/FaultInjector.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace nafsim::net {

namespace {
std::uint64_t pair_key(const Packet& p) { return (std::uint64_t{p.src} << 32) | p.dst; }
} // namespace

FlowFaults& FaultInjector::flow(const Packet& p) { return flows_[pair_key(p)]; }

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
        ++flow(p).lost;
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
    ++flow(p).lost;
    return FaultVerdict::Drop;
  }
  if (corrupt && !p.corrupted) {
    p.corrupted = true;
    ++port.counters.corrupted;
    ++flow(p).corrupted;
  }
  if (duplicate) {
    ++port.counters.duplicated;
    ++flow(p).duplicated;
    return FaultVerdict::Duplicate;
  }
  if (reorder) {
    ++port.counters.held_back;
    ++flow(p).held_back;
    delay = extra;
    return FaultVerdict::Delay;
  }
  return FaultVerdict::Deliver;
}

std::string FaultInjector::summary() const
{
  FlowFaults all;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> lost; // (pair, packets lost)
  for (auto const& [k, f] : flows_) {
    all.lost += f.lost;
    all.corrupted += f.corrupted;
    all.duplicated += f.duplicated;
    all.held_back += f.held_back;
    if (f.lost > 0)
      lost.emplace_back(k, f.lost);
  }
  std::sort(lost.begin(), lost.end(), [](auto const& a, auto const& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  std::string s = fmt::format("network faults injected before the failure: {} packet(s) lost ({} by drop rules{}), {} "
                              "corrupted, {} duplicated, {} reordered",
                              all.lost, rule_drops_,
                              fcs_drops_ > 0 ? fmt::format(", {} corrupted and dropped by a switch", fcs_drops_) : "",
                              all.corrupted, all.duplicated, all.held_back);
  for (std::size_t i = 0; i < lost.size() && i < 5; ++i)
    s += fmt::format("{} host {} -> host {}: {}", i == 0 ? "; most lost on" : ",", lost[i].first >> 32,
                     lost[i].first & 0xFFFFFFFF, lost[i].second);
  return s;
}

} // namespace nafsim::net
