#include "nodes/pac/PortalsMpi.hpp"

#include "protocols/collectives/MpiOrder.hpp"

#include <fmt/format.h>
#include <optional>

namespace nafsim::nodes {

using coll::OpKind;

struct PortalsMpi::Call {
  const coll::Schedule* s = nullptr;
  std::optional<coll::MpiOrder> order; ///< when each op starts, its messages' numbers
  std::size_t remaining = 0;
  ActorId actor         = 0;
  bool waiting          = false;
};

PortalsMpi::PortalsMpi(int rank, PortalsNi& ni, Scheduler& s, NodeClock& clock, BitsPerSecond combine_rate,
                       BitsPerSecond copy_rate)
    : rank_(rank), ni_(ni), sched_(s), clock_(clock), combine_rate_(combine_rate), copy_rate_(copy_rate)
{
}

portals::MatchBits PortalsMpi::bits(int, std::uint64_t seq) const
{
  // The source is matched on its own; the k-th message between two ranks meets the k-th receive (MPI's
  // non-overtaking order on one tag and communicator). The top bit stays clear: windows use it.
  return seq & ((portals::MatchBits{1} << 62) - 1);
}

void PortalsMpi::local(SimTime cost, std::function<void()> then)
{
  const SimTime start = std::max(clock_.now(), cpu_free_);
  cpu_free_           = start + cost;
  clock_.at(cpu_free_, std::move(then));
}

void PortalsMpi::blocking(ActorContext& ctx, const char* what, const std::function<void(PortalsNi::Done)>& start)
{
  bool done     = false;
  const auto id = ctx.id();
  start([&done, this, id] {
    done = true;
    sched_.wake(id);
  });
  while (!done)
    ctx.block(WaitReason([this, what] {
      return fmt::format("MPI rank {} over Portals: {} not complete ({} Portals operations outstanding)", rank_, what,
                         ni_.outstanding());
    }));
}

void PortalsMpi::send(ActorContext& ctx, int peer, std::uint64_t bytes)
{
  const auto b = bits(peer, ++out_seq_[peer]);
  blocking(ctx, "MPI_Send", [&](PortalsNi::Done d) { ni_.isend(peer, b, bytes, std::move(d)); });
}

void PortalsMpi::recv(ActorContext& ctx, int peer, std::uint64_t bytes)
{
  const auto b = bits(peer, ++in_seq_[peer]);
  blocking(ctx, "MPI_Recv", [&](PortalsNi::Done d) { ni_.irecv(peer, b, bytes, std::move(d)); });
}

void PortalsMpi::ga_get(ActorContext& ctx, int owner, portals::MatchBits b, std::uint64_t offset, std::uint64_t bytes)
{
  blocking(ctx, "GA_Get", [&](PortalsNi::Done d) { ni_.get_window(owner, b, offset, bytes, std::move(d)); });
}

void PortalsMpi::run(ActorContext& ctx, const coll::Schedule& s)
{
  Call call;
  call.s              = &s;
  const std::size_t n = s.ops.size();
  call.remaining      = n;
  call.actor          = ctx.id();
  call.order.emplace(s, [](int r) { return r; }, out_seq_, in_seq_);
  call.order->start([&](std::uint32_t i) { issue(call, i); });
  while (call.remaining > 0) {
    call.waiting = true;
    ctx.block(WaitReason([&] {
      return fmt::format("MPI rank {} over Portals: {} of {} B ({}) with {} of {} steps outstanding", rank_,
                         coll::collective_name(s.call.collective), s.call.bytes(), coll::algorithm_name(s.algorithm),
                         call.remaining, n);
    }));
  }
}

void PortalsMpi::run(ActorContext& ctx, const coll::Schedule& s, const std::vector<int>& comm)
{
  coll::Schedule t = s;
  for (auto& op : t.ops) {
    if (op.peer >= 0)
      op.peer = comm.at(static_cast<std::size_t>(op.peer));
    if (op.peer2 >= 0)
      op.peer2 = comm.at(static_cast<std::size_t>(op.peer2));
  }
  run(ctx, t);
}

void PortalsMpi::op_done(Call& call, std::uint32_t i)
{
  call.order->done(i, [&](std::uint32_t d) { issue(call, d); });
  if (--call.remaining == 0 && call.waiting) {
    call.waiting = false;
    sched_.wake(call.actor);
  }
}

void PortalsMpi::send_posted(Call& call, std::uint32_t i)
{
  call.order->posted(i, [&](std::uint32_t d) { issue(call, d); });
}

void PortalsMpi::issue(Call& call, std::uint32_t i)
{
  const coll::Op& op = call.s->ops[i];
  const std::uint64_t eb = call.s->call.elem_bytes;
  Call* c                = &call; // the call outlives its operations: run() returns when all are done
  auto done              = [this, c, i] { op_done(*c, i); };
  switch (op.kind) {
    case OpKind::Send:
    case OpKind::Notify: {
      const std::uint64_t b = op.kind == OpKind::Notify ? 0 : op.a.count * eb;
      ni_.isend(op.peer, bits(op.peer, c->order->send_seq(i)), b, done);
      send_posted(*c, i);
      break;
    }
    case OpKind::Recv:
    case OpKind::WaitNotify:
      ni_.irecv(op.peer, bits(op.peer, c->order->recv_seq(i)), op.kind == OpKind::WaitNotify ? 0 : op.dst.count * eb, done);
      break;
    case OpKind::RecvReduce: {
      const std::uint64_t b = op.dst.count * eb;
      ni_.irecv(op.peer, bits(op.peer, c->order->recv_seq(i)), b,
                [this, b, done] { local(transmit_time(Bytes{b}, combine_rate_), done); });
      break;
    }
    case OpKind::RecvReduceSend:
    case OpKind::RecvSend: {
      const std::uint64_t b = op.a.count * eb;
      const bool reduce     = op.kind == OpKind::RecvReduceSend;
      ni_.irecv(op.peer, bits(op.peer, c->order->recv_seq(i)), b, [this, c, i, b, reduce, done, peer2 = op.peer2] {
        local(reduce ? transmit_time(Bytes{b}, combine_rate_) : SimTime{}, [this, c, i, b, done, peer2] {
          ni_.isend(peer2, bits(peer2, c->order->send_seq(i)), b, done);
          send_posted(*c, i);
        });
      });
      break;
    }
    case OpKind::CombineSend: {
      const std::uint64_t b = op.a.count * eb;
      local(transmit_time(Bytes{b}, combine_rate_), [this, c, i, b, done, peer = op.peer] {
        ni_.isend(peer, bits(peer, c->order->send_seq(i)), b, done);
        send_posted(*c, i);
      });
      break;
    }
    case OpKind::Combine: local(transmit_time(Bytes{op.a.count * eb}, combine_rate_), done); break;
    case OpKind::Copy: local(transmit_time(Bytes{op.a.count * eb}, copy_rate_), done); break;
  }
}

} // namespace nafsim::nodes
