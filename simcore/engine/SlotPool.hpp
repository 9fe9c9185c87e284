#pragma once
// Records kept by number in one vector (a RoCE engine's messages in flight, the flow fabric's lanes): a record keeps
// its number until released, and a released number is taken again first (the most recently released: its memory is
// the warmest). No heap block per record, unlike a node-based map; an open-addressing index (FlatIndex.hpp,
// OpenTable.hpp) finds a record's number by its key.

#include <cassert>
#include <cstdint>
#include <vector>

namespace nafsim {

template <class T> class SlotPool {
public:
  /// A number whose record is a default-made T (new, or reset when it was released).
  std::uint32_t acquire()
  {
    if (free_.empty()) {
      items_.emplace_back();
      return static_cast<std::uint32_t>(items_.size() - 1);
    }
    const std::uint32_t id = free_.back();
    free_.pop_back();
    return id;
  }
  /// The record is reset now (what it holds is freed) and its number may come back from acquire().
  void release(std::uint32_t id)
  {
    assert(id < items_.size());
    items_[id] = T{};
    free_.push_back(id);
  }
  /// A number holding `value` (acquire() and an assignment, without making a default T first on reuse) ...
  std::uint32_t put(T&& value)
  {
    if (free_.empty()) {
      items_.push_back(std::move(value));
      return static_cast<std::uint32_t>(items_.size() - 1);
    }
    const std::uint32_t id = free_.back();
    free_.pop_back();
    items_[id] = std::move(value);
    return id;
  }
  /// ... and the record moved out, its number released (what stays behind is a moved-from T, not reset: a record
  /// passed through once per message costs no extra write).
  T take(std::uint32_t id)
  {
    assert(id < items_.size());
    T value = std::move(items_[id]);
    free_.push_back(id);
    return value;
  }
  T& operator[](std::uint32_t id)
  {
    assert(id < items_.size());
    return items_[id];
  }
  const T& operator[](std::uint32_t id) const
  {
    assert(id < items_.size());
    return items_[id];
  }

private:
  std::vector<T> items_;
  std::vector<std::uint32_t> free_;
};

} // namespace nafsim
