#pragma once
// A calendar queue (R. Brown, "Calendar queues: a fast O(1) priority queue implementation for the simulation event
// set problem", CACM 31(10), 1988) with RadixQueue's interface and order: (date, key), ties in scheduling order.
// Built only to measure the kernel's radix heap against it (cmake -DNAFSIM_EVENT_QUEUE=calendar; the numbers in
// simcore/engine/README.md); the kernel uses RadixQueue.
//
// The dates are cut into `width`-long days, a year of `n` days (a power of two); an entry goes to the bucket of its
// day modulo the year, each bucket kept in (date, key) order. pop() takes the front of the current day's bucket if it
// falls in the current year, else walks on day by day; after a whole year with nothing due it looks for the smallest
// front directly. The year doubles when the entries outnumber two per day and halves below one per two days, the
// day's length then set to three times the mean gap between distinct dates among the next 32 entries (Brown's rule,
// with equal dates left out: the kernel has many, and they share a bucket whatever the width); the width is also
// re-estimated when pops walk or pushes shift more than 8 places on average over 4,096 operations (the dates'
// spacing changed with the same number pending).

#include "simcore/engine/RadixQueue.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace nafsim {

class CalendarQueue {
public:
  using Entry = QueueEntry;
  CalendarQueue() { buckets_.resize(kMinDays); }
  /// `e.t` is at least the last date popped; `e.key` larger than every key pushed before.
  void push(Entry e)
  {
    if (e.t < top_ - width_) { // before the current day (pushed after next_time() walked ahead): start there
      cur_ = day(e.t);
      top_ = (e.t / width_ + 1) * width_;
    }
    insert(e);
    if (++size_ > 2 * buckets_.size())
      rebuild(buckets_.size() * 2);
    else
      count_op();
  }
  /// The first entry in (date, key) order; the queue is not empty.
  Entry pop()
  {
    locate();
    Bucket& b     = buckets_[cur_];
    const Entry e = b.v[b.head++];
    if (b.head == b.v.size()) {
      b.v.clear();
      b.head = 0;
    }
    --size_;
    if (size_ * 2 < buckets_.size() && buckets_.size() > kMinDays)
      rebuild(buckets_.size() / 2);
    else
      count_op();
    return e;
  }
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  /// The date of the entry pop() would return (INT64_MAX when empty).
  std::int64_t next_time()
  {
    if (size_ == 0)
      return INT64_MAX;
    locate();
    const Bucket& b = buckets_[cur_];
    return b.v[b.head].t;
  }
  /// Rebuilds so far (a measure of the queue's own work).
  std::size_t rebuilds() const { return rebuilds_; }

private:
  static constexpr std::size_t kMinDays = 16;
  static constexpr std::size_t kSample  = 32;
  static constexpr std::size_t kWindow  = 4096;
  struct Bucket {
    std::vector<Entry> v;
    std::size_t head = 0; ///< entries before it are taken
  };
  std::size_t day(std::int64_t t) const { return static_cast<std::size_t>(t / width_) & (buckets_.size() - 1); }
  void insert(Entry e)
  {
    Bucket& b       = buckets_[day(e.t)];
    std::size_t pos = b.v.size();
    while (pos > b.head && e.before(b.v[pos - 1]))
      --pos;
    work_ += b.v.size() - pos;
    if (b.head > 32 && b.head * 2 > b.v.size()) { // drop the taken prefix now and then
      b.v.erase(b.v.begin(), b.v.begin() + static_cast<std::ptrdiff_t>(b.head));
      pos -= b.head;
      b.head = 0;
    }
    b.v.insert(b.v.begin() + static_cast<std::ptrdiff_t>(pos), e);
  }
  /// Makes cur_ the bucket whose front is the smallest entry (top_: the end of its day).
  void locate()
  {
    for (std::size_t n = 0; n < buckets_.size(); ++n) {
      const Bucket& b = buckets_[cur_];
      if (b.head < b.v.size() && b.v[b.head].t < top_)
        return;
      cur_ = (cur_ + 1) & (buckets_.size() - 1);
      top_ += width_;
      ++work_;
    }
    // Nothing due within a year: the smallest front, directly.
    std::size_t best = buckets_.size();
    for (std::size_t i = 0; i < buckets_.size(); ++i) {
      const Bucket& b = buckets_[i];
      if (b.head < b.v.size() && (best == buckets_.size() || b.v[b.head].before(buckets_[best].v[buckets_[best].head])))
        best = i;
    }
    const std::int64_t t = buckets_[best].v[buckets_[best].head].t;
    cur_                 = best;
    top_                 = (t / width_ + 1) * width_;
  }
  void count_op()
  {
    if (++ops_ < kWindow)
      return;
    if (work_ > 8 * kWindow)
      rebuild(buckets_.size());
    ops_  = 0;
    work_ = 0;
  }
  void rebuild(std::size_t days)
  {
    ++rebuilds_;
    all_.clear();
    for (Bucket& b : buckets_) {
      all_.insert(all_.end(), b.v.begin() + static_cast<std::ptrdiff_t>(b.head), b.v.end());
      b.v.clear();
      b.head = 0;
    }
    std::sort(all_.begin(), all_.end(), [](const Entry& a, const Entry& b) { return a.before(b); });
    // Brown's width: three times the mean gap between the next dates, gaps above twice the mean left out.
    std::int64_t sum = 0, gaps = 0;
    const std::size_t n = std::min(all_.size(), kSample);
    for (std::size_t i = 1; i < n; ++i)
      if (all_[i].t > all_[i - 1].t) {
        sum += all_[i].t - all_[i - 1].t;
        ++gaps;
      }
    if (gaps > 0) {
      const std::int64_t mean = sum / gaps;
      std::int64_t kept = 0, count = 0;
      for (std::size_t i = 1; i < n; ++i)
        if (const std::int64_t g = all_[i].t - all_[i - 1].t; g > 0 && g <= 2 * mean) {
          kept += g;
          ++count;
        }
      width_ = std::max<std::int64_t>(1, count > 0 ? 3 * kept / count : 3 * mean);
    }
    buckets_.resize(days);
    for (const Entry& e : all_) // in order: every insert appends
      insert(e);
    const std::int64_t start = all_.empty() ? top_ - width_ : all_.front().t;
    cur_                     = day(start);
    top_                     = (start / width_ + 1) * width_;
    ops_                     = 0;
    work_                    = 0;
  }
  std::vector<Bucket> buckets_;
  std::vector<Entry> all_; ///< rebuild()'s scratch
  std::int64_t width_    = 1000; ///< a day, ps
  std::size_t cur_       = 0;
  std::int64_t top_      = 1000; ///< the end of the current day
  std::size_t size_      = 0;
  std::size_t ops_       = 0, work_ = 0, rebuilds_ = 0;
};

} // namespace nafsim
