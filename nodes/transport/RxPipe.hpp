#pragma once
// The receive pipeline every NIC engine has (RdmaPoe, TcpPoe, UdpPoe, LantNi): a packet that arrived whole waits
// the engine's fixed receive latency, in arrival order, then the engine takes it (one event per packet, the
// owner's `kind`). As htsim's Pipe: one element the engines share instead of each rewriting it. Since nothing
// happens at the arrival itself, the fabric may hand a packet over when its last cable starts it (push_ahead): one
// event per packet at the host instead of two.

#include "simcore/engine/Fifo.hpp"
#include "simcore/engine/Scheduler.hpp"
#include "simcore/net/Packet.hpp"

namespace nafsim::nodes {

class RxPipe {
public:
  RxPipe(Scheduler& s, EventHandler* owner, std::uint32_t kind) : sched_(s), owner_(owner), kind_(kind) {}
  /// A packet enters; the owner's event comes `latency` later (latencies are the engine's, constant per engine,
  /// so packets leave in arrival order).
  void push(net::Packet&& p, SimTime latency)
  {
    q_.push_back(std::move(p));
    sched_.after(latency, owner_, kind_);
  }
  /// A packet handed over ahead (net::Endpoint::deliver_ahead) enters: its last bit arrives at `arrival`, the
  /// owner's event comes `latency` after that, labelled, when causes are recorded, with the cable's time (`wire`)
  /// as its lead-in. Packets come ahead in the order of their arrivals (one cable, first in first out), so they
  /// still leave in arrival order.
  void push_ahead(net::Packet&& p, SimTime arrival, SimTime latency, const CauseLabel& wire)
  {
    q_.push_back(std::move(p));
    if (!sched_.causes()) [[likely]]
      sched_.at(arrival + latency, owner_, kind_);
    else
      sched_.at(arrival + latency, owner_, kind_, 0, CausalGraph::with_lead(owner_->cause(kind_, 0), wire, arrival));
  }
  /// At the owner's event: the packet whose latency is over.
  net::Packet pop()
  {
    net::Packet p = std::move(q_.front());
    q_.pop_front();
    return p;
  }
  /// ... or read in place (no copy of its 224 bytes out of the queue), then dropped. Nothing may enter the pipe in
  /// between: an entering packet may move the queue's storage.
  const net::Packet& front() const { return q_.front(); }
  void drop_front() { q_.pop_front(); }
  std::size_t size() const { return q_.size(); }

private:
  Scheduler& sched_;
  EventHandler* owner_;
  std::uint32_t kind_;
  Fifo<net::Packet> q_;
};

} // namespace nafsim::nodes
