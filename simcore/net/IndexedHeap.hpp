#pragma once
// A binary min-heap of small integer ids whose keys live outside it (the
// caller's arrays), with each id's position kept so that a changed key is
// re-sifted in place and an id removed from anywhere: one entry per id, no
// stale entries. `Before(a, b)` must be a strict total order (break ties on the
// id) so that the order of pops does not depend on the heap's history.
// Used by the max-min solver (links by fair share) and the flow fabric (flows
// by completion date).

#include <cstdint>
#include <span>
#include <vector>

namespace nafsim::net {

template <class Before>
class IndexedHeap {
public:
  explicit IndexedHeap(Before before = {}) : before_(before) {}

  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  std::uint32_t top() const { return heap_.front(); }
  bool contains(std::uint32_t id) const { return id < pos_.size() && pos_[id] != kOut; }

  /// Empty the heap, then fill it with `ids` (not in it, keys set) in linear time.
  void assign(std::span<const std::uint32_t> ids)
  {
    for (auto id : heap_)
      pos_[id] = kOut;
    heap_.clear();
    for (auto id : ids)
      place(id, heap_.size()), heap_.push_back(id);
    for (std::size_t i = heap_.size() / 2; i-- > 0;)
      sift_down(i);
  }
  /// `id` (not in the heap) enters with its current key.
  void push(std::uint32_t id)
  {
    heap_.push_back(id);
    place(id, heap_.size() - 1);
    sift_up(heap_.size() - 1);
  }
  /// `id` (not in the heap) enters at the end, unordered: heapify() before the next push, pop or update.
  void append(std::uint32_t id)
  {
    place(id, heap_.size());
    heap_.push_back(id);
  }
  /// Order the heap again after appends or key changes of many of its ids, in linear time (k updates cost about
  /// k log n: the cheaper way once k is a good part of n).
  void heapify()
  {
    for (std::size_t i = heap_.size() / 2; i-- > 0;)
      sift_down(i);
  }
  /// The key of `id` (in the heap) changed.
  void update(std::uint32_t id) { sift_up(sift_down(pos_[id])); }
  void remove(std::uint32_t id)
  {
    const std::size_t i     = pos_[id];
    const std::uint32_t last = heap_.back();
    heap_.pop_back();
    pos_[id] = kOut;
    if (last == id)
      return;
    heap_[i] = last;
    pos_[last] = static_cast<std::uint32_t>(i);
    update(last);
  }
  std::uint32_t pop()
  {
    const std::uint32_t id = heap_.front();
    remove(id);
    return id;
  }

private:
  static constexpr std::uint32_t kOut = UINT32_MAX;
  Before before_;
  std::vector<std::uint32_t> heap_, pos_;

  void place(std::uint32_t id, std::size_t i)
  {
    if (id >= pos_.size())
      pos_.resize(id + 1, kOut);
    pos_[id] = static_cast<std::uint32_t>(i);
  }
  std::size_t sift_down(std::size_t i)
  {
    const std::size_t n    = heap_.size();
    const std::uint32_t id = heap_[i];
    for (;;) {
      std::size_t c = 2 * i + 1;
      if (c >= n)
        break;
      if (c + 1 < n && before_(heap_[c + 1], heap_[c]))
        ++c;
      if (!before_(heap_[c], id))
        break;
      heap_[i] = heap_[c];
      pos_[heap_[i]] = static_cast<std::uint32_t>(i);
      i = c;
    }
    heap_[i] = id;
    pos_[id] = static_cast<std::uint32_t>(i);
    return i;
  }
  void sift_up(std::size_t i)
  {
    const std::uint32_t id = heap_[i];
    while (i > 0) {
      const std::size_t parent = (i - 1) / 2;
      if (!before_(id, heap_[parent]))
        break;
      heap_[i] = heap_[parent];
      pos_[heap_[i]] = static_cast<std::uint32_t>(i);
      i = parent;
    }
    heap_[i] = id;
    pos_[id] = static_cast<std::uint32_t>(i);
  }
};

} // namespace nafsim::net
