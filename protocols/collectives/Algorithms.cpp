#include "protocols/collectives/Algorithms.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace nafsim::coll {

namespace {

using Deps = std::vector<std::uint32_t>;

int mod(int a, int p)
{
  return ((a % p) + p) % p;
}
bool power_of_two(int p)
{
  return p > 0 && (p & (p - 1)) == 0;
}
Slice in(std::uint64_t off, std::uint64_t cnt)
{
  return {Buf::Input, off, cnt};
}
Slice out(std::uint64_t off, std::uint64_t cnt)
{
  return {Buf::Output, off, cnt};
}
Slice scratch(int k, std::uint64_t off, std::uint64_t cnt)
{
  return {static_cast<Buf>(static_cast<int>(Buf::Scratch0) + k), off, cnt};
}
Slice sub(Slice s, std::uint64_t off, std::uint64_t cnt)
{
  return {s.buf, s.offset + off, cnt};
}

struct Builder {
  Schedule s;
  std::uint32_t add(Op op)
  {
    s.ops.push_back(std::move(op));
    return static_cast<std::uint32_t>(s.ops.size() - 1);
  }
  std::uint32_t send(int peer, Slice a, Deps d = {})
  {
    Op o;
    o.kind = OpKind::Send;
    o.peer = peer;
    o.a    = a;
    o.deps = std::move(d);
    return add(std::move(o));
  }
  std::uint32_t recv(int peer, Slice dst, Deps d = {}, int group = -1)
  {
    Op o;
    o.kind       = OpKind::Recv;
    o.peer       = peer;
    o.dst        = dst;
    o.deps       = std::move(d);
    o.addr_group = group;
    return add(std::move(o));
  }
  std::uint32_t recv_reduce(int peer, Slice a, Slice dst, Deps d = {})
  {
    Op o;
    o.kind = OpKind::RecvReduce;
    o.peer = peer;
    o.a    = a;
    o.dst  = dst;
    o.deps = std::move(d);
    return add(std::move(o));
  }
  std::uint32_t recv_reduce_send(int from, int to, Slice a, Deps d = {})
  {
    Op o;
    o.kind  = OpKind::RecvReduceSend;
    o.peer  = from;
    o.peer2 = to;
    o.a     = a;
    o.deps  = std::move(d);
    return add(std::move(o));
  }
  std::uint32_t recv_send(int from, int to, std::uint64_t count, Deps d = {})
  {
    Op o;
    o.kind  = OpKind::RecvSend;
    o.peer  = from;
    o.peer2 = to;
    o.a     = {Buf::Input, 0, count};
    o.deps  = std::move(d);
    return add(std::move(o));
  }
  std::uint32_t combine(Slice a, Slice b, Slice dst, Deps d = {})
  {
    Op o;
    o.kind = OpKind::Combine;
    o.a    = a;
    o.b    = b;
    o.dst  = dst;
    o.deps = std::move(d);
    return add(std::move(o));
  }
  std::uint32_t combine_send(Slice a, Slice b, int peer, Deps d = {})
  {
    Op o;
    o.kind = OpKind::CombineSend;
    o.a    = a;
    o.b    = b;
    o.peer = peer;
    o.deps = std::move(d);
    return add(std::move(o));
  }
  std::uint32_t copy(Slice a, Slice dst, Deps d = {})
  {
    Op o;
    o.kind = OpKind::Copy;
    o.a    = a;
    o.dst  = dst;
    o.deps = std::move(d);
    return add(std::move(o));
  }
  std::uint32_t notify(int peer, Deps d = {})
  {
    Op o;
    o.kind = OpKind::Notify;
    o.peer = peer;
    o.deps = std::move(d);
    return add(std::move(o));
  }
  std::uint32_t wait_notify(int peer, Deps d = {})
  {
    Op o;
    o.kind = OpKind::WaitNotify;
    o.peer = peer;
    o.deps = std::move(d);
    return add(std::move(o));
  }
  /// Every op added so far (a later phase waits for all of them).
  Deps all() const
  {
    Deps d(s.ops.size());
    for (std::uint32_t i = 0; i < d.size(); ++i)
      d[i] = i;
    return d;
  }
  void need_scratch(int k, std::uint64_t elems) { s.scratch[k] = std::max(s.scratch[k], elems); }
};

Deps plus(Deps d, const Deps& more)
{
  d.insert(d.end(), more.begin(), more.end());
  return d;
}

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
  b.need_scratch(0, n * p);
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

// ---------------- allgather ----------------

void allgather_ring(Builder& b, int p, int r, Protocol proto, const CollectiveCall& c)
{
  const std::uint64_t n = c.count;
  if (p == 1) {
    b.copy(in(0, n), out(0, n));
    return;
  }
  int next = mod(r + 1, p), prev = mod(r - 1, p);
  // Rendezvous: each rank announces its whole output buffer to its predecessor once (group 0); every
  // transfer then lands at its slot in it.
  b.copy(in(0, n), out(n * r, n));
  auto own                       = b.send(next, in(0, n));
  b.s.ops[own].remote_offset     = n * static_cast<std::uint64_t>(r);
  Deps last;
  for (int i = 0; i < p - 1; ++i) {
    Slice slot = out(n * mod(r - 1 - i, p), n);
    auto rv    = b.recv(prev, slot, last, proto == Protocol::Rendezvous ? 0 : -1);
    if (i < p - 2) {
      auto fwd                   = b.send(next, slot, {rv});
      b.s.ops[fwd].remote_offset = slot.offset;
    }
    last = {rv};
  }
}

void allgather_recursive_doubling(Builder& b, int p, int r, const CollectiveCall& c)
{
  const std::uint64_t n = c.count;
  Deps last             = {b.copy(in(0, n), out(n * r, n))};
  for (int mask = 1; mask < p; mask *= 2) {
    int partner   = r ^ mask;
    auto my_base  = static_cast<std::uint64_t>(r & ~(mask - 1));
    auto his_base = static_cast<std::uint64_t>(partner & ~(mask - 1));
    auto s        = b.send(partner, out(n * my_base, n * mask), last);
    auto rv       = b.recv(partner, out(n * his_base, n * mask), last);
    last          = {s, rv};
  }
}

// ---------------- reduce-scatter / allreduce ----------------

/// Chunk i of `elems` elements split into p chunks the firmware's way: ceil(elems/p) each, the
/// last smaller (possibly empty).
std::pair<std::uint64_t, std::uint64_t> chunk(std::uint64_t elems, int p, int i)
{
  std::uint64_t bulk = (elems + static_cast<std::uint64_t>(p) - 1) / static_cast<std::uint64_t>(p);
  std::uint64_t off  = bulk * static_cast<std::uint64_t>(i);
  std::uint64_t cnt  = off >= elems ? 0 : std::min(bulk, elems - off);
  return {std::min(off, elems), cnt};
}

/// Ring reduce-scatter over `elems` elements at `base`: afterwards rank r holds the reduced chunk
/// `(r + final_shift) mod p` in `dst`.
Deps ring_reduce_scatter(Builder& b, int p, int r, std::uint64_t base, std::uint64_t elems, int final_shift,
                         bool to_slot, Slice dst_flat, const Deps& after)
{
  int next = mod(r + 1, p), prev = mod(r - 1, p);
  auto ck  = [&](int c) {
    auto [off, cnt] = chunk(elems, p, c);
    return std::pair{base + off, cnt};
  };
  // Rank r first sends chunk r + shift - 1; at step i it receives chunk r + shift - 2 - i, so the
  // last step (i = p - 2) brings chunk r + shift, reduced over all ranks.
  int first = mod(r + final_shift - 1, p);
  auto [foff, fcnt] = ck(first);
  Deps last         = {b.send(next, in(foff, fcnt), after)};
  for (int i = 0; i < p - 1; ++i) {
    int c           = mod(first - 1 - i, p);
    auto [off, cnt] = ck(c);
    if (i < p - 2)
      last = {b.recv_reduce_send(prev, next, in(off, cnt), last)};
    else
      last = {b.recv_reduce(prev, in(off, cnt), to_slot ? out(off, cnt) : dst_flat, last)};
  }
  return last;
}

void allreduce_ring(Builder& b, int p, int r, const CollectiveCall& c, std::uint64_t seg)
{
  std::uint64_t max_seg = seg;
  if (max_seg > 0) {
    max_seg -= max_seg % static_cast<std::uint64_t>(p);
    if (max_seg == 0)
      max_seg = static_cast<std::uint64_t>(p);
  }
  int next = mod(r + 1, p), prev = mod(r - 1, p);
  Deps last;
  for (auto [base, elems] : segments(c.count, max_seg)) {
    // Reduce-scatter: rank r ends with chunk r + 1.
    last = ring_reduce_scatter(b, p, r, base, elems, 1, true, {}, last);
    // Allgather of the reduced chunks.
    auto ck = [&](int k) {
      auto [off, cnt] = chunk(elems, p, k);
      return out(base + off, cnt);
    };
    last = {b.send(next, ck(mod(r + 1, p)), last)};
    Deps got = last;
    for (int i = 0; i < p - 1; ++i) {
      Slice slot = ck(mod(r - i, p));
      auto rv    = b.recv(prev, slot, got);
      if (i < p - 2)
        b.send(next, slot, {rv});
      got = {rv};
    }
    last = b.all();
  }
}

void allreduce_recursive_doubling(Builder& b, int p, int r, const CollectiveCall& c)
{
  // Receives go to a spare buffer, posted with the send (a rendezvous send needs the peer's
  // receive posted, so an in-place receive after the send would deadlock), then combined.
  const std::uint64_t n = c.count;
  b.need_scratch(0, n);
  Deps last = {b.copy(in(0, n), out(0, n))};
  for (int mask = 1; mask < p; mask *= 2) {
    int partner = r ^ mask;
    auto s      = b.send(partner, out(0, n), last);
    auto rv     = b.recv(partner, scratch(0, 0, n), last);
    last        = {b.combine(out(0, n), scratch(0, 0, n), out(0, n), {s, rv})};
  }
}

/// Rabenseifner: reduce-scatter by recursive halving, then allgather by recursive doubling.
void allreduce_rabenseifner(Builder& b, int p, int r, const CollectiveCall& c)
{
  const std::uint64_t n = c.count;
  b.need_scratch(0, n);
  Deps last = {b.copy(in(0, n), out(0, n))};
  std::uint64_t lo = 0, hi = n;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> kept; // range kept at each halving step
  std::vector<int> partners;
  for (int mask = p / 2; mask >= 1; mask /= 2) {
    int partner       = r ^ mask;
    std::uint64_t mid = lo + (hi - lo) / 2;
    bool lower        = (r & mask) == 0;
    auto [klo, khi]   = lower ? std::pair{lo, mid} : std::pair{mid, hi};
    auto [slo, shi]   = lower ? std::pair{mid, hi} : std::pair{lo, mid};
    auto s            = b.send(partner, out(slo, shi - slo), last);
    auto rv           = b.recv(partner, scratch(0, klo, khi - klo), last);
    last = {b.combine(out(klo, khi - klo), scratch(0, klo, khi - klo), out(klo, khi - klo), {s, rv})};
    kept.emplace_back(lo, hi);
    partners.push_back(partner);
    lo = klo;
    hi = khi;
  }
  for (std::size_t i = kept.size(); i-- > 0;) {
    int partner                = partners[i];
    auto [plo, phi]            = kept[i];
    std::uint64_t other_lo     = lo == plo ? hi : plo;
    std::uint64_t other_hi     = lo == plo ? phi : lo;
    auto s                     = b.send(partner, out(lo, hi - lo), last);
    auto rv                    = b.recv(partner, out(other_lo, other_hi - other_lo), last);
    last                       = {s, rv};
    lo                         = plo;
    hi                         = phi;
  }
}

// ---------------- all-to-all, barrier ----------------

void alltoall_flat(Builder& b, int p, int r, const CollectiveCall& c)
{
  const std::uint64_t n = c.count;
  b.copy(in(n * r, n), out(n * r, n));
  // Sends first: an executor moving data in order (the CCLO data mover) would otherwise block every
  // rank on its first receive when the protocol is eager. Rendezvous sends wait for their addresses
  // anyway, so the receives still announce theirs first.
  for (int i = 0; i < p; ++i)
    if (i != r)
      b.send(i, in(n * i, n));
  for (int i = 0; i < p; ++i)
    if (i != r)
      b.recv(i, out(n * i, n));
}

void alltoall_pairwise(Builder& b, int p, int r, const CollectiveCall& c)
{
  const std::uint64_t n = c.count;
  Deps last             = {b.copy(in(n * r, n), out(n * r, n))};
  for (int k = 1; k < p; ++k) {
    int to = mod(r + k, p), from = mod(r - k, p);
    auto s  = b.send(to, in(n * to, n), last);
    auto rv = b.recv(from, out(n * from, n), last);
    last    = {s, rv};
  }
}

void barrier_flat(Builder& b, int p, int r)
{
  if (p == 1)
    return;
  if (r == 0) {
    Deps waits;
    for (int i = 1; i < p; ++i)
      waits.push_back(b.wait_notify(i));
    for (int i = 1; i < p; ++i)
      b.notify(i, waits);
    return;
  }
  auto n = b.notify(0);
  b.wait_notify(0, {n});
}

} // namespace

std::vector<std::pair<std::uint64_t, std::uint64_t>> segments(std::uint64_t count, std::uint64_t seg)
{
  std::vector<std::pair<std::uint64_t, std::uint64_t>> v;
  if (seg == 0 || count <= seg) {
    v.emplace_back(0, count);
    return v;
  }
  for (std::uint64_t off = 0; off < count; off += seg)
    v.emplace_back(off, std::min(seg, count - off));
  return v;
}

std::string check_applicable(const CollectiveCall& c, Algorithm alg)
{
  auto is = [&](std::initializer_list<Collective> cs) { return std::find(cs.begin(), cs.end(), c.collective) != cs.end(); };
  bool ok = false;
  switch (alg) {
    case Algorithm::Direct: ok = is({Collective::Send, Collective::Recv, Collective::Copy, Collective::Combine, Collective::Nop}); break;
    case Algorithm::Flat:
      ok = is({Collective::Bcast, Collective::Scatter, Collective::Gather, Collective::Reduce, Collective::AllToAll,
               Collective::Barrier});
      break;
    case Algorithm::Binomial: ok = is({Collective::Bcast, Collective::Reduce, Collective::Gather}); break;
    case Algorithm::Ring:
      ok = is({Collective::Gather, Collective::AllGather, Collective::Reduce, Collective::ReduceScatter,
               Collective::AllReduce});
      break;
    case Algorithm::ReduceBcast: ok = is({Collective::AllReduce}); break;
    case Algorithm::ReduceScatterComposite: ok = is({Collective::ReduceScatter}); break;
    case Algorithm::RecursiveDoubling:
    case Algorithm::Rabenseifner:
      ok = alg == Algorithm::Rabenseifner ? is({Collective::AllReduce}) : is({Collective::AllGather, Collective::AllReduce});
      if (ok && !power_of_two(c.size))
        return std::string(algorithm_name(alg)) + " needs a power-of-two number of ranks, not " +
               std::to_string(c.size);
      break;
    case Algorithm::Pairwise: ok = is({Collective::AllToAll}); break;
  }
  if (!ok)
    return std::string(algorithm_name(alg)) + " does not implement " + collective_name(c.collective);
  if (c.size < 1)
    return "a communicator needs at least one rank";
  if (c.root < 0 || c.root >= c.size)
    return "root " + std::to_string(c.root) + " is not a rank of a " + std::to_string(c.size) + "-rank communicator";
  return {};
}

Schedule build_schedule(const CollectiveCall& c, Algorithm alg, Protocol proto, int rank, const AlgorithmOptions& opt)
{
  if (auto why = check_applicable(c, alg); !why.empty())
    throw std::invalid_argument(why);
  Builder b;
  b.s.call      = c;
  b.s.rank      = rank;
  b.s.algorithm = alg;
  b.s.protocol  = proto;
  const int p = c.size, root = c.root, r = rank;
  const std::uint64_t n = c.count;
  switch (c.collective) {
    case Collective::Nop: break;
    case Collective::Send: b.send(root, in(0, n)); break;
    case Collective::Recv: b.recv(root, out(0, n)); break;
    case Collective::Copy: b.copy(in(0, n), out(0, n)); break;
    case Collective::Combine: b.combine(in(0, n), out(0, n), out(0, n)); break;
    case Collective::Bcast:
      if (alg == Algorithm::Binomial)
        bcast_binomial(b, p, root, r, in(0, n), out(0, n), {});
      else
        bcast_flat(b, p, root, r, proto, in(0, n), out(0, n), {}, opt.segment_elems);
      break;
    case Collective::Scatter: scatter_flat(b, p, root, r, proto, in(0, n * p), out(0, n), {}); break;
    case Collective::Gather:
      if (alg == Algorithm::Ring)
        gather_ring(b, p, root, r, c);
      else if (alg == Algorithm::Binomial)
        gather_binomial(b, p, root, r, c);
      else
        gather_flat(b, p, root, r, c, opt.gather_fanin);
      break;
    case Collective::AllGather:
      if (alg == Algorithm::RecursiveDoubling)
        allgather_recursive_doubling(b, p, r, c);
      else
        allgather_ring(b, p, r, proto, c);
      break;
    case Collective::Reduce:
      if (p == 1)
        b.copy(in(0, n), out(0, n));
      else
        reduce_any(b, alg, p, root, r, in(0, n), out(0, n), {});
      break;
    case Collective::AllReduce:
      if (p == 1) {
        b.copy(in(0, n), out(0, n));
        break;
      }
      switch (alg) {
        case Algorithm::Ring: allreduce_ring(b, p, r, c, opt.segment_elems); break;
        case Algorithm::RecursiveDoubling: allreduce_recursive_doubling(b, p, r, c); break;
        case Algorithm::Rabenseifner: allreduce_rabenseifner(b, p, r, c); break;
        default: { // reduce to rank 0, broadcast from rank 0 (the firmware's rendezvous allreduce)
          reduce_any(b, opt.reduce_sub, p, 0, r, in(0, n), out(0, n), {});
          Deps after = b.all();
          if (opt.bcast_sub == Algorithm::Binomial)
            bcast_binomial(b, p, 0, r, out(0, n), out(0, n), after);
          else
            bcast_flat(b, p, 0, r, proto, out(0, n), out(0, n), after, opt.segment_elems);
          break;
        }
      }
      break;
    case Collective::ReduceScatter:
      if (p == 1) {
        b.copy(in(0, n), out(0, n));
        break;
      }
      if (alg == Algorithm::Ring) {
        ring_reduce_scatter(b, p, r, 0, n * p, 0, false, out(0, n), {});
      } else { // reduce everything into rank 0's input, then scatter from it
        reduce_any(b, opt.reduce_sub, p, 0, r, in(0, n * p), in(0, n * p), {});
        scatter_flat(b, p, 0, r, proto, in(0, n * p), out(0, n), b.all());
      }
      break;
    case Collective::AllToAll:
      if (alg == Algorithm::Pairwise)
        alltoall_pairwise(b, p, r, c);
      else
        alltoall_flat(b, p, r, c);
      break;
    case Collective::Barrier: barrier_flat(b, p, r); break;
  }
  return std::move(b.s);
}

} // namespace nafsim::coll
