#pragma once
// How MPI code runs a schedule (the software MPI of nodes/host/MpiProcess, MPI over Portals of
// nodes/pac/PortalsMpi): when each operation starts, and the numbers that match its messages.
//   - MPI code posts its receives before it waits for its sends (irecv, isend, waitall): a receive that
//     follows an op's send starts once that send is posted, not once it completes (a rendezvous send
//     completes only when the peer has posted its receive: waiting would deadlock). Every other op starts
//     when the ops it depends on are done.
//   - A schedule written as an MPI program (Schedule::program_order, Open MPI's algorithms) says itself when a
//     call waits: there every op starts once the ops it depends on are complete.
//   - The k-th message a rank sends to a peer meets the k-th receive that peer posts from it (MPI's
//     non-overtaking order on one tag), numbered in schedule order, across calls: the counters are the
//     caller's.

#include "protocols/collectives/Schedule.hpp"

#include <cstdint>
#include <map>
#include <vector>

namespace nafsim::coll {

class MpiOrder {
public:
  /// `key(peer)`: who rank `peer` of the schedule is to the counters (a host, a node); `out` / `in`: the
  /// messages sent to / received from each so far, advanced by this schedule's.
  template <class Key, class KeyOf>
  MpiOrder(const Schedule& s, KeyOf key, std::map<Key, std::uint64_t>& out, std::map<Key, std::uint64_t>& in)
      : left_(s.ops.size()), after_done_(s.ops.size()), after_posted_(s.ops.size()), send_seq_(s.ops.size()),
        recv_seq_(s.ops.size())
  {
    for (std::uint32_t i = 0; i < s.ops.size(); ++i) {
      auto const& op = s.ops[i];
      left_[i]       = static_cast<unsigned>(op.deps.size());
      for (auto d : op.deps)
        (!s.program_order && op_sends(s.ops[d].kind) && op_receives(op.kind) ? after_posted_ : after_done_)[d].push_back(i);
      if (op_receives(op.kind))
        recv_seq_[i] = ++in[key(op.peer)];
      if (op.kind == OpKind::RecvReduceSend || op.kind == OpKind::RecvSend)
        send_seq_[i] = ++out[key(op.peer2)];
      else if (op_sends(op.kind))
        send_seq_[i] = ++out[key(op.peer)];
    }
  }

  /// Start the ops that depend on nothing, in schedule order. They are listed before any starts: starting a
  /// send starts the receives waiting for it, which a scan of left_ would otherwise reach and start again.
  template <class Issue> void start(Issue issue)
  {
    std::vector<std::uint32_t> ready;
    for (std::uint32_t i = 0; i < left_.size(); ++i)
      if (left_[i] == 0)
        ready.push_back(i);
    for (auto i : ready)
      issue(i);
  }
  /// Op `i` is done: start what waited for it.
  template <class Issue> void done(std::uint32_t i, Issue issue) { release(after_done_[i], issue); }
  /// Op `i`'s send is posted: start the receives that waited only for that.
  template <class Issue> void posted(std::uint32_t i, Issue issue) { release(after_posted_[i], issue); }

  /// The number of op `i`'s message to its peer (its send to `peer2` for relays) and from its peer.
  std::uint64_t send_seq(std::uint32_t i) const { return send_seq_[i]; }
  std::uint64_t recv_seq(std::uint32_t i) const { return recv_seq_[i]; }

private:
  template <class Issue> void release(const std::vector<std::uint32_t>& waiting, Issue& issue)
  {
    for (auto d : waiting)
      if (--left_[d] == 0)
        issue(d);
  }
  std::vector<unsigned> left_;
  std::vector<std::vector<std::uint32_t>> after_done_, after_posted_;
  std::vector<std::uint64_t> send_seq_, recv_seq_;
};

} // namespace nafsim::coll
