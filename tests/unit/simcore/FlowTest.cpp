// The flow fidelity: the max-min solver against hand-worked cases and a
// from-scratch solve, and the fabric's flow timing against the packet fabric's
// closed forms (FabricTest.cpp).
#include "simcore/engine/Rng.hpp"
#include "simcore/engine/Simulation.hpp"
#include "simcore/net/Fabric.hpp"
#include "simcore/net/MaxMin.hpp"
#include "simcore/topo/SimgridPlatform.hpp"
#include "tests/support/FabricWorld.hpp"
#include "tests/support/Isolated.hpp"

#include <deque>
#include <fmt/format.h>
#include <gtest/gtest.h>

using namespace nafsim;
using namespace nafsim::net;

namespace {

std::vector<std::uint32_t> L(std::initializer_list<std::uint32_t> l)
{
  return l;
}

} // namespace

TEST(MaxMin, BottleneckLeavesTheRestToOthers)
{
  // Link 0 (10) carries flows a and b; link 1 (4) carries b and c. Link 1 is
  // the tighter: b = c = 2; a takes what b leaves on link 0: 8.
  MaxMinSharing m({10, 4});
  auto a = m.add(L({0}));
  auto b = m.add(L({0, 1}));
  auto c = m.add(L({1}));
  EXPECT_EQ(m.solve().size(), 3u);
  EXPECT_DOUBLE_EQ(m.rate(a), 8);
  EXPECT_DOUBLE_EQ(m.rate(b), 2);
  EXPECT_DOUBLE_EQ(m.rate(c), 2);
  m.remove(c); // b now 4 on link 1, a = 6
  auto const& changed = m.solve();
  EXPECT_EQ(changed.size(), 2u);
  EXPECT_DOUBLE_EQ(m.rate(a), 6);
  EXPECT_DOUBLE_EQ(m.rate(b), 4);
  EXPECT_TRUE(m.solve().empty()); // nothing touched since
}

TEST(MaxMin, OnlyTheTouchedComponentIsSolved)
{
  MaxMinSharing m({1, 1, 1, 1});
  m.add(L({0, 1}));
  m.add(L({1}));
  m.solve();
  auto before         = m.flows_solved();
  auto c              = m.add(L({2, 3})); // shares no link with the first two
  auto const& changed = m.solve();
  ASSERT_EQ(changed.size(), 1u);
  EXPECT_EQ(changed[0], c);
  EXPECT_EQ(m.flows_solved() - before, 1u);
  EXPECT_DOUBLE_EQ(m.rate(c), 1);
}

namespace {
// The rates of `live` flows (paths[f]) solved from scratch, in the order of `live`.
std::vector<double> from_scratch(const std::vector<double>& cap, const std::vector<std::uint32_t>& live,
                                 const std::vector<std::vector<std::uint32_t>>& paths)
{
  MaxMinSharing fresh(cap);
  std::vector<std::uint32_t> ids;
  for (auto f : live)
    ids.push_back(fresh.add(paths[f]));
  fresh.solve();
  std::vector<double> r;
  for (auto id : ids)
    r.push_back(fresh.rate(id));
  return r;
}

// A two-level tree: `hosts` hosts, `per_leaf` per leaf switch, each leaf `up` uplinks to a spine; link ids:
// host h up 2h, down 2h + 1, then leaf uplinks and downlinks. A path: src up, [leaf up, leaf down], dst down.
struct Tree {
  unsigned hosts, per_leaf, up;
  std::vector<double> cap;
  Tree(unsigned h, unsigned p, unsigned u, Rng& rng) : hosts(h), per_leaf(p), up(u)
  {
    for (unsigned i = 0; i < 2 * h; ++i)
      cap.push_back(100);
    for (unsigned i = 0; i < 2 * leaves() * up; ++i)
      cap.push_back(static_cast<double>(50 + rng.below(200))); // oversubscribed or not, unevenly
  }
  unsigned leaves() const { return (hosts + per_leaf - 1) / per_leaf; }
  std::vector<std::uint32_t> path(unsigned s, unsigned d, unsigned pick) const
  {
    std::vector<std::uint32_t> p{2 * s};
    unsigned ls = s / per_leaf, ld = d / per_leaf;
    if (ls != ld) {
      p.push_back(2 * hosts + 2 * (ls * up + pick % up));
      p.push_back(2 * hosts + 2 * (ld * up + pick % up) + 1);
    }
    p.push_back(2 * d + 1);
    return p;
  }
};
} // namespace

TEST(MaxMin, IncrementalEqualsFromScratchOverThousandsOfStartsAndEndsOnATree)
{
  // Random flows on a two-level tree (all-to-all-like fan-in and fan-out, uneven uplinks) start and end in batches,
  // as the flows of one date do; after every solve the rates equal a from-scratch solve within 1e-9 relative.
  Rng rng(11, 3);
  Tree t(24, 4, 3, rng);
  MaxMinSharing inc(t.cap);
  std::vector<std::uint32_t> live;
  std::vector<std::vector<std::uint32_t>> paths(4096);
  std::uint64_t changes = 0;
  for (int step = 0; step < 1500; ++step) {
    const auto batch = 1 + rng.below(4);
    for (std::uint64_t b = 0; b < batch; ++b, ++changes) {
      if (live.size() < 40 || (live.size() < 400 && rng.below(2) == 0)) {
        auto s = static_cast<unsigned>(rng.below(t.hosts)), d = static_cast<unsigned>(rng.below(t.hosts - 1));
        d += d >= s ? 1 : 0;
        auto p    = t.path(s, d, static_cast<unsigned>(rng.below(3)));
        auto id   = inc.add(p);
        paths[id] = p;
        live.push_back(id);
      } else {
        auto i = rng.below(live.size());
        inc.remove(live[i]);
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
      }
    }
    inc.solve();
    auto want = from_scratch(t.cap, live, paths);
    for (std::size_t i = 0; i < live.size(); ++i)
      ASSERT_NEAR(inc.rate(live[i]), want[i], 1e-9 * want[i]) << "step " << step << " flow " << live[i];
  }
  EXPECT_GT(changes, 3000u);
}

TEST(MaxMin, IncrementalEqualsFromScratchAndIsMaxMinFair)
{
  // Random flows come and go over 12 links of various capacities; after every
  // solve the rates equal those of a solver that sees the live flows at once,
  // no link is over capacity, and every flow has a bottleneck: a full link on
  // which no flow is faster than it (the max-min condition).
  Rng rng(7, 1);
  std::vector<double> cap;
  for (int l = 0; l < 12; ++l)
    cap.push_back(1.0 + static_cast<double>(rng.below(9)));
  MaxMinSharing inc(cap);
  std::vector<std::uint32_t> live;
  std::vector<std::vector<std::uint32_t>> paths(1000);
  for (int step = 0; step < 400; ++step) {
    if (live.empty() || rng.below(3) != 0) {
      std::vector<std::uint32_t> p;
      for (std::uint32_t l = 0; l < 12; ++l)
        if (rng.below(5) == 0)
          p.push_back(l);
      if (p.empty())
        p.push_back(static_cast<std::uint32_t>(rng.below(12)));
      auto id   = inc.add(p);
      paths[id] = p;
      live.push_back(id);
    } else {
      auto i = rng.below(live.size());
      inc.remove(live[i]);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
    }
    inc.solve();
    auto want = from_scratch(cap, live, paths);
    std::vector<double> load(cap.size(), 0);
    for (std::size_t i = 0; i < live.size(); ++i) {
      ASSERT_NEAR(inc.rate(live[i]), want[i], 1e-9) << "step " << step;
      for (auto l : paths[live[i]])
        load[l] += inc.rate(live[i]);
    }
    for (std::size_t l = 0; l < cap.size(); ++l)
      ASSERT_LE(load[l], cap[l] + 1e-9);
    for (auto f : live) {
      bool bottleneck = false;
      for (auto l : paths[f]) {
        if (load[l] < cap[l] - 1e-9)
          continue;
        bool fastest = true;
        for (auto g : live)
          if (std::find(paths[g].begin(), paths[g].end(), l) != paths[g].end() && inc.rate(g) > inc.rate(f) + 1e-9)
            fastest = false;
        bottleneck |= fastest;
      }
      ASSERT_TRUE(bottleneck) << "flow " << f << " at step " << step;
    }
  }
}

namespace {

using nafsim::testing::World;
using nafsim::testing::arrivals;
using nafsim::testing::star;

NetworkConfig flowcfg(Forwarding f)
{
  NetworkConfig n;
  n.fidelity                   = Fidelity::Flow;
  n.link.rate                  = BitsPerSecond{100e9};
  n.link.propagation           = SimTime::ns(10);
  n.switch_.forwarding         = f;
  n.switch_.latency            = SimTime::ns(300);
  n.switch_.cut_through_header = Bytes{64};
  return n;
}

} // namespace

TEST(FlowFabric, OneFlowIsTheSegmentTrainOfThePacketFabric)
{
  // 100 segments of 1000 wire bytes (80 ns each) over a star. Packet fabric
  // (FabricTest): segment i ends at (i + 2) 80 + 20 + 300 ns store-and-forward,
  // i 80 + 405.12 ns cut-through; the last (i = 99) at 8400 and 8325.12 ns.
  for (auto [f, expect] :
       {std::pair{Forwarding::StoreAndForward, "0:8400000 "}, std::pair{Forwarding::CutThrough, "0:8325120 "}}) {
    auto r = nafsim::testing::run_isolated([f] {
      World w(star(2), flowcfg(f));
      w.run([&] { w.probes[0]->send(1, 100000, 0, 0, 1000); });
      return arrivals(w, 1) + fmt::format("head {}", w.probes[1]->got.at(0).second.head_arrival.ps());
    });
    ASSERT_EQ(r.exit_code, 0) << r.output;
    // The first segment is in as the packet fabric's first packet: 480 / 405.12
    // ns.
    EXPECT_EQ(r.output, std::string(expect) + (f == Forwarding::StoreAndForward ? "head 480000" : "head 405120"));
  }
}

TEST(FlowFabric, FlowsShareLinksMaxMinFair)
{
  auto r = nafsim::testing::run_isolated([] {
    World w(star(3), flowcfg(Forwarding::StoreAndForward));
    // Hosts 0 and 1 send 100 kB each to host 2 (its cable is shared: 50 Gb/s
    // each); host 0 also sends 100 kB to host 1 (host 0's cable: what the flow
    // to host 2 leaves, 50 Gb/s). All three end at 16 us; with one-packet flows
    // the path latency is 80 + 300 + 20 ns.
    w.run([&] {
      w.probes[0]->send(2, 100000, 1, 1, 0);
      w.probes[1]->send(2, 100000, 2, 2, 0);
      w.probes[0]->send(1, 100000, 3, 3, 0);
    });
    return arrivals(w, 2) + "| " + arrivals(w, 1);
  });
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // Store-and-forward of a one-packet flow: the switch re-sends all 100 kB (8
  // us at 100 Gb/s).
  EXPECT_EQ(r.output, "1:24320000 2:24320000 | 3:24320000 ");
}

TEST(FlowFabric, OneSendersFlowOfOneIdentityStayInOrder)
{
  auto r = nafsim::testing::run_isolated([] {
    World w(star(2), flowcfg(Forwarding::StoreAndForward));
    // A 100-segment message, then a one-packet one on the same flow identity:
    // the second starts when the first has left (8000 ns) and would be in at
    // 8005.12 + 320.12 ns, before the first (8400 ns): it is delivered with it,
    // not before.
    w.run([&] {
      w.probes[0]->send(1, 100000, 0, 5, 1000);
      w.probes[0]->send(1, 64, 1, 5, 0);
    });
    return arrivals(w, 1);
  });
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "0:8400000 1:8400000 ");
}
