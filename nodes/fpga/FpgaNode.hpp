#pragma once
// A network-attached FPGA: device memory, the RDMA POE on its 100 GbE port, and (from the CCLO
// issue on) the collective engine. Actors running on its host use the verbs-style calls below.

#include "nodes/cclo/Cclo.hpp"
#include "nodes/fpga/FpgaNodeConfig.hpp"
#include "nodes/lant/LantNi.hpp"
#include "nodes/platform/Node.hpp"
#include "nodes/rdma/RdmaPoe.hpp"
#include "nodes/transport/TcpPoe.hpp"
#include "nodes/transport/UdpPoe.hpp"

#include <deque>
#include <vector>

namespace simgrid::s4u {
class Host;
}

namespace nafsim::nodes {

/// A host-driver copy of `bytes` between an FPGA card (`memory`) and host memory, by the calling actor:
/// the call's fixed cost, then the DMA over PCIe. Returns when it is done.
SimTime host_driver_copy(ActorContext& ctx, MemorySystem& memory, const HostDriverConfig& d, std::uint64_t bytes,
                         bool to_host);

class FpgaNode final : public Node, public PoeListener {
public:
  /// Its kind's name (platform.node.kind).
  static constexpr std::string_view kKind = kFpgaKind;
  FpgaNode(net::HostId id, const FpgaNodeConfig& cfg, Scheduler& sched, net::Fabric& fabric,
           simgrid::s4u::Host* host);

  net::HostId id() const { return id_; }
  simgrid::s4u::Host* host() const { return host_; }
  const FpgaNodeConfig& config() const { return cfg_; }
  /// The collective engine, once attached (cclo_of, FpgaCluster.hpp).
  Cclo* cclo() { return cclo_.get(); }
  const Cclo* cclo() const { return cclo_.get(); }
  /// Attach the collective engine; notices of the node's transport addressed to it go to it.
  void attach_cclo(std::unique_ptr<Cclo> c);
  RdmaPoe& poe() { return poe_; }
  RdmaPoe& rdma() override { return poe_; }
  const RdmaPoe& rdma() const override { return poe_; }
  /// The connectionless NI (transport = connectionless), else null.
  LantNi* lant() override { return lant_.get(); }
  const LantNi* lant() const { return lant_.get(); }
  const RdmaPoe& poe() const { return poe_; }
  /// The engine the node's network port runs for the CCLO: the RoCE POE, the TCP or the UDP engine
  /// (the connectionless NI has its own interface, lant()).
  Poe& transport() override;
  Transport transport_kind() const override { return cfg_.transport; }
  std::string config_path() const override { return "/platform/node/fpga"; }
  unsigned initial_psn() const override { return cfg_.initial_psn; }
  TcpPoe* tcp() override { return tcp_.get(); }
  const TcpPoe* tcp() const override { return tcp_.get(); }
  UdpPoe* udp() { return udp_.get(); }
  const UdpPoe* udp() const override { return udp_.get(); }
  void require_rdma(const std::string& user) const override;
  bool data_engine_made() const override { return cclo_ != nullptr; }
  std::uint64_t device_bytes_read() const override { return memory_.device_bytes_read(); }
  std::uint64_t device_bytes_written() const override { return memory_.device_bytes_written(); }
  void set_trace(results::Trace& t, std::uint32_t pid) override;
  /// RecoNIC's packet classifier and the host's network stack behind it (classifier.enabled), else null.
  PacketClassifier* classifier() { return classifier_.get(); }
  const PacketClassifier* classifier() const { return classifier_.get(); }
  HostNetStack* host_net() { return host_net_.get(); }
  const HostNetStack* host_net() const { return host_net_.get(); }
  /// Device memory holding the TCP engine's transmit (retransmission) buffers.
  static constexpr std::uint64_t kTcpBufferBase = 1ULL << 42;
  MemorySystem& memory() { return memory_; }
  const MemorySystem& memory() const override { return memory_; }

  /// Copy `bytes` between FPGA and host memory through the host driver (the calling actor is the
  /// software doing it): the call's fixed cost, then the DMA over PCIe. Returns when it is done.
  SimTime driver_copy(ActorContext& ctx, std::uint64_t bytes, bool to_host);
  /// Block the calling actor until the completion of work request `wr_id` arrives; returns it.
  roce::Completion wait_completion(ActorContext& ctx, std::uint64_t wr_id);
  /// Block the calling actor until a completion arrives; returns the oldest.
  roce::Completion wait_any_completion(ActorContext& ctx);
  /// Block the calling actor until an incoming message arrives; returns the oldest.
  roce::InboundMessage wait_inbound(ActorContext& ctx);

  void on_completion(QpId qp, const roce::Completion& c) override;
  void on_inbound(QpId qp, const roce::InboundMessage& m) override;
  Late inbound_delay(QpId qp, const roce::InboundMessage& m) const override;
  void on_inbound_late(QpId qp, const roce::InboundMessage& m, SimTime due) override;

private:
  void wake_waiters();
  /// Block the calling actor until `from` holds an element `match` accepts; removes and returns the first.
  template <class T, class Match>
  T take(ActorContext& ctx, std::deque<T>& from, Match match, const WaitReason& what);

  net::HostId id_;
  FpgaNodeConfig cfg_;
  Scheduler& sched_;
  simgrid::s4u::Host* host_;
  MemorySystem memory_;
  RdmaPoe poe_;
  std::unique_ptr<LantNi> lant_;
  std::unique_ptr<TcpPoe> tcp_;
  std::unique_ptr<UdpPoe> udp_;
  std::unique_ptr<HostNetStack> host_net_;
  std::unique_ptr<PacketClassifier> classifier_;
  std::unique_ptr<Cclo> cclo_;
  std::deque<roce::Completion> completions_;
  std::deque<roce::InboundMessage> inbound_;
  std::vector<ActorId> waiters_;
};

} // namespace nafsim::nodes
