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
  const VertexInfo& info(Vertex v) const { return g_[v]; }
  /// Ports of a vertex, in a fixed order (cable creation order).
  const std::vector<PortRef>& ports(Vertex v) const { return ports_.at(v); }
  /// Host index of a host vertex.
  std::size_t host_index(Vertex v) const { return host_index_.at(v); }
  std::string describe() const;

private:
  Vertex add_vertex(VertexKind kind, std::string name, unsigned tier);
  void connect(Vertex a, Vertex b, BitsPerSecond rate, SimTime prop);

  Graph g_;
  std::vector<Vertex> hosts_;
  std::vector<std::size_t> host_index_;
  std::vector<std::vector<PortRef>> ports_;
};

/// Equal-cost next hops: for every vertex and destination host, the ports on a shortest path.
/// Computed once by one breadth-first search per destination host.
class RoutingTable {
public:
  explicit RoutingTable(const Topology& t);
  /// Ports of `v` that lie on a shortest path to host `dst` (empty when v is that host).
  std::span<const std::uint16_t> next_hops(Vertex v, std::size_t dst) const
  {
    auto const& l = lists_[index_[v * hosts_ + dst]];
    return {pool_.data() + l.offset, l.count};
  }
  /// Number of hops (cables) on a shortest path between two hosts.
  unsigned distance(std::size_t src_host, std::size_t dst_host) const;
  std::size_t memory_bytes() const
  {
    return pool_.size() * sizeof(std::uint16_t) + lists_.size() * sizeof(List) + index_.size() * sizeof(std::uint32_t);
  }

private:
  struct List {
    std::uint32_t offset;
    std::uint16_t count;
  };
  const Topology& topo_;
  std::size_t hosts_;
  // Distinct next-hop lists are stored once (most switches share them for most destinations).
  std::vector<std::uint16_t> pool_;
  std::vector<List> lists_;
  std::vector<std::uint32_t> index_; // [vertex * hosts + dst] -> list id
};

} // namespace nafsim::topo
