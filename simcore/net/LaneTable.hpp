#pragma once
// The flow fabric's lanes (FlowFabric.cpp): per sender and flow identity, whether one of its flows is crossing now,
// the packets waiting behind it, its deliveries still under way and the date of the last. A flow keeps its lane's
// number from its start to its delivery, so only the start looks the lane up by its key.
//
// An open-addressing table (linear probing, backward-shift deletion: no tombstones) of 16-byte slots that point
// into a pool of lanes: a look-up reads one slot's cache line, a lane needs no heap block of its own, and a lane's
// number stays valid until it is erased. (An unordered_map cost two to three cache misses and a heap block per
// lane: 5-7 % of an all-to-all's run time at flow fidelity, where every message is a lane made and erased.)

#include "simcore/engine/Fifo.hpp"
#include "simcore/engine/PairHash.hpp"
#include "simcore/units/Units.hpp"

#include <cassert>
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
  };

  /// The lane of (`src`, `flow`), made (idle) if there was none.
  std::uint32_t get(std::uint32_t src, std::uint64_t flow)
  {
    if ((used_ + 1) * 2 > slots_.size())
      grow();
    std::size_t i = home(src, flow);
    for (;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.lane == kNone)
        break;
      if (s.flow == flow && s.src == src)
        return s.lane;
    }
    std::uint32_t id;
    if (free_.empty()) {
      id = static_cast<std::uint32_t>(pool_.size());
      pool_.emplace_back();
    } else {
      id = free_.back();
      free_.pop_back();
    }
    pool_[id].flow = flow;
    pool_[id].src  = src;
    slots_[i]      = Slot{flow, src, id};
    ++used_;
    return id;
  }
  /// The lane of (`src`, `flow`), or kNone.
  std::uint32_t find(std::uint32_t src, std::uint64_t flow) const
  {
    if (slots_.empty())
      return kNone;
    for (std::size_t i = home(src, flow);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.lane == kNone || (s.flow == flow && s.src == src))
        return s.lane;
    }
  }
  Lane& operator[](std::uint32_t id)
  {
    assert(id < pool_.size());
    return pool_[id].lane;
  }
  /// The lane is gone (its number may come back for another key).
  void erase(std::uint32_t id)
  {
    Entry& e      = pool_[id];
    std::size_t i = home(e.src, e.flow);
    while (slots_[i].lane != id)
      i = (i + 1) & mask_;
    // Backward shift: move each later slot of the run whose home is not between the hole and it into the hole.
    for (std::size_t j = (i + 1) & mask_;; j = (j + 1) & mask_) {
      const Slot& s = slots_[j];
      if (s.lane == kNone)
        break;
      const std::size_t h = home(s.src, s.flow);
      if (((j - h) & mask_) >= ((j - i) & mask_)) { // its home is at or before the hole: it may move there
        slots_[i] = s;
        i         = j;
      }
    }
    slots_[i].lane = kNone;
    e.lane         = Lane{};
    free_.push_back(id);
    --used_;
  }
  std::size_t size() const { return used_; }

private:
  struct Slot {
    std::uint64_t flow = 0;
    std::uint32_t src  = 0;
    std::uint32_t lane = kNone;
  };
  static_assert(sizeof(Slot) == 16);
  struct Entry {
    Lane lane;
    std::uint64_t flow = 0;
    std::uint32_t src  = 0;
  };
  // Fibonacci hashing of the pair's hash: the table's size is a power of two, so its index takes the product's top
  // bits, which every bit of the key moves.
  std::size_t home(std::uint32_t src, std::uint64_t flow) const
  {
    return static_cast<std::size_t>((pair_hash(flow, src) * 0x9E3779B97F4A7C15ULL) >> shift_);
  }
  void grow()
  {
    std::vector<Slot> old = std::move(slots_);
    const std::size_t n   = old.empty() ? 64 : old.size() * 2;
    slots_.assign(n, Slot{});
    mask_  = n - 1;
    shift_ = 64;
    for (std::size_t k = n; k > 1; k >>= 1)
      --shift_;
    for (const Slot& s : old)
      if (s.lane != kNone) {
        std::size_t i = home(s.src, s.flow);
        while (slots_[i].lane != kNone)
          i = (i + 1) & mask_;
        slots_[i] = s;
      }
  }

  std::vector<Slot> slots_;
  std::size_t mask_  = 0;
  unsigned shift_    = 64;
  std::size_t used_  = 0;
  std::vector<Entry> pool_;
  std::vector<std::uint32_t> free_;
};

} // namespace nafsim::net
