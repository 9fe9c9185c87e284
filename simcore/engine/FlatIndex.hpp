#pragma once
// An index from 64-bit keys to 32-bit values (a message's slot, a connection's queue pair) for the look-ups made
// per message: open addressing with linear probing in 16-byte slots, backward-shift deletion (no tombstones), a
// power-of-two table at most half full. A look-up reads one slot's cache line and an entry needs no heap block of
// its own (a std::unordered_map costs a node allocation per entry and two to three cache misses per look-up: a
// 256-rank all-to-all makes and erases a map entry per message and looks a connection up per message).

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace nafsim {

class FlatIndex {
public:
  static constexpr std::uint32_t kNone = UINT32_MAX; ///< no value (and the one value that cannot be stored)

  /// The value of `key`, or kNone.
  std::uint32_t find(std::uint64_t key) const
  {
    if (slots_.empty())
      return kNone;
    for (std::size_t i = home(key);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.value == kNone || s.key == key)
        return s.value;
    }
  }
  /// Sets `key`'s value (adding the key if new).
  void set(std::uint64_t key, std::uint32_t value)
  {
    assert(value != kNone);
    if ((used_ + 1) * 2 > slots_.size())
      grow();
    std::size_t i = home(key);
    for (; slots_[i].value != kNone; i = (i + 1) & mask_)
      if (slots_[i].key == key) {
        slots_[i].value = value;
        return;
      }
    slots_[i] = Slot{key, value};
    ++used_;
  }
  /// Removes `key` if present; returns its value, or kNone.
  std::uint32_t erase(std::uint64_t key)
  {
    if (slots_.empty())
      return kNone;
    std::size_t i = home(key);
    for (;; i = (i + 1) & mask_) {
      if (slots_[i].value == kNone)
        return kNone;
      if (slots_[i].key == key)
        break;
    }
    const std::uint32_t value = slots_[i].value;
    // Backward shift: move each later slot of the run whose home is not between the hole and it into the hole.
    for (std::size_t j = (i + 1) & mask_;; j = (j + 1) & mask_) {
      const Slot& s = slots_[j];
      if (s.value == kNone)
        break;
      const std::size_t h = home(s.key);
      if (((j - h) & mask_) >= ((j - i) & mask_)) { // its home is at or before the hole: it may move there
        slots_[i] = s;
        i         = j;
      }
    }
    slots_[i].value = kNone;
    --used_;
    return value;
  }
  std::size_t size() const { return used_; }
  /// Bytes held (the table; for memory reports).
  std::size_t bytes() const { return slots_.capacity() * sizeof(Slot); }

private:
  struct Slot {
    std::uint64_t key   = 0;
    std::uint32_t value = kNone;
  };
  static_assert(sizeof(Slot) == 16);
  // Fibonacci hashing: the table's size is a power of two, so its index takes the product's top bits, which every
  // bit of the key moves (keys made of two numbers side by side, or counted up, spread over the table).
  std::size_t home(std::uint64_t key) const
  {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> shift_);
  }
  void grow()
  {
    std::vector<Slot> old = std::move(slots_);
    const std::size_t n   = old.empty() ? 16 : old.size() * 2;
    slots_.assign(n, Slot{});
    mask_  = n - 1;
    shift_ = 64;
    for (std::size_t k = n; k > 1; k >>= 1)
      --shift_;
    for (const Slot& s : old)
      if (s.value != kNone) {
        std::size_t i = home(s.key);
        while (slots_[i].value != kNone)
          i = (i + 1) & mask_;
        slots_[i] = s;
      }
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  unsigned shift_   = 64;
  std::size_t used_ = 0;
};

} // namespace nafsim
