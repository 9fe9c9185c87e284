#pragma once
// The kernel's pending events: a radix heap of 16-byte entries (date, key), where the key is the event's insertion
// order << 24 | its payload slot, so (date, key) order is date order with ties in scheduling order.
//
// The kernel is monotone (nothing is scheduled before the last date taken), so an entry sits in the bucket of the
// highest bit where its date differs from that date; push is O(1), pop amortised O(log range) with sequential memory
// access, and bucket 0 (dates equal to the last one) is a FIFO kept in insertion order, so ties run in scheduling
// order with no sort. Measured against a calendar queue (CalendarQueue.hpp) on the benches: simcore/engine/README.md.

#include <algorithm>
#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace nafsim {

struct QueueEntry {
  std::int64_t t;
  std::uint64_t key;
  bool before(const QueueEntry& o) const { return t != o.t ? t < o.t : key < o.key; }
};

class RadixQueue {
public:
  using Entry = QueueEntry;
  /// `e.t` is at least the last date popped; `e.key` is usually larger than every key pushed before (an event's
  /// reserved place, Scheduler::reserve_place, may be older: it is inserted in key order).
  void push(Entry e)
  {
    auto& b = buckets_[radix_bucket(e.t, last_)];
    if (b.empty() || b.back().key < e.key) [[likely]]
      b.push_back(e);
    else
      b.insert(std::upper_bound(b.begin() + static_cast<std::ptrdiff_t>(&b == &buckets_[0] ? head0_ : 0), b.end(), e,
                                [](const Entry& x, const Entry& y) { return x.key < y.key; }),
               e);
    ++size_;
  }
  /// The first entry in (date, key) order; the queue is not empty.
  Entry pop()
  {
    auto& b0 = buckets_[0];
    if (head0_ == b0.size()) {
      b0.clear();
      head0_     = 0;
      unsigned i = 1;
      while (buckets_[i].empty())
        ++i;
      auto& bi        = buckets_[i];
      std::int64_t lo = bi[0].t;
      for (auto const& e : bi)
        lo = std::min(lo, e.t);
      last_ = lo;
      for (auto const& e : bi)
        buckets_[radix_bucket(e.t, last_)].push_back(e);
      bi.clear();
      // Ties run in scheduling order with no sort: every bucket holds its entries in key order (a push appends the
      // newest key; a refill splits the first non-empty bucket, in order, into empty lower ones).
      assert(std::is_sorted(b0.begin(), b0.end(), [](const Entry& a, const Entry& b) { return a.key < b.key; }));
    }
    --size_;
    return b0[head0_++];
  }
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  /// The date of the entry pop() would return (INT64_MAX when empty).
  std::int64_t next_time() const
  {
    if (head0_ < buckets_[0].size())
      return last_;
    for (unsigned i = 1; i < buckets_.size(); ++i)
      if (!buckets_[i].empty()) {
        std::int64_t lo = buckets_[i][0].t;
        for (auto const& e : buckets_[i])
          lo = std::min(lo, e.t);
        return lo;
      }
    return INT64_MAX;
  }

private:
  static unsigned radix_bucket(std::int64_t t, std::int64_t last)
  {
    auto x = static_cast<std::uint64_t>(t) ^ static_cast<std::uint64_t>(last);
    return x == 0 ? 0u : 64u - static_cast<unsigned>(__builtin_clzll(x));
  }
  std::array<std::vector<Entry>, 65> buckets_;
  std::size_t head0_ = 0; ///< next entry of bucket 0
  std::size_t size_  = 0;
  std::int64_t last_ = 0; ///< date of the last entry taken
};

} // namespace nafsim
