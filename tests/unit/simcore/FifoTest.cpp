#include "simcore/engine/Fifo.hpp"
#include "simcore/engine/SlotPool.hpp"

#include <algorithm>
#include <deque>
#include <gtest/gtest.h>
#include <memory>
#include <string>

using nafsim::Fifo;

TEST(Fifo, BehavesAsADequeUsedAsAQueue)
{
  Fifo<std::string> f;
  std::deque<std::string> d;
  // Interleaved pushes and pops wrap the ring around and make it grow while wrapped.
  unsigned n = 0;
  for (int round = 0; round < 50; ++round) {
    for (int i = 0; i < round % 7 + 1; ++i) {
      f.push_back("s" + std::to_string(n));
      d.push_back("s" + std::to_string(n++));
    }
    for (int i = 0; i < round % 5 && !d.empty(); ++i) {
      ASSERT_EQ(f.front(), d.front());
      f.pop_front();
      d.pop_front();
    }
    ASSERT_EQ(f.size(), d.size());
    if (!d.empty()) {
      ASSERT_EQ(f.back(), d.back());
    }
    std::size_t i = 0;
    for (auto const& s : f)
      ASSERT_EQ(s, d[i++]);
  }
  Fifo<std::string> copy = f;
  Fifo<std::string> moved = std::move(f);
  EXPECT_TRUE(f.empty());
  ASSERT_EQ(copy.size(), d.size());
  for (std::size_t i = 0; i < d.size(); ++i) {
    EXPECT_EQ(copy[i], d[i]);
    EXPECT_EQ(moved[i], d[i]);
  }
}

TEST(Fifo, ErasesFromAnyPlaceAsADequeDoes)
{
  // Erasing at the front, the back and between, with the ring wrapped around (the RoCE engine's round robin takes a
  // queue pair out of its middle).
  Fifo<std::string> f;
  std::deque<std::string> d;
  unsigned n = 0;
  for (int round = 0; round < 60; ++round) {
    for (int i = 0; i < round % 4 + 2; ++i) {
      f.push_back("s" + std::to_string(n));
      d.push_back("s" + std::to_string(n++));
    }
    const std::size_t at = static_cast<std::size_t>(round * 7) % d.size();
    f.erase(at);
    d.erase(d.begin() + static_cast<std::ptrdiff_t>(at));
    if (round % 3 == 0) {
      f.pop_front();
      d.pop_front();
    }
    ASSERT_EQ(f.size(), d.size());
    ASSERT_TRUE(std::equal(f.begin(), f.end(), d.begin(), d.end()));
  }
}

TEST(Fifo, HoldsNoMemoryUntilUsedAndDestroysWhatItHolds)
{
  auto token = std::make_shared<int>(7);
  {
    Fifo<std::shared_ptr<int>> f;
    EXPECT_LE(sizeof(f), sizeof(void*) + 4 * sizeof(std::uint32_t)); // a pointer and three 32-bit counts: nothing allocated
    for (int i = 0; i < 9; ++i)
      f.push_back(token);
    EXPECT_EQ(token.use_count(), 10);
    f.pop_front();
    EXPECT_EQ(token.use_count(), 9);
  }
  EXPECT_EQ(token.use_count(), 1);
}

// SlotPool's put / take (a record passed through once, the NIC engines' late notices and the Rx parses): the value
// comes back whole, its number is taken again first, and acquire / release keep their reset.
TEST(SlotPool, PutAndTakeHandARecordThroughByNumber)
{
  nafsim::SlotPool<std::string> pool;
  const auto a = pool.put(std::string(40, 'a')); // (long enough to live on the heap: moved, not copied)
  const auto b = pool.put("b");
  EXPECT_NE(a, b);
  EXPECT_EQ(pool.take(a), std::string(40, 'a'));
  EXPECT_EQ(pool.put("c"), a); // the number released last comes back first
  EXPECT_EQ(pool[a], "c");
  EXPECT_EQ(pool[b], "b");
  pool.release(b);
  EXPECT_EQ(pool.acquire(), b);
  EXPECT_EQ(pool[b], ""); // released: reset
}
