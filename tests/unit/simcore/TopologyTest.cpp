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
}

TEST(Topology, FatTree)
{
  TopologyConfig c;
  c.kind       = Kind::FatTree;
  c.hosts      = 16;
  c.fat_tree.k = 4;
  auto t       = make(c);
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

  c.hosts = 17;
  EXPECT_THROW(make(c), config::ConfigError);
  c.hosts      = 8;
  c.fat_tree.k = 5;
  EXPECT_THROW(make(c), config::ConfigError);
}

TEST(Topology, LargeFatTreeRoutingIsCompact)
{
  TopologyConfig c;
  c.kind       = Kind::FatTree;
  c.hosts      = 1024;
  c.fat_tree.k = 16;
  auto t       = make(c);
  RoutingTable r(t);
  EXPECT_EQ(r.distance(0, 1023), 6u);
  EXPECT_LT(r.memory_bytes(), 8u << 20) << "next-hop lists are shared";
}

TEST(Topology, SimgridPlatformMirrorsTheGraph)
{
  auto r = nafsim::testing::run_isolated([] {
    Simulation sim;
    TopologyConfig c;
    c.kind       = Kind::FatTree;
    c.hosts      = 16;
    c.fat_tree.k = 4;
    auto t       = make(c);
    auto hosts   = build_simgrid_platform(t);
    std::vector<simgrid::s4u::Link*> route;
    double lat = 0;
    hosts[0]->route_to(hosts[15], route, &lat);
    return std::to_string(hosts.size()) + " " + std::to_string(route.size()) + " " + std::to_string(lat * 1e9);
  });
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "16 6 60.000000");
}
