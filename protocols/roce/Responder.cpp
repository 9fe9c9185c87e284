#include "protocols/roce/Responder.hpp"

#include <algorithm>

namespace nafsim::roce {

Responder::Responder(const RoceConfig& cfg, std::uint32_t remote_qp, Psn expected_psn)
    : cfg_(cfg), remote_qp_(remote_qp), epsn_(expected_psn & kPsnMask)
{
}

std::uint32_t Responder::packets_for(std::uint64_t len) const
{
  return len == 0 ? 1 : static_cast<std::uint32_t>((len + cfg_.mtu.count - 1) / cfg_.mtu.count);
}

void Responder::post_recv(const RecvRequest& r, SimTime, Actions&)
{
  recvs_.push_back(r);
}

void Responder::queue_ack(Psn psn, Syndrome s, Actions& out)
{
  // Coalesce with an ACK still waiting at the tail of the queue.
  if (!out_.empty())
    if (auto* last = std::get_if<AckPacket>(&out_.back())) {
      *last = AckPacket{remote_qp_, psn, s};
      ++c_.acks_coalesced;
      out.push_back(WantTx{}); // the queue may have been left idle behind a READ response
      return;
    }
  out_.emplace_back(AckPacket{remote_qp_, psn, s});
  out.push_back(WantTx{});
}

void Responder::queue_read(const RequestPacket& r, Actions& out)
{
  ReadJob j;
  j.first       = r.psn;
  j.addr        = r.remote_addr;
  j.length      = r.length;
  j.msg         = r.data.msg;
  j.base_offset = r.data.offset;
  j.npkts       = packets_for(r.length);
  out_.emplace_back(j);
  ++c_.read_requests;
  out.push_back(WantTx{});
}

void Responder::on_request(const RequestPacket& r, SimTime now, Actions& out)
{
  auto d = psn_diff(r.psn, epsn_);
  if (d == 0) {
    accept(r, now, out);
    return;
  }
  if (d < 0) {
    ++c_.duplicates;
    if (r.op == Opcode::ReadRequest) {
      // READs are idempotent: execute again from the requested PSN. The requester asks again when it saw a
      // gap in the responses (or timed out): what is still queued from that PSN on is replaced by the new
      // response, not sent twice (an RC responder restarts its response at the duplicate request's PSN).
      abort_responses_from(r.psn);
      queue_read(r, out);
    } else
      queue_ack(psn_add(epsn_, -1), Syndrome::Ack, out);
    return;
  }
  ++c_.out_of_sequence;
  if (!nak_sent_) {
    nak_sent_ = true;
    ++c_.naks_sent;
    queue_ack(epsn_, Syndrome::NakSequence, out);
  }
}

bool Responder::stale(Psn psn, std::uint32_t taken_at) const
{
  for (auto const& [epoch, from] : aborts_)
    if (epoch > taken_at && psn_le(from, psn))
      return true;
  return false;
}

void Responder::abort_responses_from(Psn p)
{
  // Responses already taken for transmission from p on are stale too (stale()); earlier ones are not: the
  // repeated request may be one of several a go-back sends again, for a later READ than the one missing data.
  aborts_.emplace_back(++epoch_, p);
  if (aborts_.size() > kAbortsKept)
    aborts_.pop_front();
  Fifo<Out> kept; // (a restart is rare: the queue is rebuilt without the aborted responses)
  while (!out_.empty()) {
    Out o = std::move(out_.front());
    out_.pop_front();
    if (auto* j = std::get_if<ReadJob>(&o)) {
      const Psn next = psn_add(j->first, j->sent);
      const Psn end  = psn_add(j->first, j->npkts);
      if (!psn_lt(next, p)) { // nothing before p left to send: the new response covers it
        c_.responses_aborted += j->npkts - j->sent;
        continue;
      }
      if (psn_lt(p, end)) { // cut at p
        const auto keep = static_cast<std::uint32_t>(psn_diff(p, j->first));
        c_.responses_aborted += j->npkts - keep;
        j->npkts = keep;
      }
    }
    kept.push_back(std::move(o));
  }
  out_.swap(kept);
}

void Responder::ack_accepted(Psn psn, Actions& out)
{
  since_ack_ = 0;
  ++ack_timer_gen_; // a coalescing timer armed before this ACK has nothing left to do
  ++c_.ack_events;
  queue_ack(psn, Syndrome::Ack, out);
}

void Responder::on_ack_timer(std::uint64_t token, SimTime, Actions& out)
{
  if ((token & ~kAckTimerToken) != ack_timer_gen_ || since_ack_ == 0)
    return;
  ack_accepted(unacked_psn_, out);
}

void Responder::accept(const RequestPacket& r, SimTime now, Actions& out)
{
  nak_sent_ = false;
  switch (r.op) {
    case Opcode::ReadRequest:
      queue_read(r, out);
      epsn_ = psn_add(epsn_, packets_for(r.length));
      return;
    case Opcode::SendFirst:
    case Opcode::SendOnly: {
      std::optional<RecvRequest> rv;
      RecvOffer offer;
      if (provider_)
        offer = provider_(r.header);
      if (offer.status == RecvOffer::Status::Ready) {
        rv = offer.recv;
      } else if (offer.status == RecvOffer::Status::Unclaimed && !recvs_.empty()) {
        rv = recvs_.front();
        recvs_.pop_front();
      }
      if (!rv) {
        ++c_.rnr_naks_sent;
        queue_ack(epsn_, Syndrome::NakRnr, out);
        return;
      }
      in_ = Inbound{Verb::Send, r.data.msg, rv->local_addr, 0, 0, rv->wr_id, true, offer.consumed, r.header};
      break;
    }
    case Opcode::WriteFirst:
    case Opcode::WriteOnly:
      in_ = Inbound{Verb::Write, r.data.msg, r.remote_addr, 0, 0, 0, true, false, r.header};
      break;
    default:
      if (!in_.active) // cannot happen with in-order acceptance; drop defensively
        return;
      break;
  }
  const bool command = in_.verb == Verb::Write || (!in_.consumed && r.data.offset == 0);
  out.push_back(PlaceData{in_.addr + r.data.offset, r.data, command});
  in_.received += r.data.length;
  in_.checksum += r.data.checksum;
  epsn_ = psn_add(r.psn, 1);
  ++c_.packets_accepted;
  if (is_last(r.op)) {
    out.push_back(InboundMessage{in_.verb, in_.msg, in_.addr, in_.received, in_.checksum, in_.recv_wr, in_.header});
    in_.active = false;
    ++c_.messages;
    ack_accepted(r.psn, out);
  } else if (unacked_psn_ = r.psn; ++since_ack_ >= cfg_.ack_every) {
    ack_accepted(r.psn, out);
  } else if (since_ack_ == 1 && cfg_.ack_timeout > SimTime::zero()) {
    out.push_back(ArmTimer{now + cfg_.ack_timeout, kAckTimerToken | ++ack_timer_gen_});
  }
}

std::optional<AckPacket> Responder::front_ack() const
{
  if (out_.empty())
    return std::nullopt;
  if (auto const* a = std::get_if<AckPacket>(&out_.front()))
    return *a;
  return std::nullopt;
}

std::optional<PendingResponse> Responder::front_response() const
{
  if (out_.empty())
    return std::nullopt;
  auto const* j = std::get_if<ReadJob>(&out_.front());
  if (!j)
    return std::nullopt;
  const std::uint64_t mtu = cfg_.mtu.count;
  std::uint64_t off       = std::uint64_t{j->sent} * mtu;
  auto len                = static_cast<std::uint32_t>(std::min(mtu, j->length - std::min(off, j->length)));
  PendingResponse p;
  p.packet.dst_qp = remote_qp_;
  p.packet.psn    = psn_add(j->first, j->sent);
  p.packet.op     = opcode_for(Verb::Read, j->sent, j->npkts);
  p.packet.data   = make_segment(j->msg, j->base_offset + off, len);
  p.addr          = j->addr + off;
  return p;
}

void Responder::pop_front()
{
  if (out_.empty())
    return;
  if (auto* j = std::get_if<ReadJob>(&out_.front())) {
    if (++j->sent < j->npkts)
      return;
  }
  out_.pop_front();
}

} // namespace nafsim::roce
