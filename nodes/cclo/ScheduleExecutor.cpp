#include "nodes/cclo/ScheduleExecutor.hpp"

#include <fmt/format.h>
#include <map>
#include <set>

namespace nafsim::nodes {

using coll::Op;
using coll::OpKind;

void ScheduleExecutor::run(const coll::Schedule& s)
{
  Cclo& c               = fw_.cclo();
  const CcloCall& call  = call_.call();
  const bool rndzv      = call_.rendezvous();
  const std::uint64_t eb = call_.elem_bytes();
  struct OpState {
    bool issued      = false;
    bool done        = false;
    unsigned pending = 0;     ///< moves not yet completed
    bool await_done  = false; ///< rendezvous receive: waits for the sender's completion notice
    unsigned deps_left = 0;   ///< dependencies not yet done
  };
  // The walk visits only the ops it can act on, in schedule order: those whose dependencies are done and that
  // are not issued yet, and issued rendezvous receives waiting for their completion notice. (Rescanning every
  // op and its dependencies at each wake-up made a p-rank schedule cost O(p^2) per rank.) State lives on the
  // heap: a move's completion may come after a failed call has left this function.
  struct State {
    std::vector<OpState> ops;
    std::vector<std::vector<std::uint32_t>> dependents;
    std::set<std::size_t> active;
    std::size_t done = 0;
    unsigned inflight = 0;
    void mark_done(std::size_t i)
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
  };
  auto st = std::make_shared<State>();
  st->ops.resize(s.ops.size());
  st->dependents.resize(s.ops.size());
  for (std::size_t i = 0; i < s.ops.size(); ++i) {
    for (auto d : s.ops[i].deps)
      st->dependents[d].push_back(static_cast<std::uint32_t>(i));
    st->ops[i].deps_left = static_cast<unsigned>(s.ops[i].deps.size());
    if (s.ops[i].deps.empty())
      st->active.insert(i);
  }
  auto& ops         = st->ops;
  unsigned& inflight = st->inflight;
  auto host         = [&](int rank) { return call_.host(rank); };
  // Rendezvous groups: receives sharing one announced buffer, per (peer, group).
  std::map<std::pair<int, int>, unsigned> group_size;
  for (auto const& op : s.ops)
    if (op.addr_group >= 0)
      ++group_size[{op.peer, op.addr_group}];
  std::set<std::pair<int, int>> announced;
  std::map<std::uint32_t, RndzvNotice> active; // address being used for a group, by peer host

  auto submit = [&](std::size_t i, Move m) {
    m.dtype = call.dtype;
    m.func  = call.call.func;
    ++ops[i].pending;
    ++inflight;
    fw_.submit_move(std::move(m), [st, i] {
      auto& os = st->ops[i];
      --os.pending;
      --st->inflight;
      if (os.pending == 0 && !os.await_done)
        st->mark_done(i);
    });
  };
  auto seg_of = [&](std::uint64_t count) { return call_.segments(count); };
  auto eager_out = [&](std::size_t i, int peer, std::uint64_t count, auto make_move) {
    for (auto [off, cnt] : seg_of(count)) {
      Move m  = make_move(off, cnt);
      m.count = cnt;
      submit(i, call_.eager_to(peer, std::move(m)));
    }
  };
  auto can_address = [&](int peer) {
    auto it = active.find(host(peer));
    return (it != active.end() && it->second.transfers > 0) || c.rndzv_.any(call_.address_from(peer));
  };
  auto take_address = [&](int peer) {
    auto it = active.find(host(peer));
    if (it == active.end() || it->second.transfers == 0) {
      unsigned examined = 0;
      active[host(peer)] = *c.rndzv_.take(call_.address_from(peer), examined);
      it                 = active.find(host(peer));
    }
    --it->second.transfers;
    return it->second;
  };
  auto uses_move = [&](const Op& op) {
    return !(op.kind == OpKind::Notify || op.kind == OpKind::WaitNotify || (rndzv && op.kind == OpKind::Recv));
  };

  auto issue = [&](std::size_t i) {
    const Op& op = s.ops[i];
    auto& os     = ops[i];
    os.issued    = true;
    fw_.charge(fw_.costs().step);
    switch (op.kind) {
      case OpKind::Send:
      case OpKind::CombineSend: {
        auto operands = [&](std::uint64_t off, std::uint64_t cnt) {
          Move m;
          m.op0 = call_.operand({op.a.buf, op.a.offset + off, cnt});
          if (op.kind == OpKind::CombineSend) {
            m.op1    = call_.operand({op.b.buf, op.b.offset + off, cnt});
            m.reduce = true;
          }
          return m;
        };
        if (rndzv) {
          Move m  = operands(0, op.a.count);
          m.count = op.a.count;
          submit(i, call_.write_to(take_address(op.peer), op.remote_offset, std::move(m)));
        } else {
          eager_out(i, op.peer, op.a.count, operands);
        }
        break;
      }
      case OpKind::Recv:
        if (rndzv) {
          std::pair<int, int> key{op.peer, op.addr_group};
          if (op.addr_group < 0) {
            fw_.send_address(host(op.peer), call_.addr(op.dst), op.dst.count * eb);
          } else if (!announced.count(key)) {
            announced.insert(key);
            fw_.send_address(host(op.peer), call.dst_addr, op.dst.count * eb, 0, group_size[key]);
          }
          os.await_done = true;
        } else {
          for (auto [off, cnt] : seg_of(op.dst.count)) {
            Move m;
            m.op1 = call_.from_rx(op.peer);
            call_.result_to(m, {op.dst.buf, op.dst.offset + off, cnt});
            m.count = cnt;
            submit(i, std::move(m));
          }
        }
        break;
      case OpKind::RecvReduce:
        for (auto [off, cnt] : seg_of(op.dst.count)) {
          Move m;
          m.op0    = call_.operand({op.a.buf, op.a.offset + off, cnt});
          m.op1    = call_.from_rx(op.peer);
          m.reduce = true;
          call_.result_to(m, {op.dst.buf, op.dst.offset + off, cnt});
          m.count = cnt;
          submit(i, std::move(m));
        }
        break;
      case OpKind::RecvReduceSend:
      case OpKind::RecvSend:
        eager_out(i, op.peer2, op.a.count, [&](std::uint64_t off, std::uint64_t cnt) {
          Move m;
          m.op1 = call_.from_rx(op.peer);
          if (op.kind == OpKind::RecvReduceSend) {
            m.op0    = call_.operand({op.a.buf, op.a.offset + off, cnt});
            m.reduce = true;
          }
          return m;
        });
        break;
      case OpKind::Combine: {
        Move m;
        m.op0    = call_.operand(op.a);
        m.op1    = call_.operand(op.b);
        m.reduce = true;
        call_.result_to(m, op.dst);
        m.count = op.a.count;
        submit(i, std::move(m));
        break;
      }
      case OpKind::Copy: {
        Move m;
        m.op0 = call_.operand(op.a);
        call_.result_to(m, op.dst);
        m.count = op.a.count;
        submit(i, std::move(m));
        break;
      }
      case OpKind::Notify:
        fw_.charge(fw_.costs().notify);
        c.send_control(host(op.peer), Cclo::Msg::Notify, 0, 0, 0);
        break;
      case OpKind::WaitNotify: --c.notifies_[host(op.peer)]; break;
    }
    if (os.pending == 0 && !os.await_done)
      st->mark_done(i);
  };

  auto describe_wait = [&]() {
    for (std::size_t i = 0; i < s.ops.size(); ++i) {
      auto const& os = ops[i];
      auto const& op = s.ops[i];
      if (os.done)
        continue;
      std::string what = fmt::format("{}, step {} ({} {})", call_.where(), i, coll::op_name(op.kind),
                                     format_bytes(Bytes{std::max({op.a.count, op.dst.count}) * eb}));
      if (os.await_done)
        return what + fmt::format(": waits for the completion notice (WR_DONE) from rank {}", op.peer);
      if (os.pending > 0) {
        auto w = c.dmp().waiting();
        return what + (w.empty() ? ": waits for its data movements" : ": " + w);
      }
      if (op.kind == OpKind::WaitNotify)
        return what + fmt::format(": waits for a notification from rank {}", op.peer);
      if (rndzv && (op.kind == OpKind::Send || op.kind == OpKind::CombineSend))
        return what + fmt::format(": waits for the destination address (RNDZV_INIT) from rank {}", op.peer);
      return what + ": waits for earlier steps";
    }
    return std::string("finishing");
  };

  while (true) {
    fw_.check_error();
    bool progressed = false;
    // In schedule order over the ops that can act. No iterator is held across issue() (it charges cycles, and
    // move completions meanwhile change the set): each step takes the first op after the one just handled, so
    // ops made ready meanwhile are seen in this pass when they come later in the schedule, as a full scan would.
    for (std::size_t cursor = 0;;) {
      auto it = st->active.lower_bound(cursor);
      if (it == st->active.end())
        break;
      const std::size_t i = *it;
      cursor              = i + 1;
      auto& os            = ops[i];
      const Op& op        = s.ops[i];
      if (os.issued) { // a rendezvous receive waiting for its completion notice
        unsigned examined = 0;
        if (c.rndzv_.take(call_.completion_from(op.peer, 0, 0), examined)) {
          os.await_done = false;
          progressed    = true;
          if (os.pending == 0)
            st->mark_done(i);
          else
            st->active.erase(i); // its moves' completions finish it
        }
        continue;
      }
      if (uses_move(op) && inflight >= s.max_inflight)
        break; // in order: the firmware waits for a move status before issuing more
      if (rndzv && (op.kind == OpKind::Send || op.kind == OpKind::CombineSend) && !can_address(op.peer))
        continue;
      if (op.kind == OpKind::WaitNotify && c.notifies_[host(op.peer)] == 0)
        continue;
      issue(i);
      progressed = true;
      if (!os.done && !os.await_done)
        st->active.erase(i); // issued: its moves' completions finish it
    }
    if (st->done == ops.size())
      return;
    if (!progressed) {
      const std::uint64_t before = c.arrivals_;
      fw_.wait_event(describe_wait);
      if (c.arrivals_ != before) { // noticed on the next lookup
        ++c.c_.polls;
        fw_.charge(fw_.costs().poll);
      }
    }
  }
}

} // namespace nafsim::nodes
