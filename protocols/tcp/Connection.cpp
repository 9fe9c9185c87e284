#include "protocols/tcp/Connection.hpp"

#include <algorithm>

namespace nafsim::tcp {

Connection::Connection(const TcpConfig& cfg)
    : cfg_(cfg)
    , mss_(cfg.mss())
    , peer_window_(cfg.max_window()) // both ends run the same engine: the peer's first window is its buffer
    , cwnd_(cfg.first_cwnd())
    , ssthresh_(cfg.ssthresh.count ? cfg.ssthresh.count : UINT64_MAX)
    , rto_(cfg.rto_after(0, cfg.rto_initial))
{
}

void Connection::write(std::uint64_t bytes, Actions& out)
{
  write_end_ += bytes;
  if (cfg_.segment_per_write)
    write_ends_.push_back(write_end_);
  out.emplace_back(WantTx{});
}

std::uint64_t Connection::window_space() const
{
  std::uint64_t allowed = peer_window_;
  if (cfg_.congestion_control)
    allowed = std::min(allowed, cwnd_);
  const std::uint64_t used = write_end_ - snd_una_;
  return allowed > used ? allowed - used : 0;
}

std::optional<Connection::Next> Connection::next() const
{
  if (failed_)
    return std::nullopt;
  if (burst_next_ < burst_end_) // from the transmit buffer, inside the window already (tx_engine.cpp, RT)
    return Next{burst_next_, static_cast<std::uint32_t>(std::min(cfg_.rt_segment(), burst_end_ - burst_next_)), true,
                false, true};
  if (snd_nxt_ < write_end_) {
    std::uint64_t allowed = std::min<std::uint64_t>(peer_window_, cfg_.tx_buffer.count);
    if (cfg_.congestion_control)
      allowed = std::min(allowed, cwnd_);
    std::uint64_t limit = snd_una_ + allowed;
    if (snd_nxt_ < limit) {
      std::uint64_t end = write_end_;
      if (!write_ends_.empty()) // segment_per_write: a segment ends where its write ended
        end = *std::upper_bound(write_ends_.begin(), write_ends_.end(), snd_nxt_);
      auto len = static_cast<std::uint32_t>(std::min({mss_, end - snd_nxt_, limit - snd_nxt_}));
      return Next{snd_nxt_, len, snd_nxt_ < snd_max_, false};
    }
  }
  if (probe_pending_)
    return Next{snd_nxt_, 0, false, true};
  return std::nullopt;
}

Segment Connection::commit(SimTime now, Actions& out)
{
  auto n = next();
  Segment s;
  s.seq = snd_nxt_;
  if (n) {
    s.seq   = n->seq;
    s.len   = n->len;
    s.probe = n->probe;
    if (n->probe) {
      probe_pending_ = false;
      ++c_.probes;
    } else if (n->burst) {
      burst_next_ += n->len;
      ++c_.segments_sent;
      ++c_.retransmitted;
      if (!timer_on_)
        arm(now, out);
    } else {
      snd_nxt_ += n->len;
      snd_max_ = std::max(snd_max_, snd_nxt_);
      if (cfg_.cwnd_validation)
        note_cwnd_use();
      ++c_.segments_sent;
      if (n->retransmission)
        ++c_.retransmitted;
      if (!timer_on_)
        arm(now, out);
    }
  }
  acknowledge(s);
  return s;
}

Segment Connection::take_ack()
{
  Segment s;
  s.seq = snd_nxt_;
  acknowledge(s);
  ++c_.acks_sent;
  return s;
}

void Connection::acknowledge(Segment& s)
{
  s.ack          = rcv_nxt_;
  s.window       = window();
  s.dsack        = dsack_pending_;
  dsack_pending_ = false;
  ack_pending_   = false;
  ack_armed_     = false;
}

void Connection::on_ack_timer(std::uint64_t token, Actions& out)
{
  if (!ack_armed_ || token != ack_token_)
    return;
  ack_armed_   = false;
  ack_pending_ = true;
  out.emplace_back(WantTx{});
}

std::uint64_t Connection::room() const
{
  // Stream bytes past rcv_nxt the buffer can hold (held out-of-order ranges lie inside this room).
  std::uint64_t free = cfg_.rx_buffer.count > held_ ? cfg_.rx_buffer.count - held_ : 0;
  return std::min(free, cfg_.max_window());
}

std::uint64_t Connection::window() const
{
  return room();
}

void Connection::arm(SimTime now, Actions& out)
{
  ++token_;
  timer_on_ = true;
  out.emplace_back(ArmTimer{now + rto_, token_});
}

void Connection::on_segment(const Segment& s, SimTime now, Actions& out, bool take_data)
{
  on_ack(s, now, out);
  on_data(s, now, out, take_data);
}

void Connection::note_cwnd_use()
{
  // Linux (tcp_output.c tcp_cwnd_validate, after tcp_write_xmit): the window counts as limiting when the bytes in
  // flight fill it, or data waits that a full segment more would not fit (Linux: packets in flight >= cwnd, in
  // packets where this model counts bytes). It keeps, per window of data (until snd_una passes cwnd_usage_seq), that
  // fact or the most bytes in flight.
  const std::uint64_t out = snd_nxt_ - snd_una_;
  const bool limited      = out >= cwnd_ || (write_end_ > snd_nxt_ && out + mss_ > cwnd_);
  if (snd_una_ >= usage_seq_ || limited || (!cwnd_limited_ && out > max_out_)) {
    cwnd_limited_ = limited;
    max_out_      = out;
    usage_seq_    = snd_nxt_;
  }
}

void Connection::grow_cwnd(std::uint64_t acked)
{
  // cwnd_validation (Linux's tcp_is_cwnd_limited, called by Reno's and CUBIC's cong_avoid before they grow it): only
  // a window that limits the sender grows; in slow start one below twice the most in flight of the last window.
  if (cfg_.cwnd_validation && !cwnd_limited_ && !(cwnd_ < ssthresh_ && cwnd_ < 2 * max_out_))
    return;
  // Slow start: RFC 5681 grows by what the ACK covers (at most a segment) while cwnd < ssthresh. A fixed increment
  // (the hardware stack's MSS whatever the ACK covers) does so too, but on the hardware stack (loss_recovery toe, or
  // its initial ssthresh given) only while the window stays within ssthresh, as the stack tests cwnd <= ssthresh - MSS
  // (rx_engine.cpp 1057-1064).
  const std::uint64_t step = cfg_.cwnd_increment.count;
  const bool stack_test    = step && (cfg_.loss_recovery == LossRecovery::Toe || cfg_.ssthresh.count > 0);
  if (stack_test ? cwnd_ <= ssthresh_ - std::min(ssthresh_, step) : cwnd_ < ssthresh_) {
    cwnd_ += step ? step : std::min(acked, mss_);
    return;
  }
  // Congestion avoidance: RFC 5681's MSS x MSS / cwnd per ACK, or a fixed increment (the stack's 365 B), while cwnd
  // is within cwnd_max (the stack tests before it adds, so cwnd may end a step above it).
  if (cfg_.cwnd_max.count && cwnd_ > cfg_.cwnd_max.count)
    return;
  cwnd_ += cfg_.avoidance_increment.count ? cfg_.avoidance_increment.count
                                          : std::max<std::uint64_t>(1, mss_ * mss_ / cwnd_);
}

void Connection::on_ack(const Segment& s, SimTime now, Actions& out)
{
  // Sending half: the acknowledgement and the window the segment carries.
  if (!failed_ && s.ack > snd_una_ && s.ack <= snd_max_) {
    std::uint64_t acked = s.ack - snd_una_;
    snd_una_            = s.ack;
    snd_nxt_            = std::max(snd_nxt_, snd_una_);
    while (!write_ends_.empty() && write_ends_.front() <= snd_una_)
      write_ends_.pop_front();
    dupacks_            = 0;
    retries_            = 0;
    rto_                = cfg_.rto_after(0, cfg_.rto_initial);
    fast_retransmitted_ = false;
    burst_next_         = std::max(burst_next_, snd_una_); // a burst's bytes acknowledged meanwhile are not resent
    if (cfg_.congestion_control)
      grow_cwnd(acked);
    peer_window_ = s.window;
    out.emplace_back(Acked{snd_una_});
    if (snd_una_ < snd_max_)
      arm(now, out);
    else
      stop_timer();
    out.emplace_back(WantTx{});
  } else if (!failed_ && s.ack == snd_una_) {
    bool grew       = s.window > peer_window_;
    const bool toe  = cfg_.loss_recovery == LossRecovery::Toe;
    if (toe && snd_una_ < snd_max_)
      restart_timer(now, out); // every ACK restarts the stack's timer (rx_engine: rxRetransmitTimerUpdate)
    // The stack counts an ACK without data as a duplicate whatever window it carries (rx_engine.cpp: ackNumb ==
    // prevAck && prevAck != nextByte && length == 0); RFC 5681 not when it updates the window.
    if (s.len == 0 && !s.probe && snd_una_ < snd_max_ && (toe || s.window == peer_window_)) {
      ++c_.duplicate_acks;
      if (toe) {
        if (++dupacks_ >= cfg_.dupack_threshold && !fast_retransmitted_) { // once per hole (fastRetransmitted)
          ++c_.fast_retransmits;
          fast_retransmitted_ = true;
          start_burst(out);
        }
      } else if (s.dsack) {
        // The receiver already had the segment this ACK answers (a go-back-n resend of data it held beyond a
        // hole): D-SACK (RFC 2883, Linux's default) tells the sender, and it is no sign of a loss. Counted, these
        // went back again at every third (one drop in a 1 MiB host transfer: 87 fast retransmits, 866 us).
      } else if (++dupacks_ == cfg_.dupack_threshold) { // fast retransmit: go back to the hole
        ++c_.fast_retransmits;
        std::uint64_t flight = snd_max_ - snd_una_;
        ssthresh_            = std::max(flight / 2, 2 * mss_);
        if (cfg_.congestion_control)
          cwnd_ = cfg_.retransmit_window.count ? cfg_.retransmit_window.count : ssthresh_;
        snd_nxt_ = snd_una_;
        arm(now, out);
        out.emplace_back(WantTx{});
      }
    }
    peer_window_ = s.window;
    if (grew)
      out.emplace_back(WantTx{});
  }
  if (!failed_ && !timer_on_ && peer_window_ == 0 && snd_nxt_ < write_end_)
    arm(now, out); // persist timer: probe the closed window
}

void Connection::on_data(const Segment& s, SimTime now, Actions& out, bool take_data)
{
  if (s.len == 0) {
    if (s.probe) {
      ack_pending_ = true;
      out.emplace_back(WantTx{});
    }
    return;
  }
  if (!take_data) { // dropped by a full receive FIFO: a duplicate ACK at once
    ++c_.refused_full;
    ack_armed_   = false;
    ack_pending_ = true;
    out.emplace_back(WantTx{});
    return;
  }
  std::uint64_t end = s.seq + s.len;
  // Every data segment is answered: at once, or (delayed_ack, an in-order segment the buffer takes) with the
  // next one, or alone after the delay.
  // (without accept_overlap a segment overlapping bytes already received is dropped as one beyond a hole is)
  const bool overlap_dropped = !cfg_.accept_overlap && s.seq < rcv_nxt_ && end > rcv_nxt_;
  const bool in_order = s.seq <= rcv_nxt_ && end > rcv_nxt_ && end - rcv_nxt_ <= room() && !overlap_dropped;
  if (cfg_.delayed_ack > SimTime::zero() && in_order && !ack_armed_) {
    ack_armed_ = true;
    out.emplace_back(ArmAckTimer{now + cfg_.delayed_ack, ++ack_token_});
  } else {
    ack_armed_   = false;
    ack_pending_ = true;
    out.emplace_back(WantTx{});
  }
  if (end <= rcv_nxt_) {
    ++c_.duplicates;
    dsack_pending_ = true;
    return;
  }
  if (overlap_dropped) { // the hardware stack takes a segment only at the next expected byte
    ++c_.out_of_order_dropped;
    return;
  }
  if (s.seq > rcv_nxt_) { // beyond a hole
    if (cfg_.out_of_order && end - rcv_nxt_ <= room())
      hold_out_of_order(s.seq, end);
    else
      ++c_.out_of_order_dropped;
    return;
  }
  // In order (possibly overlapping bytes already received).
  std::uint64_t fresh = end - rcv_nxt_;
  if (fresh > room()) {
    ++c_.window_dropped;
    return;
  }
  std::uint64_t from = rcv_nxt_;
  rcv_nxt_           = end;
  held_ += fresh;
  while (!ooo_.empty() && ooo_.begin()->first <= rcv_nxt_) {
    auto [a, b] = *ooo_.begin();
    ooo_bytes_ -= b - a;
    if (b > rcv_nxt_) {
      held_ += b - rcv_nxt_;
      rcv_nxt_ = b;
    }
    ooo_.erase(ooo_.begin());
  }
  out.emplace_back(Deliver{from, rcv_nxt_});
}

void Connection::hold_out_of_order(std::uint64_t seq, std::uint64_t end)
{
  // Merge [seq, end) into the held ranges.
  std::uint64_t a = seq, b = end;
  auto it         = ooo_.lower_bound(a);
  if (it != ooo_.begin() && std::prev(it)->second >= a)
    --it;
  while (it != ooo_.end() && it->first <= b) {
    a = std::min(a, it->first);
    b = std::max(b, it->second);
    ooo_bytes_ -= it->second - it->first;
    it = ooo_.erase(it);
  }
  ooo_[a] = b;
  ooo_bytes_ += b - a;
  ++c_.out_of_order_held;
}

void Connection::on_timer(std::uint64_t token, SimTime now, Actions& out)
{
  if (token != token_ || !timer_on_ || failed_)
    return;
  timer_on_ = false;
  if (snd_una_ < snd_max_) { // retransmission timeout
    if (++retries_ > cfg_.retry_limit) {
      failed_ = true;
      out.emplace_back(Failed{snd_una_, retries_ - 1});
      return;
    }
    ++c_.timeouts;
    std::uint64_t flight = snd_max_ - snd_una_;
    if (cfg_.loss_recovery == LossRecovery::Toe) {
      // The stack cuts the windows at the first timeout since an ACK only, in its own MSS (tx_engine.cpp RT:
      // rt_count == 1), and resends a burst; the send point stays.
      const std::uint64_t seg = cfg_.rt_segment();
      if (retries_ == 1) {
        ssthresh_ = flight > 4 * seg ? flight / 2 : 2 * seg;
        if (cfg_.congestion_control)
          cwnd_ = cfg_.retransmit_window.count ? cfg_.retransmit_window.count : mss_;
      }
      start_burst(out);
    } else {
      ssthresh_ = std::max(flight / 2, 2 * mss_);
      if (cfg_.congestion_control)
        cwnd_ = cfg_.retransmit_window.count ? cfg_.retransmit_window.count : mss_;
      snd_nxt_ = snd_una_;
      dupacks_ = 0;
    }
    rto_     = cfg_.rto_after(retries_, std::min(rto_ * 2, cfg_.rto_max));
    arm(now, out); // the next timeout (doubled, or the table's next) runs from now
    out.emplace_back(WantTx{});
  } else if (peer_window_ == 0 && snd_nxt_ < write_end_) { // persist: probe the closed window
    probe_pending_ = true;
    arm(now, out);
    out.emplace_back(WantTx{});
  }
}

void Connection::start_burst(Actions& out)
{
  burst_next_ = snd_una_;
  burst_end_  = snd_una_ + std::min<std::uint64_t>(snd_nxt_ - snd_una_, std::uint64_t{cfg_.retransmit_burst} *
                                                                            cfg_.rt_segment());
  out.emplace_back(WantTx{});
}

void Connection::restart_timer(SimTime now, Actions& out)
{
  retries_ = 0;
  rto_     = cfg_.rto_after(0, cfg_.rto_initial);
  arm(now, out);
}

void Connection::consumed(std::uint64_t bytes, Actions& out)
{
  std::uint64_t before = window();
  held_ -= std::min(bytes, held_);
  // Announce a reopened window once it can take a full segment again (receiver-side silly-window
  // avoidance, RFC 1122 4.2.3.3).
  if (before < mss_ && window() >= mss_) {
    ack_pending_ = true;
    out.emplace_back(WantTx{});
  }
}

} // namespace nafsim::tcp

namespace nafsim::tcp {

void Connection::stamp(Segment& s)
{
  s.ack        = rcv_nxt_;
  s.window     = window();
  ack_pending_ = false;
  ack_armed_   = false;
}

} // namespace nafsim::tcp
