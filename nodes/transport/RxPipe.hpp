#pragma once
// The receive pipeline every NIC engine has (RdmaPoe, TcpPoe, UdpPoe, LantNi): a packet that arrived whole waits
// the engine's fixed receive latency, then the engine takes it (one event per packet, the owner's `kind`, whose
// argument names the packet's place in the pipe). As htsim's Pipe: one element the engines share instead of each
// rewriting it. Since nothing happens at the arrival itself, the fabric may hand a packet over before it arrives
// (push_ahead): when its last cable starts it (packet fidelity) or when its flow ends (flow fidelity), one event per
// packet at the host instead of two. Flows over paths of different lengths are handed over out of the order of
// their arrivals, so each event takes its own packet by place, not the pipe's oldest.

#include "simcore/engine/Scheduler.hpp"
#include "simcore/net/Endpoint.hpp"
#include "simcore/net/Packet.hpp"

#include <memory>
#include <vector>

namespace nafsim::nodes {

class RxPipe {
public:
  /// The packets in every pipe of a run, in one store (Scheduler::shared), the places freed last taken first: the
  /// packets of all pipes lie in the few slots the run keeps busy, warm in the cache, where a store per NIC put
  /// each packet in its own NIC's slots, cold when thousands of NICs take turns (a 4,096-rank allreduce spent 11 %
  /// of its time handing packets over into them). In blocks of 256 that never move: a packet read in place stays
  /// where it is whatever enters any pipe meanwhile.
  class Store {
  public:
    std::uint32_t put(net::Packet&& p)
    {
      std::uint32_t place;
      if (free_.empty()) {
        place = size_++;
        if ((place & kMask) == 0)
          blocks_.push_back(std::make_unique<net::Packet[]>(kBlock));
      } else {
        place = free_.back();
        free_.pop_back();
      }
      (*this)[place] = std::move(p);
      return place;
    }
    net::Packet& operator[](std::uint64_t place) { return blocks_[place >> kShift][place & kMask]; }
    void release(std::uint64_t place) { free_.push_back(static_cast<std::uint32_t>(place)); }

  private:
    static constexpr unsigned kShift = 8;
    static constexpr std::uint32_t kBlock = 1u << kShift, kMask = kBlock - 1;
    // (SlotPool's numbering, by hand: a packet read in place is freed without the reset SlotPool::release makes, 224
    // bytes written per packet, 1 % of a ring's instructions)
    std::vector<std::unique_ptr<net::Packet[]>> blocks_;
    std::uint32_t size_ = 0;
    std::vector<std::uint32_t> free_; ///< places free again, the last freed taken first
  };

  RxPipe(Scheduler& s, EventHandler* owner, std::uint32_t kind)
      : sched_(s), store_(s.shared<Store>()), owner_(owner), kind_(kind)
  {
  }
  /// A packet enters; the owner's event comes `latency` later.
  void push(net::Packet&& p, SimTime latency) { sched_.after(latency, owner_, kind_, store_.put(std::move(p))); }
  /// A packet handed over ahead (net::Endpoint::deliver_ahead) enters: its last bit arrives at `arrival`, the
  /// owner's event comes `latency` after that, labelled, when causes are recorded, with the wire's time (`wire`)
  /// as its lead-in, from the step the wire's time began at.
  void push_ahead(net::Packet&& p, SimTime arrival, SimTime latency, const net::WireCause& wire)
  {
    const std::uint32_t place = store_.put(std::move(p));
    if (!sched_.causes()) [[likely]]
      sched_.at(arrival + latency, owner_, kind_, place);
    else
      sched_.at_caused_by(wire.parent, arrival + latency, owner_, kind_, place,
                          CausalGraph::with_lead(owner_->cause(kind_, place), wire.label, arrival));
  }
  /// At the owner's event (`place`: its argument): the packet whose latency is over ...
  net::Packet take(std::uint64_t place)
  {
    net::Packet p = std::move(store_[place]);
    store_.release(place);
    return p;
  }
  /// ... or read in place (no copy of its 224 bytes out of the store), then released.
  const net::Packet& at(std::uint64_t place) const { return store_[place]; }
  void release(std::uint64_t place) { store_.release(place); }

private:
  Scheduler& sched_;
  Store& store_;
  EventHandler* owner_;
  std::uint32_t kind_;
};

} // namespace nafsim::nodes
