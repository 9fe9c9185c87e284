// The flow fabric's lane table: against a std::map through random look-ups, makes and erases (erases from the
// middle of probe runs shift later keys back), with lanes' numbers and contents kept until erased.
#include "simcore/engine/Rng.hpp"
#include "simcore/net/LaneTable.hpp"

#include <gtest/gtest.h>
#include <map>

using nafsim::net::LaneTable;

TEST(LaneTable, FindsEveryKeyThroughMakesAndErasesAndKeepsLaneNumbers)
{
  LaneTable t;
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::uint32_t> ref; // key -> lane number
  nafsim::Rng rng(11, 0);
  // Few senders and flow identities laid out as the RoCE engines number them (host << 32 | queue pair): many keys
  // share low bits, and the table grows and shrinks through runs of collisions.
  auto key = [&] {
    const auto src = static_cast<std::uint32_t>(rng.below(40));
    return std::pair{src, (std::uint64_t{src} << 32) | rng.below(60)};
  };
  for (int step = 0; step < 200000; ++step) {
    auto [src, flow] = key();
    auto it          = ref.find({src, flow});
    if (rng.below(3) != 0) {
      const std::uint32_t id = t.get(src, flow);
      if (it != ref.end())
        ASSERT_EQ(id, it->second) << "step " << step;
      else {
        ASSERT_TRUE(t[id].waiting.empty()) << "a new lane starts idle";
        ASSERT_EQ(t[id].deliveries, 0u);
        t[id].deliveries = static_cast<std::uint32_t>(flow + src); // its contents, checked until it is erased
        ref[{src, flow}] = id;
      }
    } else if (it != ref.end()) {
      ASSERT_EQ(t[it->second].deliveries, static_cast<std::uint32_t>(flow + src));
      t.erase(it->second);
      ref.erase(it);
    }
    if (step % 997 == 0) { // every key still found, at its number, with its contents
      for (auto const& [k, id] : ref) {
        ASSERT_EQ(t.find(k.first, k.second), id);
        ASSERT_EQ(t[id].deliveries, static_cast<std::uint32_t>(k.second + k.first));
      }
      ASSERT_EQ(t.size(), ref.size());
    }
  }
  for (std::uint32_t src = 0; src < 40; ++src)
    for (std::uint64_t qp = 0; qp < 60; ++qp) {
      const std::uint64_t flow = (std::uint64_t{src} << 32) | qp;
      auto it                  = ref.find({src, flow});
      EXPECT_EQ(t.find(src, flow), it == ref.end() ? LaneTable::kNone : it->second);
    }
}

TEST(LaneTable, ErasingEveryLaneEmptiesItAndReusesNumbers)
{
  LaneTable t;
  std::vector<std::uint32_t> ids;
  for (std::uint32_t i = 0; i < 5000; ++i)
    ids.push_back(t.get(i % 7, i));
  EXPECT_EQ(t.size(), 5000u);
  for (auto id : ids)
    t.erase(id);
  EXPECT_EQ(t.size(), 0u);
  for (std::uint32_t i = 0; i < 5000; ++i)
    EXPECT_EQ(t.find(i % 7, i), LaneTable::kNone);
  const std::uint32_t again = t.get(3, 3);
  EXPECT_LT(again, 5000u) << "an erased lane's number is used again";
}
