#pragma once
// Internal to protocols/collectives: the small language the algorithm builders write schedules
// in (slices of the input, output and scratch buffers; a Builder appending ops with their
// dependencies), and the builders themselves, one per algorithm, grouped by family:
// RootedAlgorithms.cpp (broadcast, reduce, scatter, gather) and SymmetricAlgorithms.cpp
// (allgather, reduce-scatter, allreduce, all-to-all, barrier). Algorithms.cpp picks one.

#include "protocols/collectives/AlgorithmOptions.hpp"
#include "protocols/collectives/Schedule.hpp"
#include "protocols/collectives/Segments.hpp"

#include <algorithm>
#include <utility>

namespace nafsim::coll::detail {

using Deps = std::vector<std::uint32_t>;

inline bool power_of_two(int p)
{
  return p > 0 && (p & (p - 1)) == 0;
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

inline Deps plus(Deps d, const Deps& more)
{
  d.insert(d.end(), more.begin(), more.end());
  return d;
}

// ---- the builders (definitions in RootedAlgorithms.cpp and SymmetricAlgorithms.cpp) ----

void bcast_flat(Builder& b, int p, int root, int r, Protocol proto, Slice src, Slice dst, const Deps& after,
                std::uint64_t seg);
void bcast_binomial(Builder& b, int p, int root, int r, Slice src, Slice dst, const Deps& after);
void reduce_ring(Builder& b, int p, int root, int r, Slice src, Slice dst, const Deps& after);
void reduce_flat(Builder& b, int p, int root, int r, Slice src, Slice dst, const Deps& after);
void reduce_binomial(Builder& b, int p, int root, int r, Slice src, Slice dst, const Deps& after);
void reduce_any(Builder& b, Algorithm alg, int p, int root, int r, Slice src, Slice dst, const Deps& after);
void scatter_flat(Builder& b, int p, int root, int r, Protocol proto, Slice src, Slice dst, const Deps& after);
void gather_ring(Builder& b, int p, int root, int r, const CollectiveCall& c);
void gather_flat(Builder& b, int p, int root, int r, const CollectiveCall& c, unsigned fanin);
void gather_binomial(Builder& b, int p, int root, int r, const CollectiveCall& c);
void allgather_ring(Builder& b, int p, int r, Protocol proto, const CollectiveCall& c);
void allgather_recursive_doubling(Builder& b, int p, int r, const CollectiveCall& c);
Deps ring_reduce_scatter(Builder& b, int p, int r, std::uint64_t base, std::uint64_t elems, int final_shift,
                         bool to_slot, Slice dst_flat, const Deps& after);
void allreduce_ring(Builder& b, int p, int r, const CollectiveCall& c, std::uint64_t seg);
void allreduce_recursive_doubling(Builder& b, int p, int r, const CollectiveCall& c);
void allreduce_rabenseifner(Builder& b, int p, int r, const CollectiveCall& c);
void alltoall_flat(Builder& b, int p, int r, const CollectiveCall& c);
void alltoall_pairwise(Builder& b, int p, int r, const CollectiveCall& c);
void barrier_flat(Builder& b, int p, int r);

/// Algorithm::OpenMpi: Open MPI 4.1's algorithm `opt.name` for the call (OmpiAlgorithms.cpp).
void build_openmpi(Builder& b, const CollectiveCall& c, int rank, const OmpiOptions& opt);

} // namespace nafsim::coll::detail
