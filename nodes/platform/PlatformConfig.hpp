#pragma once
// A platform: topology + network + node parameters. Presets live in platforms/*.json.

#include "nodes/fpga/FpgaNodeConfig.hpp"
#include "nodes/host/HostNodeConfig.hpp"
#include "nodes/pac/PortalsProcessor.hpp"
#include "simcore/net/NetworkConfig.hpp"
#include "simcore/topo/TopologyConfig.hpp"

namespace nafsim::nodes {

/// What sits at a host position of the topology: a network-attached FPGA (its own 100 GbE port,
/// the CCLO) or a CPU with a commodity RDMA NIC (software MPI).
enum class NodeKind { Fpga, Host };

struct NodeConfig {
  NodeKind kind = NodeKind::Fpga;
  std::vector<NodeKind> kinds;
  FpgaNodeConfig fpga;
  HostNodeConfig host;
  PortalsConfig portals;
  template <class V> void describe(V& v)
  {
    v.field("kind", kind, "node type of every host position (unless `kinds` says otherwise)");
    v.field("kinds", kinds,
            "mixed clusters: the type of each host position in order (one entry per topology host), e.g. "
            "[\"fpga\", \"fpga\", \"host\", \"host\"]; empty: every position is `kind`");
    v.field("fpga", fpga,
            "network-attached FPGA node (kind = fpga); also the FPGA card attached to each host CPU when software "
            "MPI stages FPGA data (the F2F baseline: host driver copies, kernel invocation)");
    v.field("host", host, "CPU node with a commodity RDMA NIC running software MPI (kind = host)");
    v.field("portals", portals, "who runs the Portals layer and what its list walks cost (the portals_uq workload; "
                                "PAC, issue 14)");
  }
};

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

namespace nafsim::config {
template <> struct EnumNames<nodes::NodeKind> {
  static constexpr std::array list{std::pair{nodes::NodeKind::Fpga, "fpga"}, std::pair{nodes::NodeKind::Host, "host"}};
};
} // namespace nafsim::config
