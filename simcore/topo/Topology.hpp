#pragma once
// The physical network as a graph (Boost.Graph): end hosts and switches joined by full-duplex
// cables. Built once per run from a TopologyConfig; the packet fabric and the SimGrid platform
// are both derived from it.

#include "simcore/topo/TopologyConfig.hpp"
#include "simcore/units/Units.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace nafsim::topo {

enum class VertexKind { Host, Switch };

struct VertexInfo {
  VertexKind kind = VertexKind::Host;
  std::string name;
  unsigned tier = 0; // 0 = host, 1 = leaf/edge, 2 = spine/aggregation, 3 = core
};

struct EdgeInfo {
  BitsPerSecond rate;
  SimTime propagation;
};

using Graph  = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, VertexInfo, EdgeInfo>;
using Vertex = Graph::vertex_descriptor;
using Edge   = Graph::edge_descriptor;

/// One side of a cable as seen from a vertex: the port's index at that vertex and what it reaches.
struct PortRef {
  Vertex peer;
  unsigned peer_port;
  BitsPerSecond rate;
  SimTime propagation;
};

class Topology {
public:
  /// Build from the config; `link_rate` / `propagation` apply to every cable except leaf-spine
  /// uplinks, which use their own rate.
  static Topology build(const TopologyConfig& cfg, BitsPerSecond link_rate, SimTime propagation);

  const Graph& graph() const { return g_; }
  std::size_t host_count() const { return hosts_.size(); }
  Vertex host_vertex(std::size_t host) const { return hosts_.at(host); }
  std::size_t vertex_count() const { return boost::num_vertices(g_); }
  std::size_t switch_count() const { return vertex_count() - host_count(); }
  /// The switches hosts are cabled to (leaves), in the order of their first host.
  std::vector<Vertex> leaf_switches() const;
  const VertexInfo& info(Vertex v) const { return g_[v]; }
  /// Ports of a vertex, in a fixed order (cable creation order).
  const std::vector<PortRef>& ports(Vertex v) const { return ports_.at(v); }
  /// Host index of a host vertex.
  std::size_t host_index(Vertex v) const { return host_index_.at(v); }
  static constexpr std::size_t kNotAHost = SIZE_MAX;
  /// Host index of `v`, or kNotAHost for a switch; and its tier. Unchecked and packed, apart from the graph's
  /// vertex records (names, edge lists): the fabric reads them at every packet hop.
  std::size_t host_or_none(Vertex v) const { return host_index_[v]; }
  unsigned tier(Vertex v) const { return tier_[v]; }
  std::string describe() const;

private:
  Vertex add_vertex(VertexKind kind, std::string name, unsigned tier);
  /// build()'s topologies with switches in tiers (cfg.kind's own section: leaf_spine, fat_tree, chain).
  void build_leaf_spine(const TopologyConfig& cfg, BitsPerSecond link_rate, SimTime prop);
  void build_fat_tree(const TopologyConfig& cfg, BitsPerSecond link_rate, SimTime prop);
  void build_chain(const TopologyConfig& cfg, BitsPerSecond link_rate, SimTime prop);
  void connect(Vertex a, Vertex b, BitsPerSecond rate, SimTime prop);

  Graph g_;
  std::vector<Vertex> hosts_;
  std::vector<std::size_t> host_index_;
  std::vector<std::uint8_t> tier_;
  std::vector<std::vector<PortRef>> ports_;
};

/// Equal-cost next hops: for every vertex and destination host, the ports on a shortest path.
///
/// Every host has one cable, to its attachment switch (its leaf) or, in a two-host chain, to the other
/// host; paths never transit through a host. So the next hops toward a host are those toward its leaf,
/// except at the leaf itself (the port to the host): one breadth-first search over the switches per
/// leaf, and one next-hop list number per (switch, leaf). Memory grows with switches x leaves (a byte each: 10.5 MB
/// for a 65,536-host 64-ary fat-tree, three times that while it is built), not with vertices x hosts.
class RoutingTable {
public:
  explicit RoutingTable(const Topology& t);
  /// Ports of `v` that lie on a shortest path to host `dst` (empty when v is that host or cannot reach it).
  std::span<const std::uint16_t> next_hops(Vertex v, std::size_t dst) const
  {
    const std::uint32_t leaf = leaf_of_host_[dst];
    const std::uint32_t sw   = switch_index_[v];
    if (sw == kNone) // a host: its single cable, when the destination is reachable through it
      return v == topo_.host_vertex(dst) || !host_reaches(v, dst) ? std::span<const std::uint16_t>{}
                                                                   : std::span<const std::uint16_t>{&kPortZero, 1};
    if (leaf == kNone) // the destination hangs off another host: no switch reaches it
      return {};
    if (leaf_vertex_[leaf] == v)
      return {&port_at_leaf_[dst], 1};
    auto const& l = list(sw, leaf);
    return {pool_.data() + l.offset, l.count};
  }
  /// Number of hops (cables) on a shortest path between two hosts.
  unsigned distance(std::size_t src_host, std::size_t dst_host) const;
  std::size_t memory_bytes() const
  {
    return pool_.size() * sizeof(std::uint16_t) + lists_.size() * sizeof(List) + index8_.size() +
           index16_.size() * sizeof(std::uint16_t) + first_list_.size() * sizeof(std::uint32_t) +
           (leaf_of_host_.size() + switch_index_.size() + leaf_vertex_.size()) * sizeof(std::uint32_t) +
           port_at_leaf_.size() * sizeof(std::uint16_t);
  }
  /// Bytes the table of a topology with `switches` switches and `leaves` switches holding hosts needs.
  /// (At its peak, while it is built: a two-byte number per entry, then the byte kept.)
  static double table_bytes(double switches, double leaves)
  {
    return switches * leaves * (sizeof(std::uint16_t) + sizeof(std::uint8_t));
  }

private:
  static constexpr std::uint32_t kNone = UINT32_MAX;
  static constexpr std::uint16_t kPortZero = 0;
  bool host_reaches(Vertex src, std::size_t dst) const;
  struct List {
    std::uint32_t offset;
    std::uint16_t count;
  };
  /// Number the switches and leaves, and each host's leaf and port there; returns the switches in vertex order.
  std::vector<Vertex> place(const Topology& t);
  /// Keep the next-hop lists each switch uses (`used`: its local numbers' global ids in `global`) and the table of
  /// (switch, leaf) local numbers, in a byte each when every switch uses at most 256 lists.
  void number_lists(const std::vector<List>& global, const std::vector<std::vector<std::uint32_t>>& used,
                    std::vector<std::uint16_t> index);
  const Topology& topo_;
  std::size_t leaves_ = 0;
  std::vector<std::uint32_t> switch_index_; ///< vertex -> switch number (kNone for hosts)
  std::vector<std::uint32_t> leaf_of_host_; ///< host -> leaf number (kNone: cabled to another host)
  std::vector<std::uint32_t> leaf_vertex_;  ///< leaf number -> vertex
  std::vector<std::uint16_t> port_at_leaf_; ///< host -> the leaf's port to it
  // Distinct next-hop lists are stored once (most switches share them for most destinations); each switch numbers
  // the few lists it uses from 0 (0: the empty list, no path), so the table of (switch, leaf) holds a byte each (two
  // when a switch has more than 255 lists besides the empty one): read at every switch hop, a quarter of the former
  // four-byte global ids stays in cache (4,096 hosts: 286 KB instead of 1.1 MB; a cache miss per hop was the largest
  // cost of the routing decision).
  std::vector<std::uint16_t> pool_;
  std::vector<List> lists_;              ///< per switch, its lists (from first_list_[switch] on)
  std::vector<std::uint32_t> first_list_; ///< switch -> its first list in lists_
  std::vector<std::uint8_t> index8_;     ///< [switch * leaves + leaf] -> the switch's list number (list 0: no path)
  std::vector<std::uint16_t> index16_;   ///< ... instead, when some switch uses more than 255 non-empty lists
  const List& list(std::uint32_t sw, std::uint32_t leaf) const
  {
    const std::size_t i = std::size_t{sw} * leaves_ + leaf;
    return lists_[first_list_[sw] + (index16_.empty() ? index8_[i] : index16_[i])];
  }
};

} // namespace nafsim::topo
