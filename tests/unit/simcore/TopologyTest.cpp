#include "simcore/config/ConfigError.hpp"
#include "simcore/engine/Simulation.hpp"
#include "simcore/topo/SimgridPlatform.hpp"
#include "simcore/topo/Topology.hpp"
#include "tests/support/Isolated.hpp"

#include <gtest/gtest.h>
#include <simgrid/s4u.hpp>

using namespace nafsim;
using namespace nafsim::topo;

namespace {
Topology make(TopologyConfig c)
{
  return Topology::build(c, BitsPerSecond{100e9}, SimTime::ns(10));
}
TopologyConfig fat_tree(std::size_t hosts, unsigned k)
{
  TopologyConfig c;
  c.kind       = Kind::FatTree;
  c.hosts      = hosts;
  c.fat_tree.k = k;
  return c;
}
TopologyConfig leaf_spine(std::size_t hosts, unsigned per_leaf)
{
  TopologyConfig c;
  c.kind                      = Kind::LeafSpine;
  c.hosts                     = hosts;
  c.leaf_spine.hosts_per_leaf = per_leaf;
  return c;
}
} // namespace

TEST(Topology, Star)
{
  TopologyConfig c;
  c.hosts = 4;
  auto t  = make(c);
  EXPECT_EQ(t.host_count(), 4u);
  EXPECT_EQ(t.switch_count(), 1u);
  RoutingTable r(t);
  EXPECT_EQ(r.distance(0, 3), 2u);
  EXPECT_EQ(r.distance(2, 2), 0u);
}

TEST(Topology, ALeafSpineOfOneLeafIsThatSwitchAlone)
{
  // The ACCL+ presets' 10 nodes on one leaf of a leaf-spine: no traffic leaves it, and no spine is built or counted.
  auto one = make(leaf_spine(10, 10));
  EXPECT_EQ(one.switch_count(), 1u);
  EXPECT_EQ(one.describe(), "10 hosts, 1 switch, 10 cables");
  RoutingTable r(one);
  EXPECT_EQ(r.distance(0, 9), 2u);
  auto two = make(leaf_spine(11, 10));
  EXPECT_EQ(two.switch_count(), 2u + TopologyConfig{}.leaf_spine.spines) << "two leaves and the spines";
}

TEST(Topology, LeafSpineWithParallelUplinks)
{
  TopologyConfig c;
  c.kind                       = Kind::LeafSpine;
  c.hosts                      = 20;
  c.leaf_spine.hosts_per_leaf  = 8;
  c.leaf_spine.spines          = 2;
  auto t                       = make(c);
  EXPECT_EQ(t.switch_count(), 5u) << "3 leaves + 2 spines";
  // Non-blocking: 8 x 100G down needs 800G up = 2 spines x 4 parallel 100G links.
  EXPECT_EQ(boost::num_edges(t.graph()), 20u + 3 * 2 * 4);
  RoutingTable r(t);
  EXPECT_EQ(r.distance(0, 7), 2u);
  EXPECT_EQ(r.distance(0, 8), 4u);
  Vertex leaf0 = t.ports(t.host_vertex(0))[0].peer;
  EXPECT_EQ(r.next_hops(leaf0, 8).size(), 8u) << "every uplink is an equal-cost path";
  EXPECT_EQ(r.next_hops(leaf0, 3).size(), 1u);

  c.leaf_spine.oversubscription = 4;
  EXPECT_EQ(boost::num_edges(make(c).graph()), 20u + 3 * 2 * 1) << "4:1 oversubscribed: one link per pair";
  // 3:1 would need 1.33 cables per leaf-spine pair: refused with the ratios whole cables give (4:1 was built).
  c.leaf_spine.oversubscription = 3;
  try {
    make(c);
    ADD_FAILURE() << "3:1 built";
  } catch (const config::ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("/platform/topology/leaf_spine/oversubscription"), std::string::npos) << what;
    EXPECT_NE(what.find("whole cables give 4:1 (1 per spine) or 2:1 (2)"), std::string::npos) << what;
  }
  c.leaf_spine.hosts_per_leaf   = 4;
  c.leaf_spine.spines           = 3;
  c.leaf_spine.oversubscription = 1.333; // 4/3 as typed: one cable per spine
  EXPECT_EQ(boost::num_edges(make(c).graph()), 20u + 5 * 3 * 1);
}

TEST(Topology, FatTree)
{
  auto t = make(fat_tree(16, 4));
  EXPECT_EQ(t.switch_count(), 20u) << "4 core + 4 pods x (2 edge + 2 aggregation)";
  EXPECT_EQ(boost::num_edges(t.graph()), 48u);
  RoutingTable r(t);
  EXPECT_EQ(r.distance(0, 1), 2u);
  EXPECT_EQ(r.distance(0, 2), 4u);
  EXPECT_EQ(r.distance(0, 15), 6u);
  Vertex edge0 = t.ports(t.host_vertex(0))[0].peer;
  EXPECT_EQ(r.next_hops(edge0, 15).size(), 2u);
  Vertex agg = t.ports(edge0)[r.next_hops(edge0, 15)[0]].peer;
  EXPECT_EQ(r.next_hops(agg, 15).size(), 2u) << "two core switches per aggregation switch";

  EXPECT_THROW(make(fat_tree(17, 4)), config::ConfigError);
  EXPECT_THROW(make(fat_tree(8, 5)), config::ConfigError);
}

TEST(Topology, LargeFatTreeRoutingIsCompact)
{
  auto t = make(fat_tree(1024, 16));
  RoutingTable r(t);
  EXPECT_EQ(r.distance(0, 1023), 6u);
  EXPECT_LT(r.memory_bytes(), 8u << 20) << "next-hop lists are shared";
}

TEST(Topology, SimgridPlatformHoldsTheHosts)
{
  auto r = nafsim::testing::run_isolated([] {
    Simulation sim;
    TopologyConfig c;
    c.kind       = Kind::FatTree;
    c.hosts      = 16;
    c.fat_tree.k = 4;
    auto t       = make(c);
    auto hosts   = build_simgrid_platform(t);
    return std::to_string(hosts.size()) + " " + hosts[15]->get_name() + " " +
           std::to_string(simgrid::s4u::Engine::get_instance()->get_link_count());
  });
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "16 host15 1") << "hosts only (the one link is SimGrid's loopback): the network is nafsim's own";
}

namespace {
// The definition: ports of v whose peer is one hop closer to dst, by a breadth-first search from dst
// that never transits through another host.
std::vector<std::uint16_t> reference_hops(const Topology& t, Vertex v, std::size_t dst)
{
  std::vector<int> dist(t.vertex_count(), -1);
  std::vector<Vertex> q{t.host_vertex(dst)};
  dist[t.host_vertex(dst)] = 0;
  for (std::size_t i = 0; i < q.size(); ++i) {
    Vertex u = q[i];
    if (t.info(u).kind == VertexKind::Host && dist[u] != 0)
      continue;
    for (auto const& p : t.ports(u))
      if (dist[p.peer] < 0) {
        dist[p.peer] = dist[u] + 1;
        q.push_back(p.peer);
      }
  }
  std::vector<std::uint16_t> hops;
  if (dist[v] > 0)
    for (std::size_t i = 0; i < t.ports(v).size(); ++i)
      if (dist[t.ports(v)[i].peer] == dist[v] - 1)
        hops.push_back(static_cast<std::uint16_t>(i));
  return hops;
}

// The table's next hops from every vertex to every `step`-th host, against the definition.
void expect_routes_of_the_search(const Topology& t, std::size_t step = 1)
{
  RoutingTable r(t);
  for (Vertex v = 0; v < t.vertex_count(); ++v)
    for (std::size_t d = 0; d < t.host_count(); d += step) {
      auto got = r.next_hops(v, d);
      EXPECT_EQ(std::vector<std::uint16_t>(got.begin(), got.end()), reference_hops(t, v, d))
          << t.describe() << ": from " << t.info(v).name << " to host " << d;
    }
}
} // namespace

TEST(Topology, PerLeafRoutingEqualsAllPairsSearch)
{
  std::vector<TopologyConfig> cases;
  TopologyConfig c;
  c.hosts = 5;
  cases.push_back(c); // star
  c.kind                      = Kind::LeafSpine;
  c.hosts                     = 23;
  c.leaf_spine.hosts_per_leaf = 4;
  c.leaf_spine.spines         = 3;
  c.leaf_spine.oversubscription = 4.0 / 3; // one cable per spine (1:1 would need 1.33)
  cases.push_back(c);
  c.kind       = Kind::FatTree;
  c.hosts      = 50; // partial last pod
  c.fat_tree.k = 6;
  cases.push_back(c);
  c.kind           = Kind::Chain;
  c.hosts          = 5;
  c.chain.switches = 3;
  cases.push_back(c);
  c.hosts          = 2;
  c.chain.switches = 0; // two hosts, one cable
  cases.push_back(c);
  for (auto const& cfg : cases)
    expect_routes_of_the_search(make(cfg));
}

TEST(Topology, RoutingMemoryGrowsWithSwitchesTimesLeavesNotHostsSquared)
{
  auto t = make(fat_tree(16000, 40));
  RoutingTable r(t);
  EXPECT_EQ(r.distance(0, 15999), 6u);
  // 2,000 switches x 800 edge switches x 4 B = 6.4 MB (the all-pairs table was 18,000 x 16,000 x 4 B = 1.15 GB).
  EXPECT_LT(r.memory_bytes(), 8u << 20);
}

TEST(Topology, SwitchesOfMoreThan255NextHopListsRouteAsTheSearchDoes)
{
  // Each switch numbers its next-hop lists in a byte per (switch, leaf), or in two bytes once one switch uses more
  // than 255: here each spine has a port per leaf, 260 single-port lists and the empty one.
  auto t = make(leaf_spine(260, 1));
  const std::size_t switches = t.switch_count(), leaves = t.leaf_switches().size();
  ASSERT_EQ(leaves, 260u);
  EXPECT_GE(RoutingTable(t).memory_bytes(), switches * leaves * 2) << "two bytes per (switch, leaf)";
  expect_routes_of_the_search(t, 7);
  // Below that, a byte: the k-16 fat-tree's switches use at most 17 lists each (320 switches x 128 edge switches:
  // 41 KB of numbers and 13 KB of the rest, where two bytes each would be 95 KB).
  auto f = make(fat_tree(1024, 16));
  RoutingTable narrow(f);
  EXPECT_LT(narrow.memory_bytes(), f.switch_count() * f.leaf_switches().size() * 2);
}
