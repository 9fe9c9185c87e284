// The firmware's point-to-point and rooted collectives (ccl_offload_control.c of Xilinx/ACCL @622bdbe):
// send, recv, broadcast, scatter, gather, reduce. Where each waits: FirmwareCall.hpp.
#include "nodes/cclo/FirmwareCall.hpp"

#include <fmt/format.h>

namespace nafsim::nodes {

using coll::Algorithm, coll::Buf, coll::Slice;
using coll::in, coll::mod, coll::out, coll::scratch, coll::sub;

Task<FwStatus> FirmwareCall::send(int dst, const Slice& src)
{
  if (rndzv_) {
    auto a = co_await fw_.lookup(address_from(dst));
    if (!a)
      co_return not_ready(fmt::format("waits for the destination address (RNDZV_INIT) from rank {}", dst));
    Move m;
    m.op0   = operand(src);
    m.count = src.count;
    co_await fw_.move(write_to(*a, 0, std::move(m)));
    co_return FwStatus::Done;
  }
  // send(): `nseg = (count+max_seg_count-1)/max_seg_count` segments, none for a count of 0 (no move, no message).
  if (src.count == 0)
    co_return FwStatus::Done;
  unsigned pending = 0;
  for (auto [off, cnt] : segments(src.count)) {
    co_await start_eager_segment(dst, sub(src, off, cnt));
    co_await window(pending, 2);
  }
  co_await finish_window(pending);
  co_return FwStatus::Done;
}

Task<> FirmwareCall::start_eager_segment(int rank, const Slice& piece)
{
  Move m;
  m.op0   = operand(piece);
  m.count = piece.count;
  co_await fw_.start_move(eager_to(rank, std::move(m)));
}

Task<FwStatus> FirmwareCall::rendezvous_recv(int src, const Slice& dst)
{
  // recv(), and the non-roots of broadcast() and scatter(): announce the buffer once (current_step 0 -> 1),
  // then one lookup for the write's completion notice per pass; NOT_READY until it is there.
  if (step_ == 0) {
    co_await fw_.send_address(host(src), addr(dst), dst.count * eb_, call_.tag);
    step_ = 1;
  }
  const auto done = co_await fw_.lookup(completion_from(src, addr(dst), 0));
  if (done)
    co_return FwStatus::Done;
  co_return not_ready(fmt::format("waits for the completion notice (WR_DONE) from rank {}", src));
}

Task<FwStatus> FirmwareCall::recv(int src, const Slice& dst)
{
  if (rndzv_)
    co_return co_await rendezvous_recv(src, dst);
  if (dst.count == 0) // recv(): no segment of a count of 0, as send()
    co_return FwStatus::Done;
  unsigned pending = 0;
  for (auto [off, cnt] : segments(dst.count)) {
    co_await start_recv(src, sub(dst, off, cnt), nullptr, -1);
    co_await window(pending, 2);
  }
  co_await finish_window(pending);
  co_return FwStatus::Done;
}

Task<FwStatus> FirmwareCall::broadcast(int root, Algorithm alg, const Slice& src, const Slice& dst)
{
  const std::uint64_t n = dst.count, bytes = n * eb_;
  const bool is_root    = rank_ == root;
  if (rndzv_ && alg == Algorithm::Binomial) {
    // Binary tree: in rounds of distance D = 2^floor(log2(p-1)), D/2, ..., 1, a rank that has the data
    // and whose normalized index is divisible by 2D writes to the rank D further, once it has its
    // address; a receiver announces its buffer, busy-waits for the data, then sends in later rounds.
    int d = 1;
    while (d * 2 <= size_ - 1)
      d *= 2;
    bool sender = is_root;
    const int l = mod(rank_ - root, size_);
    for (; d > 0; d /= 2) {
      co_await fw_.charge(fw_.costs().step);
      if (sender && l % (2 * d) == 0 && l + d < size_) {
        int to = mod(l + d + root, size_);
        auto a = co_await fw_.spin(address_from(to), [&] { return fmt::format("{}: the address of rank {}", where(), to); });
        Move m;
        m.op0   = operand(is_root ? src : dst);
        m.count = n;
        co_await fw_.move(write_to(a, 0, std::move(m)));
      } else if (!sender && l % d == 0 && l >= d) {
        int from = mod(l - d + root, size_);
        co_await fw_.send_address(host(from), addr(dst), bytes);
        co_await fw_.spin(completion_from(from, addr(dst), 0), [&] { return fmt::format("{}: the data from rank {}", where(), from); });
        sender = true;
      }
    }
    co_return FwStatus::Done;
  }
  if (rndzv_) {
    // Flat ("out-of-order high fan-out"): the root writes to each rank as its address arrives.
    if (!is_root) {
      co_return co_await rendezvous_recv(root, dst);
    }
    co_return co_await write_as_addresses_come(static_cast<unsigned>(size_ - 1), 0, [&](int) { return src; });
  }
  // Eager: segment by segment, the root sends to every rank (a zero-length move to itself), with up to
  // 9 statuses outstanding; a receiver moves each segment out of its Rx buffer, one blocking move each. A count of 0
  // is no segment (`while(elems_remaining > 0)`): no move at all.
  if (n == 0)
    co_return FwStatus::Done;
  unsigned pending = 0;
  for (auto [off, cnt] : segments(n)) {
    if (is_root) {
      for (int i = 0; i < size_; ++i) {
        if (i == root)
          co_await fw_.start_move(prime());
        else
          co_await start_eager_segment(i, sub(src, off, cnt));
        co_await window(pending, 8);
      }
    } else {
      co_await start_recv(root, sub(dst, off, cnt), nullptr, -1);
      co_await fw_.end_move();
    }
  }
  co_await finish_window(pending);
  co_return FwStatus::Done;
}

Task<FwStatus> FirmwareCall::write_as_addresses_come(unsigned steps, unsigned pending,
                                               FnRef<Slice(int)> block)
{
  // The rendezvous root of broadcast() and scatter(): each address that has come (rendezvous_get_any_addr,
  // any rank) gets its block written, until `current_step` reaches `steps`; with none queued, the moves are
  // flushed and the call goes to the retry queue.
  while (step_ < steps) {
    auto a = co_await fw_.lookup(address_from(-1));
    if (!a) {
      co_await finish_window(pending);
      co_return not_ready("waits for destination addresses (RNDZV_INIT)");
    }
    Slice b = block(rank_of(a->src));
    Move m;
    m.op0   = operand(b);
    m.count = b.count;
    co_await fw_.start_move(write_to(*a, 0, std::move(m)));
    ++step_;
    co_await window(pending, 2);
  }
  co_await finish_window(pending);
  co_return FwStatus::Done;
}

Task<FwStatus> FirmwareCall::scatter(int root, const Slice& src, const Slice& dst)
{
  const std::uint64_t n = dst.count;
  if (rank_ != root) {
    if (!rndzv_) {
      const unsigned moves = co_await start_recv(root, dst, nullptr, -1);
      co_await end_moves(moves);
      co_return FwStatus::Done;
    }
    co_return co_await rendezvous_recv(root, dst);
  }
  if (!rndzv_) {
    // Every block (own one copied) issued at once, the statuses collected at the end.
    unsigned issued = 0;
    for (int i = 0; i < size_; ++i) {
      if (i == root) {
        co_await fw_.start_move(copy_move(sub(src, n * static_cast<std::uint64_t>(root), n), dst));
        ++issued;
      } else {
        issued += co_await start_eager(i, sub(src, n * static_cast<std::uint64_t>(i), n));
      }
    }
    co_await end_moves(issued);
    co_return FwStatus::Done;
  }
  unsigned pending = 0;
  if (step_ == 0) { // copy our own block while the addresses come
    co_await fw_.start_move(copy_move(sub(src, n * static_cast<std::uint64_t>(root), n), dst));
    step_   = 1;
    pending = 1;
  }
  co_return co_await write_as_addresses_come(static_cast<unsigned>(size_), pending,
                                 [&](int r) { return sub(src, n * static_cast<std::uint64_t>(r), n); });
}

Task<FwStatus> FirmwareCall::gather()
{
  const int root        = call_.call.root;
  const std::uint64_t n = call_.call.count, bytes = n * eb_;
  const Slice src = in(0, n);
  auto slot       = [&](int r) { return out(n * static_cast<std::uint64_t>(r), n); };
  if (rndzv_) {
    if (rank_ != root) {
      auto a = co_await fw_.lookup(address_from(root));
      if (!a)
        co_return not_ready(fmt::format("waits for its slot's address (RNDZV_INIT) from rank {}", root));
      Move m;
      m.op0   = operand(src);
      m.count = n;
      co_await fw_.move(write_to(*a, 0, std::move(m)));
      co_return FwStatus::Done;
    }
    // Root: copy its own block, announce slots to at most `fanin` ranks at a time, busy-wait for each
    // completion (any rank's) before announcing the next. As the firmware's loop: the root is stepped over at the
    // outer step, which then waits for a completion before the next burst (the bursts that would reach the root or
    // pass the last rank were refused before the run: CallPlan.cpp gather_slots).
    co_await fw_.start_move(copy_move(src, slot(root)));
    const unsigned fanin =
        sel_.options.gather_fanin == 0 ? static_cast<unsigned>(size_ - 1) : sel_.options.gather_fanin;
    unsigned initiated = 0, pending = 0, completed = 0;
    int next           = 0;
    while (completed < static_cast<unsigned>(size_ - 1)) {
      co_await fw_.charge(fw_.costs().step);
      if (initiated < static_cast<unsigned>(size_ - 1)) {
        if (next == rank_) {
          ++next;
        } else {
          while (pending < fanin && next < size_ && next != rank_) {
            co_await fw_.send_address(host(next), addr(slot(next)), bytes);
            ++initiated;
            ++pending;
            ++next;
          }
        }
      }
      if (pending > 0) {
        co_await fw_.spin(completion_from(-1, 0, bytes), [&] { return where() + ": the blocks it announced"; });
        --pending;
        ++completed;
      }
    }
    co_await fw_.end_move();
    co_return FwStatus::Done;
  }
  // Eager ring: every rank sends its block to the next rank towards the root and relays the blocks of
  // the ranks behind it; the root stores them as they come, every move issued at once.
  const int next = mod(rank_ + 1, size_), prev = mod(rank_ - 1, size_);
  unsigned issued = 0;
  if (rank_ == root) {
    co_await fw_.start_move(prime());
    ++issued;
    int pos = rank_;
    for (int i = 0; i < size_; ++i) {
      if (i == 0) {
        co_await fw_.start_move(copy_move(src, slot(pos)));
        ++issued;
      } else {
        issued += co_await start_recv(prev, slot(pos), nullptr, -1);
      }
      pos = mod(pos - 1, size_);
    }
  } else {
    issued += co_await start_eager(next, src);
    const int shifts = mod(rank_ - root, size_) - 1;
    for (int i = 0; i < shifts; ++i)
      issued += co_await start_recv(prev, {Buf::Input, 0, n}, nullptr, next);
  }
  co_await end_moves(issued);
  co_return FwStatus::Done;
}

Task<FwStatus> FirmwareCall::reduce(int root, Algorithm alg, const Slice& src, const Slice& dst)
{
  if (size_ == 1) {
    co_await fw_.move(copy_move(src, dst));
    co_return FwStatus::Done;
  }
  if (!rndzv_)
    co_return co_await reduce_ring(root, src, dst);
  if (alg == Algorithm::Binomial)
    co_return co_await reduce_tree(root, src, dst);
  co_return co_await reduce_flat(root, src, dst);
}

Task<FwStatus> FirmwareCall::reduce_flat(int root, const Slice& src, const Slice& dst)
{
  const std::uint64_t n = src.count, bytes = n * eb_;
  if (rank_ != root) {
    auto a = co_await fw_.spin(address_from(root), [&] { return fmt::format("{}: the address of rank {}", where(), root); });
    Move m;
    m.op0   = operand(src);
    m.count = n;
    co_await fw_.move(write_to(a, 0, std::move(m)));
    co_return FwStatus::Done;
  }
  // Root: announce a slot of the first spare buffer to every rank, then add the blocks up in the order
  // they land, alternating between the second and third spare buffers, the last sum into dst.
  for (int r = 0; r < size_; ++r)
    if (r != rank_)
      co_await fw_.send_address(host(r), addr(scratch(0, n * static_cast<std::uint64_t>(r), n)), bytes);
  unsigned pending = 0;
  Slice acc        = src;
  for (int i = 0; i < size_ - 1; ++i) {
    auto done  = co_await fw_.spin(completion_from(-1, 0, bytes), [&] { return where() + ": the blocks it announced"; });
    int from   = rank_of(done.src);
    Slice into = i == size_ - 2 ? dst : scratch(i % 2 ? 1 : 2, 0, n);
    co_await fw_.start_move(combine_move(acc, scratch(0, n * static_cast<std::uint64_t>(from), n), into));
    co_await window(pending, 2);
    acc = into;
  }
  co_await finish_window(pending);
  co_return FwStatus::Done;
}

Task<FwStatus> FirmwareCall::reduce_tree(int root, const Slice& src, const Slice& dst)
{
  // At step N (D = 2^N) a rank with normalized index L sends (S) if L % 2D != 0, receives (R) from L + D
  // otherwise (if it exists) and adds (+) what it received at step N - 1; + and S fuse into one move.
  // Each step: announce R's buffer, busy-wait S's address, the data-mover step, busy-wait R's data.
  // Buffers: receives alternate between the first two spare buffers, the sum accumulates in the third
  // (the firmware rotates all three; see protocols/collectives/README.md).
  const std::uint64_t n = src.count, bytes = n * eb_;
  const int l           = mod(rank_ - root, size_);
  const bool is_root    = l == 0;
  Slice have            = src;
  bool got              = false;
  Slice got_buf;
  for (int step = 0;; ++step) {
    co_await fw_.charge(fw_.costs().step);
    const int d    = 1 << step;
    const bool s   = (l % (2 * d) != 0) && !is_root;
    const bool r   = !s && (l + d < size_);
    Slice recv_buf = scratch(step % 2, 0, n);
    const int child = mod(l + d + root, size_), parent = mod(l - d + root, size_);
    if (r)
      co_await fw_.send_address(host(child), addr(recv_buf), bytes);
    std::optional<RndzvNotice> up;
    if (s)
      up = co_await fw_.spin(address_from(parent), [&] { return fmt::format("{}: the address of rank {}", where(), parent); });
    if (s) {
      Move m;
      m.op0   = operand(have);
      m.count = n;
      if (got) {
        m.op1    = operand(got_buf);
        m.reduce = true;
      }
      co_await fw_.move(write_to(*up, 0, std::move(m)));
    } else if (got) {
      Slice into = (is_root && !r) ? dst : scratch(2, 0, n);
      co_await fw_.move(combine_move(have, got_buf, into));
      have = into;
    }
    if (r)
      co_await fw_.spin(completion_from(child, addr(recv_buf), 0), [&] { return fmt::format("{}: the data from rank {}", where(), child); });
    if ((!r && is_root) || (s && !is_root))
      co_return FwStatus::Done;
    got     = r;
    got_buf = recv_buf;
  }
}

Task<FwStatus> FirmwareCall::reduce_ring(int root, const Slice& src, const Slice& dst)
{
  // Eager chain: the rank after the root sends its block; every other non-root receives, adds its own
  // and forwards in one move; the root receives and adds into dst.
  const int next = mod(rank_ + 1, size_), prev = mod(rank_ - 1, size_);
  if (prev == root)
    co_return co_await send(next, src);
  unsigned moves = 0;
  if (rank_ != root)
    moves = co_await start_recv(prev, src, &src, next);
  else
    moves = co_await start_recv(prev, dst, &src, -1);
  co_await end_moves(moves);
  co_return FwStatus::Done;
}

} // namespace nafsim::nodes
