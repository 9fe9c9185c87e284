// Coyote's MMU (nodes/memory/CoyoteMmu): the TLB state machines' cycles, the mutex the two directions share,
// page fragments, the in-flight limit per destination and page faults, engine-free (a fake issue function or
// a MemorySystem, no simulation).
#include "nodes/memory/CoyoteMmu.hpp"
#include "nodes/memory/MemorySystem.hpp"
#include "simcore/engine/Scheduler.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

using namespace nafsim;
using nafsim::nodes::CoyoteMmu;

namespace {

constexpr Hertz kClock{250e6};
const SimTime kCycle = SimTime::ns(4);

nodes::MmuConfig enabled()
{
  nodes::MmuConfig c;
  c.enabled = true;
  return c;
}

/// An issue function recording when each fragment was sent; its data takes `latency` plus 1 ns per byte.
struct Recorder {
  SimTime latency = SimTime::ns(100);
  std::vector<std::pair<SimTime, std::uint64_t>> sent; ///< (start, bytes)
  nodes::Stream operator()(SimTime start, std::uint64_t, Bytes b)
  {
    sent.emplace_back(start, b.count);
    const SimTime first = start + latency;
    return nodes::Stream{first, first + SimTime::ns(static_cast<std::int64_t>(b.count)), BitsPerSecond{8e9}};
  }
};

} // namespace

TEST(CoyoteMmu, ARequestIsSentSevenCyclesAfterItArrivesAndFreesTheMachineAfterEight)
{
  CoyoteMmu mmu(enabled(), kClock);
  Recorder r;
  auto s = mmu.request(CoyoteMmu::Dir::Read, 1, SimTime::zero(), 0, Bytes{4096}, r);
  ASSERT_EQ(r.sent.size(), 1u);
  EXPECT_EQ(r.sent[0].first, kCycle * 7); // IDLE, MUTEX, WAIT_1, WAIT_2, CHECK, HIT, CALC
  EXPECT_EQ(s.first, kCycle * 7 + SimTime::ns(100));
  // The next request on the same machine is taken after SEND: its own SEND comes 8 cycles later.
  mmu.request(CoyoteMmu::Dir::Read, 1, SimTime::zero(), 4096, Bytes{4096}, r);
  EXPECT_EQ(r.sent[1].first, kCycle * 15);
  EXPECT_EQ(mmu.counters().requests, 2u);
}

TEST(CoyoteMmu, ReadsAndWritesShareTheTlbMutex)
{
  CoyoteMmu mmu(enabled(), kClock);
  Recorder r;
  mmu.request(CoyoteMmu::Dir::Read, 1, SimTime::zero(), 0, Bytes{64}, r);
  mmu.request(CoyoteMmu::Dir::Write, 1, SimTime::zero(), 1 << 22, Bytes{64}, r);
  // The write machine reaches MUTEX at cycle 1, as the read machine does, and waits its 4 locked cycles.
  EXPECT_EQ(r.sent[1].first, kCycle * 11);
  EXPECT_EQ(mmu.counters().lock_wait, kCycle * 4);
}

TEST(CoyoteMmu, ARequestBookedForLaterDoesNotHoldUpOneAskedForNow)
{
  // A data mover books its result write for when its operands will have been read; a packet arriving now writes
  // now. The machines and the mutex serve them in time order, not in the order they were asked.
  CoyoteMmu mmu(enabled(), kClock);
  Recorder r;
  mmu.request(CoyoteMmu::Dir::Write, 1, SimTime::us(10), 0, Bytes{64}, r);
  mmu.request(CoyoteMmu::Dir::Write, 3, SimTime::zero(), 4096, Bytes{64}, r);
  EXPECT_EQ(r.sent[1].first, kCycle * 7);
  // One that would overlap the booked one goes after it.
  mmu.request(CoyoteMmu::Dir::Write, 3, SimTime::us(10) + kCycle * 2, 8192, Bytes{64}, r);
  EXPECT_EQ(r.sent[2].first, SimTime::us(10) + kCycle * 15);
  EXPECT_EQ(mmu.counters().machine_wait, kCycle * 6);
}

TEST(CoyoteMmu, ARequestAcrossAPageBoundaryIsSentAsTwoFragments)
{
  CoyoteMmu mmu(enabled(), kClock);
  Recorder r;
  const std::uint64_t page = 2 << 20;
  mmu.request(CoyoteMmu::Dir::Read, 1, SimTime::zero(), page - 1024, Bytes{4096}, r);
  ASSERT_EQ(r.sent.size(), 2u);
  EXPECT_EQ(r.sent[0].second, 1024u); // CALC: the rest of the page
  EXPECT_EQ(r.sent[1].second, 3072u);
  EXPECT_EQ(r.sent[1].first - r.sent[0].first, kCycle * 7); // SEND, then MUTEX .. CALC again
  EXPECT_EQ(mmu.counters().fragments, 2u);
}

TEST(CoyoteMmu, SendWaitsForAFreeInFlightSlotOfItsDestination)
{
  CoyoteMmu mmu(enabled(), kClock);
  Recorder r;
  r.latency = SimTime::us(10); // far longer than 16 requests take to issue
  for (int i = 0; i < 17; ++i)
    mmu.request(CoyoteMmu::Dir::Read, 2, SimTime::zero(), static_cast<std::uint64_t>(i) * 64, Bytes{64}, r);
  ASSERT_EQ(r.sent.size(), 17u);
  // The 17th waits until the first completes (its data done at 7 cycles + 10 us + 64 ns).
  EXPECT_EQ(r.sent[16].first, kCycle * 7 + SimTime::us(10) + SimTime::ns(64));
  EXPECT_GT(mmu.counters().slot_wait, SimTime::zero());
  // Another destination is not held up by that ring.
  mmu.request(CoyoteMmu::Dir::Read, CoyoteMmu::kHostLane, SimTime::zero(), 1ULL << 40, Bytes{64}, r);
  EXPECT_LT(r.sent[17].first, r.sent[16].first + kCycle * 9);
}

TEST(CoyoteMmu, AnEvictedPageFaultsAndCostsTheDriversAnswer)
{
  auto c       = enabled();
  c.tlb_sets   = 1;
  c.tlb_ways   = 2;
  c.page_fault = SimTime::us(20);
  CoyoteMmu mmu(c, kClock);
  Recorder r;
  const std::uint64_t page = 2 << 20;
  SimTime t;
  for (std::uint64_t p : {0u, 1u, 2u}) { // first uses: mapped when the buffers were made, no fault
    mmu.request(CoyoteMmu::Dir::Read, 1, t, p * page, Bytes{64}, r);
    t += SimTime::us(1);
  }
  EXPECT_EQ(mmu.counters().page_faults, 0u);
  const SimTime asked = SimTime::us(5);
  mmu.request(CoyoteMmu::Dir::Read, 1, asked, 0, Bytes{64}, r); // page 0 was evicted by page 2
  EXPECT_EQ(mmu.counters().page_faults, 1u);
  // IDLE, the lookup (4), the fault, the lookup again (4), HIT, CALC.
  EXPECT_EQ(r.sent.back().first, asked + kCycle * 11 + SimTime::us(20));
  mmu.request(CoyoteMmu::Dir::Read, 1, SimTime::us(50), 2 * page, Bytes{64}, r); // still mapped
  EXPECT_EQ(mmu.counters().page_faults, 1u);
}

TEST(CoyoteMmu, AHitMakesAPageTheMostRecentlyUsedOfItsSet)
{
  auto c     = enabled();
  c.tlb_sets = 4;
  c.tlb_ways = 2;
  CoyoteMmu mmu(c, kClock);
  Recorder r;
  const std::uint64_t page = 2 << 20;
  SimTime t;
  auto touch = [&](std::uint64_t p) { // the faults of this request
    const auto before = mmu.counters().page_faults;
    mmu.request(CoyoteMmu::Dir::Read, 1, t, p * page, Bytes{64}, r);
    t += SimTime::us(100);
    return mmu.counters().page_faults - before;
  };
  // Pages 0, 4 and 8 share set 0; 1 and 5 set 1, which they fill without touching set 0.
  EXPECT_EQ(touch(0), 0u);
  EXPECT_EQ(touch(4), 0u);
  EXPECT_EQ(touch(1), 0u);
  EXPECT_EQ(touch(5), 0u);
  EXPECT_EQ(touch(0), 0u); // a hit: 0 becomes the most recently used of set 0, 4 the least
  EXPECT_EQ(touch(8), 0u); // first use: evicts 4, not 0
  EXPECT_EQ(touch(0), 0u) << "page 0 was kept";
  EXPECT_EQ(touch(4), 1u) << "page 4 was evicted";
  EXPECT_EQ(touch(1), 0u) << "set 1 untouched by set 0's evictions";
  EXPECT_EQ(touch(5), 0u);
}

// The faults of many random look-ups, through both directions' machines, against a least-recently-used TLB kept
// here: each set's pages in least- to most-recently used order, a page's first use mapped (no fault), a later miss a
// fault. Pages of few sets and often one of the last two again (a shortcut for those was measured: a set shared by
// the last two must not take the older one as the most recently used).
TEST(CoyoteMmu, ThePagesFaultAsALeastRecentlyUsedTlbWhateverTheOrderOfLookUps)
{
  for (unsigned sets : {1u, 2u, 3u})
    for (unsigned ways : {1u, 2u, 4u}) {
      auto c     = enabled();
      c.tlb_sets = sets;
      c.tlb_ways = ways;
      CoyoteMmu mmu(c, kClock);
      Recorder r;
      std::vector<std::vector<std::uint64_t>> tlb(sets); // per set, least recently used first
      std::vector<bool> mapped(16, false);
      std::uint64_t faults = 0, x = 12345 + sets * 7 + ways, last[2] = {0, 0};
      SimTime t;
      for (int i = 0; i < 4000; ++i) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        // Often one of the last pages again, else any of 16.
        const std::uint64_t page = (x >> 60) < 6 ? last[(x >> 59) & 1] : (x >> 33) % 16;
        last[1] = last[0];
        last[0] = page;
        auto& set = tlb[page % sets];
        if (auto it = std::find(set.begin(), set.end(), page); it != set.end()) {
          set.erase(it);
        } else {
          faults += mapped[page] ? 1 : 0;
          mapped[page] = true;
          if (set.size() == ways)
            set.erase(set.begin());
        }
        set.push_back(page);
        mmu.request(i % 3 ? CoyoteMmu::Dir::Read : CoyoteMmu::Dir::Write, 1, t, page * c.page.count, Bytes{64}, r);
        t += SimTime::us(1000);
        ASSERT_EQ(mmu.counters().page_faults, faults) << sets << " sets, " << ways << " ways, look-up " << i;
      }
      EXPECT_GT(faults, 100u);
    }
}

TEST(CoyoteMmu, TheMemorySystemRoutesTheDataMoverAndThePoeThroughIt)
{
  nodes::MemoryConfig mem;
  nodes::PcieConfig pcie;
  nodes::MemorySystem direct(mem, pcie);
  nodes::MemorySystem coyote(mem, pcie, enabled(), kClock);
  ASSERT_EQ(direct.mmu(), nullptr);
  ASSERT_NE(coyote.mmu(), nullptr);
  for (auto e : {nodes::Engine::Op0Read, nodes::Engine::Op1Read, nodes::Engine::PoeRead}) {
    const auto a = direct.read(e, SimTime::zero(), 0, Bytes{4096}, nodes::MemorySystem::kNoCap);
    const auto b = coyote.read(e, SimTime::zero(), 0, Bytes{4096}, nodes::MemorySystem::kNoCap);
    EXPECT_EQ(b.first - a.first, kCycle * 7 + kCycle * 8 * static_cast<int>(coyote.mmu()->counters().requests - 1))
        << "engine " << static_cast<int>(e);
  }
  EXPECT_EQ(coyote.mmu()->counters().requests, 3u);
  // A driver copy's descriptor passes both machines: the read of its source, then the write of its destination.
  EXPECT_EQ(coyote.dma_to_device(SimTime::us(100), Bytes{4096}),
            direct.dma_to_device(SimTime::us(100), Bytes{4096}) + kCycle * 14);
  EXPECT_EQ(coyote.mmu()->counters().requests, 5u);
}

TEST(CoyoteMmu, ATerabyteRequestIsCutIntoPagesOneSendEverySevenCyclesAfterTheFirst)
{
  // 1e12 B from a 2 MiB boundary: 476,837 fragments (the last one partial). Each further fragment goes back to
  // MUTEX: 7 cycles apart while slots are free (data here takes 100 ns + 1 ns per byte, so the 16 slots of the
  // lane fill and the sends then follow the data). Planned in time linear in the fragments (the fuzzer's 1 TB host
  // copy had hung the run in the plan's lock search).
  CoyoteMmu mmu(enabled(), kClock);
  Recorder r;
  const std::uint64_t bytes = 1'000'000'000'000ULL, page = 2ULL << 20;
  mmu.request(CoyoteMmu::Dir::Read, 1, SimTime::zero(), 0, Bytes{bytes}, r);
  ASSERT_EQ(r.sent.size(), (bytes + page - 1) / page);
  EXPECT_EQ(mmu.counters().fragments, r.sent.size());
  EXPECT_EQ(r.sent.back().second, bytes % page);
  EXPECT_EQ(r.sent[1].first - r.sent[0].first, kCycle * 7);
  for (std::size_t i = 1; i < r.sent.size(); ++i)
    ASSERT_GE(r.sent[i].first - r.sent[i - 1].first, kCycle * 7) << i;
}

TEST(CoyoteMmu, ARequestWithinAPageTakesItsOwnPathToTheGeneralPathsAnswer)
{
  // request() plans a request within one page on a path of its own; the general one (request_by_fragments) must
  // give the same: the same sends, streams and counters, request after request, with the machines busy (requests
  // asked close together and out of order), slots full, the mutex shared by both directions, and faults.
  for (unsigned lock : {0u, 4u})
    for (SimTime data : {SimTime::ns(20), SimTime::us(2)}) {
      auto c         = enabled();
      c.page         = Bytes{4096};
      c.tlb_sets     = 2;
      c.tlb_ways     = 2;
      c.lock_cycles  = lock;
      c.outstanding  = 4;
      c.page_fault   = SimTime::ns(300);
      CoyoteMmu fast(c, kClock), general(c, kClock);
      Recorder rf, rg;
      rf.latency = rg.latency = data;
      std::uint64_t x = 7 + lock;
      SimTime t;
      for (int i = 0; i < 20000; ++i) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        const auto dir      = (x >> 63) ? CoyoteMmu::Dir::Read : CoyoteMmu::Dir::Write;
        const unsigned lane = static_cast<unsigned>((x >> 40) % CoyoteMmu::kLanes);
        const std::uint64_t addr = (x >> 20) % (12 * 4096);
        const Bytes len{(x >> 8) % 8 == 0 ? 1 + (x >> 12) % (2 * 4096) : 1 + (x >> 12) % 256}; // mostly in a page
        const SimTime at = t - SimTime::ns(static_cast<std::int64_t>((x >> 4) % 4 == 0 ? (x >> 30) % 200 : 0));
        const auto a = fast.request(dir, lane, at, addr, len, rf);
        const auto b = general.request_by_fragments(dir, lane, at, addr, len, rg);
        ASSERT_EQ(a.first, b.first) << i;
        ASSERT_EQ(a.last, b.last) << i;
        t += SimTime::ns(static_cast<std::int64_t>((x >> 2) % 48));
      }
      EXPECT_EQ(rf.sent, rg.sent);
      const auto& f = fast.counters();
      const auto& g = general.counters();
      EXPECT_EQ(f.requests, g.requests);
      EXPECT_EQ(f.fragments, g.fragments);
      EXPECT_EQ(f.page_faults, g.page_faults);
      EXPECT_EQ(f.machine_wait, g.machine_wait);
      EXPECT_EQ(f.lock_wait, g.lock_wait);
      EXPECT_EQ(f.slot_wait, g.slot_wait);
      // The cases the paths differ in were met: faults, a busy machine, a held mutex, full slots.
      EXPECT_GT(f.page_faults, 500u);
      EXPECT_GT(f.machine_wait, SimTime::zero());
      if (lock > 0) {
        EXPECT_GT(f.lock_wait, SimTime::zero());
      }
      EXPECT_GT(f.slot_wait, SimTime::zero());
      EXPECT_GT(f.fragments, f.requests);
    }
}

TEST(CoyoteMmu, TheMmusOfARunShareTheirScratchWithoutCrossTalk)
{
  // Two MMUs following one run (their request()s' scratch lists the run's) against two alone, the same requests in
  // the same interleaving: requests across pages, evictions and faults, both directions, several destinations.
  auto c     = enabled();
  c.page     = Bytes{4096};
  c.tlb_sets = 2;
  c.tlb_ways = 1;
  Scheduler run;
  CoyoteMmu a(c, kClock), b(c, kClock), alone_a(c, kClock), alone_b(c, kClock);
  a.follow(run);
  b.follow(run);
  Recorder ra, rb, rc, rd;
  std::uint64_t x = 99;
  SimTime t;
  for (int i = 0; i < 3000; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    const auto dir   = (x >> 63) ? CoyoteMmu::Dir::Read : CoyoteMmu::Dir::Write;
    const unsigned lane = static_cast<unsigned>((x >> 40) % CoyoteMmu::kLanes);
    const std::uint64_t addr = (x >> 20) % (16 * 4096);
    const Bytes b_len{1 + (x >> 8) % (3 * 4096)}; // up to four pages
    const bool first = (x >> 7) & 1;
    auto s1 = (first ? a : b).request(dir, lane, t, addr, b_len, first ? ra : rb);
    auto s2 = (first ? alone_a : alone_b).request(dir, lane, t, addr, b_len, first ? rc : rd);
    ASSERT_EQ(s1.first, s2.first) << i;
    ASSERT_EQ(s1.last, s2.last) << i;
    t += SimTime::ns(static_cast<std::int64_t>((x >> 2) % 64));
  }
  EXPECT_EQ(ra.sent, rc.sent);
  EXPECT_EQ(rb.sent, rd.sent);
  EXPECT_EQ(a.counters().page_faults, alone_a.counters().page_faults);
  EXPECT_GT(a.counters().page_faults + b.counters().page_faults, 100u);
  EXPECT_GT(a.counters().fragments, a.counters().requests); // requests across pages were cut
}

TEST(CoyoteMmu, AFragmentsIssueMayNotAskAnMmuOfItsRunWhileItsRequestIsUnderWay)
{
  // The MMUs of a run read and write one set of scratch lists (CoyoteMmu::follow): an issue function that asked one
  // of them again would clear the lists its own request is reading. Alone, each has its own and may.
  Scheduler run;
  CoyoteMmu a(enabled(), kClock), b(enabled(), kClock), alone_a(enabled(), kClock), alone_b(enabled(), kClock);
  a.follow(run);
  b.follow(run);
  Recorder r;
  auto asking = [&r](CoyoteMmu& other) {
    return [&r, &other](SimTime start, std::uint64_t addr, Bytes n) {
      other.request(CoyoteMmu::Dir::Write, 1, start, addr + (1 << 22), n, r);
      return r(start, addr, n);
    };
  };
  auto ask_alone_b = asking(alone_b);
  EXPECT_NO_THROW(alone_a.request(CoyoteMmu::Dir::Read, 1, SimTime::zero(), 0, Bytes{64}, ask_alone_b));
  EXPECT_EQ(alone_b.counters().requests, 1u);
  auto ask_b = asking(b);
  EXPECT_THROW(a.request(CoyoteMmu::Dir::Read, 1, SimTime::zero(), 0, Bytes{64}, ask_b), std::logic_error);
  EXPECT_EQ(b.counters().requests, 0u);
  // The refusal leaves the lists free: the next request of either goes through.
  Recorder plain;
  EXPECT_NO_THROW(b.request(CoyoteMmu::Dir::Write, 1, SimTime::zero(), 0, Bytes{64}, plain));
  EXPECT_EQ(plain.sent.size(), 1u);
}
