#pragma once
// What every node at a host position of the topology offers the cluster around it, whatever its kind: its
// network engines (for connections, traces and nodes.csv) and its memory. A kind's own interface (the FPGA's
// CCLO, the host's MPI library) is reached through Cluster::at<Kind>(i).

#include "nodes/platform/TransportKind.hpp"

#include <string>
#include <string_view>

namespace nafsim::results {
class Trace;
}

namespace nafsim::nodes {

class MemorySystem;
class RdmaPoe;
class Poe;
class TcpPoe;
class UdpPoe;
class LantNi;

class Node {
public:
  explicit Node(std::string_view kind) : kind_(kind) {}
  virtual ~Node() = default;
  Node(const Node&)            = delete;
  Node& operator=(const Node&) = delete;

  /// The registered kind's name (`platform.node.kind`).
  std::string_view kind() const { return kind_; }
  /// Its RDMA engine (RoCE queue pairs: the FPGA's POE, the host's NIC).
  virtual RdmaPoe& rdma()             = 0;
  virtual const RdmaPoe& rdma() const = 0;
  /// The memory its engines read and write.
  virtual const MemorySystem& memory() const = 0;
  /// The transport its messages run over and the engine carrying it; where its parameters are (for errors:
  /// "/platform/node/fpga").
  virtual Transport transport_kind() const = 0;
  virtual Poe& transport()                 = 0;
  virtual std::string config_path() const = 0;
  /// The first PSN of its queue pairs.
  virtual unsigned initial_psn() const = 0;
  /// Its engines by transport, when it runs them.
  virtual TcpPoe* tcp() { return nullptr; }
  virtual const TcpPoe* tcp() const { return nullptr; }
  virtual const UdpPoe* udp() const { return nullptr; }
  virtual LantNi* lant() { return nullptr; }
  /// Throw a ConfigError naming its parameters unless its RDMA engine carries queue pairs (`user`: who needs them).
  virtual void require_rdma(const std::string& user) const { (void)user; }
  /// Its engine that reads and writes real bytes (the FPGA's CCLO, the host's MPI library) has been made: the run's
  /// DataPlane (Cluster::carry_data) must come before.
  virtual bool data_engine_made() const { return false; }
  /// Bytes its device memory read and wrote (nodes.csv; 0 without device memory).
  virtual std::uint64_t device_bytes_read() const { return 0; }
  virtual std::uint64_t device_bytes_written() const { return 0; }
  /// Record its traffic into track `pid` of `t`.
  virtual void set_trace(results::Trace& t, std::uint32_t pid) = 0;

private:
  std::string_view kind_; ///< a registered kind's name (static storage)
};

} // namespace nafsim::nodes
