#include "protocols/roce/Requester.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>
#include <string>

namespace nafsim::roce {

std::string describe_failure(const Completion& c)
{
  switch (c.status) {
    case Status::Success: return "success";
    case Status::RetryExceeded:
      return "no acknowledgement for " +
             (c.stream_byte ? "stream byte " + std::to_string(*c.stream_byte) : "PSN " + std::to_string(c.psn)) +
             " after " + std::to_string(c.attempts) +
             " retransmission timeout(s); the retry limit is exhausted";
    case Status::RnrRetryExceeded:
      if (c.stalled > SimTime{}) // rnr_retry_limit 7: retrying for ever, stopped by rnr_stall
        return "receiver not ready for PSN " + std::to_string(c.psn) + ": refused by " + std::to_string(c.attempts) +
               " RNR NAK(s), the last " + fmt::format("{:g}", c.stalled.us()) +
               " us while nothing else could run (rnr_stall): the receiver never posted a receive for it, a simulated deadlock (the receiver "
               "waits for something that cannot arrive while its receives are full); give the receiver more "
               "receive buffers, or raise rnr_stall if it only drains slowly";
      return "receiver not ready (no receive posted, no free buffer) for PSN " + std::to_string(c.psn) + " after " +
             std::to_string(c.attempts) + " RNR NAK(s): the rnr_retry_limit is exhausted (7: retry for ever)";
    case Status::LocalLengthError: return "message longer than the posted receive";
    case Status::Flushed: return "flushed: the queue pair failed earlier";
  }
  return "?";
}

const char* status_name(Status s)
{
  switch (s) {
    case Status::Success: return "success";
    case Status::RetryExceeded: return "retry-exceeded";
    case Status::RnrRetryExceeded: return "rnr-retry-exceeded";
    case Status::LocalLengthError: return "local-length-error";
    case Status::Flushed: return "flushed";
  }
  return "?";
}

Requester::Requester(const RoceConfig& cfg, std::uint32_t remote_qp, Psn initial_psn)
    : cfg_(cfg)
    , remote_qp_(remote_qp)
    , next_psn_(initial_psn & kPsnMask)
    , una_(initial_psn & kPsnMask)
    , high_psn_(psn_add(initial_psn, -1))
{
}

std::uint32_t Requester::packets_for(std::uint64_t len) const
{
  return len == 0 ? 1 : static_cast<std::uint32_t>((len + cfg_.mtu.count - 1) / cfg_.mtu.count);
}

Psn Requester::cursor_psn() const
{
  return cur_wr_ < wrs_.size() ? psn_add(wrs_[cur_wr_].first, cur_pkt_) : next_psn_;
}

bool Requester::anything_unacked() const
{
  return sent_any_ && psn_le(una_, high_psn_);
}

void Requester::post(const WorkRequest& wr, SimTime /*now*/, Actions& out)
{
  if (state_ == State::Error) {
    out.push_back(Completion{wr.wr_id, wr.verb, Status::Flushed, 0, 0, 0, {}, wr.msg});
    return;
  }
  Pending p;
  p.wr    = wr;
  p.first = next_psn_;
  p.npkts = packets_for(wr.length);
  next_psn_ = psn_add(next_psn_, p.npkts);
  wrs_.push_back(p);
  out.push_back(WantTx{});
}

std::optional<RequestPacket> Requester::peek(SimTime now) const
{
  if (state_ != State::Ready || now < rnr_until_ || cur_wr_ >= wrs_.size() || cur_wr_ >= cfg_.max_outstanding)
    return std::nullopt;
  const Pending& w       = wrs_[cur_wr_];
  const std::uint64_t mtu = cfg_.mtu.count;
  std::uint64_t offset   = std::uint64_t{cur_pkt_} * mtu;
  RequestPacket r;
  r.dst_qp = remote_qp_;
  r.psn    = cursor_psn();
  if (w.wr.verb == Verb::Read) {
    // One request asks for everything from the cursor on (a re-request after a gap asks for the rest).
    r.op          = Opcode::ReadRequest;
    r.ack_req     = true;
    r.remote_addr = w.wr.remote_addr + offset;
    r.length      = w.wr.length - std::min(offset, w.wr.length);
    r.data        = Segment{w.wr.msg, offset, 0, 0};
    return r;
  }
  auto len  = static_cast<std::uint32_t>(std::min(mtu, w.wr.length - std::min(offset, w.wr.length)));
  r.op      = opcode_for(w.wr.verb, cur_pkt_, w.npkts);
  r.ack_req = is_last(r.op);
  if (r.op == Opcode::WriteFirst || r.op == Opcode::WriteOnly) {
    r.remote_addr = w.wr.remote_addr;
    r.length      = w.wr.length;
  }
  r.data = make_segment(w.wr.msg, offset, len);
  if (cur_pkt_ == 0)
    r.header = w.wr.header;
  return r;
}

void Requester::commit(SimTime now, Actions& out)
{
  if (cur_wr_ >= wrs_.size())
    throw std::logic_error("roce::Requester::commit: no packet to send (call peek first)");
  const Pending& w = wrs_[cur_wr_];
  Psn p            = cursor_psn();
  Psn top          = p;
  if (w.wr.verb == Verb::Read) {
    top             = last_psn(w);
    Pending& rw     = wrs_[cur_wr_];
    rw.requested_at = now;
    rw.rtt_sample   = p == w.first; // a re-request's first response in order may be the old stream's late one
    if (reissued_from_ && psn_le(p, *reissued_from_) && psn_le(*reissued_from_, top) && reissued_at_ == SimTime::max())
      reissued_at_ = now; // the re-request leaves
    ++cur_wr_;
    cur_pkt_ = 0;
  } else if (++cur_pkt_ == w.npkts) {
    ++cur_wr_;
    cur_pkt_ = 0;
  }
  if (!sent_any_ || psn_lt(high_psn_, top))
    high_psn_ = top;
  sent_any_ = true;
  ++c_.packets_committed;
  if (!timer_running_) {
    progress_at_ = now; // the wait for an acknowledgement starts
    restart_timer(now, out);
  }
}

void Requester::restart_timer(SimTime now, Actions& out)
{
  ++timer_token_;
  timer_running_ = true;
  SimTime rto    = cfg_.timeouts.empty() ? SimTime::us(1000) // (RoceConfig::check rejects an empty list)
                                          : cfg_.timeouts[std::min<std::size_t>(retries_, cfg_.timeouts.size() - 1)];
  if (cfg_.adaptive_retransmission) // capped by the queue pair's own timeout
    rto = std::min(adp_timeout_ > SimTime::zero() ? adp_timeout_ : cfg_.adaptive_timeout_initial,
                   cfg_.timeouts.empty() ? rto : cfg_.timeouts.back());
  out.push_back(ArmTimer{now + rto, timer_token_});
}

void Requester::progressed(SimTime now)
{
  retries_     = 0;
  adp_timeout_ = SimTime::zero(); // NVIDIA's dec_mode "reset to the range's low bound"
  progress_at_ = now;
}

void Requester::rewind_to(Psn p)
{
  cur_wr_  = wrs_.size();
  cur_pkt_ = 0;
  for (std::size_t i = 0; i < wrs_.size(); ++i) {
    auto d = psn_diff(p, wrs_[i].first);
    if (d >= 0 && d < static_cast<std::int32_t>(wrs_[i].npkts)) {
      cur_wr_  = i;
      cur_pkt_ = static_cast<std::uint32_t>(d);
      break;
    }
  }
  ++epoch_;
  ++c_.rewinds;
}

void Requester::complete_front(Actions& out)
{
  while (!wrs_.empty()) {
    const Pending& f = wrs_.front();
    bool done = f.wr.verb == Verb::Read ? f.read_received == f.npkts : psn_lt(last_psn(f), una_);
    if (!done)
      break;
    out.push_back(Completion{f.wr.wr_id, f.wr.verb, Status::Success, f.wr.length, 0, 0, {}, f.wr.msg});
    wrs_.pop_front();
    if (cur_wr_ > 0)
      --cur_wr_;
    else
      cur_pkt_ = 0;
  }
}

void Requester::ack_through(Psn p, SimTime now, Actions& out)
{
  Psn next = psn_add(p, 1);
  // READ responses that have not arrived are not acknowledged by an ACK of a later request: the
  // responses were lost, so ask for them again (once per gap).
  for (auto const& w : wrs_) {
    if (w.wr.verb != Verb::Read || w.read_received == w.npkts)
      continue;
    Psn expected = psn_add(w.first, w.read_received);
    if (psn_lt(expected, next)) {
      next = expected;
      if (!cfg_.ooo_read_responses) // else the READ's last response or the timer asks again (this ACK may have
        read_gap(w, expected, now, out); // overtaken the responses)
    }
    break;
  }
  if (!psn_lt(una_, next))
    return;
  una_ = next;
  progressed(now);
  complete_front(out);
  // Packets the peer already has need not be sent again.
  if (psn_lt(cursor_psn(), una_) && cur_wr_ < wrs_.size())
    rewind_to(una_);
  if (anything_unacked()) {
    restart_timer(now, out);
  } else {
    timer_running_ = false;
    ++timer_token_;
  }
  out.push_back(WantTx{});
}

void Requester::on_ack(const AckPacket& a, SimTime now, Actions& out)
{
  if (state_ != State::Ready)
    return;
  ++c_.acks_received;
  // Only PSNs in the unacknowledged window [una, high] carry news; anything else is a duplicate or a
  // stale (reordered) response.
  bool in_window = sent_any_ && psn_le(una_, a.psn) && psn_le(a.psn, high_psn_);
  if (!in_window) {
    ++c_.duplicate_acks;
    return;
  }
  switch (a.syndrome) {
    case Syndrome::Ack:
      ack_through(a.psn, now, out);
      return;
    case Syndrome::NakSequence:
      ++c_.naks_received;
      ack_through(psn_add(a.psn, -1), now, out);
      rewind_to(a.psn);
      out.push_back(WantTx{});
      return;
    case Syndrome::NakRnr: {
      ++c_.rnr_naks_received;
      ack_through(psn_add(a.psn, -1), now, out);
      rewind_to(a.psn);
      if (cur_wr_ < wrs_.size() && ++wrs_[cur_wr_].rnr_retries > cfg_.rnr_retry_limit && cfg_.rnr_retry_limit < 7) {
        fail(Status::RnrRetryExceeded, a.psn, wrs_[cur_wr_].rnr_retries, out);
        return;
      }
      // Retrying for ever (7) on a packet no receiver ever takes is a deadlock, not back-pressure: after rnr_stall
      // of refusals of the same packet, the queue pair fails and says so.
      if (!rnr_since_ || rnr_since_->first != a.psn)
        rnr_since_ = std::pair{a.psn, now};
      else if (cfg_.rnr_stall > SimTime{} && now - rnr_since_->second >= cfg_.rnr_stall) {
        const std::size_t first = out.size();
        fail(Status::RnrRetryExceeded, a.psn, cur_wr_ < wrs_.size() ? wrs_[cur_wr_].rnr_retries : 0, out);
        for (std::size_t i = first; i < out.size(); ++i)
          if (auto* c = std::get_if<Completion>(&out[i]); c && c->status == Status::RnrRetryExceeded)
            c->stalled = now - rnr_since_->second;
        return;
      }
      rnr_until_ = now + cfg_.rnr_timeout;
      // An RNR NAK is a response: the transport timer restarts from the resend (IBA: only a missing response
      // runs it out; RNR NAKs count against rnr_retry_limit alone), so a long back-pressure is not a timeout, nor
      // time spent against adaptive retransmission's budget.
      progress_at_ = rnr_until_;
      restart_timer(rnr_until_, out);
      out.push_back(ArmTimer{rnr_until_, kRnrToken | timer_token_});
      return;
    }
  }
}

void Requester::read_gap(const Pending& w, Psn expected, SimTime now, Actions& out)
{
  if (read_gap_at_ && *read_gap_at_ == expected)
    return; // already asked for (once per gap)
  // NAK rate limiting, as the responder's one NAK per sequence error: a re-request from reissued_from_ <= expected in
  // this READ that left less than a round trip ago restarts the stream there, so the responses arriving before its
  // own can are the old stream's, overtaken or behind a gap it already covers. Asking again for each of them restarted
  // the stream again and again (issue 55: 34x the packets of a clean run under 1 % reordering).
  if (reissued_from_ && psn_le(w.first, *reissued_from_) && psn_le(*reissued_from_, expected) &&
      psn_le(expected, last_psn(w)) && (reissued_at_ == SimTime::max() || now < reissued_at_ + read_rtt_)) {
    ++c_.read_gaps_covered;
    return;
  }
  read_gap_at_    = expected;
  reissued_from_  = expected;
  reissued_at_    = SimTime::max();
  ++c_.read_gaps;
  rewind_to(expected);
  out.push_back(WantTx{});
}

void Requester::on_read_response(const ReadResponsePacket& r, SimTime now, Actions& out)
{
  if (state_ != State::Ready)
    return;
  std::size_t i = 0;
  while (i < wrs_.size() && !(wrs_[i].wr.verb == Verb::Read && wrs_[i].read_received < wrs_[i].npkts))
    ++i;
  if (i == wrs_.size())
    return; // stray duplicate
  Psn expected = psn_add(wrs_[i].first, wrs_[i].read_received);
  auto d       = psn_diff(r.psn, expected);
  if (d < 0)
    return; // duplicate
  Pending& w = wrs_[i];
  if (d > 0) { // a response is missing (lost or overtaken)
    if (cfg_.ooo_read_responses && psn_le(r.psn, last_psn(w))) {
      // Placed at its offset and kept; the missing ones are asked for again once the last response has come (the
      // others had their chance) or on the timeout.
      const auto k = static_cast<std::uint32_t>(psn_diff(r.psn, w.first));
      if (std::find(w.ahead.begin(), w.ahead.end(), k) == w.ahead.end()) {
        w.ahead.push_back(k);
        out.push_back(PlaceData{w.wr.local_addr + r.data.offset, r.data});
      }
      if (r.psn == last_psn(w))
        read_gap(w, expected, now, out);
      restart_timer(now, out); // a response: the peer is alive
      return;
    }
    read_gap(w, expected, now, out);
    return;
  }
  read_gap_at_.reset();
  if (w.rtt_sample) {
    read_rtt_    = now - w.requested_at;
    w.rtt_sample = false;
  }
  ++w.read_received;
  out.push_back(PlaceData{w.wr.local_addr + r.data.offset, r.data});
  // Responses placed ahead of the gap this one filled join the in-order prefix.
  for (auto it = std::find(w.ahead.begin(), w.ahead.end(), w.read_received); it != w.ahead.end();
       it = std::find(w.ahead.begin(), w.ahead.end(), w.read_received)) {
    w.ahead.erase(it);
    ++w.read_received;
  }
  // A READ response implicitly acknowledges every earlier PSN (and those placed ahead that it joined).
  if (const Psn done = psn_add(w.first, w.read_received); psn_lt(una_, done)) {
    una_ = done;
    progressed(now);
  }
  complete_front(out);
  if (anything_unacked()) {
    restart_timer(now, out);
  } else {
    timer_running_ = false;
    ++timer_token_;
  }
  out.push_back(WantTx{});
}

void Requester::on_timer(std::uint64_t token, SimTime now, Actions& out)
{
  if (state_ != State::Ready)
    return;
  if (token & kRnrToken) {
    if (now >= rnr_until_)
      out.push_back(WantTx{});
    return;
  }
  if (token != timer_token_ || !timer_running_)
    return;
  if (!anything_unacked()) {
    timer_running_ = false;
    return;
  }
  ++c_.timeouts;
  if (std::all_of(wrs_.begin(), wrs_.end(), [](const Pending& w) { return w.wr.verb == Verb::Send; }))
    ++c_.send_timeouts;
  ++retries_;
  if (cfg_.adaptive_retransmission) {
    // No forward progress for the queue pair's whole retry budget (retry_count x its timeout: the profile's
    // qp_total_timeout) fails it; until then each consecutive timeout doubles the next, up to the queue pair's own.
    const SimTime qp_timeout = cfg_.timeouts.empty() ? SimTime::us(1000) : cfg_.timeouts.back();
    if (now - progress_at_ >= qp_timeout * static_cast<std::int64_t>(cfg_.retry_limit)) {
      fail(Status::RetryExceeded, una_, retries_, out);
      return;
    }
    const SimTime cur = adp_timeout_ > SimTime::zero() ? adp_timeout_ : cfg_.adaptive_timeout_initial;
    adp_timeout_      = std::min(cur * std::int64_t{2}, qp_timeout);
  } else if (retries_ > cfg_.retry_limit) {
    fail(Status::RetryExceeded, una_, retries_, out);
    return;
  }
  rewind_to(una_);
  restart_timer(now, out);
  out.push_back(WantTx{});
}

void Requester::fail(Status s, Psn psn, unsigned attempts, Actions& out)
{
  state_ = State::Error;
  bool first = true;
  for (auto const& w : wrs_) {
    out.push_back(
        Completion{w.wr.wr_id, w.wr.verb, first ? s : Status::Flushed, 0, psn, first ? attempts : 0, {}, w.wr.msg});
    first = false;
  }
  wrs_.clear();
  cur_wr_        = 0;
  cur_pkt_       = 0;
  timer_running_ = false;
  ++timer_token_;
  ++epoch_;
}

} // namespace nafsim::roce
