// The firmware's symmetric collectives (ccl_offload_control.c of Xilinx/ACCL @622bdbe): allgather,
// reduce_scatter, allreduce, barrier, all_to_all. Where each waits: FirmwareCall.hpp.
#include "nodes/cclo/FirmwareCall.hpp"

#include <fmt/format.h>
#include <stdexcept>

namespace nafsim::nodes {

using coll::Slice;
using coll::in, coll::mod, coll::out;

Task<FwStatus> FirmwareCall::allgather()
{
  const std::uint64_t n = call_.call.count, bytes = n * eb_;
  const int next = mod(rank_ + 1, size_), prev = mod(rank_ - 1, size_);
  const Slice src = in(0, n);
  auto slot       = [&](int r) { return out(n * static_cast<std::uint64_t>(r), n); };
  if (size_ == 1) { // (plan_call refuses the firmware's: it has no one-rank case; the executor's schedules use this)
    co_await fw_.move(copy_move(src, slot(0)));
    co_return FwStatus::Done;
  }
  if (rndzv_) {
    if (step_ == 0) { // copy our block while announcing our whole buffer to the previous rank
      co_await fw_.start_move(copy_move(src, slot(rank_)));
      co_await fw_.send_address(host(prev), addr(out(0, n)), bytes, call_.tag, static_cast<unsigned>(size_ - 1));
      step_ = 1;
    }
    auto down = co_await fw_.lookup(address_from(next));
    if (!down)
      co_return not_ready(fmt::format("waits for the buffer address (RNDZV_INIT) of rank {}", next));
    co_await fw_.end_move();
    step_ = 2;
    // Forward our block, then each block as its write lands (busy-wait), except the next rank's own.
    unsigned pending = 0;
    Move own;
    own.op0   = operand(slot(rank_));
    own.count = n;
    co_await fw_.start_move(write_to(*down, n * static_cast<std::uint64_t>(rank_), std::move(own)));
    ++pending;
    for (int i = prev; i != rank_; i = mod(i - 1, size_)) {
      co_await fw_.spin(completion_from(prev, addr(slot(i)), 0), [&] { return fmt::format("{}: block {} from rank {}", where(), i, prev); });
      if (i != next) {
        Move f;
        f.op0   = operand(slot(i));
        f.count = n;
        co_await fw_.start_move(write_to(*down, n * static_cast<std::uint64_t>(i), std::move(f)));
        co_await window(pending, 2);
        ++step_;
      }
    }
    co_await finish_window(pending);
    co_return FwStatus::Done;
  }
  // Eager ring: store and send our block, then receive each block (a blocking move, so that the relay
  // reads what has landed) and relay it.
  co_await fw_.start_move(prime());
  co_await fw_.start_move(copy_move(src, slot(rank_)));
  const unsigned sends = co_await start_eager(next, src);
  co_await end_moves(2 + sends);
  int pos = rank_;
  for (int i = 0; i < size_ - 1; ++i) {
    const int s = mod(pos - 1, size_);
    const unsigned moves = co_await start_recv(prev, slot(s), nullptr, -1);
    co_await end_moves(moves);
    if (i < size_ - 2) {
      co_await fw_.start_move(prime());
      const unsigned relays = co_await start_eager(next, slot(s));
      co_await end_moves(1 + relays);
    }
    pos = s;
  }
  co_return FwStatus::Done;
}

Task<> FirmwareCall::ring_reduce_scatter(int first, FnRef<Slice(int)> chunk, const Slice& last_to)
{
  // Send chunk `first`, then receive, add and forward chunks first-1, first-2, ... (one fused move each), the
  // last one into `last_to`; one status collected per step (the oldest: the firmware stays ahead of the data
  // mover), the preamble's two at the end.
  const int next = mod(rank_ + 1, size_), prev = mod(rank_ - 1, size_);
  co_await fw_.start_move(prime());
  const unsigned preamble = 1 + co_await start_eager(next, chunk(first));
  int curr                = first;
  for (int i = 0; i < size_ - 1; ++i) {
    curr     = mod(curr - 1, size_);
    Slice ck = chunk(curr);
    unsigned moves = 0;
    if (i < size_ - 2)
      moves = co_await start_recv(prev, ck, &ck, next);
    else
      moves = co_await start_recv(prev, last_to, &ck, -1);
    co_await end_moves(moves);
  }
  co_await end_moves(preamble);
}

Task<FwStatus> FirmwareCall::reduce_scatter()
{
  const std::uint64_t n = call_.call.count;
  const auto p          = static_cast<std::uint64_t>(size_);
  if (size_ == 1) {
    co_await fw_.move(copy_move(in(0, n), out(0, n)));
    co_return FwStatus::Done;
  }
  if (rndzv_) {
    // Reduce everything into rank 0's input buffer, then scatter it, re-run in place until ready.
    co_await reduce(0, sel_.options.reduce_sub, in(0, n * p), in(0, n * p));
    step_ = 0;
    co_await fw_.spin_call([&]() -> Task<FwStatus> { co_return co_await scatter(0, in(0, n * p), out(0, n)); }, [&] { return where() + ": the scatter"; });
    co_return FwStatus::Done;
  }
  // Eager ring: send chunk prev, then receive-add-forward chunks prev-1, prev-2, ..., the last (our own
  // chunk) into dst; one status collected per step.
  co_await ring_reduce_scatter(mod(rank_ - 1, size_), [&](int c) { return in(n * static_cast<std::uint64_t>(c), n); },
                      out(0, n));
  co_return FwStatus::Done;
}

Task<FwStatus> FirmwareCall::allreduce()
{
  const std::uint64_t n = call_.call.count;
  if (size_ == 1) {
    co_await fw_.move(copy_move(in(0, n), out(0, n)));
    co_return FwStatus::Done;
  }
  if (rndzv_) {
    // Reduce to rank 0 into dst, then broadcast dst from rank 0, re-run in place until ready.
    co_await reduce(0, sel_.options.reduce_sub, in(0, n), out(0, n));
    step_ = 0;
    co_await fw_.spin_call([&]() -> Task<FwStatus> { co_return co_await broadcast(0, sel_.options.bcast_sub, out(0, n), out(0, n)); },
                  [&] { return where() + ": the broadcast"; });
    co_return FwStatus::Done;
  }
  // Eager ring, segment by segment (an Rx buffer's worth, a multiple of the rank count): a ring
  // reduce-scatter (rank r ends with chunk r + 1) and a ring allgather of the reduced chunks.
  const int next = mod(rank_ + 1, size_), prev = mod(rank_ - 1, size_);
  const auto p   = static_cast<std::uint64_t>(size_);
  // (max_seg_count = count when operand 0 streams, OP0_STREAM: refused on more than one rank, CallPlan.cpp
  // memory_only; a count the firmware cannot cut, a segment of 0 or a last chunk below 0, was refused by plan_call:
  // CallPlan.cpp ring_chunks)
  const std::uint64_t max_seg = seg_ - seg_ % p;
  if (n == 0) // `for (elems_remaining = count; elems_remaining > 0; ...)`: no segment, no move
    co_return FwStatus::Done;
  if (max_seg == 0)
    throw std::logic_error("allreduce: a ring segment of 0 elements reached the firmware");
  for (auto [base, elems] : coll::segments(n, max_seg)) {
    const std::uint64_t bulk = (elems + p - 1) / p;
    auto count_of = [&](int c) {
      std::uint64_t off = bulk * static_cast<std::uint64_t>(c);
      return off >= elems ? 0 : std::min(bulk, elems - off);
    };
    auto in_chunk  = [&](int c) { return in(base + std::min(bulk * static_cast<std::uint64_t>(c), elems), count_of(c)); };
    auto out_chunk = [&](int c) { return out(base + std::min(bulk * static_cast<std::uint64_t>(c), elems), count_of(c)); };
    co_await ring_reduce_scatter(rank_, in_chunk, out_chunk(next));
    // Allgather.
    co_await fw_.start_move(prime());
    const unsigned sends = co_await start_eager(next, out_chunk(next));
    co_await end_moves(1 + sends);
    int curr = next;
    for (int i = 0; i < size_ - 1; ++i) {
      const int c = mod(curr - 1, size_);
      const unsigned moves = co_await start_recv(prev, out_chunk(c), nullptr, -1);
      co_await end_moves(moves);
      curr = c;
      if (i < size_ - 2) {
        co_await fw_.start_move(prime());
        const unsigned relays = co_await start_eager(next, out_chunk(curr));
        co_await end_moves(1 + relays);
      }
    }
  }
  co_return FwStatus::Done;
}

Task<FwStatus> FirmwareCall::barrier()
{
  if (size_ == 1)
    co_return FwStatus::Done;
  // Notifications through the rendezvous address path: everyone to rank 0 (which takes them in rank
  // order), then rank 0 to everyone.
  if (rank_ == 0) {
    for (int i = 1; i < size_; ++i)
      co_await fw_.spin(address_from(i), [&] { return fmt::format("{}: the arrival of rank {}", where(), i); });
    for (int i = 1; i < size_; ++i)
      co_await fw_.send_address(host(i), 0, 0);
    co_return FwStatus::Done;
  }
  co_await fw_.send_address(host(0), 0, 0);
  co_await fw_.spin(address_from(0), [&] { return where() + ": the release from rank 0"; });
  co_return FwStatus::Done;
}

Task<FwStatus> FirmwareCall::all_to_all()
{
  const std::uint64_t n = call_.call.count, bytes = n * eb_;
  auto blk_in  = [&](int r) { return in(n * static_cast<std::uint64_t>(r), n); };
  auto blk_out = [&](int r) { return out(n * static_cast<std::uint64_t>(r), n); };
  if (size_ == 1) {
    co_await fw_.move(copy_move(blk_in(0), blk_out(0)));
    co_return FwStatus::Done;
  }
  // "Simultaneous broadcasts": copy our own block, announce every slot, write each peer's block as its
  // address arrives (busy-wait, any order), then busy-wait for every block written to us.
  unsigned pending = 0;
  co_await fw_.start_move(copy_move(blk_in(rank_), blk_out(rank_)));
  ++pending;
  for (int i = 0; i < size_; ++i)
    if (i != rank_)
      co_await fw_.send_address(host(i), addr(blk_out(i)), bytes);
  for (int i = 0; i < size_ - 1; ++i) {
    auto a = co_await fw_.spin(address_from(-1), [&] { return where() + ": the peers' addresses"; });
    Move m;
    m.op0   = operand(blk_in(rank_of(a.src)));
    m.count = n;
    co_await fw_.start_move(write_to(a, 0, std::move(m)));
    co_await window(pending, 2);
  }
  for (int i = 0; i < size_ - 1; ++i)
    co_await fw_.spin(completion_from(-1, 0, bytes), [&] { return where() + ": the blocks written to it"; });
  co_await finish_window(pending);
  co_return FwStatus::Done;
}

} // namespace nafsim::nodes
