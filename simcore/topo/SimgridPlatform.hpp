#pragma once
// The topology's end hosts as SimGrid hosts: actors (workloads, firmware, MPI ranks) run on them and
// SimGrid's clock is the run's clock. The network itself is nafsim's (the packet fabric or the flow
// network, both in simcore/net), so the platform holds no links and no routes: a SimGrid route table
// would cost time and memory quadratic in the hosts (the Dijkstra zone's edge lookups made 65,536
// hosts on a star take 15 s to build) for nothing.

#include "simcore/topo/Topology.hpp"

#include <vector>

namespace simgrid::s4u {
class Host;
}

namespace nafsim::topo {

/// Build the platform in the current SimGrid engine; returns the host of each host index.
std::vector<simgrid::s4u::Host*> build_simgrid_platform(const Topology& t);

} // namespace nafsim::topo
