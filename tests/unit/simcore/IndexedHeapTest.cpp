// The indexed heap under the max-min solver and the flow fabric's completion
// dates: against a sorted reference through random pushes, key changes
// (both ways), removals from anywhere, and many re-keys and appends ordered
// again at once.
#include "simcore/engine/Rng.hpp"
#include "simcore/net/IndexedHeap.hpp"

#include <algorithm>
#include <gtest/gtest.h>
#include <set>

using nafsim::net::IndexedHeap;

namespace {
struct KeyBefore {
  const std::vector<double>* key;
  bool operator()(std::uint32_t a, std::uint32_t b) const
  {
    return (*key)[a] < (*key)[b] || ((*key)[a] == (*key)[b] && a < b);
  }
};
} // namespace

TEST(IndexedHeap, PopsInKeyOrderThroughUpdatesAndRemovals)
{
  std::vector<double> key(200, 0);
  IndexedHeap<KeyBefore> h(KeyBefore{&key});
  std::set<std::pair<double, std::uint32_t>> ref; // (key, id): the same total order
  nafsim::Rng rng(7, 0);
  for (int step = 0; step < 20000; ++step) {
    auto id = static_cast<std::uint32_t>(rng.below(200));
    // Keys from a small set, so ties (broken on the id) are frequent.
    double k = static_cast<double>(rng.below(21));
    switch (rng.below(4)) {
      case 0: // push or re-key
        if (h.contains(id)) {
          ref.erase({key[id], id});
          key[id] = k;
          h.update(id);
        } else {
          key[id] = k;
          h.push(id);
        }
        ref.insert({key[id], id});
        break;
      case 1: // remove from anywhere
        if (h.contains(id)) {
          h.remove(id);
          ref.erase({key[id], id});
        }
        break;
      case 2: // pop the smallest
        if (!h.empty()) {
          ASSERT_EQ(h.top(), ref.begin()->second);
          EXPECT_EQ(h.pop(), ref.begin()->second);
          ref.erase(ref.begin());
        }
        break;
      default: // rebuild from a list in linear time, or re-key many ids and append new ones, then re-order
        if (step % 1000 == 503) {
          std::vector<std::pair<double, std::uint32_t>> old(ref.begin(), ref.end());
          for (auto const& [k2, i] : old)
            if (rng.below(2) == 0) { // most completion dates move at a solve
              ref.erase({k2, i});
              key[i] = static_cast<double>(rng.below(21));
              ref.insert({key[i], i});
            }
          for (std::uint32_t i = 0; i < 200; i += 3)
            if (!h.contains(i)) {
              key[i] = static_cast<double>(rng.below(21));
              h.append(i);
              ref.insert({key[i], i});
            }
          h.heapify();
        }
        if (step % 1000 == 3) {
          std::vector<std::uint32_t> ids;
          for (auto const& [k2, i] : ref)
            ids.push_back(i);
          std::reverse(ids.begin(), ids.end());
          h.assign(ids);
        }
        break;
    }
    ASSERT_EQ(h.size(), ref.size());
    for (std::uint32_t i = 0; i < 200; i += 37)
      ASSERT_EQ(h.contains(i), ref.count({key[i], i}) == 1);
  }
  while (!h.empty()) {
    EXPECT_EQ(h.pop(), ref.begin()->second);
    ref.erase(ref.begin());
  }
  EXPECT_TRUE(ref.empty());
}
