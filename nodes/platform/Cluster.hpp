#pragma once
// Everything a run simulates, built from a PlatformConfig: topology, SimGrid platform, packet
// fabric and one node per host; queue pairs are connected on first use. The cluster knows nodes through Node and the
// registry only: a kind's own accessors live in its folder (nodes/fpga/FpgaCluster.hpp: the FPGA node, its CCLO;
// nodes/host/HostCluster.hpp: the host's MPI library), reached as c.at<Kind>(i) or through those.

#include "nodes/platform/ConnectionId.hpp"
#include "nodes/platform/NodeKindRegistry.hpp"
#include "nodes/platform/PlatformConfig.hpp"
#include "simcore/engine/FlatIndex.hpp"
#include "simcore/net/Fabric.hpp"
#include "simcore/topo/Topology.hpp"

#include <memory>
#include <utility>
#include <vector>

namespace nafsim::nodes {

struct DataPlane;

/// The cluster knows its nodes through Node and the registry only: what needs an engine's or the memory model's
/// definitions is defined in that engine's folder (nodes/transport/ClusterConnections.cpp: queue pairs, sessions, the
/// transports' deadlock notes; nodes/memory/ClusterData.cpp: carry_data), so that nodes/platform includes no other
/// nodes/ folder (issue 54).
class Cluster {
public:
  /// Requires the run's Simulation (SimGrid engine) to exist.
  /// `simgrid_hosts` false: no SimGrid platform (an engine-free world, Scheduler::run_standalone, whose callers
  /// are task actors; node host() is null).
  /// `known`: the node kinds the platform may name (nafsim's own: node_kinds()).
  Cluster(const PlatformConfig& cfg, Scheduler& sched, std::uint64_t seed, bool simgrid_hosts = true,
          const NodeKindRegistry& known = node_kinds());
  ~Cluster();

  /// Host positions of the topology (nodes of every kind together).
  std::size_t size() const { return nodes_.size(); }
  /// The kind of the node at position `i` (a registered kind's name).
  std::string_view kind(std::size_t i) const { return nodes_.at(i)->kind(); }
  const NodeKindRegistry& kinds_known() const { return known_; }
  /// The positions holding nodes of kind `k`, in order.
  std::vector<std::size_t> positions(std::string_view k) const;
  /// What to change when `ranks` ranks need nodes of kind `k` and fewer are there (a config error's advice): raise
  /// platform.topology.hosts when every node is of that kind, else list more positions of it in
  /// platform.node.kinds (or raise the hosts), or set platform.node.kind when none is.
  std::string more_nodes_advice(std::string_view k, unsigned ranks) const;
  /// The node at position `i`, whatever its kind.
  Node& at(std::size_t i) { return *nodes_.at(i); }
  const Node& at(std::size_t i) const { return *nodes_.at(i); }
  /// The node at position `i` as kind K (K::kKind its name; a config error naming /platform/node/kinds/<i> if the
  /// node there is of another kind).
  template <class K> K& at(std::size_t i) { return static_cast<K&>(checked(i, K::kKind)); }
  template <class K> const K& at(std::size_t i) const { return static_cast<const K&>(checked(i, K::kKind)); }
  /// The node at position `i` if it is of kind K, else null.
  template <class K> K* find(std::size_t i) { return kind(i) == K::kKind ? &static_cast<K&>(*nodes_[i]) : nullptr; }
  template <class K> const K* find(std::size_t i) const
  {
    return kind(i) == K::kKind ? &static_cast<const K&>(*nodes_[i]) : nullptr;
  }
  /// The RDMA engine of position `i`: the FPGA's POE or the host's NIC.
  RdmaPoe& poe(std::size_t i);
  const RdmaPoe& poe(std::size_t i) const;
  const MemorySystem& memory(std::size_t i) const;
  /// Queue pair from `from` to `to` on node `from` (created with its peer on first use).
  QpId qp(std::size_t from, std::size_t to);
  /// Another queue pair from `from` to `to`, beside any there are (a host spreading work over several);
  /// returns its number on `from`.
  QpId add_qp(std::size_t from, std::size_t to);
  /// The connection from `from` to `to` on the engine of `from` that carries messages (the CCLO's,
  /// MPI's): a queue pair over RoCE, a session over TCP (opened with its peer on first use), the
  /// peer's number over UDP.
  QpId connection(std::size_t from, std::size_t to);
  /// The connection `from` sends to `to` on when each end opens its own (ACCL's openCon: every rank opens a TCP
  /// session to every other, sends on the one it opened and receives on the peer's, so a pair holds two, each
  /// carrying one direction's data and the other's pure ACKs): over TCP a session opened for this direction alone;
  /// over RoCE and UDP what connection() gives.
  QpId own_connection(std::size_t from, std::size_t to);
  /// The TCP / UDP engine of position `i`, if it runs one.
  const TcpPoe* tcp(std::size_t i) const;
  const UdpPoe* udp(std::size_t i) const;
  /// That engine of position `i`.
  Poe& transport(std::size_t i);
  /// The transport position `i` runs.
  Transport transport_kind(std::size_t i) const;
  /// Carry real bytes from now on (memory contents, message payloads); call before any node's data engine is made
  /// (Node::data_engine_made: the CCLO, the MPI library).
  DataPlane& carry_data();
  /// The real data, if the run carries it.
  DataPlane* data() { return data_.get(); }
  net::Fabric& fabric() { return *fabric_; }
  const net::Fabric& fabric() const { return *fabric_; }
  const topo::Topology& topology() const { return topo_; }
  Scheduler& scheduler() { return sched_; }
  const Scheduler& scheduler() const { return sched_; }
  const PlatformConfig& config() const { return cfg_; }
  /// Record the run into `t` (work requests, inbound messages; packets at level `packets`).
  void enable_trace(results::Trace& t);
  /// The run's trace (null: not tracing) and the process id of position `i`'s node in it.
  results::Trace* trace() const { return trace_; }
  std::uint32_t trace_pid(std::size_t i) const;
  /// The run seed: components derive their own random streams from it.
  std::uint64_t seed() const { return seed_; }
  simgrid::s4u::Host* kernel_host() const { return hosts_.at(0); }

private:
  /// The node at `i`, which must be of kind `want`.
  const Node& checked(std::size_t i, std::string_view want) const;
  Node& checked(std::size_t i, std::string_view want)
  {
    return const_cast<Node&>(static_cast<const Cluster&>(*this).checked(i, want));
  }
  /// A new queue pair: its numbers on `from` and on `to`.
  std::pair<QpId, QpId> add_qp_pair(std::size_t from, std::size_t to);
  /// A new TCP session between `from` and `to`: its numbers on `from` and on `to` (a config error at max_sessions).
  std::pair<QpId, QpId> open_sessions(std::size_t from, std::size_t to);
  PlatformConfig cfg_;
  Scheduler& sched_;
  std::uint64_t seed_;
  topo::Topology topo_;
  std::vector<simgrid::s4u::Host*> hosts_;
  std::unique_ptr<net::Fabric> fabric_;
  const NodeKindRegistry& known_;
  std::vector<std::unique_ptr<Node>> nodes_; ///< one per host position
  // Connections by (from, to) position, looked up per message: in an open-addressing index keyed from << 32 | to
  // (an ordered map of the million pairs of a 1,024-rank all-to-all walked 20 levels per look-up, a hashed one
  // cost 2 % of a 256-rank all-to-all in cache misses).
  // (positions are below 2^16: topology.hosts' limit)
  static std::uint64_t pair_key(std::size_t from, std::size_t to) { return std::uint64_t{from} << 32 | to; }
  /// own_connection's sessions: keyed apart from connection()'s (positions are below 2^16).
  static std::uint64_t own_key(std::size_t from, std::size_t to) { return pair_key(from, to) | std::uint64_t{1} << 63; }
  FlatIndex qps_;
  FlatIndex sessions_;
  std::string transport_report() const;
  std::shared_ptr<DataPlane> data_; ///< (shared: its deleter comes with it, so the hub needs no DataPlane)
  results::Trace* trace_ = nullptr;
};

} // namespace nafsim::nodes
