#pragma once
// The staged send's wake-up every NIC engine has (RdmaPoe, TcpPoe, UdpPoe, LantNi): when the fabric pulls and the
// next staged packet is not ready yet (its data still streaming in), the engine asks to be woken at its ready
// date; at that event it tells the fabric its port has something (Fabric::tx_ready). One pending wake-up at a
// time, the earliest asked for; a later request while an earlier one is pending adds no event. As htsim's Queue
// wake-ups: one element the engines share.

#include "simcore/engine/Scheduler.hpp"
#include "simcore/net/Fabric.hpp"

namespace nafsim::nodes {

class TxWake {
public:
  TxWake(Scheduler& s, EventHandler* owner, std::uint32_t kind, net::Fabric& f, net::HostId host)
      : sched_(s), owner_(owner), kind_(kind), fabric_(f), host_(host)
  {
  }
  /// The next staged packet can go at `ready` (SimTime::max(): nothing staged to wait for).
  /// `why`: what the wait is spent on (critical paths; default: the owner's label for its kind).
  void at(SimTime ready, CauseLabel why = {})
  {
    if (ready == SimTime::max())
      return;
    const SimTime now = sched_.now();
    if (wake_at_ > ready || wake_at_ <= now) {
      wake_at_ = ready;
      if (why.what != 0)
        sched_.at(ready, owner_, kind_, 0, why);
      else
        sched_.at(ready, owner_, kind_);
    }
  }
  /// At the owner's event: the port has something to send.
  void fire()
  {
    if (sched_.now() >= wake_at_)
      wake_at_ = SimTime::max();
    fabric_.tx_ready(host_);
  }

private:
  Scheduler& sched_;
  EventHandler* owner_;
  std::uint32_t kind_;
  net::Fabric& fabric_;
  net::HostId host_;
  SimTime wake_at_ = SimTime::max();
};

} // namespace nafsim::nodes
