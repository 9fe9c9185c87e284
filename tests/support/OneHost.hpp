#pragma once
// One SimGrid host of a two-host star, for tests whose actors need a host and nothing of the network.
#include "simcore/topo/SimgridPlatform.hpp"

namespace nafsim::testing {

inline simgrid::s4u::Host* one_host()
{
  topo::TopologyConfig t;
  t.hosts = 2;
  static topo::Topology top = topo::Topology::build(t, BitsPerSecond{1e9}, SimTime::ns(1));
  return topo::build_simgrid_platform(top)[0];
}

} // namespace nafsim::testing
