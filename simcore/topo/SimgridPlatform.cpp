#include "simcore/topo/SimgridPlatform.hpp"

#include <simgrid/s4u.hpp>

namespace sg4 = simgrid::s4u;

namespace nafsim::topo {

std::vector<sg4::Host*> build_simgrid_platform(const Topology& t)
{
  auto* zone = sg4::create_empty_zone("nafsim");
  std::vector<sg4::Host*> hosts(t.host_count());
  for (std::size_t h = 0; h < t.host_count(); ++h)
    hosts[h] = zone->create_host(t.info(t.host_vertex(h)).name, 1e9);
  zone->seal();
  return hosts;
}

} // namespace nafsim::topo
