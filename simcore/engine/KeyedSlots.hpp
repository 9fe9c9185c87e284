#pragma once
// Values kept per 64-bit key in a vector, found through a FlatIndex (FlatIndex.hpp): what a per-message look-up needs
// when the keys are few and never erased (a CCLO's sequence count per peer and tag, a pair's messages in flight).
// A value is made (default-constructed) the first time its key is asked for, in the next slot.

#include "simcore/engine/FlatIndex.hpp"

#include <cstdint>
#include <vector>

namespace nafsim {

template <class T> class KeyedSlots {
public:
  /// `key`'s value, made on first use. The reference holds until the next key is added.
  T& operator[](std::uint64_t key)
  {
    bool added            = false;
    const std::uint32_t i = index_.find_or_add(key, static_cast<std::uint32_t>(slots_.size()), added);
    if (added)
      slots_.emplace_back();
    return slots_[i];
  }
  /// `key`'s value, or nullptr when it was never asked for.
  const T* find(std::uint64_t key) const
  {
    const std::uint32_t i = index_.find(key);
    return i == FlatIndex::kNone ? nullptr : &slots_[i];
  }
  std::size_t size() const { return slots_.size(); }

private:
  FlatIndex index_;
  std::vector<T> slots_;
};

} // namespace nafsim
