#include "protocols/collectives/Schedule.hpp"

namespace nafsim::coll {

const char* collective_name(Collective c)
{
  switch (c) {
    case Collective::Send: return "send";
    case Collective::Recv: return "recv";
    case Collective::Bcast: return "bcast";
    case Collective::Scatter: return "scatter";
    case Collective::Gather: return "gather";
    case Collective::AllGather: return "allgather";
    case Collective::Reduce: return "reduce";
    case Collective::AllReduce: return "allreduce";
    case Collective::ReduceScatter: return "reduce-scatter";
    case Collective::AllToAll: return "alltoall";
    case Collective::Barrier: return "barrier";
    case Collective::Copy: return "copy";
    case Collective::Combine: return "combine";
    case Collective::Nop: return "nop";
  }
  return "?";
}

const char* algorithm_name(Algorithm a)
{
  switch (a) {
    case Algorithm::Direct: return "direct";
    case Algorithm::Flat: return "flat";
    case Algorithm::Binomial: return "binomial";
    case Algorithm::Ring: return "ring";
    case Algorithm::ReduceBcast: return "reduce-bcast";
    case Algorithm::ReduceScatterComposite: return "reduce-scatter-composite";
    case Algorithm::RecursiveDoubling: return "recursive-doubling";
    case Algorithm::Rabenseifner: return "rabenseifner";
    case Algorithm::Pairwise: return "pairwise";
    case Algorithm::OpenMpi: return "openmpi";
  }
  return "?";
}

const char* protocol_name(Protocol p)
{
  return p == Protocol::Eager ? "eager" : "rendezvous";
}

const char* op_name(OpKind k)
{
  switch (k) {
    case OpKind::Send: return "send";
    case OpKind::Recv: return "recv";
    case OpKind::RecvReduce: return "recv-reduce";
    case OpKind::RecvReduceSend: return "recv-reduce-send";
    case OpKind::RecvSend: return "recv-send";
    case OpKind::CombineSend: return "combine-send";
    case OpKind::Combine: return "combine";
    case OpKind::Copy: return "copy";
    case OpKind::Notify: return "notify";
    case OpKind::WaitNotify: return "wait-notify";
  }
  return "?";
}

std::uint64_t input_elements(const CollectiveCall& c, int)
{
  auto p = static_cast<std::uint64_t>(c.size);
  switch (c.collective) {
    case Collective::Scatter:
    case Collective::ReduceScatter:
    case Collective::AllToAll: return c.count * p;
    case Collective::Barrier:
    case Collective::Nop:
    case Collective::Recv: return 0;
    default: return c.count;
  }
}

std::uint64_t output_elements(const CollectiveCall& c, int)
{
  auto p = static_cast<std::uint64_t>(c.size);
  switch (c.collective) {
    case Collective::Gather:
    case Collective::AllGather:
    case Collective::AllToAll: return c.count * p;
    case Collective::Barrier:
    case Collective::Nop:
    case Collective::Send: return 0;
    default: return c.count;
  }
}

} // namespace nafsim::coll
