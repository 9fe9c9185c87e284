#pragma once
// The receive side of a RoCEv2 reliable-connection queue pair, after Coyote's rx_ibh_fsm /
// rx_exh_fsm: requests are accepted only in PSN order; an out-of-sequence request is dropped and
// answered by one NAK (sequence error) until a valid packet arrives; a duplicate SEND/WRITE is
// dropped and re-acknowledged, a duplicate READ is executed again; every accepted request packet
// triggers an ACK (coalesced to one per `ack_every`, always on the last packet of a message, and, with
// `ack_timeout`, at the latest that long after the first packet not yet acknowledged).
// Responses (ACK/NAK and READ response data) leave in PSN order.

#include "protocols/roce/Actions.hpp"
#include "protocols/roce/RoceConfig.hpp"
#include "protocols/roce/Wire.hpp"
#include "simcore/engine/Fifo.hpp"

#include <functional>
#include <optional>
#include <variant>

namespace nafsim::roce {

struct ResponderCounters {
  std::uint64_t packets_accepted = 0;
  std::uint64_t duplicates       = 0;
  std::uint64_t out_of_sequence  = 0;
  std::uint64_t ack_events        = 0;
  std::uint64_t acks_coalesced    = 0; ///< ACKs/NAKs folded into one still waiting at the tail of the queue
  std::uint64_t naks_sent        = 0;
  std::uint64_t rnr_naks_sent    = 0;
  std::uint64_t read_requests    = 0;
  std::uint64_t responses_aborted = 0; ///< queued READ responses replaced by a repeated READ request
  std::uint64_t messages         = 0;
};

/// A READ response to transmit, with the local memory it is read from.
struct PendingResponse {
  ReadResponsePacket packet;
  std::uint64_t addr = 0;
};

/// What a receive provider says about an incoming SEND, given its header.
struct RecvOffer {
  enum class Status { Unclaimed, NotReady, Ready };
  Status status = Status::Unclaimed; ///< Unclaimed: use this queue pair's own posted receives
  RecvRequest recv;                   ///< Ready: where the message lands
  /// Ready: the receiver takes the message from the stream (a control message it parses): nothing of it is a
  /// memory command of its own (RDMA POE engines that model memory commands, e.g. Coyote's MMU).
  bool consumed = false;
};
/// Supplies the receive an incoming SEND lands in (e.g. a free Rx buffer of a shared pool); NotReady
/// back-pressures the sender (RNR NAK).
using RecvProvider = std::function<RecvOffer(const AppHeader&)>;

class Responder {
public:
  /// `cfg` must outlive it: every queue pair of an engine reads its engine's one configuration (a copy per queue
  /// pair cost 96 bytes and a heap block, times a queue pair per node and peer).
  Responder(const RoceConfig& cfg, std::uint32_t remote_qp, Psn expected_psn);
  Responder(RoceConfig&&, std::uint32_t, Psn) = delete; // (a temporary would not outlive it)

  void post_recv(const RecvRequest& r, SimTime now, Actions& out);
  /// Take receives from `p` instead of this queue pair's own posted receives.
  void set_recv_provider(RecvProvider p) { provider_ = std::move(p); }
  void on_request(const RequestPacket& r, SimTime now, Actions& out);
  /// The ACK-coalescing timer (RoceConfig::ack_timeout) armed with `token` expired.
  void on_ack_timer(std::uint64_t token, SimTime now, Actions& out);
  /// Tokens of the responder's ACK-coalescing timer carry this bit (the requester's never do).
  static constexpr std::uint64_t kAckTimerToken = 1ULL << 62;

  /// Front of the response queue, if it is an ACK/NAK.
  std::optional<AckPacket> front_ack() const;
  /// Front of the response queue, if it is READ response data.
  std::optional<PendingResponse> front_response() const;
  /// Remove the front packet (after front_ack() or front_response()).
  void pop_front();
  bool has_output() const { return !out_.empty(); }
  /// Packets waiting to leave (ACK/NAKs and READ responses).
  std::size_t queued() const { return out_.size(); }
  /// Whether the last of them is an ACK/NAK (a new one would be folded into it).
  bool ack_at_tail() const { return !out_.empty() && std::holds_alternative<AckPacket>(out_.back()); }
  /// Bumped when a repeated READ request restarts the responses at a PSN.
  std::uint32_t epoch() const { return epoch_; }
  /// Whether a READ response at `psn`, taken (front_response, pop_front) at epoch `taken_at` and not yet
  /// transmitted, was replaced since by a restart at or before its PSN.
  bool stale(Psn psn, std::uint32_t taken_at) const;

  Psn expected_psn() const { return epsn_; }
  const ResponderCounters& counters() const { return c_; }

private:
  struct ReadJob {
    Psn first            = 0;
    std::uint64_t addr   = 0;
    std::uint64_t length = 0;
    std::uint64_t msg    = 0;
    std::uint64_t base_offset = 0;
    std::uint32_t npkts  = 1;
    std::uint32_t sent   = 0;
  };
  struct Inbound {
    Verb verb               = Verb::Write;
    std::uint64_t msg       = 0;
    std::uint64_t addr      = 0;
    std::uint64_t received  = 0;
    std::uint64_t checksum  = 0;
    std::uint64_t recv_wr   = 0;
    bool active             = false;
    bool consumed           = false; ///< a SEND the receiver takes from the stream (RecvOffer::consumed)
    AppHeader header{};
  };
  using Out = std::variant<AckPacket, ReadJob>;

  std::uint32_t packets_for(std::uint64_t len) const;
  void queue_ack(Psn psn, Syndrome s, Actions& out);
  void queue_read(const RequestPacket& r, Actions& out);
  /// Drop the queued READ responses at and after PSN `p` (a repeated READ request restarts there).
  void abort_responses_from(Psn p);
  void accept(const RequestPacket& r, SimTime now, Actions& out);
  /// Acknowledge everything accepted so far (coalesced packets included).
  void ack_accepted(Psn psn, Actions& out);

  const RoceConfig& cfg_;
  std::uint32_t remote_qp_;
  Psn epsn_;
  bool nak_sent_         = false;
  unsigned since_ack_    = 0;
  Psn unacked_psn_             = 0; ///< the last SEND/WRITE packet accepted, not yet acknowledged
  std::uint64_t ack_timer_gen_ = 0; ///< the armed ACK-coalescing timer's token; bumped whenever an ACK goes
  // (Fifos, not deques: a deque allocates 576 bytes when made, and a cluster holds a queue pair per node and peer)
  Fifo<Out> out_;
  ResponderCounters c_; // (what a packet's acceptance writes, before the message's state: issue 53)
  Inbound in_;
  Fifo<RecvRequest> recvs_;
  RecvProvider provider_;
  std::uint32_t epoch_ = 0;
  static constexpr std::size_t kAbortsKept = 64; ///< restarts remembered (a NIC stages far fewer responses)
  Fifo<std::pair<std::uint32_t, Psn>> aborts_; ///< (epoch after the restart, its PSN)
};

} // namespace nafsim::roce
