#pragma once
// The registry of node kinds (DESIGN.md section 7, rule 5): what can sit at a host position of the topology
// (`platform.node.kind` / `kinds`), and the parameter sections of `platform.node`. A kind lives in its own folder, nodes/<folder>/, whose <Name>Kind.cpp defines
// `void register_<folder>_kind(NodeKindRegistry&)`; the build generates the one list of those calls from the
// folders it finds (nodes/CMakeLists.txt), so a new kind touches its own folder only. The table is filled once,
// explicitly, and never changes after (no static self-registration, no mutable global).

#include "nodes/platform/KindParams.hpp"
#include "nodes/platform/Node.hpp"
#include "simcore/net/Packet.hpp"

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace simgrid::s4u {
class Host;
}
namespace nafsim {
class Scheduler;
}
namespace nafsim::net {
class Fabric;
}
namespace nafsim::results {
class ResultSink;
}

namespace nafsim::nodes {

struct PlatformConfig;
class Cluster;

/// What a kind's factory builds its node from.
struct NodeBuild {
  net::HostId id;
  const PlatformConfig& platform;
  Scheduler& sched;
  net::Fabric& fabric;
  simgrid::s4u::Host* host; ///< null in an engine-free world
};

struct NodeKindEntry {
  std::string name;        ///< its value of platform.node.kind; `Node::kind()` of its nodes
  std::string description; ///< one line for `nafsim params` and errors
  std::string plural;      ///< its nodes in a sentence ("FPGAs": "roce on FPGAs")
  std::string a_node;      ///< one of them in a sentence ("an FPGA": "host 3 is an FPGA node")
  std::function<std::unique_ptr<Node>(const NodeBuild&)> make;
  /// Check the platform parameters its nodes use, before any node is built (a ConfigError naming the path).
  std::function<void(const PlatformConfig&)> check;
  /// Its own result tables, from the positions holding it (none: the kind adds no table).
  std::function<void(const Cluster&, const std::vector<std::size_t>& positions, results::ResultSink&)> report;
  /// Its own parameter section `platform.node.<name>` and its defaults (none: it has no section of its own).
  std::function<KindParams()> params;
  /// That section's line for `nafsim params` (empty: the description).
  std::string section_doc;
};

/// A parameter section `platform.node.<name>` that belongs to no kind (Portals' engine, read by workloads): a
/// folder's <Name>Section.cpp defines `void register_<folder>_section(NodeKindRegistry&)` adding it.
struct NodeSectionEntry {
  std::string name;
  std::string description;
  std::function<KindParams()> params;
};

class NodeKindRegistry {
public:
  void add(NodeKindEntry e);
  void add_section(NodeSectionEntry e);
  /// The entry named `name`, or null.
  const NodeKindEntry* find(std::string_view name) const;
  /// The entry named `name`; a ConfigError at `pointer` listing the registered kinds if there is none.
  const NodeKindEntry& get(std::string_view name, const std::string& pointer) const;
  const std::vector<NodeKindEntry>& entries() const { return entries_; }
  const std::vector<NodeSectionEntry>& sections() const { return sections_; }
  /// "fpga|host": the registered names.
  std::string names() const;

private:
  std::vector<NodeKindEntry> entries_;
  std::vector<NodeSectionEntry> sections_;
};

/// Every kind nafsim's folders define (filled once, on first use, by the build's generated list).
const NodeKindRegistry& node_kinds();
/// The generated list: calls register_<folder>_kind for each kind folder of nodes/, then register_<folder>_section for
/// each folder with a section of its own.
void register_all_node_kinds(NodeKindRegistry& r);

} // namespace nafsim::nodes
