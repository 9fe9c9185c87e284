#include "nodes/fpga/FpgaNode.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace nafsim::nodes {

FpgaNode::FpgaNode(net::HostId id, const FpgaNodeConfig& cfg, Scheduler& sched, net::Fabric& fabric,
                   simgrid::s4u::Host* host)
    : Node(kKind)
    , id_(id)
    , cfg_(cfg)
    , sched_(sched)
    , host_(host)
    , memory_(cfg.device_memory, cfg.pcie, cfg.mmu, cfg.clock)
    , poe_(id, cfg.poe, cfg.rdma, sched, fabric, memory_, *this)
{
  memory_.follow(sched);
  if (cfg.transport == Transport::Connectionless) {
    lant_ = std::make_unique<LantNi>(id, cfg.connectionless, cfg.clock, sched, fabric, memory_);
    fabric.attach(id, lant_.get());
  } else if (cfg.transport == Transport::Tcp) {
    tcp_ = std::make_unique<TcpPoe>(id, cfg.poe, cfg.tcp, sched, fabric, memory_, *this, kTcpBufferBase);
    fabric.attach(id, tcp_.get());
  } else if (cfg.transport == Transport::Udp) {
    udp_ = std::make_unique<UdpPoe>(id, cfg.poe, cfg.udp, sched, fabric, memory_, *this);
    fabric.attach(id, udp_.get());
  } else if (cfg.classifier.enabled) {
    host_net_   = std::make_unique<HostNetStack>(id, cfg.classifier, cfg.qdma, sched, fabric, memory_);
    classifier_ = std::make_unique<PacketClassifier>(cfg.classifier, cfg.clock, sched, poe_, *host_net_);
    fabric.attach(id, classifier_.get());
  } else {
    fabric.attach(id, &poe_);
  }
}

void FpgaNode::set_trace(results::Trace& t, std::uint32_t pid)
{
  if (lant_)
    lant_->set_trace(&t, pid);
  else
    poe_.set_trace(&t, pid);
}

Poe& FpgaNode::transport()
{
  if (tcp_)
    return *tcp_;
  if (udp_)
    return *udp_;
  return poe_;
}

void FpgaNode::attach_cclo(std::unique_ptr<Cclo> c)
{
  cclo_ = std::move(c);
  if (!lant_)
    return; // the RoCE POE reports through on_completion / on_inbound
  lant_->set_local_hook([this](std::uint64_t command) {
    roce::Completion done;
    done.wr_id = command;
    return cclo_->on_completion(done);
  });
  lant_->set_receive_hook([this](const ReceiveNotice& n) {
    roce::InboundMessage m;
    m.verb       = n.message ? roce::Verb::Send : roce::Verb::Write;
    m.msg        = n.msg;
    m.addr       = n.base;
    m.bytes      = n.bytes;
    m.recv_wr_id = n.recv_id;
    m.header     = n.header;
    return cclo_->on_inbound(n.src, m);
  });
}

SimTime host_driver_copy(ActorContext& ctx, MemorySystem& memory, const HostDriverConfig& d, std::uint64_t bytes,
                         bool to_host)
{
  static const std::uint32_t overhead = cause_what("host driver", "copy call overhead");
  static const std::uint32_t dma      = cause_what("host driver", "DMA between host and FPGA memory");
  ctx.sleep_for(to_host ? d.to_host_overhead : d.to_device_overhead, CauseLabel{overhead});
  if (bytes > 0)
    ctx.sleep_until(to_host ? memory.dma_to_host(ctx.now(), Bytes{bytes}, d.to_host_rate)
                            : memory.dma_to_device(ctx.now(), Bytes{bytes}, d.to_device_rate),
                    CauseLabel{dma});
  return ctx.now();
}

SimTime FpgaNode::driver_copy(ActorContext& ctx, std::uint64_t bytes, bool to_host)
{
  return host_driver_copy(ctx, memory_, cfg_.host_driver, bytes, to_host);
}

void FpgaNode::wake_waiters()
{
  for (ActorId a : waiters_)
    sched_.wake(a);
  waiters_.clear();
}

void FpgaNode::on_completion(QpId, const roce::Completion& c)
{
  if (cclo_ && cclo_->on_completion(c))
    return;
  completions_.push_back(c);
  wake_waiters();
}

void FpgaNode::on_inbound(QpId qp, const roce::InboundMessage& m)
{
  if (cclo_ && cclo_->on_inbound(qp, m))
    return;
  inbound_.push_back(m);
  wake_waiters();
}

PoeListener::Late FpgaNode::inbound_delay(QpId, const roce::InboundMessage& m) const
{
  return cclo_ ? cclo_->parse_delay(m) : Late{};
}

void FpgaNode::on_inbound_late(QpId, const roce::InboundMessage& m, SimTime due)
{
  cclo_->on_inbound_parsed(m, due); // (a delay comes only from the CCLO, for a message it takes)
}

template <class T, class Match>
T FpgaNode::take(ActorContext& ctx, std::deque<T>& from, Match match, const WaitReason& what)
{
  auto find = [&] { return std::find_if(from.begin(), from.end(), match); };
  while (find() == from.end()) {
    waiters_.push_back(ctx.id());
    ctx.block(what);
  }
  auto it = find();
  T v     = std::move(*it);
  from.erase(it);
  return v;
}

roce::Completion FpgaNode::wait_completion(ActorContext& ctx, std::uint64_t wr_id)
{
  return take(ctx, completions_, [wr_id](auto const& c) { return c.wr_id == wr_id; },
              WaitReason([this, wr_id] { return fmt::format("node {}: completion of work request {}", id_, wr_id); }));
}

roce::Completion FpgaNode::wait_any_completion(ActorContext& ctx)
{
  return take(ctx, completions_, [](auto const&) { return true; },
              WaitReason([this] { return fmt::format("node {}: a work-request completion", id_); }));
}

roce::InboundMessage FpgaNode::wait_inbound(ActorContext& ctx)
{
  return take(ctx, inbound_, [](auto const&) { return true; },
              WaitReason([this] { return fmt::format("node {}: an incoming message", id_); }));
}

void FpgaNode::require_rdma(const std::string& user) const
{
  if (cfg_.transport != Transport::Roce)
    throw config::ConfigError("", "/platform/node/fpga/transport",
                              fmt::format("the {} runs over the RoCE POE, but the nodes run {}; set transport to 'roce' (the "
                                          "CCLO's `collective` workload also runs over tcp and udp; the `connectionless` "
                                          "workload over connectionless)",
                                          user, config::enum_name(cfg_.transport)));
}

} // namespace nafsim::nodes
