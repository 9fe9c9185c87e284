#pragma once
// The open-addressing table under the simulator's per-message look-ups (FlatIndex, the flow fabric's LaneTable):
// linear probing over a power-of-two array of slots kept at most half full, Fibonacci hashing (the index is the top
// bits of the key's hash times the golden ratio, which every bit of the key moves), and backward-shift deletion (no
// tombstones: a look-up stops at the first empty slot). A look-up reads one slot's cache line; an entry needs no
// heap block of its own.
//
// `Ops` says what a slot holds: `static bool empty(const Slot&)` (a default-made Slot is empty) and
// `static std::uint64_t hash(const Slot&)` (its key's hash, before the mixing).

#include <cstddef>
#include <cstdint>
#include <vector>

namespace nafsim {

template <class Slot, class Ops> class OpenTable {
public:
  /// Where the key hashed `h` is (`is_key(slot)`), or the empty slot where it would go; `npos` if the table has no
  /// slots yet (nothing was ever added).
  static constexpr std::size_t npos = SIZE_MAX;
  template <class IsKey> std::size_t probe(std::uint64_t h, IsKey is_key) const
  {
    if (slots_.empty())
      return npos;
    for (std::size_t i = home(h);; i = (i + 1) & mask_)
      if (Ops::empty(slots_[i]) || is_key(slots_[i]))
        return i;
  }
  /// Room for one more entry (call before the probe that finds where it goes: growing moves every slot).
  void reserve_one()
  {
    if ((used_ + 1) * 2 > slots_.size())
      grow();
  }
  Slot& operator[](std::size_t i) { return slots_[i]; }
  const Slot& operator[](std::size_t i) const { return slots_[i]; }
  /// Fills the empty slot `i` (from a probe after reserve_one()).
  void occupy(std::size_t i, const Slot& s)
  {
    slots_[i] = s;
    ++used_;
  }
  /// Empties the full slot `i`: each later slot of its run whose home is not between the hole and it moves into the
  /// hole, so that no look-up stops short of its key.
  void erase_at(std::size_t i)
  {
    for (std::size_t j = (i + 1) & mask_;; j = (j + 1) & mask_) {
      const Slot& s = slots_[j];
      if (Ops::empty(s))
        break;
      const std::size_t h = home(Ops::hash(s));
      if (((j - h) & mask_) >= ((j - i) & mask_)) { // its home is at or before the hole: it may move there
        slots_[i] = s;
        i         = j;
      }
    }
    slots_[i] = Slot{};
    --used_;
  }
  std::size_t size() const { return used_; }
  /// Bytes held (the slots; for memory reports).
  std::size_t bytes() const { return slots_.capacity() * sizeof(Slot); }

private:
  std::size_t home(std::uint64_t h) const { return static_cast<std::size_t>((h * 0x9E3779B97F4A7C15ULL) >> shift_); }
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
      if (!Ops::empty(s)) {
        std::size_t i = home(Ops::hash(s));
        while (!Ops::empty(slots_[i]))
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
