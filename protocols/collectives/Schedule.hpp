#pragma once
// Collective algorithms as pure schedules (DESIGN.md section 7, rule 9): for one rank, the
// operations it performs (send, receive, receive-and-reduce, local combine, copy, ...) over slices
// of its buffers, with the dependencies between them. The same schedule drives the CCLO firmware
// model and (later) software MPI; executors decide how each message travels (eager through Rx
// buffers or rendezvous), how many operations run at once, and what every step costs.

#include <cstdint>
#include <string>
#include <vector>

namespace nafsim::coll {

enum class Collective { Send, Recv, Bcast, Scatter, Gather, AllGather, Reduce, AllReduce, ReduceScatter, AllToAll,
                        Barrier, Copy, Combine, Nop };

/// How the messages of a collective travel (the firmware picks one per collective).
enum class Protocol { Eager, Rendezvous };

enum class Algorithm {
  Direct,            ///< send/recv, copy, combine, nop
  Flat,              ///< one-to-all / all-to-one (bcast, scatter, gather with fan-in, reduce, all-to-all, barrier)
  Binomial,          ///< tree: distance halving (bcast) or doubling (reduce, gather)
  Ring,              ///< ring / chain (gather relay, allgather, reduce chain, reduce-scatter, allreduce RS+AG)
  ReduceBcast,       ///< allreduce = reduce to rank 0 + broadcast from rank 0
  ReduceScatterComposite, ///< reduce-scatter = reduce to rank 0 + scatter from rank 0
  RecursiveDoubling, ///< allgather / allreduce by pairwise exchange at distances 1, 2, 4, ...
  Rabenseifner,      ///< allreduce = reduce-scatter by recursive halving + allgather by recursive doubling
  Pairwise,          ///< all-to-all by p-1 pairwise exchanges
  OpenMpi,           ///< one of Open MPI 4.1 coll/base's algorithms, as it runs it (named in AlgorithmOptions::ompi)
};

enum class ReduceFunc { Sum, Max };

enum class Buf : std::uint8_t { Input, Output, Scratch0, Scratch1, Scratch2 };

/// `count` elements of buffer `buf` starting at element `offset`.
struct Slice {
  Buf buf             = Buf::Input;
  std::uint64_t offset = 0;
  std::uint64_t count  = 0;
};

/// The vocabulary of schedules and of the firmware's functions: slices of a call's buffers, and ring
/// arithmetic over ranks.
inline Slice in(std::uint64_t off, std::uint64_t cnt)
{
  return {Buf::Input, off, cnt};
}
inline Slice out(std::uint64_t off, std::uint64_t cnt)
{
  return {Buf::Output, off, cnt};
}
inline Slice scratch(int k, std::uint64_t off, std::uint64_t cnt)
{
  return {static_cast<Buf>(static_cast<int>(Buf::Scratch0) + k), off, cnt};
}
inline Slice sub(Slice s, std::uint64_t off, std::uint64_t cnt)
{
  return {s.buf, s.offset + off, cnt};
}
/// `a` mod `p` in [0, p).
inline int mod(int a, int p)
{
  return ((a % p) + p) % p;
}

enum class OpKind {
  Send,           ///< send `a` to `peer`
  Recv,           ///< receive from `peer` into `dst`
  RecvReduce,     ///< receive from `peer`, combine with local `a`, store in `dst`
  RecvReduceSend, ///< receive from `peer`, combine with local `a`, send the result to `peer2`
  RecvSend,       ///< receive from `peer` and forward to `peer2` without storing
  CombineSend,    ///< combine local `a` and `b`, send the result to `peer`
  Combine,        ///< combine local `a` and `b` into `dst`
  Copy,           ///< copy `a` to `dst`
  Notify,         ///< zero-byte notification to `peer`
  WaitNotify,     ///< wait for a notification from `peer`
};

/// Whether an operation of kind `k` sends / receives a message (the relays do both).
inline bool op_sends(OpKind k)
{
  return k == OpKind::Send || k == OpKind::Notify || k == OpKind::CombineSend || k == OpKind::RecvReduceSend ||
         k == OpKind::RecvSend;
}
inline bool op_receives(OpKind k)
{
  return k == OpKind::Recv || k == OpKind::RecvReduce || k == OpKind::WaitNotify || k == OpKind::RecvReduceSend ||
         k == OpKind::RecvSend;
}

struct Op {
  OpKind kind = OpKind::Copy;
  int peer    = -1;
  int peer2   = -1;
  Slice a, b, dst;
  /// Ops of this rank that must have completed first.
  std::vector<std::uint32_t> deps;
  /// Rendezvous: receives of one group share a single address notification (the firmware's ring
  /// allgather announces its whole destination buffer once). -1: each receive announces its own.
  int addr_group = -1;
  /// Sends into an announced group buffer: where this transfer lands in it (elements).
  std::uint64_t remote_offset = 0;
};

struct CollectiveCall {
  Collective collective = Collective::Nop;
  int size              = 1;   ///< ranks in the communicator
  int root              = 0;   ///< root, or the peer for send/recv
  std::uint64_t count   = 0;   ///< elements (per rank where the collective says so, like MPI)
  unsigned elem_bytes   = 4;
  ReduceFunc func       = ReduceFunc::Sum;
  std::uint64_t bytes() const { return count * elem_bytes; }
};

struct Schedule {
  CollectiveCall call;
  int rank = 0;
  Algorithm algorithm = Algorithm::Direct;
  Protocol protocol   = Protocol::Eager;
  std::vector<Op> ops;
  /// Elements each scratch buffer must hold.
  std::uint64_t scratch[3] = {0, 0, 0};
  /// Data-movement operations the firmware keeps in flight for this algorithm.
  unsigned max_inflight = 3;
  /// Written as an MPI program (MpiProgram.hpp): an op starts when every op it depends on is complete, sends
  /// included. Otherwise a receive that depends on a send starts once that send is posted (MpiOrder.hpp).
  bool program_order = false;
};

const char* collective_name(Collective c);
const char* algorithm_name(Algorithm a);
const char* protocol_name(Protocol p);
const char* op_name(OpKind k);

/// Elements the caller's input and output buffers hold for this collective (on this rank).
std::uint64_t input_elements(const CollectiveCall& c, int rank);
std::uint64_t output_elements(const CollectiveCall& c, int rank);

} // namespace nafsim::coll
