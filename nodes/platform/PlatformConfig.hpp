#pragma once
// A platform: topology + network + node parameters. Presets live in platforms/*.json.

#include "nodes/platform/NodeKindRegistry.hpp"
#include "simcore/net/NetworkConfig.hpp"
#include "simcore/topo/TopologyConfig.hpp"

#include <stdexcept>
#include <utility>

namespace nafsim::nodes {

/// What sits at a host position of the topology: the name of a registered node kind
/// (nodes/platform/NodeKindRegistry.hpp): `fpga`, a network-attached FPGA (its own 100 GbE port, the CCLO), or
/// `host`, a CPU with a commodity RDMA NIC (software MPI).
struct NodeKindName {
  std::string name = "fpga";
  bool operator==(std::string_view other) const { return name == other; }
};

struct NodeConfig {
  NodeKindName kind;
  std::vector<NodeKindName> kinds;
  /// The parameter sections (`platform.node.<name>`), with defaults: the registered kinds' own (`fpga`, `host`), then
  /// those of no kind (`portals`). A kind reads its section back through its folder's accessor (fpga_config(),
  /// host_config(): `params(name).as<T>()`).
  struct Section {
    std::string name;
    const char* doc;
    KindParams params;
  };
  std::vector<Section> sections;

  /// Defaults, the registered kinds' sections included.
  NodeConfig() : NodeConfig(node_kinds()) {}
  explicit NodeConfig(const NodeKindRegistry& kinds_known)
  {
    for (auto const& e : kinds_known.entries())
      if (e.params)
        sections.push_back({e.name, (e.section_doc.empty() ? e.description : e.section_doc).c_str(), e.params()});
    for (auto const& e : kinds_known.sections())
      sections.push_back({e.name, e.description.c_str(), e.params()});
  }
  /// The section named `k` (a logic error if none was registered).
  const KindParams& params(std::string_view k) const
  {
    for (auto const& s : sections)
      if (s.name == k)
        return s.params;
    throw std::logic_error("no parameter section '" + std::string(k) + "' registered");
  }
  KindParams& params(std::string_view k) { return const_cast<KindParams&>(std::as_const(*this).params(k)); }

  template <class V> void describe(V& v)
  {
    v.field("kind", kind, "node type of every host position (unless `kinds` says otherwise)");
    v.field("kinds", kinds,
            "mixed clusters: the type of each host position in order (one entry per topology host), e.g. "
            "[\"fpga\", \"fpga\", \"host\", \"host\"]; empty: every position is `kind`");
    for (auto& s : sections)
      v.field(s.name.c_str(), s.params, s.doc);
  }
};

struct PlatformConfig {
  std::string name = "custom";
  std::string description;
  topo::TopologyConfig topology;
  net::NetworkConfig network;
  NodeConfig node;
  /// The network's settings that depend on the topology: a train's conditions on switches, where there are some.
  config::FieldProblem check() const
  {
    if (!topology.has_switches())
      return {};
    auto pr = network.check_train_switches();
    if (!pr.message.empty())
      return config::FieldProblem{"network/" + pr.field, pr.message};
    // A cut-through switch stores a packet whole before a faster port (Fabric::leave_after), and so a whole train:
    // held where its packets would pipeline, as on a store-and-forward switch (1 MiB over 400 Gb/s uplinks: +5.5 %
    // with trains of 16, +23 % with 64).
    if (network.fast_forward.train > 1 && topology.kind == topo::Kind::LeafSpine &&
        topology.leaf_spine.uplink_rate.bps > network.link.rate.bps)
      return {"network/fast_forward/train",
              fmt::format("fast_forward needs the switches' ports at one rate or slower toward the hosts: the uplinks "
                          "at {} are faster than the hosts' links at {}, and a cut-through switch stores a whole "
                          "train before a faster port, where its packets would pipeline; set it to 0, or the uplinks "
                          "to the links' rate",
                          format_rate(topology.leaf_spine.uplink_rate), format_rate(network.link.rate))};
    return {};
  }
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
template <> struct Codec<nodes::NodeKindName> {
  static nodes::NodeKindName read(const Json& j)
  {
    if (j.is_string() && nodes::node_kinds().find(j.get<std::string>()))
      return nodes::NodeKindName{j.get<std::string>()};
    throw ValueError{"unknown node kind " + j.dump() + "; registered kinds: " + nodes::node_kinds().names()};
  }
  static Json write(const nodes::NodeKindName& v) { return v.name; }
  static std::string type() { return "one of " + nodes::node_kinds().names(); }
};
} // namespace nafsim::config
