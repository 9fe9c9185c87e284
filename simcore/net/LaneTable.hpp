#pragma once
// The flow fabric's lanes (FlowFabric.cpp): per sender and flow identity, whether one of its flows is crossing now,
// the packets waiting behind it, its deliveries still under way and the date of the last. A flow keeps its lane's
// number from its start to its delivery, so only the start looks the lane up by its key.
//
// An open-addressing table (simcore/engine/OpenTable.hpp: linear probing, backward-shift deletion) of 16-byte slots
// that point into a pool of lanes: a look-up reads one slot's cache line, a lane needs no heap block of its own, and
// a lane's number stays valid until it is erased. (An unordered_map cost two to three cache misses and a heap block per
// lane: 5-7 % of an all-to-all's run time at flow fidelity, where every message is a lane made and erased.)

#include "simcore/engine/Fifo.hpp"
#include "simcore/engine/OpenTable.hpp"
#include "simcore/engine/PairHash.hpp"
#include "simcore/engine/SlotPool.hpp"
#include "simcore/units/Units.hpp"

#include <cstdint>
#include <vector>

namespace nafsim::net {

class LaneTable {
public:
  static constexpr std::uint32_t kNone = UINT32_MAX;
  struct Lane {
    bool active                = false; ///< one of its flows is crossing
    std::uint32_t deliveries   = 0;     ///< flows ended, not yet delivered
    SimTime last_delivery;              ///< of its latest flow (deliveries are in order)
    Fifo<std::uint32_t> waiting;        ///< packet slots behind the active one
    double bytes         = 0;           ///< drop-tail watch: wire bytes of its active and waiting packets
    double pace          = 0;           ///< ... its active flow's pace (DropTailWatch::pace)
    std::uint32_t shared = 0;           ///< ... and its active flow's id in the sharing (MaxMinSharing)
    bool forget_pending  = false;       ///< a delivery handed over ahead: in the fabric's list of lanes to forget
  };

  /// The lane of (`src`, `flow`), made (idle) if there was none.
  std::uint32_t get(std::uint32_t src, std::uint64_t flow)
  {
    t_.reserve_one();
    const std::size_t i = t_.probe(pair_hash(flow, src), Is{src, flow});
    if (t_[i].lane != kNone)
      return t_[i].lane;
    const std::uint32_t id = pool_.acquire();
    pool_[id].flow         = flow;
    pool_[id].src          = src;
    pool_[id].lane.bytes   = 0;
    t_.occupy(i, Slot{flow, src, id});
    return id;
  }
  /// The lane of (`src`, `flow`), or kNone.
  std::uint32_t find(std::uint32_t src, std::uint64_t flow) const
  {
    const std::size_t i = t_.probe(pair_hash(flow, src), Is{src, flow});
    return i == Table::npos ? kNone : t_[i].lane;
  }
  Lane& operator[](std::uint32_t id) { return pool_[id].lane; }
  /// The lane is gone (its number may come back for another key).
  void erase(std::uint32_t id)
  {
    const Entry& e = pool_[id];
    t_.erase_at(t_.probe(pair_hash(e.flow, e.src), [id](const Slot& s) { return s.lane == id; }));
    pool_.release(id);
  }
  std::size_t size() const { return t_.size(); }

private:
  struct Slot {
    std::uint64_t flow = 0;
    std::uint32_t src  = 0;
    std::uint32_t lane = kNone;
  };
  static_assert(sizeof(Slot) == 16);
  struct Ops {
    static bool empty(const Slot& s) { return s.lane == kNone; }
    static std::uint64_t hash(const Slot& s) { return pair_hash(s.flow, s.src); }
  };
  using Table = OpenTable<Slot, Ops>;
  struct Is { ///< a slot of the key (src, flow)
    std::uint32_t src;
    std::uint64_t flow;
    bool operator()(const Slot& s) const { return s.flow == flow && s.src == src; }
  };
  struct Entry {
    Lane lane;
    std::uint64_t flow = 0;
    std::uint32_t src  = 0;
  };

  Table t_;
  SlotPool<Entry> pool_;
};

} // namespace nafsim::net
