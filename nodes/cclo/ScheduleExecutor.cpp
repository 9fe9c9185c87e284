#include "nodes/cclo/ScheduleExecutor.hpp"

#include <fmt/format.h>

namespace nafsim::nodes {

using coll::Op;
using coll::OpKind;

void ScheduleExecutor::State::mark_done(std::size_t i)
{
  if (ops[i].done)
    return;
  ops[i].done = true;
  ++done;
  active.erase(i);
  for (auto j : dependents[i])
    if (--ops[j].deps_left == 0 && !ops[j].issued)
      active.insert(j);
}

ScheduleExecutor::ScheduleExecutor(Firmware& fw, FirmwareCall& call)
    : fw_(fw), call_(call), c_(fw.ports()), core_(fw.core()), rndzv_(call.rendezvous()), eb_(call.elem_bytes())
{
}

void ScheduleExecutor::prepare(const coll::Schedule& s)
{
  s_  = &s;
  st_ = std::make_shared<State>();
  st_->ops.resize(s.ops.size());
  st_->dependents.resize(s.ops.size());
  for (std::size_t i = 0; i < s.ops.size(); ++i) {
    for (auto d : s.ops[i].deps)
      st_->dependents[d].push_back(static_cast<std::uint32_t>(i));
    st_->ops[i].deps_left = static_cast<unsigned>(s.ops[i].deps.size());
    if (s.ops[i].deps.empty())
      st_->active.insert(i);
  }
  for (auto const& op : s.ops)
    if (op.addr_group >= 0)
      ++group_size_[{op.peer, op.addr_group}];
}

Task<> ScheduleExecutor::submit(std::size_t i, const Move& move)
{
  const CcloCall& call = call_.call();
  Move m               = move;
  m.dtype              = call.dtype;
  m.func               = call.call.func;
  m.tag                = call.tag;
  ++st_->ops[i].pending;
  ++st_->inflight;
  std::function<void()> done = [st = st_, i] {
    auto& os = st->ops[i];
    --os.pending;
    --st->inflight;
    if (os.pending == 0 && !os.await_done)
      st->mark_done(i);
  };
  co_await fw_.submit_move(m, done);
}

Task<> ScheduleExecutor::eager_out(std::size_t i, int peer, std::uint64_t count,
                                   FnRef<Move(std::uint64_t, std::uint64_t)> make_move)
{
  for (auto [off, cnt] : call_.segments(count)) {
    Move m  = make_move(off, cnt);
    m.count = cnt;
    co_await submit(i, call_.eager_to(peer, m));
  }
}

bool ScheduleExecutor::can_address(int peer) const
{
  auto it = addresses_.find(call_.host(peer));
  return (it != addresses_.end() && it->second.transfers > 0) || core_.rndzv.any(call_.address_from(peer));
}

RndzvNotice ScheduleExecutor::take_address(int peer)
{
  const std::uint32_t h = call_.host(peer);
  auto it               = addresses_.find(h);
  if (it == addresses_.end() || it->second.transfers == 0) {
    unsigned examined = 0;
    addresses_[h]     = *core_.rndzv.take(call_.address_from(peer), examined);
    it                = addresses_.find(h);
  }
  --it->second.transfers;
  return it->second;
}

bool ScheduleExecutor::uses_move(const Op& op) const
{
  return !(op.kind == OpKind::Notify || op.kind == OpKind::WaitNotify || (rndzv_ && op.kind == OpKind::Recv));
}

Task<> ScheduleExecutor::issue_send(std::size_t i, const Op& op)
{
  auto operands = [&](std::uint64_t off, std::uint64_t cnt) {
    Move m;
    m.op0 = call_.operand({op.a.buf, op.a.offset + off, cnt});
    if (op.kind == OpKind::CombineSend) {
      m.op1    = call_.operand({op.b.buf, op.b.offset + off, cnt});
      m.reduce = true;
    }
    return m;
  };
  if (rndzv_) {
    Move m  = operands(0, op.a.count);
    m.count = op.a.count;
    co_await submit(i, call_.write_to(take_address(op.peer), op.remote_offset, m));
  } else {
    co_await eager_out(i, op.peer, op.a.count, operands);
  }
}

Task<> ScheduleExecutor::issue_recv(std::size_t i, const Op& op)
{
  if (rndzv_) {
    std::pair<int, int> key{op.peer, op.addr_group};
    if (op.addr_group < 0) {
      co_await fw_.send_address(call_.host(op.peer), call_.addr(op.dst), op.dst.count * eb_);
    } else if (!announced_.count(key)) {
      announced_.insert(key);
      co_await fw_.send_address(call_.host(op.peer), call_.call().dst_addr, op.dst.count * eb_, 0, group_size_[key]);
    }
    st_->ops[i].await_done = true;
    co_return;
  }
  for (auto [off, cnt] : call_.segments(op.dst.count)) {
    Move m;
    m.op1 = call_.from_rx(op.peer);
    call_.result_to(m, {op.dst.buf, op.dst.offset + off, cnt});
    m.count = cnt;
    co_await submit(i, m);
  }
}

Task<> ScheduleExecutor::issue_recv_reduce(std::size_t i, const Op& op)
{
  for (auto [off, cnt] : call_.segments(op.dst.count)) {
    Move m;
    m.op0    = call_.operand({op.a.buf, op.a.offset + off, cnt});
    m.op1    = call_.from_rx(op.peer);
    m.reduce = true;
    call_.result_to(m, {op.dst.buf, op.dst.offset + off, cnt});
    m.count = cnt;
    co_await submit(i, m);
  }
}

Task<> ScheduleExecutor::issue_forward(std::size_t i, const Op& op)
{
  co_await eager_out(i, op.peer2, op.a.count, [&](std::uint64_t off, std::uint64_t cnt) {
    Move m;
    m.op1 = call_.from_rx(op.peer);
    if (op.kind == OpKind::RecvReduceSend) {
      m.op0    = call_.operand({op.a.buf, op.a.offset + off, cnt});
      m.reduce = true;
    }
    return m;
  });
}

Task<> ScheduleExecutor::issue_local(std::size_t i, const Op& op)
{
  Move m;
  m.op0 = call_.operand(op.a);
  if (op.kind == OpKind::Combine) {
    m.op1    = call_.operand(op.b);
    m.reduce = true;
  }
  call_.result_to(m, op.dst);
  m.count = op.a.count;
  co_await submit(i, m);
}

Task<> ScheduleExecutor::issue(std::size_t i)
{
  const Op& op        = s_->ops[i];
  st_->ops[i].issued = true;
  // The step's cycles go with the op's first charge (its move's issue, its notification), or at the end: what the
  // op does before that reads and writes only the firmware's own state (take_address takes the notice walk() saw).
  co_await fw_.defer(fw_.costs().step);
  switch (op.kind) {
    case OpKind::Send:
    case OpKind::CombineSend: co_await issue_send(i, op); break;
    case OpKind::Recv: co_await issue_recv(i, op); break;
    case OpKind::RecvReduce: co_await issue_recv_reduce(i, op); break;
    case OpKind::RecvReduceSend:
    case OpKind::RecvSend: co_await issue_forward(i, op); break;
    case OpKind::Combine:
    case OpKind::Copy: co_await issue_local(i, op); break;
    case OpKind::Notify:
      co_await fw_.charge(fw_.costs().notify, "notify");
      c_.send_control(call_.host(op.peer), CcloMsg::Notify, 0, 0, 0);
      break;
    case OpKind::WaitNotify: --core_.notifies[call_.host(op.peer)]; break;
  }
  co_await fw_.settle();
  auto const& os = st_->ops[i];
  if (os.pending == 0 && !os.await_done)
    st_->mark_done(i);
}

std::string ScheduleExecutor::describe_wait() const
{
  for (std::size_t i = 0; i < s_->ops.size(); ++i) {
    auto const& os = st_->ops[i];
    auto const& op = s_->ops[i];
    if (os.done)
      continue;
    std::string what = fmt::format("{}, step {} ({} {})", call_.where(), i, coll::op_name(op.kind),
                                   format_bytes(Bytes{std::max({op.a.count, op.dst.count}) * eb_}));
    if (os.await_done)
      return what + fmt::format(": waits for the completion notice (WR_DONE) from rank {}", op.peer);
    if (os.pending > 0) {
      auto w = c_.data_mover().waiting();
      return what + (w.empty() ? ": waits for its data movements" : ": " + w);
    }
    if (op.kind == OpKind::WaitNotify)
      return what + fmt::format(": waits for a notification from rank {}", op.peer);
    if (rndzv_ && (op.kind == OpKind::Send || op.kind == OpKind::CombineSend))
      return what + fmt::format(": waits for the destination address (RNDZV_INIT) from rank {}", op.peer);
    return what + ": waits for earlier steps";
  }
  return "finishing";
}

bool ScheduleExecutor::collect_completion(std::size_t i)
{
  unsigned examined = 0;
  if (!core_.rndzv.take(call_.completion_from(s_->ops[i].peer, 0, 0), examined))
    return false;
  auto& os      = st_->ops[i];
  os.await_done = false;
  if (os.pending == 0)
    st_->mark_done(i);
  else
    st_->active.erase(i); // its moves' completions finish it
  return true;
}

Task<bool> ScheduleExecutor::walk()
{
  bool progressed = false;
  // No iterator is held across issue() (it charges cycles, and move completions meanwhile change the set): each
  // step takes the first op after the one just handled, so ops made ready meanwhile are seen in this pass when
  // they come later in the schedule, as a full scan would.
  for (std::size_t cursor = 0;;) {
    auto it = st_->active.lower_bound(cursor);
    if (it == st_->active.end())
      break;
    const std::size_t i = *it;
    cursor              = i + 1;
    auto& os            = st_->ops[i];
    const Op& op        = s_->ops[i];
    if (os.issued) { // a rendezvous receive waiting for its completion notice
      progressed = collect_completion(i) || progressed;
      continue;
    }
    if (uses_move(op) && st_->inflight >= s_->max_inflight)
      break; // in order: the firmware waits for a move status before issuing more
    if (rndzv_ && (op.kind == OpKind::Send || op.kind == OpKind::CombineSend) && !can_address(op.peer))
      continue;
    if (op.kind == OpKind::WaitNotify && core_.notifies[call_.host(op.peer)] == 0)
      continue;
    co_await issue(i);
    progressed = true;
    if (!os.done && !os.await_done)
      st_->active.erase(i); // issued: its moves' completions finish it
  }
  co_return progressed;
}

Task<> ScheduleExecutor::run(const coll::Schedule& s)
{
  prepare(s);
  while (true) {
    fw_.check_error();
    const bool progressed = co_await walk();
    if (st_->done == st_->ops.size())
      co_return;
    if (!progressed) {
      const std::uint64_t before = core_.arrivals;
      co_await fw_.wait_event([this] { return describe_wait(); });
      if (core_.arrivals != before) { // noticed on the next lookup
        ++core_.counters.polls;
        co_await fw_.charge(fw_.costs().poll, "lookup");
      }
    }
  }
}

} // namespace nafsim::nodes
