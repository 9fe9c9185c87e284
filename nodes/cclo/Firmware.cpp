#include "nodes/cclo/Firmware.hpp"

#include <fmt/format.h>
#include <map>
#include <set>

namespace nafsim::nodes {

using coll::Buf;
using coll::Op;
using coll::OpKind;

void Firmware::charge(ActorContext& ctx, unsigned cycles)
{
  if (cycles == 0)
    return;
  SimTime t = c_.cycles(cycles);
  c_.c_.uc_busy += t;
  ctx.sleep_for(t);
}

void Firmware::run(ActorContext& ctx)
{
  c_.fw_actor_ = ctx.id();
  while (true) {
    c_.fw_waiting_ = true;
    ctx.wait_until([&] { return !c_.calls_.empty(); }, "the CCLO firmware waits for a call");
    c_.fw_waiting_ = false;
    Cclo::Pending& p = *c_.calls_.front();
    p.result.started = ctx.now();
    ++c_.c_.calls;
    charge(ctx, c_.cfg_.firmware.call);
    execute(ctx, p);
    charge(ctx, c_.cfg_.firmware.finalize);
    p.result.finished = ctx.now();
    p.done            = true;
    ctx.scheduler().wake(p.caller);
    c_.calls_.pop_front();
  }
}

/// What a call's operations are doing; shared with the completion callbacks of its moves.
struct Firmware::CallState {
  struct OpState {
    bool issued      = false;
    bool done        = false;
    unsigned pending = 0;    ///< moves not yet completed
    bool await_done  = false; ///< rendezvous receive: waits for the sender's completion notice
  };
  std::vector<OpState> ops;
  unsigned inflight = 0;
};

void Firmware::execute(ActorContext& ctx, Cclo::Pending& p)
{
  const CcloCall& call = p.call;
  const auto& fw       = c_.cfg_.firmware;
  const bool stream    = call.location == DataLocation::Stream;
  coll::Selection sel;
  coll::Schedule s;
  std::optional<coll::Protocol> force = call.protocol;
  if (!c_.link_.rendezvous) {
    if (force == coll::Protocol::Rendezvous) {
      p.result.error = fmt::format("the nodes run {}, which has no RDMA WRITE: the CCLO runs every call eager over it "
                                   "(force protocol eager, or use transport roce)",
                                   c_.link_.transport);
      return;
    }
    force = coll::Protocol::Eager;
  }
  try {
    sel = coll::cclo_select(call.call, c_.tuning(), call.compress, stream, force, call.algorithm);
    s   = coll::build_schedule(call.call, sel.algorithm, sel.protocol, call.rank, sel.options);
  } catch (const std::invalid_argument& e) {
    p.result.error = e.what();
    return;
  }
  if (dtype_bytes(call.dtype) != call.call.elem_bytes) {
    p.result.error = fmt::format("the call's element type {} has {} bytes, but its count assumes {}-byte elements",
                                 dtype_name(call.dtype), dtype_bytes(call.dtype), call.call.elem_bytes);
    return;
  }
  if (call.compress && call.dtype != DataType::Float32) {
    p.result.error = fmt::format("compression converts float32 to float16 on the wire; the data is {}",
                                 dtype_name(call.dtype));
    return;
  }
  p.result.protocol    = sel.protocol;
  p.result.algorithm   = sel.algorithm;
  const bool rndzv     = sel.protocol == coll::Protocol::Rendezvous;
  const std::uint64_t eb = call.call.elem_bytes;
  for (int k = 0; k < 3; ++k)
    if (s.scratch[k] * eb > c_.cfg_.tuning.max_rendezvous_size.count) {
      p.result.error = fmt::format("{} needs {} of spare buffer {}, but max_rendezvous_size is {}",
                                   coll::collective_name(call.call.collective), format_bytes(Bytes{s.scratch[k] * eb}),
                                   k + 1, format_bytes(c_.cfg_.tuning.max_rendezvous_size));
      return;
    }
  if (stream && rndzv) {
    p.result.error = "streamed operands travel eager only (the firmware never uses rendezvous for streams)";
    return;
  }
  if (call.compress && rndzv) {
    p.result.error = "compressed data travels eager only (rendezvous writes the destination buffer as it is)";
    return;
  }
  if (rndzv)
    for (auto const& op : s.ops)
      if (op.kind == OpKind::RecvReduce || op.kind == OpKind::RecvReduceSend || op.kind == OpKind::RecvSend) {
        p.result.error = fmt::format("the {} {} algorithm fuses receives with reductions or relays, which the CCLO "
                                     "only runs eager; force protocol eager or another algorithm",
                                     coll::algorithm_name(sel.algorithm), coll::collective_name(call.call.collective));
        return;
      }

  auto state = std::make_shared<CallState>();
  state->ops.resize(s.ops.size());
  auto host   = [&](int rank) { return static_cast<std::uint32_t>(call.comm.at(static_cast<std::size_t>(rank))); };
  auto addr   = [&](const coll::Slice& sl) -> std::uint64_t {
    std::uint64_t base = 0;
    switch (sl.buf) {
      case Buf::Input: base = call.src_addr; break;
      case Buf::Output: base = call.dst_addr; break;
      default: base = c_.spare_address(static_cast<int>(sl.buf) - static_cast<int>(Buf::Scratch0)); break;
    }
    return base + sl.offset * eb;
  };
  auto operand = [&](const coll::Slice& sl) {
    Operand o;
    o.kind = stream && (sl.buf == Buf::Input || sl.buf == Buf::Output) ? OperandKind::Stream : OperandKind::Memory;
    o.addr = addr(sl);
    return o;
  };
  auto result_to = [&](Move& m, const coll::Slice& sl) {
    m.res      = stream && (sl.buf == Buf::Input || sl.buf == Buf::Output) ? ResultKind::Stream : ResultKind::Memory;
    m.res_addr = addr(sl);
  };
  const std::uint64_t wire_eb = call.compress ? 2 : eb; // bytes per element in eager messages and Rx buffers
  const std::uint64_t seg     = std::max<std::uint64_t>(1, c_.cfg_.rx_buffers.size.count / wire_eb);
  auto segments           = [&](std::uint64_t count) { return coll::segments(count, seg); };
  // Rendezvous groups: receives sharing one announced buffer, per (peer, group).
  std::map<std::pair<int, int>, unsigned> group_size;
  for (auto const& op : s.ops)
    if (op.addr_group >= 0)
      ++group_size[{op.peer, op.addr_group}];
  std::set<std::pair<int, int>> announced;
  std::map<std::uint32_t, Cclo::Init> active; // address being used for a group, by peer host

  auto submit = [&](std::size_t i, Move m) {
    auto st = state;
    m.dtype = call.dtype;
    m.func  = call.call.func;
    m.on_done = [this, st, i] {
      auto& os = st->ops[i];
      --os.pending;
      --st->inflight;
      if (os.pending == 0 && !os.await_done)
        os.done = true;
      c_.wake_firmware();
    };
    ++state->ops[i].pending;
    ++state->inflight;
    charge(ctx, fw.move);
    c_.dmp_->submit(std::move(m));
  };
  // Eager: the message segments of an op moving `count` elements to or from `peer`.
  auto eager_out = [&](std::size_t i, std::uint32_t peer, std::uint64_t count, auto make_move) {
    for (auto [off, cnt] : segments(count)) {
      Move m   = make_move(off, cnt);
      m.res            = ResultKind::Eager;
      m.res_compressed = call.compress;
      m.peer           = peer;
      m.seq            = c_.next_out_seq(peer, call.tag);
      m.count          = cnt;
      submit(i, std::move(m));
    }
  };
  auto can_address = [&](std::uint32_t peer) {
    auto it = active.find(peer);
    return (it != active.end() && it->second.transfers > 0) || !c_.inits_[peer].empty();
  };
  auto take_address = [&](std::uint32_t peer) {
    auto it = active.find(peer);
    if (it == active.end() || it->second.transfers == 0) {
      active[peer] = c_.inits_[peer].front();
      c_.inits_[peer].pop_front();
      it = active.find(peer);
    }
    --it->second.transfers;
    return it->second.addr;
  };
  auto uses_move = [&](const Op& op) {
    return !(op.kind == OpKind::Notify || op.kind == OpKind::WaitNotify || (rndzv && op.kind == OpKind::Recv));
  };

  auto issue = [&](std::size_t i) {
    const Op& op = s.ops[i];
    auto& os     = state->ops[i];
    os.issued    = true;
    charge(ctx, fw.step);
    switch (op.kind) {
      case OpKind::Send:
      case OpKind::CombineSend: {
        // The operands of elements [off, off + cnt): the slice, or the two slices through the reduction plugin.
        auto operands = [&](std::uint64_t off, std::uint64_t cnt) {
          Move m;
          m.op0 = operand({op.a.buf, op.a.offset + off, cnt});
          if (op.kind == OpKind::CombineSend) {
            m.op1    = operand({op.b.buf, op.b.offset + off, cnt});
            m.reduce = true;
          }
          return m;
        };
        if (rndzv) {
          Move m     = operands(0, op.a.count);
          m.res      = ResultKind::Rendezvous;
          m.res_addr = take_address(host(op.peer)) + op.remote_offset * eb;
          m.peer     = host(op.peer);
          m.count    = op.a.count;
          submit(i, std::move(m));
        } else {
          eager_out(i, host(op.peer), op.a.count, operands);
        }
        break;
      }
      case OpKind::Recv:
        if (rndzv) {
          std::pair<int, int> key{op.peer, op.addr_group};
          if (op.addr_group < 0) {
            c_.send_control(host(op.peer), Cclo::Msg::Init, addr(op.dst), 1, op.dst.count * eb);
            charge(ctx, fw.notify);
          } else if (!announced.count(key)) {
            announced.insert(key);
            c_.send_control(host(op.peer), Cclo::Msg::Init, call.dst_addr, group_size[key], op.dst.count * eb);
            charge(ctx, fw.notify);
          }
          os.await_done = true;
        } else {
          for (auto [off, cnt] : segments(op.dst.count)) {
            Move m;
            m.op1 = Operand{OperandKind::RxBuffer, 0, host(op.peer), c_.next_in_seq(host(op.peer), call.tag), call.compress};
            result_to(m, {op.dst.buf, op.dst.offset + off, cnt});
            m.count = cnt;
            submit(i, std::move(m));
          }
        }
        break;
      case OpKind::RecvReduce:
        for (auto [off, cnt] : segments(op.dst.count)) {
          Move m;
          m.op0    = operand({op.a.buf, op.a.offset + off, cnt});
          m.op1    = Operand{OperandKind::RxBuffer, 0, host(op.peer), c_.next_in_seq(host(op.peer), call.tag), call.compress};
          m.reduce = true;
          result_to(m, {op.dst.buf, op.dst.offset + off, cnt});
          m.count = cnt;
          submit(i, std::move(m));
        }
        break;
      case OpKind::RecvReduceSend:
      case OpKind::RecvSend: {
        std::uint32_t from = host(op.peer);
        eager_out(i, host(op.peer2), op.a.count, [&](std::uint64_t off, std::uint64_t cnt) {
          Move m;
          m.op1 = Operand{OperandKind::RxBuffer, 0, from, c_.next_in_seq(from, call.tag), call.compress};
          if (op.kind == OpKind::RecvReduceSend) {
            m.op0    = operand({op.a.buf, op.a.offset + off, cnt});
            m.reduce = true;
          }
          return m;
        });
        break;
      }
      case OpKind::Combine: {
        Move m;
        m.op0    = operand(op.a);
        m.op1    = operand(op.b);
        m.reduce = true;
        result_to(m, op.dst);
        m.count = op.a.count;
        submit(i, std::move(m));
        break;
      }
      case OpKind::Copy: {
        Move m;
        m.op0 = operand(op.a);
        result_to(m, op.dst);
        m.count = op.a.count;
        submit(i, std::move(m));
        break;
      }
      case OpKind::Notify:
        c_.send_control(host(op.peer), Cclo::Msg::Notify, 0, 0, 0);
        charge(ctx, fw.notify);
        break;
      case OpKind::WaitNotify: --c_.notifies_[host(op.peer)]; break;
    }
    if (os.pending == 0 && !os.await_done)
      os.done = true;
  };

  auto describe_wait = [&]() {
    for (std::size_t i = 0; i < s.ops.size(); ++i) {
      auto const& os = state->ops[i];
      auto const& op = s.ops[i];
      if (os.done)
        continue;
      std::string what = fmt::format("rank {} in {} ({}, {}), step {} ({} {})", call.rank,
                                     coll::collective_name(call.call.collective), coll::algorithm_name(sel.algorithm),
                                     coll::protocol_name(sel.protocol), i, coll::op_name(op.kind),
                                     format_bytes(Bytes{std::max({op.a.count, op.dst.count}) * eb}));
      if (os.await_done)
        return what + fmt::format(": waits for the completion notice (WR_DONE) from rank {}", op.peer);
      if (os.pending > 0) {
        auto w = c_.dmp_->waiting();
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
    if (!c_.error_.empty()) {
      p.result.error = c_.error_;
      return;
    }
    bool progressed = false;
    for (std::size_t i = 0; i < s.ops.size(); ++i) {
      auto& os       = state->ops[i];
      const Op& op   = s.ops[i];
      if (os.await_done && !os.done && !c_.dones_[host(op.peer)].empty()) {
        c_.dones_[host(op.peer)].pop_front();
        os.await_done = false;
        if (os.pending == 0)
          os.done = true;
        progressed = true;
      }
      if (os.issued)
        continue;
      bool ready = true;
      for (auto d : op.deps)
        ready = ready && state->ops[d].done;
      if (!ready)
        continue;
      if (uses_move(op) && state->inflight >= s.max_inflight)
        break; // in order: the firmware waits for a move status before issuing more
      if (rndzv && (op.kind == OpKind::Send || op.kind == OpKind::CombineSend) && !can_address(host(op.peer)))
        continue;
      if (op.kind == OpKind::WaitNotify && c_.notifies_[host(op.peer)] == 0)
        continue;
      issue(i);
      progressed = true;
    }
    bool all_done = true;
    for (auto const& os : state->ops)
      all_done = all_done && os.done;
    if (all_done)
      return;
    if (!progressed) {
      c_.fw_waiting_ = true;
      c_.notified_   = false;
      ctx.block(describe_wait());
      c_.fw_waiting_ = false;
      if (c_.notified_) { // noticed by the polling loop or on the retry queue's next pass
        c_.notified_ = false;
        ++c_.c_.polls;
        charge(ctx, fw.poll);
      }
    }
  }
}

} // namespace nafsim::nodes
