// Open MPI 4.1's rooted collectives (coll_base_bcast.c, coll_base_reduce.c, coll_base_gather.c,
// coll_base_scatter.c), written as the library runs them.
#include "protocols/collectives/OmpiAlgorithms.hpp"
#include "protocols/collectives/OmpiBuilders.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

namespace nafsim::coll::detail::ompi_alg {

namespace {

using Req = MpiProgram::Req;

/// Segment i of a message of n elements cut into segments of sc.
Slice piece(Slice s, std::uint64_t i, std::uint64_t sc, std::uint64_t n)
{
  return sub(s, i * sc, std::min(sc, n - i * sc));
}

std::uint64_t segments_of(std::uint64_t n, std::uint64_t sc)
{
  return (n + sc - 1) / sc;
}

void send_to_children(MpiProgram& m, const ompi::Tree& t, Slice data)
{
  std::vector<Req> sends;
  for (int child : t.children)
    sends.push_back(m.isend(child, data));
  m.waitall(sends); // complete the sends before the next segment
}

/// ompi_coll_base_bcast_intra_generic: the root sends each segment to all its children and waits
/// for those sends; an inner node keeps two segment receives posted and forwards each segment to
/// its children; a leaf keeps two receives posted.
void bcast_generic(Ctx& c, const ompi::Tree& t, int root, std::uint64_t n, std::uint64_t sc, Slice src, Slice dst)
{
  MpiProgram& m            = c.m;
  const std::uint64_t nseg = segments_of(n, sc);
  auto seg                 = [&](Slice s, std::uint64_t i) { return piece(s, i, sc, n); };
  if (c.r == root) {
    for (std::uint64_t i = 0; i < nseg; ++i)
      send_to_children(m, t, seg(src, i));
    return;
  }
  Req reqs[2] = {m.irecv(t.parent, seg(dst, 0)), 0};
  int ri      = 0;
  for (std::uint64_t i = 1; i < nseg; ++i) {
    ri       ^= 1;
    reqs[ri] = m.irecv(t.parent, seg(dst, i));
    m.wait(reqs[ri ^ 1]);
    if (!t.children.empty())
      send_to_children(m, t, seg(dst, i - 1));
  }
  m.wait(reqs[ri]);
  if (!t.children.empty())
    send_to_children(m, t, seg(dst, nseg - 1));
}

/// ompi_coll_base_bcast_intra_split_bintree: the root splits the message in two halves (the first one the larger) and
/// sends the first down the left subtree of its binary tree (odd shifted ranks), the second down the right one (even),
/// in segments, with blocking sends; an inner node forwards each segment of its half to its children as the next
/// arrives. Then every rank swaps halves with its pair in the other subtree (rank + 1 on the left, rank - 1 on the
/// right); on an even size the root sends the second half to the last rank, which has no pair. A message too small to
/// split into segments goes down a pipeline (the chain of fanout 1).
void bcast_split_bintree(Ctx& c, int root, std::uint64_t n, Slice src, Slice dst)
{
  MpiProgram& m = c.m;
  const int p = c.p, r = c.r;
  const std::uint64_t eb        = c.eb;
  const std::uint64_t counts[2] = {(n + 1) / 2, n - (n + 1) / 2};
  std::uint64_t segsize         = c.opt.segment_bytes;
  std::uint64_t segcount[2]     = {counts[0], counts[1]};
  if (segsize > 0) {
    segsize     = std::max(segsize, eb); // (pushed up to hold one element)
    segcount[0] = segcount[1] = segsize / eb;
  }
  if (counts[0] == 0 || counts[1] == 0 || segsize > counts[0] * eb || segsize > counts[1] * eb)
    return bcast_generic(c, ompi::build_chain(1, p, r, root), root, n, ompi_segment_count(segsize, c.eb, n), src,
                         dst);
  const Slice mine      = r == root ? src : dst;
  const Slice half[2]   = {sub(mine, 0, counts[0]), sub(mine, counts[0], counts[1])};
  const std::uint64_t nseg[2] = {segments_of(counts[0], segcount[0]), segments_of(counts[1], segcount[1])};
  auto seg = [&](int h, std::uint64_t i) { return piece(half[h], i, segcount[h], counts[h]); };
  const ompi::Tree t = ompi::build_tree(2, p, r, root);
  const int lr       = ((r + p - root) % p + 1) % 2; // 0: the left subtree, 1: the right one (the root's)
  if (r == root) {
    for (std::uint64_t i = 0; i < nseg[0]; ++i)
      for (std::size_t k = 0; k < t.children.size() && k < 2; ++k)
        if (i < nseg[k])
          m.send(t.children[k], seg(static_cast<int>(k), i));
  } else if (!t.children.empty()) {
    Req base = m.irecv(t.parent, seg(lr, 0));
    for (std::uint64_t i = 1; i < nseg[lr]; ++i) {
      const Req next = m.irecv(t.parent, seg(lr, i));
      m.wait(base);
      for (int child : t.children)
        m.send(child, seg(lr, i - 1));
      base = next;
    }
    m.wait(base);
    for (int child : t.children)
      m.send(child, seg(lr, nseg[lr] - 1));
  } else {
    for (std::uint64_t i = 0; i < nseg[lr]; ++i)
      m.recv(t.parent, seg(lr, i));
  }
  const int pair = lr == 0 ? (r + 1) % p : (r + p - 1) % p;
  const int last = (root + p - 1) % p;
  if (p % 2 != 0) {
    if (r != root)
      m.sendrecv(r, pair, half[lr], pair, half[1 - lr]);
  } else if (r == root) {
    m.send(last, half[1]);
  } else if (r == last) {
    m.recv(root, half[1]);
  } else {
    m.sendrecv(r, pair, half[lr], pair, half[1 - lr]);
  }
}

/// ompi_coll_base_bcast_intra_basic_linear: the root posts a send to every rank, in rank order.
void bcast_linear(Ctx& c, int root, Slice src, Slice dst)
{
  if (c.r != root) {
    c.m.recv(root, dst);
    return;
  }
  std::vector<Req> sends;
  for (int i = 0; i < c.p; ++i)
    if (i != c.r)
      sends.push_back(c.m.isend(i, src));
  c.m.waitall(sends);
}

/// ompi_coll_base_reduce_generic (commutative operation, not in place): for each segment and each
/// child in order, post the receive (the first child's straight into the accumulator, the others'
/// into two alternating buffers), wait for the previous one and reduce it (the first child's with
/// this rank's own data); once a segment holds every child's data, send it up with a blocking send.
/// A leaf sends its segments with blocking sends (max_outstanding_reqs 0: no flow control).
void reduce_generic(Ctx& c, const ompi::Tree& t, int root, std::uint64_t n, std::uint64_t sc, Slice src, Slice dst)
{
  MpiProgram& m            = c.m;
  const std::uint64_t nseg = segments_of(n, sc);
  auto seg                 = [&](Slice s, std::uint64_t i) { return piece(s, i, sc, n); };
  if (t.children.empty()) {
    for (std::uint64_t i = 0; i < nseg; ++i)
      m.send(t.parent, seg(src, i));
    return;
  }
  Builder& b = m.builder();
  Slice acc  = dst;
  if (c.r != root) {
    acc = scratch(0, 0, n);
    b.need_scratch(0, n);
  }
  const Slice inbuf[2] = {scratch(1, 0, sc), scratch(2, 0, sc)};
  b.need_scratch(1, sc);
  b.need_scratch(2, sc);
  const std::size_t k = t.children.size();
  std::optional<Req> reqs[2];
  int inbi                 = 0;
  std::uint64_t recvcount  = 0;
  for (std::uint64_t s = 0; s <= nseg; ++s) {
    const std::uint64_t prevcount = recvcount;
    recvcount                     = s < nseg ? seg(src, s).count : 0;
    for (std::size_t i = 0; i < k; ++i) {
      if (s < nseg)
        reqs[inbi] = m.irecv(t.children[i], i == 0 ? seg(acc, s) : sub(inbuf[inbi], 0, recvcount));
      if (reqs[inbi ^ 1]) {
        m.wait(*reqs[inbi ^ 1]);
        reqs[inbi ^ 1].reset();
      }
      if (i > 0) {
        m.reduce(i == 1 ? seg(src, s) : sub(inbuf[inbi ^ 1], 0, recvcount), seg(acc, s));
      } else if (s > 0) {
        const Slice accumulator = seg(acc, s - 1);
        m.reduce(k <= 1 ? seg(src, s - 1) : sub(inbuf[inbi ^ 1], 0, prevcount), accumulator);
        if (c.r != root)
          m.send(t.parent, accumulator);
        if (s == nseg)
          break;
      }
      inbi ^= 1;
    }
  }
}

/// ompi_coll_base_reduce_intra_basic_linear: the root takes rank p-1's data, then receives from
/// p-2 down to 0 one at a time (blocking), reducing each into the result.
void reduce_linear(Ctx& c, int root, std::uint64_t n, Slice src, Slice dst)
{
  MpiProgram& m = c.m;
  if (c.r != root) {
    m.send(root, src);
    return;
  }
  const Slice inbuf = scratch(1, 0, n);
  m.builder().need_scratch(1, n);
  if (c.r == c.p - 1)
    m.copy(src, dst);
  else
    m.recv(c.p - 1, dst);
  for (int i = c.p - 2; i >= 0; --i) {
    if (i == c.r) {
      m.reduce(src, dst);
      continue;
    }
    m.recv(i, inbuf);
    m.reduce(inbuf, dst);
  }
}

/// The tree an Open MPI broadcast or reduction `name` runs over, or nullopt for the linear ones.
std::optional<ompi::Tree> tree_of(Ctx& c, Collective coll, const std::string& name, int root)
{
  if (name == "chain")
    return ompi::build_chain(c.opt.chain_fanout, c.p, c.r, root);
  if (name == "pipeline")
    return ompi::build_chain(1, c.p, c.r, root);
  if (name == "binary_tree" || name == "binary")
    return ompi::build_tree(2, c.p, c.r, root);
  if (name == "knomial")
    return ompi::build_kmtree(c.p, c.r, root, c.opt.knomial_radix);
  if (name == "binomial") // bcast: build_bmtree; reduce: the in-order binomial tree
    return coll == Collective::Bcast ? ompi::build_bmtree(c.p, c.r, root) : ompi::build_in_order_bmtree(c.p, c.r, root);
  return std::nullopt;
}

/// Size (in ranks) of the subtree of virtual rank `v` in an in-order binomial tree of p ranks.
std::uint64_t subtree(int v, int p)
{
  const int low = v & -v;
  return static_cast<std::uint64_t>(v == 0 ? p : std::min(low, p - v));
}

} // namespace

void bcast(Ctx& c, const std::string& name, int root, std::uint64_t n, Slice src, Slice dst)
{
  if (c.p == 1 || n == 0)
    return;
  if (name == "basic_linear" || ((name == "scatter_allgather" || name == "scatter_allgather_ring") && n < static_cast<std::uint64_t>(c.p)))
    return bcast_linear(c, root, src, dst); // the scatter-allgather broadcasts hand fewer than p elements to it
  if (name == "scatter_allgather" || name == "scatter_allgather_ring")
    return bcast_scatter_allgather(c, root, n, src, dst, name == "scatter_allgather_ring");
  if (name == "split_binary_tree")
    return bcast_split_bintree(c, root, n, src, dst);
  auto t = tree_of(c, Collective::Bcast, name, root);
  if (!t)
    throw std::invalid_argument("Open MPI bcast algorithm '" + name + "' is not modeled");
  bcast_generic(c, *t, root, n, ompi_segment_count(c.opt.segment_bytes, c.eb, n), src, dst);
}

void reduce(Ctx& c, const std::string& name, int root, std::uint64_t n, Slice src, Slice dst)
{
  if (c.p == 1) {
    c.m.copy(src, dst);
    return;
  }
  if (n == 0)
    return;
  if (name == "linear")
    return reduce_linear(c, root, n, src, dst);
  if (name == "in-order_binary") {
    // ompi_coll_base_reduce_intra_in_order_binary: the generic reduction over the in-order binary tree, whose root
    // is rank p - 1 (io_root) to keep the operations' order; another root gets the result from it, io_root reducing
    // into a temporary buffer.
    const int io_root      = c.p - 1;
    const auto t           = ompi::build_in_order_bintree(c.p, c.r);
    const std::uint64_t sc = ompi_segment_count(c.opt.segment_bytes, c.eb, n);
    if (root == io_root)
      return reduce_generic(c, t, io_root, n, sc, src, dst);
    Slice result = dst;
    if (c.r == io_root) {
      result = scratch(0, 0, n); // (the generic reduction's accumulator on its own root is what it is given)
      c.m.builder().need_scratch(0, n);
    }
    reduce_generic(c, t, io_root, n, sc, src, result);
    if (c.r == io_root)
      c.m.send(root, result);
    else if (c.r == root)
      c.m.recv(io_root, dst);
    return;
  }
  auto t = tree_of(c, Collective::Reduce, name, root);
  if (!t)
    throw std::invalid_argument("Open MPI reduce algorithm '" + name + "' is not modeled");
  reduce_generic(c, *t, root, n, ompi_segment_count(c.opt.segment_bytes, c.eb, n), src, dst);
}

void gather(Ctx& c, const std::string& name, int root, std::uint64_t n)
{
  MpiProgram& m = c.m;
  const int p = c.p, r = c.r;
  if (name == "basic_linear") { // ompi_coll_base_gather_intra_basic_linear: blocking receives in rank order
    if (r != root)
      return m.send(root, in(0, n));
    for (int i = 0; i < p; ++i) {
      if (i == r)
        m.copy(in(0, n), out(i * n, n));
      else
        m.recv(i, out(i * n, n));
    }
    return;
  }
  if (name == "linear_sync") {
    // ompi_coll_base_gather_intra_linear_sync: the root asks each rank in turn (a zero-byte message)
    // and waits for its first segment before asking the next; the rest follows unsynchronised. The
    // first segment is the whole block unless a segment size says otherwise (4.1's fixed rules: 0).
    const std::uint64_t first = ompi_segment_count(c.opt.segment_bytes, c.eb, n);
    if (r != root) {
      m.recv0(root);
      m.send(root, in(0, first));
      m.send(root, in(first, n - first));
      return;
    }
    std::vector<Req> seconds;
    for (int i = 0; i < p; ++i) {
      if (i == r)
        continue;
      const Req f = m.irecv(i, out(i * n, first));
      m.send0(i);
      seconds.push_back(m.irecv(i, out(i * n + first, n - first)));
      m.wait(f);
    }
    m.copy(in(0, n), out(r * n, n));
    m.waitall(seconds);
    return;
  }
  if (name != "binomial")
    throw std::invalid_argument("Open MPI gather algorithm '" + name + "' is not modeled");
  // ompi_coll_base_gather_intra_binomial over the in-order binomial tree: inner nodes collect their
  // children's subtrees (blocking receives, smallest subtree first) behind their own block and send
  // the lot up; a root other than 0 rotates the blocks into place.
  const int v        = mod(r - root, p);
  const ompi::Tree t = ompi::build_in_order_bmtree(p, r, root);
  const bool leaf    = v % 2 == 1;
  Slice ptmp         = in(0, n);
  if (!leaf) {
    ptmp = r == root && root == 0 ? out(0, n * p) : scratch(0, 0, n * p);
    if (ptmp.buf != Buf::Output)
      m.builder().need_scratch(0, n * p);
    m.copy(in(0, n), sub(ptmp, 0, n));
  }
  std::uint64_t total = n;
  for (int child : t.children) {
    const std::uint64_t mine = subtree(mod(child - root, p), p) * n;
    m.recv(child, sub(ptmp, total, mine));
    total += mine;
  }
  if (r != root)
    return m.send(t.parent, sub(ptmp, 0, total));
  if (root != 0) {
    const auto ur = static_cast<std::uint64_t>(root), up = static_cast<std::uint64_t>(p);
    m.copy(sub(ptmp, 0, n * (up - ur)), out(n * ur, n * (up - ur)));
    m.copy(sub(ptmp, n * (up - ur), n * ur), out(0, n * ur));
  }
}

void scatter(Ctx& c, const std::string& name, int root, std::uint64_t n, Slice src)
{
  MpiProgram& m = c.m;
  const int p = c.p, r = c.r;
  if (name == "basic_linear" || name == "linear_nb") {
    // basic_linear: blocking sends in rank order; linear_nb (max_reqs 0, as the fixed rules call it):
    // every send posted, then one wait for all. The root's own block is copied in its turn.
    if (r != root)
      return m.recv(root, out(0, n));
    std::vector<Req> sends;
    for (int i = 0; i < p; ++i) {
      if (i == r)
        m.copy(sub(src, i * n, n), out(0, n));
      else if (name == "basic_linear")
        m.send(i, sub(src, i * n, n));
      else
        sends.push_back(m.isend(i, sub(src, i * n, n)));
    }
    m.waitall(sends);
    return;
  }
  if (name != "binomial")
    throw std::invalid_argument("Open MPI scatter algorithm '" + name + "' is not modeled");
  // ompi_coll_base_scatter_intra_binomial over the in-order binomial tree: each inner node receives its
  // subtree's blocks, keeps its own and sends each child its part, the largest subtree first.
  const int v        = mod(r - root, p);
  const ompi::Tree t = ompi::build_in_order_bmtree(p, r, root);
  Slice ptmp;
  std::uint64_t curr = 0;
  if (r == root) {
    ptmp = src;
    if (root != 0) {
      const auto ur = static_cast<std::uint64_t>(root), up = static_cast<std::uint64_t>(p);
      ptmp          = scratch(0, 0, n * up);
      m.builder().need_scratch(0, n * up);
      m.copy(sub(src, n * ur, n * (up - ur)), sub(ptmp, 0, n * (up - ur)));
      m.copy(sub(src, 0, n * ur), sub(ptmp, n * (up - ur), n * ur));
    }
    curr = n * static_cast<std::uint64_t>(p);
    m.copy(sub(ptmp, 0, n), out(0, n));
  } else if (v % 2 == 0) {
    curr = subtree(v, p) * n;
    ptmp = scratch(0, 0, curr);
    m.builder().need_scratch(0, curr);
    m.recv(t.parent, ptmp);
    m.copy(sub(ptmp, 0, n), out(0, n));
  } else {
    m.recv(t.parent, out(0, n));
    return;
  }
  for (auto it = t.children.rbegin(); it != t.children.rend(); ++it) {
    const int vkid                 = mod(*it - root, p);
    const std::uint64_t send_count = static_cast<std::uint64_t>(std::min(vkid - v, p - vkid)) * n;
    m.send(*it, sub(ptmp, curr - send_count, send_count));
    curr -= send_count;
  }
}

} // namespace nafsim::coll::detail::ompi_alg
