#pragma once
// The staged send's wake-up every NIC engine has (RdmaPoe, TcpPoe, UdpPoe, LantNi): when the fabric pulls and the
// next staged packet is not ready yet (its data still streaming in), the engine asks to be woken at its ready
// date; at that event it tells the fabric its port has something (Fabric::tx_ready). One pending wake-up at a
// time, the earliest asked for; a later request while an earlier one is pending adds no event. As htsim's Queue
// wake-ups: one element the engines share.

#include "simcore/engine/Scheduler.hpp"
#include "simcore/net/Fabric.hpp"

#include <functional>
#include <utility>
#include <vector>

namespace nafsim::nodes {

class TxWake {
public:
  TxWake(Scheduler& s, EventHandler* owner, std::uint32_t kind, net::Fabric& f, net::HostId host)
      : sched_(s), owner_(owner), kind_(kind), fabric_(f), host_(host)
  {
  }
  /// The next staged packet can go at `ready` (SimTime::max(): nothing staged to wait for).
  /// `why`: what the wait is spent on (critical paths; default: the owner's label for its kind). `parent`: the step
  /// that began what `ready` waits for (a cause_mark(): the run of payload reads it ends, RunStart; the work
  /// request's post for a stream that feeds it), so that a path through the wake-up walks back through that work
  /// rather than through the port's pull that asked (which blamed the wire for reads slower than the link).
  void at(SimTime ready, CauseLabel why = {}, std::uint32_t parent = Scheduler::kRunningStep)
  {
    if (ready == SimTime::max())
      return;
    const SimTime now = sched_.now();
    if (wake_at_ > ready || wake_at_ <= now) {
      wake_at_ = ready;
      ++scheduled_; // (the event's argument: the riders it carries, below)
      if (parent != Scheduler::kRunningStep && why.what != 0)
        sched_.at_caused_by(parent, ready, owner_, kind_, scheduled_, why);
      else if (parent != Scheduler::kRunningStep)
        sched_.at_caused_by(parent, ready, owner_, kind_, scheduled_);
      else if (why.what != 0)
        sched_.at(ready, owner_, kind_, scheduled_, why);
      else
        sched_.at(ready, owner_, kind_, scheduled_);
    }
  }
  /// Wake-ups scheduled so far (the last one's date: ride()).
  std::uint64_t scheduled() const { return scheduled_; }
  /// `fn` runs at the start of the wake-up the last at() scheduled, if that one is due at `date`: one event for both
  /// (the RoCE POE's acceptance of a message whose last byte is ready when its packet is; issue 53). False, `fn`
  /// left as it was, otherwise.
  bool ride(SimTime date, std::function<void()>& fn)
  {
    if (scheduled_ == 0 || wake_at_ != date)
      return false;
    riders_.emplace_back(scheduled_, std::move(fn));
    return true;
  }
  /// At the owner's event (its argument `event`): what rides it, then the port has something to send.
  void fire(std::uint64_t event = 0)
  {
    for (std::size_t i = 0; i < riders_.size();) {
      if (riders_[i].first != event) {
        ++i;
        continue;
      }
      auto fn = std::move(riders_[i].second);
      riders_.erase(riders_.begin() + static_cast<std::ptrdiff_t>(i));
      fn();
    }
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
  std::uint64_t scheduled_ = 0;
  std::vector<std::pair<std::uint64_t, std::function<void()>>> riders_; ///< (wake-up, what runs at its start)
};

} // namespace nafsim::nodes
