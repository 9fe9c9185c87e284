// Portals 4 matching, counting events, triggered operations, memory descriptors and the buddy allocator
// (protocols/portals), engine-free.
#include "protocols/portals/Events.hpp"
#include "protocols/portals/Matching.hpp"
#include "protocols/portals/Window.hpp"

#include <gtest/gtest.h>
#include <random>

using namespace nafsim::portals;

namespace {

MatchEntry receive(ProcessId src, MatchBits bits, std::uint64_t user, MatchBits ignore = 0)
{
  MatchEntry me;
  me.source      = src;
  me.match_bits  = bits;
  me.ignore_bits = ignore;
  me.start       = 0x10000 * (user + 1);
  me.length      = 4096;
  me.user        = user;
  return me;
}

MatchEntry overflow(std::uint64_t user, std::uint64_t bytes = 8192, ProcessId src = kAnySource)
{
  MatchEntry me;
  me.source       = src;
  me.ignore_bits  = ~MatchBits{0}; // matches every message
  me.start        = 0x100000 + 0x10000 * user;
  me.length       = bytes;
  me.use_once     = false;
  me.manage_local = true;
  me.user         = user;
  return me;
}

Header message(ProcessId src, MatchBits bits, std::uint64_t bytes = 100)
{
  Header h;
  h.source     = src;
  h.match_bits = bits;
  h.length     = bytes;
  h.carried    = bytes;
  return h;
}

} // namespace

TEST(PortalsMatching, FirstPostedReceiveInListOrderWinsAndIsUsedOnce)
{
  MatchingUnit mu;
  ASSERT_TRUE(mu.append_priority(receive(3, 7, 1)).appended);
  ASSERT_TRUE(mu.append_priority(receive(kAnySource, 7, 2)).appended);
  auto a = mu.arrive(message(3, 7));
  EXPECT_EQ(a.kind, Arrival::Kind::Expected);
  EXPECT_EQ(a.user, 1u);
  EXPECT_TRUE(a.unlinked);
  EXPECT_EQ(a.visited, 1u);
  EXPECT_EQ(a.addr, 0x20000u);
  EXPECT_EQ(a.bytes, 100u);
  a = mu.arrive(message(3, 7)); // the first is used up: the wildcard takes the next
  EXPECT_EQ(a.user, 2u);
  EXPECT_EQ(mu.size(List::Priority), 0u);
}

TEST(PortalsMatching, IgnoreBitsAndSources)
{
  MatchingUnit mu;
  mu.append_overflow(overflow(9));
  mu.append_priority(receive(kAnySource, 0xAB00, 1, 0x00FF));
  mu.append_priority(receive(5, 0x1, 2));
  EXPECT_EQ(mu.arrive(message(4, 0xAC12)).kind, Arrival::Kind::Unexpected); // a bit outside the ignore mask
  EXPECT_EQ(mu.arrive(message(4, 0x1)).kind, Arrival::Kind::Unexpected);    // receive 2 wants source 5
  auto a = mu.arrive(message(4, 0xAB12));
  EXPECT_EQ(a.kind, Arrival::Kind::Expected);
  EXPECT_EQ(a.user, 1u);
  EXPECT_EQ(a.visited, 1u); // receive 1 is first on the list: the walk stops there
  a = mu.arrive(message(5, 0x1));
  EXPECT_EQ(a.user, 2u);
}

TEST(PortalsMatching, UnexpectedPayloadsFillOverflowBuffersThenAreDropped)
{
  MatchingUnit mu;
  mu.append_overflow(overflow(1, 250));
  mu.append_overflow(overflow(2, 250));
  auto a = mu.arrive(message(0, 1, 100));
  EXPECT_EQ(a.kind, Arrival::Kind::Unexpected);
  EXPECT_EQ(a.user, 1u);
  EXPECT_EQ(a.addr, 0x110000u);
  a = mu.arrive(message(0, 2, 100)); // lands after the first (local offset)
  EXPECT_EQ(a.addr, 0x110000u + 100);
  a = mu.arrive(message(0, 3, 100)); // 200 + 100 > 250: the next buffer
  EXPECT_EQ(a.user, 2u);
  EXPECT_EQ(a.addr, 0x120000u);
  a = mu.arrive(message(0, 4, 200)); // neither has 200 left
  EXPECT_EQ(a.kind, Arrival::Kind::Dropped);
  EXPECT_FALSE(a.why.empty());
  EXPECT_EQ(mu.size(List::Unexpected), 3u);
}

TEST(PortalsMatching, AnUnexpectedHeaderWithoutPayloadWalksNoOverflowList)
{
  // PAC 5.5: "in the case of unexpected messages without payloads only the UM list is traversed so as to save the
  // header"; the OF list is walked (and a buffer taken) only for a payload.
  MatchingUnit mu;
  for (std::uint64_t i = 0; i < 10; ++i)
    mu.append_overflow(overflow(i, 64, static_cast<ProcessId>(100 + i))); // the first nine match nothing from 0
  auto header = message(0, 5, 4096);
  header.carried = 0;
  auto a = mu.arrive(header);
  EXPECT_EQ(a.kind, Arrival::Kind::Unexpected);
  EXPECT_EQ(a.visited, 0u);
  EXPECT_EQ(a.bytes, 0u);
  EXPECT_EQ(mu.size(List::Unexpected), 1u);
  auto ap = mu.append_priority(receive(0, 5, 1));
  EXPECT_TRUE(ap.found_unexpected);
  EXPECT_EQ(ap.header.length, 4096u);
  auto p = mu.arrive(message(0, 6, 32)); // with a payload: the overflow list is searched
  EXPECT_EQ(p.kind, Arrival::Kind::Dropped) << "no overflow entry takes node 0's payload";
  EXPECT_EQ(p.visited, 10u);
}

TEST(PortalsMatching, UnexpectedThenAppendFindsTheOldestMatchingHeader)
{
  MatchingUnit mu;
  mu.append_overflow(overflow(9));
  mu.arrive(message(2, 10, 64));
  mu.arrive(message(1, 10, 32));
  mu.arrive(message(1, 11, 16));
  auto ap = mu.append_priority(receive(1, 10, 1)); // from 1 with bits 10: the second message
  EXPECT_TRUE(ap.found_unexpected);
  EXPECT_FALSE(ap.appended); // consumed at once
  EXPECT_EQ(ap.header.source, 1);
  EXPECT_EQ(ap.header.length, 32u);
  EXPECT_EQ(ap.stored_at, 0x100000u + 0x10000 * 9 + 64);
  EXPECT_EQ(ap.visited, 2u);
  EXPECT_EQ(mu.size(List::Unexpected), 2u);
  ap = mu.append_priority(receive(kAnySource, 10, 2)); // any source: the first message
  EXPECT_TRUE(ap.found_unexpected);
  EXPECT_EQ(ap.header.source, 2);
  ap = mu.append_priority(receive(1, 12, 3)); // nothing came for it: posted
  EXPECT_FALSE(ap.found_unexpected);
  EXPECT_TRUE(ap.appended);
  EXPECT_EQ(mu.size(List::Priority), 1u);
}

TEST(PortalsMatching, SearchesCountEveryEntryVisited)
{
  MatchingUnit mu;
  for (std::uint64_t i = 0; i < 100; ++i)
    mu.append_priority(receive(1, 1000 + i, i));
  auto a = mu.arrive(message(1, 1000 + 57));
  EXPECT_EQ(a.visited, 58u);
  EXPECT_EQ(mu.visited_total(), 58u);
}

TEST(PortalsMatching, ThePoolHoldsAllThreeLists)
{
  MatchingConfig cfg;
  cfg.entries = 4;
  MatchingUnit mu(cfg);
  mu.append_overflow(overflow(9));
  mu.append_priority(receive(1, 1, 1));
  mu.arrive(message(2, 5)); // unexpected: a UM entry
  EXPECT_EQ(mu.free_entries(), 1u);
  EXPECT_TRUE(mu.append_priority(receive(1, 2, 2)).appended);
  auto ap = mu.append_priority(receive(1, 3, 3));
  EXPECT_FALSE(ap.appended);
  EXPECT_NE(ap.why.find("pool is full"), std::string::npos);
  auto a = mu.arrive(message(2, 6)); // no room for its header
  EXPECT_EQ(a.kind, Arrival::Kind::Dropped);
}

TEST(PortalsMatching, HashingFindsWhatTheLinearSearchFindsVisitingFewer)
{
  // The same random mix of receives (some from any source, some with ignore bits) and messages from 64
  // sources, with and without hashing on the source: every result identical, far fewer entries visited.
  MatchingConfig lin, hash;
  lin.entries = hash.entries = 100000;
  hash.hashing               = true;
  hash.buckets               = 16;
  MatchingUnit a(lin), b(hash);
  for (auto* mu : {&a, &b})
    for (std::uint64_t s = 0; s < 64; ++s)
      mu->append_overflow(overflow(1000 + s, 1 << 20, static_cast<ProcessId>(s)));
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    const auto src   = static_cast<ProcessId>(rng() % 64);
    const MatchBits m = rng() % 32;
    if (rng() % 2) {
      MatchEntry me = receive(rng() % 10 == 0 ? kAnySource : src, m, static_cast<std::uint64_t>(i),
                              rng() % 8 == 0 ? 0x3 : 0);
      auto x = a.append_priority(me), y = b.append_priority(me);
      ASSERT_EQ(x.found_unexpected, y.found_unexpected) << i;
      ASSERT_EQ(x.header.msg, y.header.msg) << i;
      ASSERT_EQ(x.stored_at, y.stored_at) << i;
      ASSERT_EQ(x.appended, y.appended) << i;
    } else {
      Header h = message(src, m, 16);
      h.msg    = static_cast<std::uint64_t>(i);
      auto x = a.arrive(h), y = b.arrive(h);
      ASSERT_EQ(x.kind, y.kind) << i;
      ASSERT_EQ(x.user, y.user) << i;
      ASSERT_EQ(x.addr, y.addr) << i;
    }
  }
  EXPECT_EQ(a.size(List::Priority), b.size(List::Priority));
  EXPECT_EQ(a.size(List::Unexpected), b.size(List::Unexpected));
  EXPECT_LT(b.visited_total() * 4, a.visited_total());
}

TEST(PortalsEvents, TriggeredOperationsFireAtTheirThresholdInOrder)
{
  CountingEvents ct;
  auto c = ct.alloc(), d = ct.alloc();
  ASSERT_TRUE(c && d);
  EXPECT_TRUE(ct.trigger({TriggeredOp::Kind::Get, *c, 2, 10}).empty());
  EXPECT_TRUE(ct.trigger({TriggeredOp::Kind::Put, *c, 2, 11}).empty());
  EXPECT_TRUE(ct.trigger({TriggeredOp::Kind::CtInc, *c, 3, 12, *d, 5}).empty());
  EXPECT_TRUE(ct.trigger({TriggeredOp::Kind::Put, *d, 5, 13}).empty());
  EXPECT_TRUE(ct.inc(*c).empty());
  EXPECT_TRUE(ct.inc(*c, 1, true).empty()); // failures do not count towards thresholds
  auto fired = ct.inc(*c);
  ASSERT_EQ(fired.size(), 2u);
  EXPECT_EQ(fired[0].user, 10u); // registration order
  EXPECT_EQ(fired[1].user, 11u);
  fired = ct.inc(*c); // 3: the CtInc fires, which brings d to 5 and fires its Put
  ASSERT_EQ(fired.size(), 2u);
  EXPECT_EQ(fired[0].user, 12u);
  EXPECT_EQ(fired[1].user, 13u);
  EXPECT_EQ(ct.success(*d), 5u);
  EXPECT_EQ(ct.failure(*c), 1u);
  EXPECT_EQ(ct.pending(), 0u);
  // A threshold already reached fires on registration.
  fired = ct.trigger({TriggeredOp::Kind::Get, *c, 1, 14});
  ASSERT_EQ(fired.size(), 1u);
  // The table holds 512 events (PAC).
  CountingEvents full;
  for (int i = 0; i < 512; ++i)
    ASSERT_TRUE(full.alloc());
  EXPECT_FALSE(full.alloc());
}

TEST(PortalsEvents, MemoryDescriptorTable)
{
  MdTable t(2);
  auto a = t.bind({0x1000, 64, -1});
  auto b = t.bind({0x2000, 64, 3});
  EXPECT_TRUE(a && b);
  EXPECT_FALSE(t.bind({0x3000, 64, -1}));
  EXPECT_EQ(t.at(*b).ct, 3);
  t.release(*a);
  EXPECT_TRUE(t.bind({0x3000, 64, -1}));
  EXPECT_THROW(t.at(7), std::invalid_argument);
}

TEST(PortalsEvents, BuddyAllocatorSplitsAndMerges)
{
  BuddyAllocator b(1 << 20, 256); // PAC's 1 MiB unexpected store
  auto x = b.allocate(3000);      // a 4 KiB block
  auto y = b.allocate(100);       // 256 B
  auto z = b.allocate(8192);
  ASSERT_TRUE(x && y && z);
  EXPECT_EQ(*x, 0u);
  EXPECT_EQ(*y % 256, 0u);
  EXPECT_NE(*y, *x);
  EXPECT_EQ(b.free_bytes(), (1u << 20) - 4096 - 256 - 8192);
  EXPECT_FALSE(b.allocate((1 << 20) + 1));
  for (auto o : {*x, *y, *z})
    b.free(o);
  EXPECT_EQ(b.free_bytes(), 1u << 20);
  EXPECT_EQ(b.largest_free(), 1u << 20); // every buddy merged back
  EXPECT_GT(b.operations(), 0u);
  EXPECT_THROW(b.free(12345), std::invalid_argument);
}

TEST(PortalsRendezvous, TriggeredGetFetchesTheRestForExpectedAndUnexpectedMessages)
{
  // The triggered rendezvous (PAC 3.3.1, Fig. 8): the initiator puts the first eager_limit bytes with the
  // header; the target's receive has a counting event and a triggered Get for the rest hanging on it.
  const std::uint64_t eager_limit = 4096, total = 65536;
  for (bool expected : {true, false}) {
    MatchingUnit mu;
    CountingEvents ct;
    mu.append_overflow(overflow(9, 1 << 20));
    auto c = ct.alloc();
    MatchEntry me = receive(1, 42, 1);
    me.length     = total;
    me.ct         = *c;
    Header h      = message(1, 42, total);
    h.carried     = eager_limit;
    std::vector<TriggeredOp> fired;
    auto deliver = [&](std::uint64_t bytes) {
      (void)bytes;
      auto f = ct.inc(*c);
      fired.insert(fired.end(), f.begin(), f.end());
    };
    if (expected) {
      mu.append_priority(me);
      auto f = ct.trigger({TriggeredOp::Kind::Get, *c, 1, total - eager_limit});
      EXPECT_TRUE(f.empty());
      auto a = mu.arrive(h);
      ASSERT_EQ(a.kind, Arrival::Kind::Expected);
      EXPECT_EQ(a.bytes, eager_limit);
      deliver(a.bytes); // the first part landed in the receive's buffer: the Get goes without the host
    } else {
      auto a = mu.arrive(h);
      ASSERT_EQ(a.kind, Arrival::Kind::Unexpected);
      EXPECT_EQ(a.bytes, eager_limit); // the first part waits in the overflow buffer
      auto ap = mu.append_priority(me);
      ASSERT_TRUE(ap.found_unexpected);
      EXPECT_EQ(ap.header.length, total);
      auto f = ct.trigger({TriggeredOp::Kind::Get, *c, 1, ap.header.length - ap.header.carried});
      EXPECT_TRUE(f.empty());
      deliver(ap.header.carried); // the first part copied from the overflow buffer
    }
    ASSERT_EQ(fired.size(), 1u) << expected;
    EXPECT_EQ(fired[0].kind, TriggeredOp::Kind::Get);
    EXPECT_EQ(fired[0].user, total - eager_limit);
  }
}

TEST(PortalsWindows, OneSidedMessagesLandInTheWindowAndAreNeverUnexpected)
{
  // PtlWinCreate over nodes 0, 2, 3 of 4: unique bits per member; node 2's persistent window entry takes
  // puts from any member at their offsets, before and after two-sided traffic, without touching UM or OF.
  Window w = win_create(5, {0, 2, 3}, 4);
  EXPECT_TRUE(w.member(2));
  EXPECT_FALSE(w.member(1));
  EXPECT_NE(w.match_bits[0], w.match_bits[2]);
  EXPECT_EQ(w.match_bits[1], 0u);
  for (bool hashing : {false, true}) {
    MatchingConfig cfg;
    cfg.hashing = hashing;
    MatchingUnit mu(cfg);
    mu.append_overflow(overflow(9));
    ASSERT_TRUE(mu.append_priority(window_entry(w, 2, 0x40000, 1 << 16, 77)).appended);
    for (ProcessId s : {0, 3, 0}) {
      auto a = mu.arrive(window_put(w, s, 2, 4096 * static_cast<std::uint64_t>(s), 1024));
      ASSERT_EQ(a.kind, Arrival::Kind::Expected);
      EXPECT_EQ(a.user, 77u);
      EXPECT_EQ(a.addr, 0x40000u + 4096 * static_cast<std::uint64_t>(s));
      EXPECT_FALSE(a.unlinked); // persistent
    }
    EXPECT_EQ(mu.size(List::Unexpected), 0u);
    // Two-sided receives posted before it do not hide it, and a tag never matches its bits.
    mu.append_priority(receive(0, 1, 1));
    EXPECT_EQ(mu.arrive(message(0, 1)).kind, Arrival::Kind::Expected);
    EXPECT_EQ(mu.arrive(window_put(w, 3, 2, 0, 8)).kind, Arrival::Kind::Expected);
  }
  EXPECT_THROW(window_put(w, 1, 2, 0, 8), std::invalid_argument);
  EXPECT_THROW(window_entry(w, 1, 0, 8), std::invalid_argument);
}

TEST(PortalsWindows, HashingCannotNarrowTheWindowSearch)
{
  // The window entry accepts any source: with hashing it sits with the wildcards, walked by every search,
  // so a put to it visits as many entries as without hashing when the lists hold only such entries.
  Window w = win_create(1, {0, 1, 2, 3}, 4);
  std::uint64_t visits[2] = {0, 0};
  for (int h = 0; h < 2; ++h) {
    MatchingConfig cfg;
    cfg.hashing = h == 1;
    MatchingUnit mu(cfg);
    for (std::uint32_t k = 0; k < 8; ++k) // eight windows' entries at node 0, the one used last
      mu.append_priority(window_entry(win_create(10 + k, {0, 1}, 4), 0, 0, 4096, k));
    mu.append_priority(window_entry(w, 0, 0x9000, 4096, 99));
    auto a = mu.arrive(window_put(w, 1, 0, 0, 64));
    ASSERT_EQ(a.user, 99u);
    visits[h] = a.visited;
  }
  EXPECT_EQ(visits[0], 9u);
  EXPECT_EQ(visits[1], visits[0]);
}

TEST(PortalsGlobalArrays, CreateDividesIntoEqualBlocks)
{
  // PAC paper Fig. 9(b): 11 elements over 4 nodes: 3, 3, 3 and the remaining 2.
  auto d = ga_distribution(11, 4);
  ASSERT_EQ(d.size(), 4u);
  EXPECT_EQ(d[0], (std::pair<std::uint64_t, std::uint64_t>{0, 3}));
  EXPECT_EQ(d[2], (std::pair<std::uint64_t, std::uint64_t>{6, 3}));
  EXPECT_EQ(d[3], (std::pair<std::uint64_t, std::uint64_t>{9, 2}));
  EXPECT_EQ(ga_locate(10, 11, 4), (std::pair<unsigned, std::uint64_t>{3, 1}));
  EXPECT_EQ(ga_locate(4, 11, 4), (std::pair<unsigned, std::uint64_t>{1, 1}));
  EXPECT_THROW(ga_locate(11, 11, 4), std::invalid_argument);
}
