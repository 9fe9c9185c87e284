#pragma once
// The topology as a SimGrid platform: one host per end host, one router per switch, one
// split-duplex link per cable (pure CM02 model: a message of n bytes over one link takes L + n/B).
// Actors run on the hosts; the flow-level network model uses the links and routes.

#include "simcore/topo/Topology.hpp"

#include <vector>

namespace simgrid::s4u {
class Host;
}

namespace nafsim::topo {

/// Build the platform in the current SimGrid engine; returns the host of each host index.
std::vector<simgrid::s4u::Host*> build_simgrid_platform(const Topology& t);

} // namespace nafsim::topo
