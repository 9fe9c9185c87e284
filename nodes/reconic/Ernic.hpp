#pragma once
// Timing of RecoNIC's host-driven queues around the RDMA engine (ErnicConfig):
// when the engine has a burst's WQEs, when a completion is visible in the CQ
// doorbell, and when a host polling that doorbell with back-to-back register
// reads sees it. Closed forms, checked in tests/unit/nodes/ReconicTest.cpp.

#include "nodes/memory/MemoryPort.hpp"
#include "nodes/memory/MemorySystem.hpp"
#include "nodes/reconic/ErnicConfig.hpp"

namespace nafsim::nodes {

class ErnicTiming {
public:
  /// `clock`: the engine's clock; `device`: the card's memory; `pcie`: the host
  /// link.
  ErnicTiming(const ErnicConfig& cfg, Hertz clock, const MemoryConfig& device, const PcieConfig& pcie)
      : cfg_(cfg), clock_(clock), device_(device), pcie_(pcie)
  {
  }
  SimTime cycles(std::uint64_t n) const { return SimTime::from_seconds(static_cast<double>(n) / clock_.hz); }
  /// WQE `i` (from 0) of a burst whose doorbell the engine saw at `seen` is in
  /// the engine: the first after a PCIe read through the slave bridge (host SQ)
  /// or a device-memory read (device SQ), the rest pipelined.
  SimTime wqe_fetched(SimTime seen, unsigned i, MemPlace sq) const
  {
    SimTime first = sq == MemPlace::Host ? cycles(cfg_.first_wqe_cycles) : device_.read_latency;
    return seen + first + cycles(std::uint64_t{cfg_.next_wqe_cycles} * i);
  }
  /// The engine hands WQE `i`, fetched at `fetched`, to the RoCE engine: after
  /// its own processing, and no earlier than one processing time after the
  /// previous WQE (`previous`; SimTime::zero() for the first).
  SimTime wqe_started(SimTime fetched, SimTime previous) const
  {
    SimTime w = cycles(cfg_.wqe_cycles);
    return std::max(fetched, previous) + w;
  }
  /// A work request completed at `done`: its CQE is written and the CQ doorbell
  /// advanced.
  SimTime cqe_visible(SimTime done, MemPlace cq) const
  {
    return done + cfg_.cqe_write + (cq == MemPlace::Host ? pcie_.write_latency : SimTime::zero());
  }
  /// A host polling the CQ doorbell from `start` with back-to-back register
  /// reads (each samples the register halfway through its round trip R) sees a
  /// doorbell advanced at `event` when the first read sampling at or after
  /// `event` returns: start + (k + 1) R, k = max(0, ceil((event - start - R/2)
  /// / R)). Polling the CQ doorbells of `n` queue pairs in turn, the doorbell of
  /// queue pair `j` is read at start + (m n + j + 1) R (m = 0, 1, ...): the first
  /// of these sampling at or after `event`.
  SimTime poll_sees(SimTime start, SimTime event, unsigned j = 0, unsigned n = 1) const
  {
    const std::int64_t R  = cfg_.register_read.ps();
    const std::int64_t nR = R * n;
    std::int64_t wait     = (event - start).ps() - R / 2 - R * j;
    std::int64_t m        = wait <= 0 ? 0 : (wait + nR - 1) / nR;
    return start + SimTime::ps(m * nR + (j + 1) * R);
  }
  /// The engine sees the SQ doorbell of queue pair `j` (of those the host rings
  /// one after the other from `rung`).
  SimTime doorbell_seen(SimTime rung, unsigned j) const { return rung + cfg_.doorbell_write + cfg_.doorbell_gap * j; }
  /// The host's last of `k` SQ doorbell stores (from `rung`, one after the other), after which it polls.
  SimTime doorbells_posted(SimTime rung, unsigned k) const
  {
    return rung + cfg_.doorbell_gap * static_cast<std::int64_t>(k > 0 ? k - 1 : 0);
  }
  const ErnicConfig& config() const { return cfg_; }

private:
  ErnicConfig cfg_;
  Hertz clock_;
  MemoryConfig device_;
  PcieConfig pcie_;
};

} // namespace nafsim::nodes
