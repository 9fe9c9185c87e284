// The kernel's event queues (simcore/engine/RadixQueue.hpp, CalendarQueue.hpp): driven as the kernel drives them
// (monotone dates, keys in push order, a look at the next date before pushes at the present), both give entries in
// (date, key) order, the reference's, through bursts of equal dates, spreads from picoseconds to seconds, and sizes
// that grow and shrink the calendar's year.
#include "simcore/engine/CalendarQueue.hpp"
#include "simcore/engine/RadixQueue.hpp"
#include "simcore/engine/Rng.hpp"

#include <gtest/gtest.h>
#include <set>
#include <utility>
#include <vector>

using nafsim::CalendarQueue;
using nafsim::QueueEntry;
using nafsim::RadixQueue;

namespace {

/// Pops and pushes at random from a monotone clock; returns the entries in the order the queue gave them, after
/// checking each against a sorted reference.
template <class Queue>
std::vector<std::pair<std::int64_t, std::uint64_t>> drive(std::uint64_t seed, int steps, std::uint64_t far = 1'000'000'000'000)
{
  Queue q;
  std::set<std::pair<std::int64_t, std::uint64_t>> ref;
  std::vector<std::pair<std::int64_t, std::uint64_t>> out;
  nafsim::Rng rng(seed, 0);
  std::int64_t now = 0;
  std::uint64_t key = 1;
  auto push = [&](std::int64_t t) {
    q.push(QueueEntry{t, key});
    ref.emplace(t, key);
    ++key;
  };
  for (int step = 0; step < steps; ++step) {
    // Phases: a growing queue, a steady one, a draining one, with gaps of many scales.
    const int phase   = (step / 5000) % 3;
    const double grow = phase == 0 ? 0.7 : phase == 1 ? 0.5 : 0.3;
    if (ref.empty() || rng.chance(grow)) {
      const int burst = rng.chance(0.05) ? 1 + static_cast<int>(rng.below(40)) : 1; // equal dates
      std::int64_t gap;
      switch (rng.below(5)) {
      case 0: gap = 0; break;
      case 1: gap = static_cast<std::int64_t>(rng.below(100)); break;
      case 2: gap = static_cast<std::int64_t>(rng.below(100'000)); break;
      case 3: gap = static_cast<std::int64_t>(rng.below(10'000'000)); break;
      default: gap = static_cast<std::int64_t>(rng.below(far)); break; // up to a second (by default)
      }
      for (int i = 0; i < burst; ++i)
        push(now + gap);
    } else {
      if (rng.chance(0.3)) { // the kernel looks at the next date, then actors push at the present
        EXPECT_EQ(q.next_time(), ref.begin()->first);
        push(now);
      }
      const QueueEntry e = q.pop();
      EXPECT_EQ(std::make_pair(e.t, e.key), *ref.begin()) << "step " << step;
      ref.erase(ref.begin());
      EXPECT_GE(e.t, now);
      now = e.t;
      out.emplace_back(e.t, e.key);
    }
    EXPECT_EQ(q.size(), ref.size());
  }
  while (!ref.empty()) {
    const QueueEntry e = q.pop();
    EXPECT_EQ(std::make_pair(e.t, e.key), *ref.begin());
    ref.erase(ref.begin());
    out.emplace_back(e.t, e.key);
  }
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.next_time(), INT64_MAX);
  return out;
}

} // namespace

TEST(EventQueue, RadixHeapGivesDateThenKeyOrder) { drive<RadixQueue>(11, 30000); }

TEST(EventQueue, RadixHeapGivesDateThenKeyOrderWithDatesFarAhead)
{
  // Gaps up to 100 s (the RoCE engine's timers at flow fidelity lie 1e5 s ahead): entries in high buckets, moved
  // down bucket by bucket as the clock nears them.
  drive<RadixQueue>(12, 30000, 100'000'000'000'000);
}

TEST(EventQueue, CalendarQueueGivesTheRadixHeapsOrder)
{
  for (std::uint64_t seed : {1, 2, 3})
    EXPECT_EQ(drive<CalendarQueue>(seed, 30000), drive<RadixQueue>(seed, 30000));
}

TEST(EventQueue, CalendarQueueFindsAnEntryPushedBehindTheDayItLookedAhead)
{
  // next_time() walks the calendar to a far entry; an entry pushed at the present (behind that day) must come first.
  CalendarQueue q;
  q.push(QueueEntry{5'000'000, 1});
  EXPECT_EQ(q.next_time(), 5'000'000);
  q.push(QueueEntry{0, 2});
  EXPECT_EQ(q.pop().key, 2u);
  EXPECT_EQ(q.pop().key, 1u);
}

TEST(EventQueue, CalendarQueueGrowsAndShrinksItsYear)
{
  CalendarQueue q;
  for (std::uint64_t k = 1; k <= 10000; ++k)
    q.push(QueueEntry{static_cast<std::int64_t>(k * 37 % 1000) * 1000, k});
  const std::size_t grown = q.rebuilds();
  EXPECT_GE(grown, 9u); // 16 days doubled to 16,384 and more
  std::int64_t last = 0;
  while (!q.empty()) {
    const QueueEntry e = q.pop();
    EXPECT_GE(e.t, last);
    last = e.t;
  }
  EXPECT_GT(q.rebuilds(), grown); // halved again while draining
}

// An event's place reserved before the event (Scheduler::reserve_place): a key older than the newest, pushed later
// at a date not before the present, still comes out in (date, key) order, in the current date's bucket too.
TEST(EventQueue, AReservedKeyPushedLateTakesItsPlace)
{
  for (std::uint64_t seed : {4, 5, 6}) {
    RadixQueue q;
    CalendarQueue c;
    std::set<std::pair<std::int64_t, std::uint64_t>> ref;
    std::vector<QueueEntry> reserved;
    nafsim::Rng rng(seed, 1);
    std::int64_t now  = 0;
    std::uint64_t key = 1;
    for (int step = 0; step < 20000; ++step) {
      const auto r = rng.below(10);
      if (r < 4 || ref.empty()) {
        const std::int64_t t = now + (rng.chance(0.3) ? 0 : static_cast<std::int64_t>(rng.below(1000)));
        if (rng.chance(0.2)) {
          reserved.push_back(QueueEntry{t, key++}); // its place now, the entry later (or never)
        } else {
          q.push(QueueEntry{t, key});
          c.push(QueueEntry{t, key});
          ref.emplace(t, key++);
        }
      } else if (r < 6 && !reserved.empty()) {
        const std::size_t i = rng.below(reserved.size());
        const QueueEntry e  = reserved[i];
        reserved.erase(reserved.begin() + static_cast<std::ptrdiff_t>(i));
        if (e.t >= now && rng.chance(0.7)) {
          q.push(e);
          c.push(e);
          ref.emplace(e.t, e.key);
        }
      } else {
        const QueueEntry e = q.pop(), f = c.pop();
        ASSERT_EQ(std::make_pair(e.t, e.key), *ref.begin()) << "step " << step;
        ASSERT_EQ(std::make_pair(f.t, f.key), *ref.begin()) << "step " << step;
        ref.erase(ref.begin());
        now = e.t;
      }
    }
  }
}
