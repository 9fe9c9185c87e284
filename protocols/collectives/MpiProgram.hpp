#pragma once
// Internal to protocols/collectives: writes a schedule the way an MPI program runs, call by call, so
// that Open MPI's coll/base algorithms can be transcribed as they are written. Non-blocking calls
// (irecv, isend) post an op; wait() and the blocking calls (send, recv, sendrecv, the local reduce and
// copy) make every later op depend on what was waited for. The schedule is marked `program_order`:
// an executor starts each op when the ops it depends on are complete (a blocking send is complete
// when MPI returns from it: eager once buffered, rendezvous once the receiver has the data).

#include "protocols/collectives/AlgorithmBuilders.hpp"

#include <algorithm>

namespace nafsim::coll::detail {

class MpiProgram {
public:
  using Req = std::uint32_t;
  explicit MpiProgram(Builder& b) : b_(b) { b_.s.program_order = true; }

  Req irecv(int peer, Slice dst) { return b_.recv(peer, dst, frontier_); }
  Req isend(int peer, Slice src) { return b_.send(peer, src, frontier_); }
  /// Later ops depend on `r`. What `r` itself waited for (its deps, the frontier when it was posted) leaves the
  /// frontier: in program order `r` starts only once those are complete, so depending on `r` implies them. The
  /// frontier stays as wide as the requests outstanding at once, not as long as the program (a root's bcast of
  /// 4,096 segments made every op depend on every earlier segment's send: memory quadratic in segments).
  void wait(Req r)
  {
    if (std::find(frontier_.begin(), frontier_.end(), r) != frontier_.end())
      return;
    auto const& implied = b_.s.ops[r].deps;
    std::erase_if(frontier_, [&](std::uint32_t f) {
      return std::find(implied.begin(), implied.end(), f) != implied.end();
    });
    frontier_.push_back(r);
  }
  void waitall(const std::vector<Req>& rs)
  {
    for (auto r : rs)
      wait(r);
  }
  void send(int peer, Slice src) { wait(isend(peer, src)); }
  void recv(int peer, Slice dst) { wait(irecv(peer, dst)); }
  /// ompi_coll_base_sendrecv: irecv, a blocking send, then wait for the receive. With itself as the
  /// peer, a local copy (ompi_datatype_sndrcv).
  void sendrecv(int self, int to, Slice src, int from, Slice dst)
  {
    if (to == self && from == self) {
      copy(src, dst);
      return;
    }
    Req r = irecv(from, dst);
    send(to, src);
    wait(r);
  }
  /// A zero-byte message (barriers, synchronisation).
  Req isend0(int peer) { return b_.send(peer, Slice{Buf::Input, 0, 0}, frontier_); }
  Req irecv0(int peer) { return b_.recv(peer, Slice{Buf::Output, 0, 0}, frontier_); }
  void send0(int peer) { wait(isend0(peer)); }
  void recv0(int peer) { wait(irecv0(peer)); }
  /// A zero-byte synchronous send (MCA_PML_BASE_SEND_SYNCHRONOUS; with pml ucx ucp_tag_send_sync_nb, pml_ucx.c): it
  /// completes once the receiver has matched it, which the receiver's library acknowledges with a message back:
  /// the receiver posts recv0_sync. (Between two ranks messages match in order: the acknowledgement is the next
  /// message from the receiver the sender takes.)
  void ssend0(int peer)
  {
    send0(peer);
    recv0(peer);
  }
  void recv0_sync(int peer)
  {
    recv0(peer);
    send0(peer);
  }
  /// ompi_op_reduce(op, source, target): target = source op target, on the CPU.
  void reduce(Slice source, Slice target) { local(b_.combine(source, target, target, frontier_)); }
  /// A local copy (ompi_datatype_copy_content_same_ddt / sndrcv), on the CPU.
  void copy(Slice src, Slice dst)
  {
    if (src.count > 0)
      local(b_.copy(src, dst, frontier_));
  }
  Builder& builder() { return b_; }

private:
  /// A local step completes before the program goes on: everything waited for so far is behind it.
  void local(Req op) { frontier_ = {op}; }
  Builder& b_;
  Deps frontier_;
};

} // namespace nafsim::coll::detail
