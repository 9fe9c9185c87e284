#include "simcore/topo/SimgridPlatform.hpp"

#include <fmt/format.h>
#include <map>
#include <simgrid/s4u.hpp>

namespace sg4 = simgrid::s4u;

namespace nafsim::topo {

std::vector<sg4::Host*> build_simgrid_platform(const Topology& t)
{
  auto* zone = sg4::create_dijkstra_zone("nafsim", /*cache=*/true);
  std::vector<simgrid::kernel::routing::NetPoint*> points(t.vertex_count());
  std::vector<sg4::Host*> hosts(t.host_count());
  for (std::size_t v = 0; v < t.vertex_count(); ++v) {
    auto const& info = t.info(v);
    if (info.kind == VertexKind::Host) {
      auto* h   = zone->create_host(info.name, 1e9);
      points[v] = h->get_netpoint();
      hosts[t.host_index(v)] = h;
    } else {
      points[v] = zone->create_router(info.name);
    }
  }
  // Parallel cables between the same two vertices (leaf-spine uplinks) become one link of their
  // summed rate: a graph zone holds one route per pair, and a flow model sees a bundle as its sum.
  std::map<std::pair<Vertex, Vertex>, std::pair<double, SimTime>> bundles;
  for (auto [e, end] = boost::edges(t.graph()); e != end; ++e) {
    auto a = boost::source(*e, t.graph());
    auto b = boost::target(*e, t.graph());
    auto& bundle = bundles[{std::min(a, b), std::max(a, b)}];
    bundle.first += t.graph()[*e].rate.bps;
    bundle.second = t.graph()[*e].propagation;
  }
  std::size_t n = 0;
  for (auto const& [ends, bundle] : bundles) {
    auto* link = zone->create_split_duplex_link(fmt::format("cable{}", n++), bundle.first / 8.0)
                     ->set_latency(bundle.second.seconds())
                     ->seal();
    zone->add_route(points[ends.first], points[ends.second], nullptr, nullptr,
                    {sg4::LinkInRoute(link, sg4::LinkInRoute::Direction::UP)}, true);
  }
  zone->seal();
  return hosts;
}

} // namespace nafsim::topo
