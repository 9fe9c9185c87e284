// Schedules of the symmetric collectives: allgather, reduce-scatter, allreduce, all-to-all, barrier.
#include "protocols/collectives/AlgorithmBuilders.hpp"

namespace nafsim::coll::detail {

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

namespace {

/// Chunk i of `elems` elements split into p chunks the firmware's way: ceil(elems/p) each, the
/// last smaller (possibly empty).
std::pair<std::uint64_t, std::uint64_t> chunk(std::uint64_t elems, int p, int i)
{
  std::uint64_t bulk = (elems + static_cast<std::uint64_t>(p) - 1) / static_cast<std::uint64_t>(p);
  std::uint64_t off  = bulk * static_cast<std::uint64_t>(i);
  std::uint64_t cnt  = off >= elems ? 0 : std::min(bulk, elems - off);
  return {std::min(off, elems), cnt};
}

} // namespace

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

} // namespace nafsim::coll::detail
