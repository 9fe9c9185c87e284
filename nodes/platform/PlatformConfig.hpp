#pragma once
// A platform: topology + network + node parameters. Presets live in platforms/*.json.

#include "nodes/fpga/FpgaNodeConfig.hpp"
#include "simcore/net/NetworkConfig.hpp"
#include "simcore/topo/TopologyConfig.hpp"

namespace nafsim::nodes {

struct PlatformConfig {
  std::string name = "custom";
  std::string description;
  topo::TopologyConfig topology;
  net::NetworkConfig network;
  NodeConfig node;
  template <class V> void describe(V& v)
  {
    v.field("name", name, "platform name (a preset's name, or your own)");
    v.field("description", description, "free text");
    v.field("topology", topology, "how hosts and switches are wired");
    v.field("network", network, "links, switches, routing and faults");
    v.field("node", node, "what each host is");
  }
};

} // namespace nafsim::nodes
