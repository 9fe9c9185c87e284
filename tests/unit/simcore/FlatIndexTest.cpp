// The open-addressing index of 64-bit keys: against a std::map through random sets, look-ups and erases (erases
// from the middle of probe runs shift later keys back), with keys laid out as its users make them.
#include "simcore/engine/FlatIndex.hpp"
#include "simcore/engine/KeyedSlots.hpp"
#include "simcore/engine/Rng.hpp"

#include <gtest/gtest.h>
#include <map>

using nafsim::FlatIndex;

TEST(FlatIndex, AgreesWithAMapThroughSetsFindsAndErases)
{
  FlatIndex t;
  std::map<std::uint64_t, std::uint32_t> ref;
  nafsim::Rng rng(5, 0);
  // Connections keyed from << 32 | to and message ids counted up: keys that differ in a few bits only, so that the
  // table grows and shrinks through runs of collisions.
  auto key = [&] {
    return rng.below(2) ? (rng.below(50) << 32 | rng.below(50)) : 1'000'000 + rng.below(3000);
  };
  for (int step = 0; step < 300000; ++step) {
    const std::uint64_t k = key();
    auto it               = ref.find(k);
    switch (rng.below(3)) {
      case 0: {
        const auto v = static_cast<std::uint32_t>(rng.below(1u << 30));
        t.set(k, v); // new or replaced
        ref[k] = v;
        break;
      }
      case 1:
        if (rng.below(2)) {
          ASSERT_EQ(t.find(k), it == ref.end() ? FlatIndex::kNone : it->second) << "step " << step;
        } else { // find_or_add: the value held, or the one given to a new key
          const auto v = static_cast<std::uint32_t>(rng.below(1u << 30));
          bool added   = false;
          ASSERT_EQ(t.find_or_add(k, v, added), it == ref.end() ? v : it->second) << "step " << step;
          ASSERT_EQ(added, it == ref.end()) << "step " << step;
          ref.emplace(k, v);
        }
        break;
      default:
        ASSERT_EQ(t.erase(k), it == ref.end() ? FlatIndex::kNone : it->second) << "step " << step;
        if (it != ref.end())
          ref.erase(it);
    }
    ASSERT_EQ(t.size(), ref.size());
    if (step % 1009 == 0) {
      for (auto [rk, rv] : ref)
        ASSERT_EQ(t.find(rk), rv) << "step " << step << " key " << rk;
    }
  }
  for (auto [rk, rv] : ref)
    ASSERT_EQ(t.erase(rk), rv);
  EXPECT_EQ(t.size(), 0u);
  EXPECT_EQ(t.find(7), FlatIndex::kNone);
}

TEST(FlatIndex, AnEmptyIndexFindsAndErasesNothing)
{
  FlatIndex t;
  EXPECT_EQ(t.find(0), FlatIndex::kNone);
  EXPECT_EQ(t.erase(0), FlatIndex::kNone);
  t.set(0, 3); // key 0 is a key like any other
  EXPECT_EQ(t.find(0), 3u);
  EXPECT_EQ(t.size(), 1u);
}

TEST(KeyedSlots, MakesAValueOnFirstUseAndFindsItAfter)
{
  nafsim::KeyedSlots<std::uint64_t> counts;
  std::map<std::uint64_t, std::uint64_t> ref;
  nafsim::Rng rng(9, 0);
  for (int step = 0; step < 100000; ++step) {
    const std::uint64_t k = rng.below(40) << 32 | rng.below(40);
    if (rng.below(2)) {
      ++counts[k];
      ++ref[k];
    } else {
      const std::uint64_t* n = counts.find(k);
      auto it                = ref.find(k);
      ASSERT_EQ(n == nullptr, it == ref.end()) << "step " << step; // a look-up makes nothing
      if (n) {
        ASSERT_EQ(*n, it->second) << "step " << step;
      }
    }
    ASSERT_EQ(counts.size(), ref.size());
  }
}
