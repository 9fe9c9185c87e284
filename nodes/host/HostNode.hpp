#pragma once
// A host CPU with a commodity RDMA NIC (ConnectX-5 class): the NIC is a RoCEv2 RC engine whose
// buffers all live in host memory, reached over its PCIe link; the CPU runs one MPI rank
// (MpiProcess), created on first use.

#include "nodes/host/MpiProcess.hpp"
#include "nodes/platform/Node.hpp"
#include "nodes/transport/TcpPoe.hpp"
#include "nodes/platform/PlatformConfig.hpp"

namespace simgrid::s4u {
class Host;
}

namespace nafsim::nodes {

/// A library other than MPI driving the host's NIC (e.g. Portals over RoCE SENDs): receives its notices.
class HostLibrary {
public:
  virtual ~HostLibrary() = default;
  virtual void on_completion(const roce::Completion& c) = 0;
  virtual void on_inbound(net::HostId src, const roce::InboundMessage& m) = 0;
};

class HostNode final : public Node, public PoeListener {
public:
  /// Its kind's name (platform.node.kind).
  static constexpr std::string_view kKind = kHostKind;
  HostNode(net::HostId id, const NodeConfig& cfg, Scheduler& sched, net::Fabric& fabric, simgrid::s4u::Host* host);

  net::HostId id() const { return id_; }
  simgrid::s4u::Host* host() const { return host_; }
  const HostNodeConfig& config() const { return cfg_; }
  RdmaPoe& nic() { return nic_; }
  const RdmaPoe& nic() const { return nic_; }
  RdmaPoe& rdma() override { return nic_; }
  const RdmaPoe& rdma() const override { return nic_; }
  /// What the MPI library runs over: the NIC's RDMA, or the kernel TCP stack (transport = tcp).
  Poe& transport() override { return tcp_ ? static_cast<Poe&>(*tcp_) : nic_; }
  Transport transport_kind() const override { return cfg_.transport; }
  std::string config_path() const override { return "/platform/node/host"; }
  unsigned initial_psn() const override { return cfg_.initial_psn; }
  TcpPoe* tcp() override { return tcp_.get(); }
  const TcpPoe* tcp() const override { return tcp_.get(); }
  MemorySystem& memory() { return memory_; }
  const MemorySystem& memory() const override { return memory_; }
  void set_trace(results::Trace& t, std::uint32_t pid) override { nic_.set_trace(&t, pid); }
  /// The FPGA card attached to this host over PCIe (software staging FPGA data: the F2F baseline).
  MemorySystem& attached_fpga() { return fpga_memory_; }
  const FpgaNodeConfig& attached_fpga_config() const { return fpga_cfg_; }
  MpiProcess* mpi() { return mpi_.get(); }
  const MpiProcess* mpi() const { return mpi_.get(); }
  void attach_mpi(std::unique_ptr<MpiProcess> p) { mpi_ = std::move(p); }
  bool data_engine_made() const override { return mpi_ != nullptr; }
  /// Hand the NIC's notices to `lib` instead (not owned; it must outlive the run).
  void attach_library(HostLibrary* lib) { library_ = lib; }

  void on_completion(QpId qp, const roce::Completion& c) override;
  void on_inbound(QpId qp, const roce::InboundMessage& m) override;

private:
  net::HostId id_;
  HostNodeConfig cfg_;
  FpgaNodeConfig fpga_cfg_;
  simgrid::s4u::Host* host_;
  MemorySystem memory_;
  MemorySystem fpga_memory_;
  RdmaPoe nic_;
  std::unique_ptr<TcpPoe> tcp_;
  std::unique_ptr<MpiProcess> mpi_;
  HostLibrary* library_ = nullptr;
};

} // namespace nafsim::nodes
