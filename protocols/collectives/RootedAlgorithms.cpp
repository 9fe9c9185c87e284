// Schedules of the rooted collectives: broadcast, reduce, scatter, gather.
#include "protocols/collectives/AlgorithmBuilders.hpp"

namespace nafsim::coll::detail {

// ---------------- broadcast ----------------

/// Root sends `src` to everyone, receivers store into `dst`. Eager: the firmware's one-to-all
/// loop, one Rx-buffer segment at a time to every rank (up to 9 moves in flight); rendezvous:
/// the whole buffer to each rank in the order their addresses arrive (3 in flight).
void bcast_flat(Builder& b, int p, int root, int r, Protocol proto, Slice src, Slice dst, const Deps& after,
                std::uint64_t seg)
{
  if (r == root) {
    for (auto [off, cnt] : segments(src.count, proto == Protocol::Eager ? seg : 0))
      for (int i = 0; i < p; ++i)
        if (i != root)
          b.send(i, sub(src, off, cnt), after);
    b.s.max_inflight = proto == Protocol::Eager ? 9 : 3;
    return;
  }
  Deps d = after;
  for (auto [off, cnt] : segments(dst.count, proto == Protocol::Eager ? seg : 0))
    d = {b.recv(root, sub(dst, off, cnt), d)};
}

/// The firmware's binary-tree broadcast: in rounds of distance D = 2^floor(log2(p-1)), D/2, ...,
/// 1, every rank that has the data and whose normalized index is divisible by 2D sends to the
/// rank D further; a receiver becomes a sender for the remaining rounds.
void bcast_binomial(Builder& b, int p, int root, int r, Slice src, Slice dst, const Deps& after)
{
  if (p == 1)
    return;
  int l       = mod(r - root, p);
  int d       = 1;
  while (d * 2 <= p - 1)
    d *= 2;
  bool sender = r == root;
  Slice have  = r == root ? src : dst;
  Deps last   = after;
  for (; d > 0; d /= 2) {
    if (sender && l % (2 * d) == 0 && l + d < p) {
      last = {b.send(mod(l + d + root, p), have, last)};
    } else if (!sender && l % d == 0 && l - d >= 0) {
      last   = {b.recv(mod(l - d + root, p), dst, last)};
      sender = true;
    }
  }
}

// ---------------- reduce ----------------

/// Eager ring chain: root+1 sends its data, each next rank adds its own and passes it on, the
/// root adds its own last.
void reduce_ring(Builder& b, int p, int root, int r, Slice src, Slice dst, const Deps& after)
{
  int next = mod(r + 1, p), prev = mod(r - 1, p);
  if (prev == root)
    b.send(next, src, after);
  else if (r != root)
    b.recv_reduce_send(prev, next, src, after);
  else
    b.recv_reduce(prev, src, dst, after);
}

/// Rendezvous flat tree: every non-root writes into the root's first spare buffer; the root adds
/// the arrivals up, alternating between the second and third spare buffers, the last into `dst`.
void reduce_flat(Builder& b, int p, int root, int r, Slice src, Slice dst, const Deps& after)
{
  const std::uint64_t n = src.count;
  if (r != root) {
    b.send(root, src, after);
    return;
  }
  // Rank i's block lands at n x i (ccl_offload_control.c reduce(): the non-roots' slots only), so a root that is the
  // last rank needs p - 1 blocks there.
  b.need_scratch(0, n * static_cast<std::uint64_t>(root == p - 1 ? p - 1 : p));
  b.need_scratch(1, n);
  b.need_scratch(2, n);
  std::vector<std::uint32_t> recvs;
  std::vector<int> sources;
  for (int i = 0; i < p; ++i)
    if (i != root) {
      recvs.push_back(b.recv(i, scratch(0, n * i, n), after));
      sources.push_back(i);
    }
  Slice acc = src;
  Deps prev = after;
  for (std::size_t i = 0; i < recvs.size(); ++i) {
    bool last   = i + 1 == recvs.size();
    Slice into  = last ? dst : scratch(i % 2 ? 1 : 2, 0, n);
    prev        = {b.combine(acc, scratch(0, n * sources[i], n), into, plus(prev, {recvs[i]}))};
    acc         = into;
  }
}

/// The firmware's rendezvous binary-tree reduce: at step N (distance D = 2^N) a rank with normalized
/// index L sends (S) if L % 2D != 0, receives (R) from L + D otherwise (if that rank exists), and adds
/// (+) what it received at step N-1; + and S fuse into one move. Buffers: the firmware rotates three
/// spare buffers so that a step's incoming write can land in the buffer its combine is reading, and
/// after an idle step it sends a buffer it never wrote; here the accumulator is the third spare
/// buffer (combined in place) and receives alternate between the other two: the same transfers and
/// moves, without those hazards.
void reduce_binomial(Builder& b, int p, int root, int r, Slice src, Slice dst, const Deps& after)
{
  const std::uint64_t n = src.count;
  if (p == 1) {
    b.copy(src, dst, after);
    return;
  }
  for (int k = 0; k < 3; ++k)
    b.need_scratch(k, n);
  const int l        = mod(r - root, p);
  const bool is_root = l == 0;
  Slice have         = src;      // this rank's partial result
  bool got           = false;    // received at the previous step
  Slice got_buf;
  Deps prev = after;
  for (int step = 0;; ++step) {
    int d    = 1 << step;
    bool s   = (l % (2 * d) != 0) && !is_root;
    bool rcv = !s && (l + d < p);
    Deps this_step;
    Slice recv_buf = scratch(step % 2, 0, n);
    if (rcv)
      this_step.push_back(b.recv(mod(l + d + root, p), recv_buf, prev));
    if (got && s) {
      this_step.push_back(b.combine_send(have, got_buf, mod(l - d + root, p), prev));
    } else if (got) {
      Slice into = (is_root && !rcv) ? dst : scratch(2, 0, n);
      this_step.push_back(b.combine(have, got_buf, into, prev));
      have = into;
    } else if (s) {
      this_step.push_back(b.send(mod(l - d + root, p), have, prev));
    }
    if ((!rcv && is_root) || (s && !is_root))
      return;
    got     = rcv;
    got_buf = recv_buf;
    if (!this_step.empty())
      prev = this_step;
  }
}

void reduce_any(Builder& b, Algorithm alg, int p, int root, int r, Slice src, Slice dst, const Deps& after)
{
  switch (alg) {
    case Algorithm::Ring: reduce_ring(b, p, root, r, src, dst, after); return;
    case Algorithm::Binomial: reduce_binomial(b, p, root, r, src, dst, after); return;
    default: reduce_flat(b, p, root, r, src, dst, after); return;
  }
}

// ---------------- gather / scatter ----------------

void scatter_flat(Builder& b, int p, int root, int r, Protocol proto, Slice src, Slice dst, const Deps& after)
{
  const std::uint64_t n = dst.count;
  if (r != root) {
    b.recv(root, dst, after);
    return;
  }
  b.copy(sub(src, n * root, n), dst, after);
  for (int i = 0; i < p; ++i)
    if (i != root)
      b.send(i, sub(src, n * i, n), after);
  b.s.max_inflight = proto == Protocol::Eager ? static_cast<unsigned>(p) : 3;
}

/// Eager ring gather: every non-root sends its data to the next rank towards the root and relays
/// what the farther ranks send; the root stores each arrival in its slot.
void gather_ring(Builder& b, int p, int root, int r, const CollectiveCall& c)
{
  const std::uint64_t n = c.count;
  int next = mod(r + 1, p), prev = mod(r - 1, p);
  if (r == root) {
    b.copy(in(0, n), out(n * root, n));
    for (int k = 1; k < p; ++k)
      b.recv(prev, out(n * mod(root - k, p), n));
    b.s.max_inflight = static_cast<unsigned>(p);
    return;
  }
  b.send(next, in(0, n));
  int shifts = mod(r - root, p) - 1;
  for (int i = 0; i < shifts; ++i)
    b.recv_send(prev, next, n);
  b.s.max_inflight = static_cast<unsigned>(shifts + 1);
}

/// Rendezvous flat gather: the root announces its slots to at most `fanin` senders at a time.
void gather_flat(Builder& b, int p, int root, int r, const CollectiveCall& c, unsigned fanin)
{
  const std::uint64_t n = c.count;
  if (r != root) {
    b.send(root, in(0, n));
    return;
  }
  b.copy(in(0, n), out(n * root, n));
  unsigned f = fanin == 0 ? static_cast<unsigned>(p - 1) : fanin;
  std::vector<std::uint32_t> recvs;
  for (int i = 0; i < p; ++i) {
    if (i == root)
      continue;
    Deps d;
    if (recvs.size() >= f)
      d.push_back(recvs[recvs.size() - f]);
    recvs.push_back(b.recv(i, out(n * i, n), d));
  }
}

/// Binomial gather: at distance 2^k, ranks whose normalized index has bit k set send the block
/// they hold ([L, L + 2^k)) to L - 2^k. Blocks are kept in normalized order in a spare buffer and
/// the root copies them to their slots at the end.
void gather_binomial(Builder& b, int p, int root, int r, const CollectiveCall& c)
{
  const std::uint64_t n = c.count;
  int l                 = mod(r - root, p);
  b.need_scratch(0, n * p);
  Deps last = {b.copy(in(0, n), scratch(0, n * l, n))};
  for (int mask = 1; mask < p; mask *= 2) {
    if (l & mask) {
      std::uint64_t blocks = static_cast<std::uint64_t>(std::min(mask, p - l));
      b.send(mod(l - mask + root, p), scratch(0, n * l, n * blocks), last);
      return;
    }
    if (l + mask < p) {
      std::uint64_t blocks = static_cast<std::uint64_t>(std::min(mask, p - l - mask));
      last                 = {b.recv(mod(l + mask + root, p), scratch(0, n * (l + mask), n * blocks), last)};
    }
  }
  // Root: normalized block j belongs to rank (j + root) mod p.
  std::uint64_t head = static_cast<std::uint64_t>(p - root);
  b.copy(scratch(0, 0, n * head), out(n * root, n * head), last);
  if (root > 0)
    b.copy(scratch(0, n * head, n * root), out(0, n * root), last);
}

} // namespace nafsim::coll::detail
