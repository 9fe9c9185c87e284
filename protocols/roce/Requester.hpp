#pragma once
// The send side of a RoCEv2 reliable-connection queue pair (InfiniBand spec ch. 9.7 as reduced by
// Coyote): PSN assignment, segmentation at the MTU, a window of outstanding work requests,
// cumulative ACKs, go-back-N on NAK and on retransmission timeout (one timer per QP, reset by
// progress; optionally ConnectX's adaptive retransmission, whose timeout starts short and doubles),
// a retry limit that fails the queue pair instead of hanging, READ with
// re-requests after a response gap.
//
// Engine-free: inputs come with the current time, outputs are Actions. Packets are offered with
// peek() and taken with commit(), so an executor can prefetch payloads; a rewind bumps epoch(),
// telling the executor to discard what it prefetched.

#include "protocols/roce/Actions.hpp"
#include "protocols/roce/RoceConfig.hpp"
#include "protocols/roce/Wire.hpp"
#include "simcore/engine/Fifo.hpp"

#include <optional>
#include <vector>

namespace nafsim::roce {

struct RequesterCounters {
  std::uint64_t packets_committed = 0;
  std::uint64_t timeouts          = 0;
  /// Timeouts with only SENDs posted and not completed: Coyote's stack arms its timer for WRITEs and READ requests
  /// only (ib_transport_protocol.cpp generate_exh), so there no timer would have fired (protocols/roce/README.md).
  std::uint64_t send_timeouts     = 0;
  std::uint64_t naks_received     = 0;
  std::uint64_t rnr_naks_received = 0;
  std::uint64_t acks_received     = 0;
  std::uint64_t duplicate_acks    = 0;
  std::uint64_t rewinds           = 0;
  std::uint64_t read_gaps         = 0;
  std::uint64_t read_gaps_covered = 0; ///< gaps a re-request already in flight covers (not re-requested)
};

class Requester {
public:
  enum class State { Ready, Error };

  /// `cfg` must outlive it: every queue pair of an engine reads its engine's one configuration (a copy per queue
  /// pair cost 96 bytes and a heap block, times a queue pair per node and peer).
  Requester(const RoceConfig& cfg, std::uint32_t remote_qp, Psn initial_psn);
  Requester(RoceConfig&&, std::uint32_t, Psn) = delete; // (a temporary would not outlive it)

  void post(const WorkRequest& wr, SimTime now, Actions& out);
  /// The next packet to transmit, if the window allows one now.
  std::optional<RequestPacket> peek(SimTime now) const;
  /// Take the packet peek() offered.
  void commit(SimTime now, Actions& out);
  void on_ack(const AckPacket& a, SimTime now, Actions& out);
  /// Something outside the queue pair can still free the receiver's room (its engine saw an actor asleep, a rank
  /// computing before it posts): rnr_stall counts from `now`, not from the first refusal.
  void still_live(SimTime now)
  {
    if (rnr_since_)
      rnr_since_->second = now;
  }
  void on_read_response(const ReadResponsePacket& r, SimTime now, Actions& out);
  void on_timer(std::uint64_t token, SimTime now, Actions& out);

  State state() const { return state_; }
  std::uint32_t epoch() const { return epoch_; }
  std::size_t outstanding() const { return wrs_.size(); }
  /// Highest PSN ever committed (retransmission accounting).
  Psn high_psn() const { return high_psn_; }
  bool has_sent_any() const { return sent_any_; }
  /// Whether the retransmission timer runs (the executor may drop its pending timer event if not).
  bool timer_running() const { return timer_running_; }
  const RequesterCounters& counters() const { return c_; }

private:
  struct Pending {
    WorkRequest wr;
    Psn first = 0;
    std::uint32_t npkts = 1; ///< request packets (SEND/WRITE) or response packets (READ)
    std::uint32_t read_received = 0;
    unsigned rnr_retries        = 0;
    std::vector<std::uint32_t> ahead; ///< READ, ooo_read_responses: responses placed past the in-order prefix
    SimTime requested_at;            ///< READ: when its request (or re-request) last left
    bool rtt_sample             = false; ///< READ: the next response in order is the first since that request
  };
  static constexpr std::uint64_t kRnrToken = 1ULL << 63;

  std::uint32_t packets_for(std::uint64_t len) const;
  Psn cursor_psn() const;
  Psn last_psn(const Pending& p) const { return psn_add(p.first, p.npkts - 1); }
  bool anything_unacked() const;
  void rewind_to(Psn p);
  void ack_through(Psn p, SimTime now, Actions& out);
  void complete_front(Actions& out);
  void restart_timer(SimTime now, Actions& out);
  void progressed(SimTime now); ///< the oldest unacknowledged PSN advanced
  /// A READ response is missing at `expected` (of READ `w`): ask for the rest again, unless a re-request from no later
  /// a PSN left less than a round trip ago (what arrives before its responses can is the old stream, which it covers).
  void read_gap(const Pending& w, Psn expected, SimTime now, Actions& out);
  void fail(Status s, Psn psn, unsigned attempts, Actions& out);

  const RoceConfig& cfg_;
  std::uint32_t remote_qp_;
  State state_ = State::Ready;
  SimTime rnr_until_; // (beside what peek reads first: issue 53)
  Fifo<Pending> wrs_;            ///< posted, not yet completed, in order (a Fifo: see Responder.hpp)
  Psn next_psn_;                 ///< PSN of the next work request posted
  Psn una_;                      ///< oldest unacknowledged PSN
  std::size_t cur_wr_   = 0;     ///< send cursor: work request index in wrs_
  std::uint32_t cur_pkt_ = 0;    ///< send cursor: packet within it
  Psn high_psn_         = 0;
  bool sent_any_        = false;
  unsigned retries_     = 0;
  SimTime adp_timeout_;          ///< adaptive retransmission: the next timeout (0: the initial one)
  SimTime progress_at_;          ///< adaptive retransmission: the last progress, or the start of the wait
  std::uint64_t timer_token_ = 0;
  bool timer_running_        = false;
  std::optional<std::pair<Psn, SimTime>> rnr_since_; ///< the packet RNR NAKs refuse, and since when (rnr_stall)
  std::uint32_t epoch_ = 0;
  std::optional<Psn> read_gap_at_; ///< a re-request was already issued for this gap
  std::optional<Psn> reissued_from_; ///< the last READ re-request's first PSN ...
  SimTime reissued_at_ = SimTime::max(); ///< ... and when it left (max: not yet)
  SimTime read_rtt_;                 ///< the last READ request's round trip to its first response
  RequesterCounters c_;
};

} // namespace nafsim::roce
