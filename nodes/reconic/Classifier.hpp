#pragma once
// RecoNIC's streaming compute example, the packet classifier (RecoNIC III-C, IV-D), and the non-RDMA path
// it feeds. Between the MAC and the rest of the card, a parser pipeline (P4, VitisNetP4) sorts incoming
// packets: RoCEv2 packets go to the RDMA engine, every other packet goes through the QDMA's card-to-host
// stream to the host's network driver (onic-driver) and the kernel's stack. Outgoing, an arbiter takes
// the next packet from the RDMA engine or from the host's host-to-card stream, in turn when both have
// one. The host's stack (HostNetStack) sends and receives datagrams in software: a per-packet CPU cost
// on each side, the packet's bytes across PCIe at the QDMA's stream rates (sharing the PCIe directions
// with the RDMA engine's host-memory traffic).

#include "nodes/memory/MemorySystem.hpp"
#include "nodes/reconic/ErnicConfig.hpp"
#include "simcore/engine/Fifo.hpp"
#include "simcore/engine/Scheduler.hpp"
#include "simcore/net/Endpoint.hpp"
#include "simcore/net/Fabric.hpp"

#include <deque>
#include <functional>
#include <map>
#include <vector>

namespace nafsim::nodes {

struct ClassifierConfig {
  bool enabled              = false;
  std::uint32_t parse_cycles = 20;
  Bytes packet{1500};
  Bytes headers{28};
  SimTime tx_packet_cost = SimTime::ns(2000);
  SimTime rx_packet_cost = SimTime::ns(1500);
  template <class V> void describe(V& v)
  {
    v.field("enabled", enabled,
            "put RecoNIC's packet classifier between the MAC and the RDMA engine (transport roce): RoCEv2 packets "
            "go to the engine, the rest to the host's network stack through the QDMA");
    v.field("parse_cycles", parse_cycles, "cycles of the classifier's parser pipeline, every incoming packet",
            config::Limits::between(0, 100000));
    v.field("packet", packet, "IP packet size of the host stack's datagrams (the onic interface's MTU)",
            config::Limits::between(128, 9216));
    v.field("headers", headers, "IPv4 (20) + UDP (8) header bytes per datagram", config::Limits::between(28, 120));
    v.field("tx_packet_cost", tx_packet_cost,
            "host CPU time to send one datagram (socket call, kernel UDP/IP, onic driver descriptor); one core, "
            "packets one after another");
    v.field("rx_packet_cost", rx_packet_cost,
            "host CPU time to receive one datagram (interrupt or NAPI poll, onic driver, kernel UDP/IP, socket "
            "delivery); one core, packets one after another");
  }
  config::FieldProblem check() const
  {
    if (headers.count >= packet.count)
      return {"packet", "a " + format_bytes(packet) + " datagram holds no payload after its " +
                            format_bytes(headers) + " of headers: raise packet"};
    return {};
  }
};

/// The host's software network stack behind the classifier: messages sent as UDP datagrams, received
/// and reassembled (no acknowledgement, no retransmission: a lost datagram loses its message).
class HostNetStack final : public net::Endpoint, public EventHandler {
public:
  HostNetStack(net::HostId host, const ClassifierConfig& cfg, const QdmaConfig& qdma, Scheduler& sched,
               net::Fabric& fabric, MemorySystem& memory);
  /// The host sends `bytes` to host `dst` now; returns the message's number.
  std::uint64_t send(net::HostId dst, std::uint64_t bytes);
  struct Received {
    net::HostId src     = 0;
    std::uint64_t msg   = 0;
    std::uint64_t bytes = 0;
    SimTime done; ///< the stack has its last datagram
  };
  const std::vector<Received>& received() const { return received_; }
  /// Called as each message is received complete (the host's application reading its socket).
  void set_receive_hook(std::function<void(const Received&)> hook) { hook_ = std::move(hook); }
  std::uint64_t packets_sent() const { return packets_sent_; }
  std::uint64_t packets_received() const { return packets_received_; }
  std::uint64_t payload_per_packet() const { return cfg_.packet.count - cfg_.headers.count; }

  /// The packet body.
  struct Datagram {
    std::uint64_t msg = 0;
    std::uint64_t bytes = 0; ///< the whole message
    std::uint32_t index = 0;
    std::uint32_t fragments = 0;
    std::uint32_t len = 0;
  };

  // net::Endpoint
  void deliver(net::Packet&& p) override;
  std::optional<net::Packet> pull() override;
  bool may_have_more() const override { return !ready_.empty(); } ///< the next comes with its kTxReady
  bool sends_frames() const override { return true; } ///< (send(): ethernet.wire_bytes)
  // EventHandler
  void on_event(std::uint32_t kind, std::uint64_t arg) override;

private:
  enum EventKind : std::uint32_t { kTxCpu, kTxReady, kRxDone };
  net::HostId host_;
  ClassifierConfig cfg_;
  QdmaConfig qdma_;
  Scheduler& sched_;
  net::Fabric& fabric_;
  MemorySystem& memory_;
  std::uint64_t next_msg_ = 0;
  SimTime tx_cpu_free_, rx_cpu_free_;
  Fifo<net::Packet> cpu_;     ///< being sent by the host's core, in order
  Fifo<net::Packet> staging_; ///< crossing PCIe, in the order they will be ready
  Fifo<net::Packet> ready_;   ///< on the card, for the arbiter
  Fifo<net::Packet> rx_;      ///< crossing PCIe and the CPU, in order
  std::map<std::pair<net::HostId, std::uint64_t>, std::uint32_t> partial_;
  std::vector<Received> received_;
  std::function<void(const Received&)> hook_;
  std::uint64_t packets_sent_ = 0, packets_received_ = 0;
};

/// The classifier and the transmit arbiter: attached to the host's network port in place of the RDMA
/// engine.
class PacketClassifier final : public net::Endpoint, public EventHandler {
public:
  PacketClassifier(const ClassifierConfig& cfg, Hertz clock, Scheduler& sched, net::Endpoint& rdma,
                   net::Endpoint& host);
  std::uint64_t to_rdma() const { return to_rdma_; }
  std::uint64_t to_host() const { return to_host_; }
  std::uint64_t from_rdma() const { return from_rdma_; }
  std::uint64_t from_host() const { return from_host_; }
  /// RoCEv2 packets: what the parser recognises (a BTH behind UDP port 4791).
  static bool is_roce(const net::Packet& p);

  // net::Endpoint
  void deliver(net::Packet&& p) override;
  std::optional<net::Packet> pull() override;
  bool may_have_more() const override { return rdma_.may_have_more() || host_.may_have_more(); }
  bool sends_frames() const override { return true; } ///< (its RoCE engine and host stack both do)
  std::uint32_t longest_wire() const override { return rdma_.longest_wire(); } ///< (its RoCE engine's trains)
  // EventHandler
  void on_event(std::uint32_t kind, std::uint64_t arg) override;

private:
  SimTime parse_;
  Scheduler& sched_;
  net::Endpoint& rdma_;
  net::Endpoint& host_;
  Fifo<net::Packet> parsing_;
  bool host_turn_          = false;
  std::uint64_t to_rdma_   = 0, to_host_ = 0, from_rdma_ = 0, from_host_ = 0;
};

} // namespace nafsim::nodes
