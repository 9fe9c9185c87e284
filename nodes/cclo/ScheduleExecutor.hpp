#pragma once
// Runs a collective's schedule (protocols/collectives) on the CCLO for the algorithms the firmware
// does not have (recursive doubling, Rabenseifner, pairwise all-to-all, binomial gather, eager
// variants of rendezvous-only algorithms): a dataflow walk in schedule order that issues every
// operation whose dependencies are done (at most `max_inflight` moves outstanding), leaves a
// rendezvous send whose address has not come for later, and otherwise waits for a notification or a
// move status; a notification's arrival costs one rendezvous lookup before the walk acts on it.
// Costs per step, move and notification are the firmware's.

#include "nodes/cclo/FirmwareCall.hpp"

#include <map>
#include <memory>
#include <set>
#include <vector>

namespace nafsim::nodes {

class ScheduleExecutor {
public:
  ScheduleExecutor(Firmware& fw, FirmwareCall& call);
  Task<> run(const coll::Schedule& s);

private:
  struct OpState {
    bool issued        = false;
    bool done          = false;
    unsigned pending   = 0;     ///< moves not yet completed
    bool await_done    = false; ///< rendezvous receive: waits for the sender's completion notice
    unsigned deps_left = 0;     ///< dependencies not yet done
  };
  // The walk visits only the ops it can act on, in schedule order: those whose dependencies are done and that
  // are not issued yet, and issued rendezvous receives waiting for their completion notice. (Rescanning every
  // op and its dependencies at each wake-up made a p-rank schedule cost O(p^2) per rank.) State lives on the
  // heap: a move's completion may come after a failed call has left run().
  struct State {
    std::vector<OpState> ops;
    std::vector<std::vector<std::uint32_t>> dependents;
    std::set<std::size_t> active;
    std::size_t done  = 0;
    unsigned inflight = 0;
    void mark_done(std::size_t i);
  };

  /// The schedule's dependency graph and rendezvous address groups.
  void prepare(const coll::Schedule& s);
  /// One pass over the ops that can act, in schedule order; whether any did.
  Task<bool> walk();
  /// Op `i` waits for its completion notice (an issued rendezvous receive): take it if it came.
  bool collect_completion(std::size_t i);
  Task<> issue(std::size_t i);
  Task<> issue_send(std::size_t i, const coll::Op& op);
  Task<> issue_recv(std::size_t i, const coll::Op& op);
  Task<> issue_recv_reduce(std::size_t i, const coll::Op& op);
  /// RecvSend and RecvReduceSend: the next eager message from `peer` goes on to `peer2` (combined or not).
  Task<> issue_forward(std::size_t i, const coll::Op& op);
  /// Combine and Copy: a move between local buffers.
  Task<> issue_local(std::size_t i, const coll::Op& op);
  Task<> submit(std::size_t i, const Move& m);
  /// Eager moves of `count` elements to `peer`, one per Rx-buffer segment, made by `make_move(offset, count)`.
  Task<> eager_out(std::size_t i, int peer, std::uint64_t count, FnRef<Move(std::uint64_t, std::uint64_t)> make_move);
  bool can_address(int peer) const;
  RndzvNotice take_address(int peer);
  bool uses_move(const coll::Op& op) const;
  std::string describe_wait() const;

  Firmware& fw_;
  FirmwareCall& call_;
  FirmwarePorts& c_;
  CcloCore& core_;
  const coll::Schedule* s_ = nullptr;
  bool rndzv_              = false;
  std::uint64_t eb_        = 4;
  std::shared_ptr<State> st_;
  std::map<std::pair<int, int>, unsigned> group_size_; ///< receives sharing one announced buffer, per (peer, group)
  std::set<std::pair<int, int>> announced_;
  std::map<std::uint32_t, RndzvNotice> addresses_;     ///< address being used for a group, by peer host
};

} // namespace nafsim::nodes
