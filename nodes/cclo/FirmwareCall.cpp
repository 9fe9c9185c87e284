// One call as the firmware runs it: selection and checks, buffers, operands and moves, notice matches.
// The collective functions: FirmwareRooted.cpp and FirmwareSymmetric.cpp.
#include "nodes/cclo/FirmwareCall.hpp"

#include "nodes/cclo/CallPlan.hpp"

#include <fmt/format.h>

namespace nafsim::nodes {

using coll::Algorithm, coll::Buf, coll::Collective, coll::Slice;
using coll::in, coll::out, coll::scratch, coll::sub;

FirmwareCall::FirmwareCall(Firmware& fw, CcloPending& p)
    : fw_(fw), c_(fw.ports()), core_(fw.core()), p_(p), call_(p.call), step_(p.step)
{
  auto const& cc = call_.call;
  rank_          = call_.rank;
  size_          = cc.size;
  op_stream_     = call_.operand_streamed();
  res_stream_    = call_.result_streamed();
  stream_        = call_.streams();
  eb_            = cc.elem_bytes;
  // A segment is an Rx buffer's size over the call's *uncompressed* element size, compressed or not: the firmware's
  // max_seg_count = eager_rx_buf_size / datatype_nbytes, datatype_nbytes the arithmetic configuration's first word
  // (uncompressed_elem_bytes), so a compressed segment fills half an Rx buffer.
  seg_ = std::max<std::uint64_t>(1, core_.cfg.rx_buffers.size.count / eb_);
  CallPlan plan = plan_call(call_, c_.config(), c_.link());
  sel_   = plan.sel;
  rndzv_ = plan.rendezvous;
  if (!plan.error.empty()) {
    p_.result.error = std::move(plan.error);
    return;
  }
  p_.result.protocol  = sel_.protocol;
  p_.result.algorithm = sel_.algorithm;
  if (!plan.firmware)
    schedule_ = std::move(plan.schedule);
}

bool FirmwareCall::firmware_has() const
{
  return firmware_runs(call_.call.collective, sel_.algorithm, rndzv_);
}

std::string FirmwareCall::where() const
{
  return fmt::format("rank {} in {} ({}, {})", rank_, coll::collective_name(call_.call.collective),
                     coll::algorithm_name(sel_.algorithm), coll::protocol_name(sel_.protocol));
}

// ---------------------------------------------------------------------------------------------
// Buffers, operands, moves.

std::uint64_t FirmwareCall::addr(const Slice& sl) const
{
  std::uint64_t base = 0;
  switch (sl.buf) {
    case Buf::Input: base = call_.src_addr; break;
    case Buf::Output: base = call_.dst_addr; break;
    default: base = c_.spare_address(static_cast<int>(sl.buf) - static_cast<int>(Buf::Scratch0)); break;
  }
  return base + sl.offset * eb_;
}

Operand FirmwareCall::operand(const Slice& sl) const
{
  Operand o;
  o.kind = streamed(sl.buf) ? OperandKind::Stream : OperandKind::Memory;
  o.addr = addr(sl);
  return o;
}

void FirmwareCall::result_to(Move& m, const Slice& sl) const
{
  m.res      = streamed(sl.buf) ? ResultKind::Stream : ResultKind::Memory;
  m.res_addr = addr(sl);
}

Operand FirmwareCall::from_rx(int rank)
{
  // Its sequence number is the data mover's to take as it decodes the move (under the move's tag).
  return Operand{OperandKind::RxBuffer, 0, host(rank), 0, call_.compress};
}

coll::Segments FirmwareCall::segments(std::uint64_t count) const
{
  return coll::segments(count, seg_);
}

Move FirmwareCall::eager_to(int rank, Move m)
{
  m.dtype          = call_.dtype;
  m.func           = call_.call.func;
  m.res            = ResultKind::Eager;
  m.res_compressed = call_.compress;
  m.peer           = host(rank);
  m.tag            = call_.tag;
  if (call_.remote_stream >= 0) { // stream_put: for the peer's kernel stream, matched by no receive
    m.remote_stream = static_cast<std::int16_t>(call_.remote_stream);
    m.seq           = call_.dst_addr + (m.op0.addr - call_.src_addr); // this segment's place in the peer's stream data
  }
  return m; // (its sequence number: the data mover's to take as it decodes the move)
}

Move FirmwareCall::write_to(const RndzvNotice& where, std::uint64_t offset_elems, Move m)
{
  m.dtype    = call_.dtype;
  m.func     = call_.call.func;
  m.res      = ResultKind::Rendezvous;
  m.res_addr = where.addr + offset_elems * eb_;
  m.peer     = where.src;
  return m;
}

Move FirmwareCall::prime() const
{
  return Move{}; // no operand, no result, no bytes: the data mover only decodes it
}

Move FirmwareCall::copy_move(const Slice& a, const Slice& dst) const
{
  Move m;
  m.op0   = operand(a);
  m.count = a.count;
  m.dtype = call_.dtype;
  result_to(m, dst);
  return m;
}

Move FirmwareCall::combine_move(const Slice& a, const Slice& b, const Slice& dst) const
{
  Move m  = copy_move(a, dst);
  m.op1   = operand(b);
  m.reduce = true;
  m.func  = call_.call.func;
  return m;
}

NoticeMatch FirmwareCall::address_from(int rank) const
{
  NoticeMatch m;
  m.type = RndzvNotice::Type::Address;
  m.src  = rank < 0 ? NoticeMatch::kAny : host(rank);
  m.tag  = call_.tag;
  return m;
}

NoticeMatch FirmwareCall::completion_from(int rank, std::uint64_t where, std::uint64_t bytes) const
{
  NoticeMatch m;
  m.type  = RndzvNotice::Type::Done;
  m.src   = rank < 0 ? NoticeMatch::kAny : host(rank);
  m.addr  = where;
  m.bytes = bytes;
  return m;
}

int FirmwareCall::rank_of(std::uint32_t h) const
{
  for (std::size_t r = 0; r < call_.comm.size(); ++r)
    if (call_.comm[r] == h)
      return static_cast<int>(r);
  throw SimulationError(fmt::format("host {}: a rendezvous notice from host {}, which is not in the communicator",
                                    core_.host, h));
}

Task<> FirmwareCall::window(unsigned& pending, unsigned limit)
{
  if (++pending > limit) {
    co_await fw_.end_move();
    --pending;
  }
}

Task<> FirmwareCall::finish_window(unsigned& pending)
{
  for (; pending > 0; --pending)
    co_await fw_.end_move();
}

Task<unsigned> FirmwareCall::start_eager(int rank, const Slice& src)
{
  Move m;
  m.op0   = operand(src);
  m.count = src.count;
  co_await fw_.start_move(eager_to(rank, std::move(m)));
  co_return 1;
}

Task<unsigned> FirmwareCall::start_recv(int rank, const Slice& dst, const Slice* combine_with, int send_to)
{
  Move m;
  m.op1   = from_rx(rank);
  m.tag   = call_.tag;
  m.count = dst.count;
  m.dtype = call_.dtype;
  if (combine_with) {
    m.op0    = operand(*combine_with);
    m.reduce = true;
    m.func   = call_.call.func;
  }
  if (send_to >= 0)
    m = eager_to(send_to, std::move(m));
  else
    result_to(m, dst);
  co_await fw_.start_move(std::move(m));
  co_return 1;
}

Task<> FirmwareCall::end_moves(unsigned n)
{
  for (; n > 0; --n)
    co_await fw_.end_move();
}

FwStatus FirmwareCall::not_ready(const std::string& what)
{
  fw_.set_waits_for(where() + ": " + what);
  return FwStatus::NotReady;
}

// ---------------------------------------------------------------------------------------------
// The collectives.

Task<FwStatus> FirmwareCall::run()
{
  auto const& cc = call_.call;
  const std::uint64_t n = cc.count;
  const auto p          = static_cast<std::uint64_t>(size_);
  co_await fw_.charge(fw_.costs().step);
  switch (cc.collective) {
    case Collective::Nop: co_return FwStatus::Done;
    case Collective::Send: co_return co_await send(cc.root, in(0, n));
    case Collective::Recv: co_return co_await recv(cc.root, out(0, n));
    case Collective::Copy: co_await fw_.move(copy_move(in(0, n), out(0, n))); co_return FwStatus::Done;
    case Collective::Combine: {
      // The firmware's combine() fetches its second operand from memory (MOVE_IMMEDIATE); only the first may be a
      // kernel stream, so a result streamed out still reads the second operand's bytes from memory.
      Move m     = combine_move(in(0, n), out(0, n), out(0, n));
      m.op1.kind = OperandKind::Memory;
      co_await fw_.move(m);
      co_return FwStatus::Done;
    }
    case Collective::Bcast: co_return co_await broadcast(cc.root, sel_.algorithm, in(0, n), out(0, n));
    case Collective::Scatter: co_return co_await scatter(cc.root, in(0, n * p), out(0, n));
    case Collective::Gather: co_return co_await gather();
    case Collective::AllGather: co_return co_await allgather();
    case Collective::Reduce: co_return co_await reduce(cc.root, sel_.algorithm, in(0, n), out(0, n));
    case Collective::AllReduce: co_return co_await allreduce();
    case Collective::ReduceScatter: co_return co_await reduce_scatter();
    case Collective::AllToAll: co_return co_await all_to_all();
    case Collective::Barrier: co_return co_await barrier();
  }
  co_return FwStatus::Done;
}

} // namespace nafsim::nodes
