// Open MPI 4.1's collectives without a root (coll_base_allreduce.c, coll_base_allgather.c,
// coll_base_alltoall.c, coll_base_reduce_scatter.c, coll_base_barrier.c), written as the library runs
// them. Ranks beyond the largest power of two are folded in first and served last where the source
// does so (recursive doubling, Rabenseifner, recursive halving, the recursive-doubling barrier).
#include "protocols/collectives/OmpiAlgorithms.hpp"
#include "protocols/collectives/OmpiBuilders.hpp"

#include <optional>
#include <stdexcept>
#include <utility>

namespace nafsim::coll::detail::ompi_alg {

namespace {

using Req = MpiProgram::Req;

[[noreturn]] void not_modeled(const char* collective, const std::string& name)
{
  throw std::invalid_argument(std::string("Open MPI ") + collective + " algorithm '" + name + "' is not modeled");
}

/// ompi_coll_base_allreduce_intra_recursivedoubling: the data is copied into a temporary buffer; of
/// the first 2 * (p - p') ranks the even ones hand their data to their right neighbour and wait;
/// the p' others exchange and reduce at distances 1, 2, 4, ...; the folded ranks get the result last.
void allreduce_recursive_doubling(Ctx& c, std::uint64_t n)
{
  MpiProgram& m = c.m;
  const int p = c.p, r = c.r;
  Slice tsend = scratch(0, 0, n), trecv = out(0, n);
  m.builder().need_scratch(0, n);
  m.copy(in(0, n), tsend);
  const int adjsize = ompi::floor_power_of_two(p), extra = p - adjsize;
  int newrank       = r - extra;
  if (r < 2 * extra) {
    if (r % 2 == 0) {
      m.send(r + 1, tsend);
      newrank = -1;
    } else {
      m.recv(r - 1, trecv);
      m.reduce(trecv, tsend);
      newrank = r >> 1;
    }
  }
  for (int distance = 1; newrank >= 0 && distance < adjsize; distance <<= 1) {
    const int newremote = newrank ^ distance;
    const int remote    = newremote < extra ? newremote * 2 + 1 : newremote + extra;
    m.sendrecv(r, remote, tsend, remote, trecv);
    if (r < remote) {
      m.reduce(tsend, trecv);
      std::swap(tsend, trecv);
    } else {
      m.reduce(trecv, tsend);
    }
  }
  if (r < 2 * extra) {
    if (r % 2 == 0) {
      m.recv(r + 1, out(0, n));
      tsend = out(0, n);
    } else {
      m.send(r - 1, tsend);
    }
  }
  if (tsend.buf != Buf::Output)
    m.copy(tsend, out(0, n));
}

/// COLL_BASE_COMPUTE_BLOCKCOUNT: the first count % p blocks hold one element more.
struct Blocks {
  std::uint64_t early, late, split;
  Blocks(std::uint64_t n, int p)
      : early(n / static_cast<std::uint64_t>(p)), late(early), split(n % static_cast<std::uint64_t>(p))
  {
    if (split != 0)
      ++early;
  }
  Slice of(Slice whole, int k) const
  {
    const auto uk = static_cast<std::uint64_t>(k);
    return sub(whole, uk < split ? uk * early : uk * late + split, uk < split ? early : late);
  }
};

/// ompi_coll_base_allreduce_intra_ring and _ring_segmented: the copy into the result, then a reduce-scatter
/// around the ring (receive the next block while reducing and sending the previous one with a blocking
/// send), in `phases` rounds over one segment of every block each (1: the plain ring), then a ring allgather
/// of whole blocks by sendrecv.
void allreduce_ring(Ctx& c, std::uint64_t n, std::uint64_t phases)
{
  MpiProgram& m = c.m;
  const int p = c.p, r = c.r;
  if (n < static_cast<std::uint64_t>(p))
    return allreduce_recursive_doubling(c, n);
  const Blocks bl(n, p);
  const std::uint64_t max_seg = Blocks(bl.early, static_cast<int>(phases)).early;
  const Slice rbuf            = out(0, n);
  const Slice inbuf[2]        = {scratch(1, 0, max_seg), scratch(2, 0, max_seg)};
  m.builder().need_scratch(1, max_seg);
  m.builder().need_scratch(2, max_seg);
  m.copy(in(0, n), rbuf);
  const int send_to = mod(r + 1, p), recv_from = mod(r - 1, p);
  for (std::uint64_t phase = 0; phase < phases; ++phase) {
    // The phase-th segment of block k.
    auto part = [&](int k) {
      const Slice block = bl.of(rbuf, k);
      return Blocks(block.count, static_cast<int>(phases)).of(block, static_cast<int>(phase));
    };
    int inbi    = 0;
    Req reqs[2] = {m.irecv(recv_from, sub(inbuf[0], 0, part(recv_from).count)), 0};
    m.send(send_to, part(r));
    for (int k = 2; k < p; ++k) {
      const int prevblock = mod(r - k + 1, p);
      inbi ^= 1;
      reqs[inbi] = m.irecv(recv_from, sub(inbuf[inbi], 0, part(mod(r - k, p)).count));
      m.wait(reqs[inbi ^ 1]);
      const Slice seg = part(prevblock);
      m.reduce(sub(inbuf[inbi ^ 1], 0, seg.count), seg);
      m.send(send_to, seg);
    }
    m.wait(reqs[inbi]);
    const Slice last = part(send_to);
    m.reduce(sub(inbuf[inbi], 0, last.count), last);
  }
  for (int k = 0; k < p - 1; ++k)
    m.sendrecv(r, send_to, bl.of(rbuf, mod(r + 1 - k, p)), recv_from, bl.of(rbuf, mod(r - k, p)));
}

/// ompi_coll_base_allreduce_intra_redscat_allgather (Rabenseifner): fold the first 2 * (p - p') ranks
/// by halves, reduce-scatter by recursive vector halving and distance doubling, allgather by recursive
/// doubling in the reverse order, then send the result to the folded ranks. Fewer elements than p': the
/// linear allreduce (allreduce(), as the source does).
void allreduce_rabenseifner(Ctx& c, std::uint64_t n)
{
  MpiProgram& m = c.m;
  const int p = c.p, r = c.r;
  const int pof2 = ompi::floor_power_of_two(p);
  const Slice rbuf = out(0, n), tmp = scratch(0, 0, n);
  m.builder().need_scratch(0, n);
  m.copy(in(0, n), rbuf);
  const int rem = p - pof2;
  int vrank     = r - rem;
  if (r < 2 * rem) {
    const std::uint64_t lhalf = n / 2, rhalf = n - lhalf;
    if (r % 2 != 0) {
      m.sendrecv(r, r - 1, sub(rbuf, 0, lhalf), r - 1, sub(tmp, lhalf, rhalf));
      m.reduce(sub(tmp, lhalf, rhalf), sub(rbuf, lhalf, rhalf));
      m.send(r - 1, sub(rbuf, lhalf, rhalf));
      vrank = -1;
    } else {
      m.sendrecv(r, r + 1, sub(rbuf, lhalf, rhalf), r + 1, sub(tmp, 0, lhalf));
      m.reduce(sub(tmp, 0, lhalf), sub(rbuf, 0, lhalf));
      m.recv(r + 1, sub(rbuf, lhalf, rhalf));
      vrank = r / 2;
    }
  }
  if (vrank != -1) {
    struct Step {
      std::uint64_t rindex = 0, sindex = 0, rcount = 0, scount = 0;
    };
    std::vector<Step> st;
    auto real = [&](int vdest) { return vdest < rem ? vdest * 2 : vdest + rem; };
    std::uint64_t wsize = n, base = 0;
    for (int mask = 1; mask < pof2; mask <<= 1) {
      const int dest = real(vrank ^ mask);
      Step s{base, base, 0, 0};
      if (r < dest) {
        s.rcount = wsize / 2;
        s.scount = wsize - s.rcount;
        s.sindex = s.rindex + s.rcount;
      } else {
        s.scount = wsize / 2;
        s.rcount = wsize - s.scount;
        s.rindex = s.sindex + s.scount;
      }
      m.sendrecv(r, dest, sub(rbuf, s.sindex, s.scount), dest, sub(tmp, s.rindex, s.rcount));
      m.reduce(sub(tmp, s.rindex, s.rcount), sub(rbuf, s.rindex, s.rcount));
      st.push_back(s);
      base  = s.rindex;
      wsize = s.rcount;
    }
    for (int mask = pof2 >> 1, step = static_cast<int>(st.size()) - 1; mask > 0; mask >>= 1, --step) {
      const int dest = real(vrank ^ mask);
      auto const& s  = st[static_cast<std::size_t>(step)];
      m.sendrecv(r, dest, sub(rbuf, s.rindex, s.rcount), dest, sub(rbuf, s.sindex, s.scount));
    }
  }
  if (r < 2 * rem) {
    if (r % 2 != 0)
      m.recv(r - 1, rbuf);
    else
      m.send(r + 1, rbuf);
  }
}

/// The options a composite's part runs with: the library's own decision for it, called as its fixed rules call
/// every algorithm (the part's own segment size, faninout 0), not with the composite's forced parameters; the
/// k-nomial radix is one MCA parameter for all.
OmpiOptions part_options(const OmpiOptions& o, std::uint64_t segment_bytes)
{
  OmpiOptions part   = o;
  part.segment_bytes = segment_bytes;
  part.chain_fanout  = 0;
  return part;
}

/// The composites: the library's own reduce to rank 0, then its broadcast (allreduce nonoverlapping)
/// or a linear scatter (reduce_scatter non-overlapping: coll_scatterv, which coll/basic runs linearly).
void reduce_then(Ctx& c, std::uint64_t total, Slice reduced, const std::string& reduce_alg)
{
  const OmpiOptions opt = part_options(c.opt, c.opt.reduce_part_segment_bytes);
  Ctx part{c.m, c.p, c.r, c.eb, opt};
  reduce(part, reduce_alg, 0, total, in(0, total), reduced);
}

} // namespace

void allreduce(Ctx& c, const std::string& name, std::uint64_t n)
{
  if (c.p == 1)
    return c.m.copy(in(0, n), out(0, n));
  if (name == "recursive_doubling")
    return allreduce_recursive_doubling(c, n);
  if (name == "ring")
    return allreduce_ring(c, n, 1);
  if (name == "segmented_ring") {
    // ompi_coll_base_allreduce_intra_ring_segmented runs the plain ring when count < p * segcount, which
    // is always the case unsegmented (segment size 0, as the fixed rules call it); otherwise it reduces
    // each ring block in count / (p * segcount) phases, one more when the rest is at least p elements and
    // more than half of p * segcount (so a phase may carry more than segcount elements of a block).
    const std::uint64_t segcount = ompi_segment_count(c.opt.segment_bytes, c.eb, n);
    const std::uint64_t round    = static_cast<std::uint64_t>(c.p) * segcount;
    if (n < round)
      return allreduce_ring(c, n, 1);
    const std::uint64_t rest = n % round;
    return allreduce_ring(c, n, n / round + (rest >= static_cast<std::uint64_t>(c.p) && rest > round / 2 ? 1 : 0));
  }
  if (name == "rabenseifner")
    return n < static_cast<std::uint64_t>(ompi::floor_power_of_two(c.p)) ? allreduce(c, "basic_linear", n)
                                                                          : allreduce_rabenseifner(c, n);
  if (name == "nonoverlapping" || name == "basic_linear") {
    const bool linear = name == "basic_linear";
    reduce_then(c, n, out(0, n), linear ? "linear" : c.opt.reduce_part);
    const OmpiOptions opt = part_options(c.opt, c.opt.bcast_part_segment_bytes);
    Ctx part{c.m, c.p, c.r, c.eb, opt};
    return bcast(part, linear ? "basic_linear" : c.opt.bcast_part, 0, n, out(0, n), out(0, n));
  }
  not_modeled("allreduce", name);
}

void allgather(Ctx& c, const std::string& name, std::uint64_t n)
{
  MpiProgram& m = c.m;
  const int p = c.p, r = c.r;
  const auto un = n;
  auto block    = [&](int k, int blocks = 1) { return out(static_cast<std::uint64_t>(k) * un, static_cast<std::uint64_t>(blocks) * un); };
  if (p == 1)
    return m.copy(in(0, n), out(0, n));
  if (name == "two_proc" && p == 2) { // ompi_coll_base_allgather_intra_two_procs
    m.sendrecv(r, r ^ 1, in(0, n), r ^ 1, block(r ^ 1));
    return m.copy(in(0, n), block(r));
  }
  const bool pow2 = (p & (p - 1)) == 0;
  if (name == "recursive_doubling" && pow2) { // ompi_coll_base_allgather_intra_recursivedoubling
    m.copy(in(0, n), block(r));
    int sbl = r;
    for (int distance = 1; distance < p; distance <<= 1) {
      const int remote = r ^ distance;
      const int rbl    = r < remote ? sbl + distance : sbl - distance;
      m.sendrecv(r, remote, block(sbl, distance), remote, block(rbl, distance));
      if (r > remote)
        sbl -= distance;
    }
    return;
  }
  if (name == "bruck" || name == "recursive_doubling") {
    // ompi_coll_base_allgather_intra_bruck (recursive doubling on a non-power-of-two count switches to
    // it, as the source does): block j holds rank r + j's data; at distance d send the first blocks to
    // r - d and receive as many from r + d behind them; then rotate the blocks into place.
    m.copy(in(0, n), block(0));
    for (int distance = 1; distance < p; distance <<= 1) {
      const int count = distance <= p / 2 ? distance : p - distance;
      m.sendrecv(r, mod(r - distance, p), block(0, count), mod(r + distance, p), block(distance, count));
    }
    if (r != 0) {
      const Slice shift = scratch(0, 0, static_cast<std::uint64_t>(p - r) * un);
      m.builder().need_scratch(0, shift.count);
      m.copy(block(0, p - r), shift);
      m.copy(block(p - r, r), block(0, r));
      m.copy(shift, block(r, p - r));
    }
    return;
  }
  if (name == "neighbor" && p % 2 == 0) {
    // ompi_coll_base_allgather_intra_neighborexchange (Chen et al., HPCAsia'05): an even rank pairs first with its
    // right neighbour, an odd one with its left; after one block with that neighbour, p / 2 - 1 steps exchange two
    // blocks, alternately with the other neighbour and the first, each step forwarding the pair received in the one
    // before (odd sizes run the ring, as the source switches to it).
    m.copy(in(0, n), block(r));
    const bool even     = r % 2 == 0;
    const int nb[2]     = {even ? mod(r + 1, p) : mod(r - 1, p), even ? mod(r - 1, p) : mod(r + 1, p)};
    const int offset[2] = {even ? 2 : -2, even ? -2 : 2};
    int recv_from[2]    = {even ? r : nb[0], even ? r : nb[0]};
    m.sendrecv(r, nb[0], block(r), nb[0], block(nb[0]));
    int send_from = even ? r : recv_from[0];
    for (int i = 1; i < p / 2; ++i) {
      const int par  = i % 2;
      recv_from[par] = mod(recv_from[par] + offset[par], p);
      m.sendrecv(r, nb[par], block(send_from, 2), nb[par], block(recv_from[par], 2));
      send_from = recv_from[par];
    }
    return;
  }
  if (name == "ring" || name == "neighbor") { // ompi_coll_base_allgather_intra_ring (neighbor: on an odd size)
    m.copy(in(0, n), block(r));
    for (int i = 0; i < p - 1; ++i)
      m.sendrecv(r, mod(r + 1, p), block(mod(r - i, p)), mod(r - 1, p), block(mod(r - i - 1, p)));
    return;
  }
  not_modeled("allgather", name);
}

void alltoall(Ctx& c, const std::string& name, std::uint64_t n)
{
  MpiProgram& m = c.m;
  const int p = c.p, r = c.r;
  auto sblk     = [&](int k) { return in(static_cast<std::uint64_t>(k) * n, n); };
  auto rblk     = [&](int k) { return out(static_cast<std::uint64_t>(k) * n, n); };
  if (p == 1)
    return m.copy(sblk(0), rblk(0));
  if (name == "two_proc" && p == 2) { // ompi_coll_base_alltoall_intra_two_procs
    m.sendrecv(r, r ^ 1, sblk(r ^ 1), r ^ 1, rblk(r ^ 1));
    return m.copy(sblk(r), rblk(r));
  }
  if (name == "pairwise") { // steps 1..p; the last is the local copy
    for (int step = 1; step <= p; ++step)
      m.sendrecv(r, mod(r + step, p), sblk(mod(r + step, p)), mod(r - step, p), rblk(mod(r - step, p)));
    return;
  }
  if (name == "modified_bruck") {
    // ompi_coll_base_alltoall_intra_bruck: rotate the blocks up by the rank; at distance d send the blocks
    // whose index has bit d to r + d and receive as many from r - d (one message each way: an indexed
    // datatype, packed and unpacked by CPU copies here; the source copies the received blocks back into its
    // work buffer too); finally rotate the blocks into place.
    const auto up = static_cast<std::uint64_t>(p), ur = static_cast<std::uint64_t>(r);
    const Slice tmp = scratch(0, 0, up * n), pack = scratch(1, 0, up * n), unpack = scratch(2, 0, up * n);
    for (int k = 0; k < 3; ++k)
      m.builder().need_scratch(k, up * n);
    m.copy(in(ur * n, (up - ur) * n), sub(tmp, 0, (up - ur) * n));
    if (r != 0)
      m.copy(in(0, ur * n), sub(tmp, (up - ur) * n, ur * n));
    for (int distance = 1; distance < p; distance <<= 1) {
      std::vector<std::uint64_t> blocks;
      for (int i = 1; i < p; ++i)
        if ((i & distance) == distance)
          blocks.push_back(static_cast<std::uint64_t>(i));
      for (std::size_t j = 0; j < blocks.size(); ++j)
        m.copy(sub(tmp, blocks[j] * n, n), sub(pack, j * n, n));
      const std::uint64_t len = blocks.size() * n;
      m.sendrecv(r, mod(r + distance, p), sub(pack, 0, len), mod(r - distance, p), sub(unpack, 0, len));
      for (std::size_t j = 0; j < blocks.size(); ++j)
        m.copy(sub(unpack, j * n, n), sub(tmp, blocks[j] * n, n));
    }
    for (int i = 0; i < p; ++i)
      m.copy(sub(tmp, static_cast<std::uint64_t>(i) * n, n), rblk(mod(r - i, p)));
    return;
  }
  if (name == "linear" || name == "linear_sync") {
    // ompi_coll_base_alltoall_intra_basic_linear: the local copy, every receive posted (from r+1 up),
    // every send posted in reverse order (to r-1 down), one wait. linear_sync with max_requests 0 (the
    // default, coll_tuned_alltoall_max_requests) posts all its requests at once in the same order.
    m.copy(sblk(r), rblk(r));
    std::vector<Req> reqs;
    for (int i = mod(r + 1, p); i != r; i = mod(i + 1, p))
      reqs.push_back(m.irecv(i, rblk(i)));
    for (int i = mod(r - 1, p); i != r; i = mod(i - 1, p))
      reqs.push_back(m.isend(i, sblk(i)));
    return m.waitall(reqs);
  }
  not_modeled("alltoall", name);
}

namespace {

/// Block k (and the `blocks` - 1 after it) of a buffer of blocks of n elements.
Slice blk(Slice s, int k, std::uint64_t n, int blocks = 1)
{
  return sub(s, static_cast<std::uint64_t>(k) * n, static_cast<std::uint64_t>(blocks) * n);
}

void reduce_scatter_ring(Ctx& c, std::uint64_t n) // ompi_coll_base_reduce_scatter_intra_ring
{
  MpiProgram& m = c.m;
  const int p = c.p, r = c.r;
  const std::uint64_t total = n * static_cast<std::uint64_t>(p);
  const Slice acc = scratch(0, 0, total), inbuf[2] = {scratch(1, 0, n), scratch(2, 0, n)};
  m.builder().need_scratch(0, total);
  m.builder().need_scratch(1, n);
  m.builder().need_scratch(2, n);
  m.copy(in(0, total), acc);
  const int send_to = mod(r + 1, p), recv_from = mod(r - 1, p);
  int inbi          = 0;
  Req reqs[2]       = {m.irecv(recv_from, inbuf[0]), 0};
  m.send(send_to, blk(acc, recv_from, n));
  for (int k = 2; k < p; ++k) {
    const int prevblock = mod(r - k, p);
    inbi ^= 1;
    reqs[inbi] = m.irecv(recv_from, inbuf[inbi]);
    m.wait(reqs[inbi ^ 1]);
    m.reduce(inbuf[inbi ^ 1], blk(acc, prevblock, n));
    m.send(send_to, blk(acc, prevblock, n));
  }
  m.wait(reqs[inbi]);
  m.reduce(inbuf[inbi], blk(acc, r, n));
  return m.copy(blk(acc, r, n), out(0, n));
}

// ompi_coll_base_reduce_scatter_intra_basic_recursivehalving
void reduce_scatter_recursive_halving(Ctx& c, std::uint64_t n)
{
  MpiProgram& m = c.m;
  const int p = c.p, r = c.r;
  const std::uint64_t total = n * static_cast<std::uint64_t>(p);
  const Slice result = scratch(0, 0, total), recvb = scratch(1, 0, total);
  m.builder().need_scratch(0, total);
  m.builder().need_scratch(1, total);
  m.copy(in(0, total), result);
  const int tmp_size = ompi::floor_power_of_two(p), remain = p - tmp_size;
  int tmp_rank       = r - remain;
  if (r < 2 * remain) {
    if (r % 2 == 0) {
      m.send(r + 1, result);
      tmp_rank = -1;
    } else {
      m.recv(r - 1, recvb);
      m.reduce(recvb, result);
      tmp_rank = r / 2;
    }
  }
  if (tmp_rank >= 0) {
    std::vector<std::uint64_t> disps(static_cast<std::size_t>(tmp_size) + 1, 0);
    for (int i = 0; i < tmp_size; ++i)
      disps[static_cast<std::size_t>(i) + 1] = disps[static_cast<std::size_t>(i)] + (i < remain ? 2 * n : n);
    auto span = [&](int from, int to) { return disps[static_cast<std::size_t>(to)] - disps[static_cast<std::size_t>(from)]; };
    int send_index = 0, recv_index = 0, last_index = tmp_size;
    for (int mask = tmp_size >> 1; mask > 0; mask >>= 1) {
      const int tmp_peer = tmp_rank ^ mask;
      const int peer     = tmp_peer < remain ? tmp_peer * 2 + 1 : tmp_peer + remain;
      std::uint64_t send_count = 0, recv_count = 0;
      if (tmp_rank < tmp_peer) {
        send_index = recv_index + mask;
        send_count = span(send_index, last_index);
        recv_count = span(recv_index, send_index);
      } else {
        recv_index = send_index + mask;
        send_count = span(send_index, recv_index);
        recv_count = span(recv_index, last_index);
      }
      const Slice rs = sub(recvb, disps[static_cast<std::size_t>(recv_index)], recv_count);
      std::optional<Req> rq;
      if (recv_count > 0)
        rq = m.irecv(peer, rs);
      if (send_count > 0)
        m.send(peer, sub(result, disps[static_cast<std::size_t>(send_index)], send_count));
      if (rq) {
        m.wait(*rq);
        m.reduce(rs, sub(result, disps[static_cast<std::size_t>(recv_index)], recv_count));
      }
      send_index = recv_index;
      last_index = recv_index + mask;
    }
    m.copy(blk(result, r, n), out(0, n));
  }
  if (r < 2 * remain) {
    if (r % 2 == 0)
      m.recv(r + 1, out(0, n));
    else
      m.send(r - 1, blk(result, r - 1, n));
  }
}

void reduce_scatter_butterfly(Ctx& c, std::uint64_t n) // ompi_coll_base_reduce_scatter_intra_butterfly (Traff's)
{
  MpiProgram& m = c.m;
  const int p = c.p, r = c.r;
  const std::uint64_t total = n * static_cast<std::uint64_t>(p);
  Slice psend = scratch(0, 0, total), precv = scratch(1, 0, total);
  m.builder().need_scratch(0, total);
  m.builder().need_scratch(1, total);
  m.copy(in(0, total), psend);
  const int pof2 = ompi::floor_power_of_two(p), rem = p - pof2;
  int log2 = 0;
  while ((1 << log2) < pof2)
    ++log2;
  auto mirror = [&](int x) { // ompi_mirror_perm: the low log2 bits of x reversed
    int y = 0;
    for (int i = 0; i < log2; ++i)
      y |= ((x >> i) & 1) << (log2 - 1 - i);
    return y;
  };
  auto real  = [&](int vpeer) { return vpeer < rem ? vpeer * 2 + 1 : vpeer + rem; };
  auto first = [&](int block) { return static_cast<std::uint64_t>(block < rem ? 2 * block : rem + block) * n; };
  auto span  = [&](int lo, int hi) { // ompi_sum_counts over blocks [lo, hi]
    const int l = lo < rem ? lo * 2 : lo + rem, h = hi < rem ? hi * 2 + 1 : hi + rem;
    return static_cast<std::uint64_t>(h - l + 1) * n;
  };
  int vrank = r - rem;
  if (r < 2 * rem) {
    if (r % 2 == 0) {
      m.send(r + 1, psend);
      vrank = -1;
    } else {
      m.recv(r - 1, precv);
      m.reduce(precv, psend);
      vrank = r / 2;
    }
  }
  if (vrank == -1)
    return m.recv(real(mirror((r + 1) / 2)), out(0, n));
  int nblocks = pof2, send_index = 0, recv_index = 0;
  for (int mask = 1; mask < pof2; mask <<= 1) {
    const int vpeer = vrank ^ mask, peer = real(vpeer);
    nblocks /= 2;
    if ((vrank & mask) == 0)
      send_index += nblocks;
    else
      recv_index += nblocks;
    const std::uint64_t scount = span(send_index, send_index + nblocks - 1), sdispl = first(send_index);
    const std::uint64_t rcount = span(recv_index, recv_index + nblocks - 1), rdispl = first(recv_index);
    m.sendrecv(r, peer, sub(psend, sdispl, scount), peer, sub(precv, rdispl, rcount));
    if (vrank < vpeer) {
      m.reduce(sub(psend, rdispl, rcount), sub(precv, rdispl, rcount));
      std::swap(psend, precv);
    } else {
      m.reduce(sub(precv, rdispl, rcount), sub(psend, rdispl, rcount));
    }
    send_index = recv_index;
  }
  const int vpeer = mirror(vrank), peer = real(vpeer);
  std::uint64_t index = first(send_index);
  if (vpeer < rem) { // two blocks: the excluded process's, then this one's
    m.send(peer - 1, sub(psend, index, n));
    index += n;
  }
  if (vpeer != vrank)
    return m.sendrecv(r, peer, sub(psend, index, n), peer, out(0, n));
  return m.copy(blk(psend, r, n), out(0, n));
}

} // namespace

void reduce_scatter(Ctx& c, const std::string& name, std::uint64_t n)
{
  if (c.p == 1)
    return c.m.copy(in(0, n), out(0, n));
  if (name == "ring")
    return reduce_scatter_ring(c, n);
  if (name == "recursive_halving")
    return reduce_scatter_recursive_halving(c, n);
  if (name == "butterfly")
    return reduce_scatter_butterfly(c, n);
  if (name == "non-overlapping") { // ompi_coll_base_reduce_scatter_intra_nonoverlapping
    const std::uint64_t total = n * static_cast<std::uint64_t>(c.p);
    const Slice reduced       = scratch(0, 0, total);
    if (c.r == 0)
      c.m.builder().need_scratch(0, total);
    reduce_then(c, total, reduced, c.opt.reduce_part);
    return scatter(c, "basic_linear", 0, n, reduced);
  }
  not_modeled("reduce_scatter", name);
}

namespace {
// A zero-byte exchange: receive from `from` (posted first), send to `to`, wait for the receive.
void sendrecv_zero(MpiProgram& m, int to, int from)
{
  const Req rq = m.irecv0(from);
  m.send0(to);
  m.wait(rq);
}

void barrier_recursive_doubling(Ctx& c) // ompi_coll_base_barrier_intra_recursivedoubling
{
  MpiProgram& m     = c.m;
  const int p = c.p, r = c.r;
  const int adjsize = ompi::floor_power_of_two(p);
  if (adjsize != p) {
    if (r >= adjsize) { // the release comes as a synchronous send: acknowledged once matched
      sendrecv_zero(m, r - adjsize, r - adjsize);
      m.send0(r - adjsize);
    } else if (r < p - adjsize) {
      m.recv0(r + adjsize);
    }
  }
  if (r < adjsize)
    for (int mask = 1; mask < adjsize; mask <<= 1)
      sendrecv_zero(m, r ^ mask, r ^ mask);
  if (adjsize != p && r < p - adjsize) // MCA_PML_BASE_SEND_SYNCHRONOUS (coll_base_barrier.c, 4.1.4 lines 227-236)
    m.ssend0(r + adjsize);
}

void barrier_linear(Ctx& c) // ompi_coll_base_barrier_intra_basic_linear: fan-in to 0, fan-out from 0
{
  MpiProgram& m = c.m;
  if (c.r > 0) {
    m.send0(0);
    return m.recv0(0);
  }
  std::vector<Req> reqs;
  for (int i = 1; i < c.p; ++i)
    reqs.push_back(m.irecv0(i));
  m.waitall(reqs);
  reqs.clear();
  for (int i = 1; i < c.p; ++i)
    reqs.push_back(m.isend0(i));
  m.waitall(reqs);
}

void barrier_double_ring(Ctx& c) // ompi_coll_base_barrier_intra_doublering
{
  MpiProgram& m = c.m;
  const int left = mod(c.r - 1, c.p), right = mod(c.r + 1, c.p);
  for (int round = 0; round < 2; ++round) { // the second lap's sends are synchronous (4.1.4 lines 145-147)
    if (c.r > 0)
      round == 0 ? m.recv0(left) : m.recv0_sync(left);
    round == 0 ? m.send0(right) : m.ssend0(right);
    if (c.r == 0)
      round == 0 ? m.recv0(left) : m.recv0_sync(left);
  }
}

void barrier_tree(Ctx& c) // ompi_coll_base_barrier_intra_tree
{
  MpiProgram& m = c.m;
  const int p = c.p, r = c.r;
  const int depth = (p & (p - 1)) == 0 ? p : ompi::next_power_of_two(p);
  // One step at distance `jump` with its partner, if it has one there: towards the root the higher rank sends, away
  // from it the lower one does.
  auto step = [&](int jump, bool towards_root) {
    const int partner = r ^ jump;
    if ((partner & (jump - 1)) != 0 || partner >= p)
      return;
    if ((partner > r) == towards_root)
      m.recv0(partner);
    else
      m.send0(partner);
  };
  for (int jump = 1; jump < depth; jump <<= 1)
    step(jump, true);
  for (int jump = depth >> 1; jump > 0; jump >>= 1)
    step(jump, false);
}
} // namespace

void barrier(Ctx& c, const std::string& name)
{
  const int p = c.p, r = c.r;
  if (p == 1)
    return;
  if (name == "two_proc" && p == 2)
    return sendrecv_zero(c.m, r ^ 1, r ^ 1);
  if (name == "recursive_doubling")
    return barrier_recursive_doubling(c);
  if (name == "linear")
    return barrier_linear(c);
  if (name == "bruck") { // ompi_coll_base_barrier_intra_bruck
    for (int distance = 1; distance < p; distance <<= 1)
      sendrecv_zero(c.m, mod(r + distance, p), mod(r - distance, p));
    return;
  }
  if (name == "double_ring")
    return barrier_double_ring(c);
  if (name == "tree")
    return barrier_tree(c);
  not_modeled("barrier", name);
}

} // namespace nafsim::coll::detail::ompi_alg
