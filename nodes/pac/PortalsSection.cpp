#include "nodes/pac/PortalsSection.hpp"

namespace nafsim::nodes {

void register_pac_section(NodeKindRegistry& r)
{
  r.add_section({std::string(kPortalsSection),
                 "who runs the Portals layer and what its list walks cost (the portals_uq workload; PAC, issue 14)",
                 [] { return KindParams::of(PortalsConfig{}); }});
}

} // namespace nafsim::nodes
