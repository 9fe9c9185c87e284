// Open MPI 4.1's broadcast by a binomial-tree scatter and an allgather (coll_base_bcast.c,
// ompi_coll_base_bcast_intra_scatter_allgather and _ring). The source posts its receives with upper bounds
// and learns the real sizes from the status; a schedule needs each message's size, so the sizes are found
// first by running the algorithm's arithmetic for every rank, then this rank's calls are written.
#include "protocols/collectives/OmpiBuilders.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace nafsim::coll::detail::ompi_alg {

namespace {

using Elems = std::int64_t;

int lowbit(int v)
{
  return v & -v;
}

int rounddown(int v, int m)
{
  return v / m * m;
}

/// Elements each virtual rank receives in the scatter phase (the root: all).
std::vector<Elems> scatter_amounts(int p, Elems n, Elems sc)
{
  std::vector<Elems> got(static_cast<std::size_t>(p), 0);
  got[0] = n;
  int top = 1;
  while (top < p)
    top <<= 1;
  for (int v = 0; v < p; ++v) {
    Elems have = got[static_cast<std::size_t>(v)];
    for (int mask = (v == 0 ? top : lowbit(v)) >> 1; mask > 0; mask >>= 1)
      if (v + mask < p)
        if (const Elems s = have - sc * mask; s > 0) {
          got[static_cast<std::size_t>(v + mask)] = s;
          have -= s;
        }
  }
  return got;
}

} // namespace

void bcast_scatter_allgather(Ctx& c, int root, std::uint64_t n, Slice src, Slice dst, bool ring)
{
  MpiProgram& m = c.m;
  const int p = c.p, r = c.r;
  const Slice buf = r == root ? src : dst;
  const Elems count = static_cast<Elems>(n), sc = (count + p - 1) / p;
  const int v = mod(r - root, p);
  auto at     = [&](Elems offset, Elems elems) { // an empty piece past the end is placed at the end
    elems = std::max<Elems>(elems, 0);
    return sub(buf, static_cast<std::uint64_t>(elems == 0 ? std::min(offset, count) : offset), static_cast<std::uint64_t>(elems));
  };
  auto block = [&](int vr) { return std::clamp<Elems>(count - vr * sc, 0, sc); };
  // Scatter by binomial tree.
  const auto got = scatter_amounts(p, count, sc);
  if (v != 0 && count - v * sc > 0)
    m.recv(mod(r - lowbit(v), p), at(v * sc, got[static_cast<std::size_t>(v)]));
  int top = 1;
  while (top < p)
    top <<= 1;
  Elems have = got[static_cast<std::size_t>(v)];
  for (int mask = (v == 0 ? top : lowbit(v)) >> 1; mask > 0; mask >>= 1)
    if (v + mask < p)
      if (const Elems s = have - sc * mask; s > 0) {
        m.send(mod(r + mask, p), at(sc * (v + mask), s));
        have -= s;
      }
  if (ring) { // the allgather around the ring of ranks, blocks by virtual rank
    const int left = mod(r - 1, p), right = mod(r + 1, p);
    int send_block = v, recv_block = mod(v - 1, p);
    for (int i = 1; i < p; ++i) {
      m.sendrecv(r, right, at(send_block * sc, block(send_block)), left, at(recv_block * sc, block(recv_block)));
      send_block = recv_block;
      recv_block = mod(recv_block - 1, p);
    }
    return;
  }
  // Allgather by recursive doubling, every rank's counts stepped together; on a non-power-of-two
  // communicator the ranks whose partner is missing are served by recursive halving.
  std::vector<Elems> curr(static_cast<std::size_t>(p)), last(static_cast<std::size_t>(p), 0);
  for (int w = 0; w < p; ++w)
    curr[static_cast<std::size_t>(w)] = block(w);
  auto U = [](int w) { return static_cast<std::size_t>(w); };
  for (int mask = 1; mask < p; mask <<= 1) {
    auto next = curr;
    for (int w = 0; w < p; ++w)
      if (const int wr = w ^ mask; wr < p) {
        last[U(w)] = curr[U(wr)];
        next[U(w)] = curr[U(w)] + curr[U(wr)];
      }
    if (const int vr = v ^ mask; vr < p)
      m.sendrecv(r, mod(vr + root, p), at(rounddown(v, mask) * sc, curr[U(v)]), mod(vr + root, p),
                 at(rounddown(vr, mask) * sc, curr[U(vr)]));
    curr = next;
    for (int rh = mask >> 1; rh > 0; rh >>= 1) {
      auto next_last = last;
      auto grown     = curr;
      for (int w = 0; w < p; ++w) {
        if (rounddown(w ^ mask, mask) + mask <= p)
          continue;
        const int alldata = p - rounddown(w, mask) - mask;
        const Elems offset = sc * (rounddown(w, mask) + mask);
        const int wr = w ^ rh, tree_root = rounddown(w, rh << 1);
        const bool sends = wr > w && w < tree_root + alldata && wr >= tree_root + alldata && wr < p;
        const bool recvs = wr < w && wr < tree_root + alldata && w >= tree_root + alldata;
        if (recvs) {
          next_last[U(w)] = last[U(wr)];
          grown[U(w)] += last[U(wr)];
        }
        if (w == v && sends)
          m.send(mod(wr + root, p), at(offset, last[U(w)]));
        if (w == v && recvs)
          m.recv(mod(wr + root, p), at(offset, last[U(wr)]));
      }
      last = next_last;
      curr = grown;
    }
  }
}

} // namespace nafsim::coll::detail::ompi_alg
