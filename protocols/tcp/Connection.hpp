#pragma once
// One TCP session as a plain state machine (no engine): the sending half (stream written by the
// application, send window = min(peer window, congestion window, transmit buffer), retransmission
// timer with doubling timeout, fast retransmit on duplicate ACKs, loss recovery by going back to the first
// unacknowledged byte or, loss_recovery toe, by the hardware stack's bursts from it while the stream goes on,
// zero-window probes) and the receiving half (in-order delivery,
// optional out-of-order holding, a window that shrinks with bytes the consumer has not taken, an ACK
// for every segment, piggybacked on data when there is data to send).

#include "protocols/tcp/Segment.hpp"
#include "protocols/tcp/TcpConfig.hpp"

#include <deque>
#include <map>
#include <optional>
#include <variant>
#include <vector>

namespace nafsim::tcp {

/// Call on_timer(token) at `at`.
struct ArmTimer {
  SimTime at;
  std::uint64_t token = 0;
};
/// Call on_ack_timer(token) at `at` (delayed_ack: a lone segment's ACK is due).
struct ArmAckTimer {
  SimTime at;
  std::uint64_t token = 0;
};
/// Stream bytes [from, to) arrived in order: the consumer may take them.
struct Deliver {
  std::uint64_t from = 0, to = 0;
};
/// Every byte below `upto` is acknowledged by the peer (its transmit-buffer space is free).
struct Acked {
  std::uint64_t upto = 0;
};
/// The session gave up: byte `at` was not acknowledged after `attempts` timeouts.
struct Failed {
  std::uint64_t at = 0;
  unsigned attempts = 0;
};
/// The session has a segment (or an ACK) to transmit.
struct WantTx {};

using Action  = std::variant<ArmTimer, ArmAckTimer, Deliver, Acked, Failed, WantTx>;
using Actions = std::vector<Action>;

struct ConnectionCounters {
  std::uint64_t segments_sent      = 0;
  std::uint64_t retransmitted      = 0; ///< segments carrying bytes sent before
  std::uint64_t acks_sent          = 0; ///< segments without payload
  std::uint64_t fast_retransmits   = 0;
  std::uint64_t timeouts           = 0;
  std::uint64_t probes             = 0;
  std::uint64_t duplicate_acks     = 0; ///< received
  std::uint64_t duplicates         = 0; ///< received segments with nothing new
  std::uint64_t out_of_order_held  = 0;
  std::uint64_t out_of_order_dropped = 0; ///< segments not at the next expected byte dropped (see accept_overlap)
  std::uint64_t refused_full       = 0; ///< data segments dropped by a full receive FIFO
  std::uint64_t window_dropped     = 0; ///< received segments beyond the advertised window
};

class Connection {
public:
  explicit Connection(const TcpConfig& cfg);

  // Sending half.
  /// Bytes the application may still write (transmit buffer space).
  std::uint64_t tx_space() const { return cfg_.tx_buffer.count - (write_end_ - snd_una_); }
  /// Bytes the send window (min of congestion and peer window, less the bytes unacknowledged) still
  /// allows beyond those written (what write_within_window lets the application write).
  std::uint64_t window_space() const;
  /// Append `bytes` (<= tx_space()) to the outgoing stream (segment_per_write: as one segment).
  void write(std::uint64_t bytes, Actions& out);
  std::uint64_t write_end() const { return write_end_; }
  std::uint64_t unacknowledged() const { return snd_una_; }
  /// A retransmitted segment taken (take_segment) but dropped by its engine before it left, its bytes acknowledged
  /// meanwhile: it is not counted as sent (segments_sent and retransmitted count what went on the wire).
  void withdrawn()
  {
    --c_.segments_sent;
    --c_.retransmitted;
  }
  struct Next {
    std::uint64_t seq = 0;
    std::uint32_t len = 0;
    bool retransmission = false;
    bool probe          = false;
    bool burst          = false; ///< loss_recovery toe: a segment of the retransmission burst
  };
  /// The data segment (or zero-window probe) the window allows next, if any.
  std::optional<Next> next() const;
  /// Send what next() returned; the segment carries the current ACK and window.
  Segment commit(SimTime now, Actions& out);
  /// An ACK (or window update) is owed and no data segment has carried it yet.
  bool ack_pending() const { return ack_pending_; }
  /// A segment without payload carrying the ACK and window.
  Segment take_ack();
  /// Fill in the current ACK and window as `s` leaves (a staged segment carries the latest ones).
  void stamp(Segment& s);
  bool timer_running() const { return timer_on_; }

  // Both halves.
  /// `take_data` false: the segment's data is dropped before the connection sees it (a full receive FIFO): its
  /// acknowledgement and window count, and it is answered by a duplicate ACK.
  void on_segment(const Segment& s, SimTime now, Actions& out, bool take_data = true);
  void on_timer(std::uint64_t token, SimTime now, Actions& out);
  /// delayed_ack: the delayed ACK armed with `token` is due (a later segment or an ACK sent since cancels it).
  void on_ack_timer(std::uint64_t token, Actions& out);

  // Receiving half.
  /// The consumer took `bytes` of the delivered stream: the window reopens.
  void consumed(std::uint64_t bytes, Actions& out);
  std::uint64_t window() const;
  std::uint64_t received() const { return rcv_nxt_; }

  bool failed() const { return failed_; }
  bool idle() const { return snd_una_ == write_end_; }
  const ConnectionCounters& counters() const { return c_; }
  std::uint64_t cwnd() const { return cwnd_; }
  /// The window the peer last advertised.
  std::uint64_t peer_window() const { return peer_window_; }

private:
  /// on_segment's sending half: the acknowledgement and the window the segment carries.
  void on_ack(const Segment& s, SimTime now, Actions& out);
  /// A new ACK's growth of the congestion window (slow start, then congestion avoidance up to cwnd_max).
  void grow_cwnd(std::uint64_t acked);
  /// cwnd_validation: after a send, what Linux's tcp_cwnd_validate records of how the window was used.
  void note_cwnd_use();
  /// on_segment's receiving half: the segment's data (if any) and how it is answered.
  void on_data(const Segment& s, SimTime now, Actions& out, bool take_data);
  /// Bytes [seq, end) beyond a hole, merged into the held ranges.
  void hold_out_of_order(std::uint64_t seq, std::uint64_t end);
  void arm(SimTime now, Actions& out);
  std::uint64_t room() const;
  void stop_timer() { ++token_; timer_on_ = false; }
  /// loss_recovery toe: resend a burst from the first unacknowledged byte (the send point stays where it is).
  void start_burst(Actions& out);
  /// loss_recovery toe: the ACK that every ACK is to the retransmission timer (restarted at its first value, the
  /// retries cleared; stopped once nothing is unacknowledged).
  void restart_timer(SimTime now, Actions& out);
  /// What every segment leaving carries of the receiving half (the ACK, the window, D-SACK): no ACK owed after it.
  void acknowledge(Segment& s);

  TcpConfig cfg_;
  std::uint64_t mss_;
  // Sending half.
  std::uint64_t write_end_ = 0, snd_una_ = 0, snd_nxt_ = 0, snd_max_ = 0;
  std::uint64_t peer_window_;
  std::deque<std::uint64_t> write_ends_; ///< segment_per_write: ends of the writes not yet acknowledged
  std::uint64_t cwnd_, ssthresh_;
  /// cwnd_validation (Linux's tcp_cwnd_validate): whether a send in the current window found the congestion window
  /// full, the most bytes in flight in it, and the sequence number that ends it.
  bool cwnd_limited_        = false;
  std::uint64_t max_out_    = 0;
  std::uint64_t usage_seq_  = 0;
  unsigned dupacks_   = 0;
  unsigned retries_   = 0;
  SimTime rto_;
  std::uint64_t token_ = 0;
  bool timer_on_       = false;
  bool probe_pending_  = false;
  bool failed_         = false;
  std::uint64_t burst_next_ = 0, burst_end_ = 0; ///< loss_recovery toe: the burst still to send
  bool fast_retransmitted_  = false;             ///< loss_recovery toe: this hole's fast retransmit is done
  bool dsack_pending_ = false; ///< a segment already had arrived since the last ACK (its ACK says so: D-SACK)
  // Receiving half.
  std::uint64_t rcv_nxt_ = 0, held_ = 0, ooo_bytes_ = 0;
  std::map<std::uint64_t, std::uint64_t> ooo_; ///< start -> end of held out-of-order ranges
  bool ack_pending_ = false;
  bool ack_armed_   = false; ///< delayed_ack: one in-order segment awaits its ACK
  std::uint64_t ack_token_ = 0;
  ConnectionCounters c_;
};

} // namespace nafsim::tcp
