#pragma once
// The parameter section `platform.node.portals`: who runs the Portals layer and what its list walks cost (read by the
// portals workloads), registered by nodes/pac/PortalsSection.cpp; it belongs to no node kind.

#include "nodes/pac/PortalsProcessor.hpp"
#include "nodes/platform/PlatformConfig.hpp"

namespace nafsim::nodes {

inline constexpr std::string_view kPortalsSection = "portals";
inline const PortalsConfig& portals_config(const NodeConfig& n) { return n.params(kPortalsSection).as<PortalsConfig>(); }
inline PortalsConfig& portals_config(NodeConfig& n) { return n.params(kPortalsSection).as<PortalsConfig>(); }

} // namespace nafsim::nodes
