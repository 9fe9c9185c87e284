#include "nodes/reconic/Classifier.hpp"

#include "protocols/roce/Wire.hpp"

#include <fmt/format.h>

namespace nafsim::nodes {

// ---------------------------------------------------------------------------------------------
// The host's software stack.

HostNetStack::HostNetStack(net::HostId host, const ClassifierConfig& cfg, const QdmaConfig& qdma, Scheduler& sched,
                           net::Fabric& fabric, MemorySystem& memory)
    : host_(host), cfg_(cfg), qdma_(qdma), sched_(sched), fabric_(fabric), memory_(memory)
{
}

std::uint64_t HostNetStack::send(net::HostId dst, std::uint64_t bytes)
{
  const std::uint64_t msg  = ++next_msg_;
  const std::uint64_t per  = payload_per_packet();
  const auto fragments     = static_cast<std::uint32_t>(bytes == 0 ? 1 : (bytes + per - 1) / per);
  const SimTime now        = sched_.now();
  for (std::uint32_t i = 0; i < fragments; ++i) {
    const auto len = static_cast<std::uint32_t>(std::min<std::uint64_t>(per, bytes - std::uint64_t{i} * per));
    // The send call's CPU work for this datagram; then (kTxCpu) the QDMA's host-to-card stream reads it.
    tx_cpu_free_ = std::max(tx_cpu_free_, now) + cfg_.tx_packet_cost;
    net::Packet p;
    p.src        = host_;
    p.dst        = dst;
    p.wire_bytes = fabric_.config().ethernet.wire_bytes(cfg_.headers.count + len);
    p.flow       = (std::uint64_t{1} << 62) | msg; // its own ECMP identity, apart from the RDMA queue pairs
    p.seq        = i;
    p.body       = Datagram{msg, bytes, i, fragments, len};
    cpu_.push_back(std::move(p));
    sched_.at(tx_cpu_free_, this, kTxCpu);
  }
  return msg;
}

void HostNetStack::deliver(net::Packet&& p)
{
  if (p.corrupted)
    return; // the MAC's FCS check
  ++packets_received_;
  auto* d = p.body.get<Datagram>();
  if (!d)
    throw SimulationError(fmt::format("host {}: the classifier passed the host's network stack a packet from host {} "
                                      "that is neither RoCE nor one of its datagrams",
                                      host_, p.src));
  // The QDMA's card-to-host stream writes it to host memory; the host's core then runs the driver and the stack.
  Stream w     = memory_.write(Engine::DmaWrite, sched_.now(), kHostMemory, Bytes{cfg_.headers.count + d->len},
                               qdma_.c2h_rate);
  rx_cpu_free_ = std::max(rx_cpu_free_, w.last) + cfg_.rx_packet_cost;
  rx_.push_back(std::move(p));
  sched_.at(rx_cpu_free_, this, kRxDone);
}

std::optional<net::Packet> HostNetStack::pull()
{
  if (ready_.empty())
    return std::nullopt;
  net::Packet p = std::move(ready_.front());
  ready_.pop_front();
  ++packets_sent_;
  return p;
}

void HostNetStack::on_event(std::uint32_t kind, std::uint64_t)
{
  switch (kind) {
    case kTxCpu: {
      // The CPU has posted the datagram: the stream reads it from host memory across PCIe (shared with the RDMA
      // engine's host-memory reads), in the order posted.
      net::Packet p = std::move(cpu_.front());
      cpu_.pop_front();
      auto const& d = *p.body.get<Datagram>();
      Stream s      = memory_.read(Engine::DmaRead, sched_.now(), kHostMemory, Bytes{cfg_.headers.count + d.len},
                                   qdma_.h2c_rate);
      staging_.push_back(std::move(p));
      sched_.at(s.last, this, kTxReady);
      return;
    }
    case kTxReady: {
      // Datagrams cross PCIe in the order they were sent (one CPU, one stream): the front is the one ready.
      ready_.push_back(std::move(staging_.front()));
      staging_.pop_front();
      fabric_.tx_ready(host_);
      return;
    }
    case kRxDone: {
      net::Packet p = std::move(rx_.front());
      rx_.pop_front();
      auto const& d = *p.body.get<Datagram>();
      auto key      = std::pair{p.src, d.msg};
      if (++partial_[key] == d.fragments) {
        partial_.erase(key);
        received_.push_back(Received{p.src, d.msg, d.bytes, sched_.now()});
        if (hook_)
          hook_(received_.back());
      }
      return;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The classifier and the arbiter.

PacketClassifier::PacketClassifier(const ClassifierConfig& cfg, Hertz clock, Scheduler& sched, net::Endpoint& rdma,
                                   net::Endpoint& host)
    : parse_(SimTime::from_seconds(static_cast<double>(cfg.parse_cycles) / clock.hz))
    , sched_(sched)
    , rdma_(rdma)
    , host_(host)
{
}

bool PacketClassifier::is_roce(const net::Packet& p)
{
  return p.body.holds<roce::Wire>();
}

void PacketClassifier::deliver(net::Packet&& p)
{
  parsing_.push_back(std::move(p));
  sched_.after(parse_, this, 0);
}

void PacketClassifier::on_event(std::uint32_t, std::uint64_t)
{
  net::Packet p = std::move(parsing_.front());
  parsing_.pop_front();
  if (is_roce(p)) {
    ++to_rdma_;
    rdma_.deliver(std::move(p));
  } else {
    ++to_host_;
    host_.deliver(std::move(p));
  }
}

std::optional<net::Packet> PacketClassifier::pull()
{
  // Round robin between the two sources: the one whose turn it is first, the other when it has nothing.
  for (int k = 0; k < 2; ++k) {
    const bool host = host_turn_;
    host_turn_      = !host_turn_;
    if (auto p = host ? host_.pull() : rdma_.pull()) {
      ++(host ? from_host_ : from_rdma_);
      return p;
    }
  }
  return std::nullopt;
}

} // namespace nafsim::nodes
