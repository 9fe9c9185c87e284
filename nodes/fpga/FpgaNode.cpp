#include "nodes/fpga/FpgaNode.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace nafsim::nodes {

FpgaNode::FpgaNode(net::HostId id, const FpgaNodeConfig& cfg, Scheduler& sched, net::Fabric& fabric,
                   simgrid::s4u::Host* host)
    : id_(id)
    , cfg_(cfg)
    , sched_(sched)
    , host_(host)
    , memory_(cfg.device_memory, cfg.pcie)
    , poe_(id, cfg.poe, cfg.rdma, sched, fabric, memory_, *this)
{
  if (cfg.transport == Transport::Connectionless) {
    lant_ = std::make_unique<LantNi>(id, cfg.connectionless, cfg.clock, sched, fabric, memory_);
    fabric.attach(id, lant_.get());
  } else {
    fabric.attach(id, &poe_);
  }
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

roce::Completion FpgaNode::wait_completion(ActorContext& ctx, std::uint64_t wr_id)
{
  auto find = [&] {
    return std::find_if(completions_.begin(), completions_.end(), [&](auto const& c) { return c.wr_id == wr_id; });
  };
  while (find() == completions_.end()) {
    waiters_.push_back(ctx.id());
    ctx.block(fmt::format("node {}: completion of work request {}", id_, wr_id));
  }
  auto it            = find();
  roce::Completion c = *it;
  completions_.erase(it);
  return c;
}

roce::InboundMessage FpgaNode::wait_inbound(ActorContext& ctx)
{
  while (inbound_.empty()) {
    waiters_.push_back(ctx.id());
    ctx.block(fmt::format("node {}: an incoming message", id_));
  }
  roce::InboundMessage m = inbound_.front();
  inbound_.pop_front();
  return m;
}

} // namespace nafsim::nodes
