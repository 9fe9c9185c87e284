#pragma once
// An index from 64-bit keys to 32-bit values (a message's slot, a connection's queue pair, a TLB set) for the
// look-ups made per message: an open-addressing table (OpenTable.hpp) of 16-byte slots. A std::unordered_map costs a
// node allocation per entry and two to three cache misses per look-up (a 256-rank all-to-all makes and erases an
// entry per message and looks a connection up per message).

#include "simcore/engine/OpenTable.hpp"

#include <cassert>
#include <cstdint>

namespace nafsim {

class FlatIndex {
public:
  static constexpr std::uint32_t kNone = UINT32_MAX; ///< no value (and the one value that cannot be stored)

  /// The value of `key`, or kNone.
  std::uint32_t find(std::uint64_t key) const
  {
    const std::size_t i = t_.probe(key, [key](const Slot& s) { return s.key == key; });
    return i == Table::npos ? kNone : t_[i].value;
  }
  /// Sets `key`'s value (adding the key if new).
  void set(std::uint64_t key, std::uint32_t value)
  {
    assert(value != kNone);
    t_.reserve_one();
    const std::size_t i = t_.probe(key, [key](const Slot& s) { return s.key == key; });
    if (t_[i].value != kNone)
      t_[i].value = value;
    else
      t_.occupy(i, Slot{key, value});
  }
  /// The value of `key`; a new key is given `value` first (`added` says which). One probe either way.
  std::uint32_t find_or_add(std::uint64_t key, std::uint32_t value, bool& added)
  {
    assert(value != kNone);
    t_.reserve_one();
    const std::size_t i = t_.probe(key, [key](const Slot& s) { return s.key == key; });
    added               = t_[i].value == kNone;
    if (added)
      t_.occupy(i, Slot{key, value});
    return t_[i].value;
  }
  /// Removes `key` if present; returns its value, or kNone.
  std::uint32_t erase(std::uint64_t key)
  {
    const std::size_t i = t_.probe(key, [key](const Slot& s) { return s.key == key; });
    if (i == Table::npos || t_[i].value == kNone)
      return kNone;
    const std::uint32_t value = t_[i].value;
    t_.erase_at(i);
    return value;
  }
  std::size_t size() const { return t_.size(); }
  /// Bytes held (the table; for memory reports).
  std::size_t bytes() const { return t_.bytes(); }

private:
  struct Slot {
    std::uint64_t key   = 0;
    std::uint32_t value = kNone;
  };
  static_assert(sizeof(Slot) == 16);
  struct Ops {
    static bool empty(const Slot& s) { return s.value == kNone; }
    static std::uint64_t hash(const Slot& s) { return s.key; } // (mixed by the table)
  };
  using Table = OpenTable<Slot, Ops>;
  Table t_;
};

} // namespace nafsim
