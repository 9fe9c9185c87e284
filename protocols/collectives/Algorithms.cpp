#include "protocols/collectives/Algorithms.hpp"

#include "protocols/collectives/AlgorithmBuilders.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace nafsim::coll {

using namespace detail;

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
    case Algorithm::OpenMpi:
      ok = is({Collective::Bcast, Collective::Scatter, Collective::Gather, Collective::AllGather, Collective::Reduce,
               Collective::AllReduce, Collective::ReduceScatter, Collective::AllToAll, Collective::Barrier});
      break;
  }
  if (!ok)
    return std::string(algorithm_name(alg)) + " does not implement " + collective_name(c.collective);
  if (c.size < 1)
    return "a communicator needs at least one rank";
  if (c.root < 0 || c.root >= c.size)
    return "root " + std::to_string(c.root) + " is not a rank of a " + std::to_string(c.size) + "-rank communicator";
  return {};
}

namespace {

// The allreduce by algorithm: the ring, recursive doubling, Rabenseifner, or the firmware's rendezvous allreduce
// (reduce to rank 0, broadcast from rank 0, by the options' sub-algorithms).
void allreduce_any(Builder& b, Algorithm alg, Protocol proto, int p, int r, const CollectiveCall& c,
                   const AlgorithmOptions& opt)
{
  const std::uint64_t n = c.count;
  if (p == 1) {
    b.copy(in(0, n), out(0, n));
    return;
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
}

// The reduce-scatter by algorithm: the ring, or everything reduced into rank 0's input and scattered from it.
void reduce_scatter_any(Builder& b, Algorithm alg, Protocol proto, int p, int r, const CollectiveCall& c,
                        const AlgorithmOptions& opt)
{
  const std::uint64_t n = c.count;
  if (p == 1)
    b.copy(in(0, n), out(0, n));
  else if (alg == Algorithm::Ring)
    ring_reduce_scatter(b, p, r, 0, n * p, 0, false, out(0, n), {});
  else {
    reduce_any(b, opt.reduce_sub, p, 0, r, in(0, n * p), in(0, n * p), {});
    scatter_flat(b, p, 0, r, proto, in(0, n * p), out(0, n), b.all());
  }
}

} // namespace

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
  if (alg == Algorithm::OpenMpi) {
    build_openmpi(b, c, rank, opt.ompi);
    return std::move(b.s);
  }
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
    case Collective::AllReduce: allreduce_any(b, alg, proto, p, r, c, opt); break;
    case Collective::ReduceScatter: reduce_scatter_any(b, alg, proto, p, r, c, opt); break;
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
