// Fast-forward of a steady queue pair's packets as trains (net::FastForwardConfig; simcore/net/README.md,
// "Steady states fast-forwarded"): the RDMA engine's side. A queue pair whose last `window` packets left back to back
// (each pulled the moment the port finished the one before, nothing but the NIC's ACKs sent between, so nothing on
// its path held it back), and whose path holds nothing of another flow (net::Fabric::path_clear), sends the staged
// packets of its message behind it, each ready by the time its turn on the wire would come, as one transmission;
// its receiver takes them in one event, writes each packet's data at the date its own receive event would have had,
// and acknowledges them with one cumulative ACK (the responder folds the ACKs that wait together), which stands for
// their ACKs on the wire.
// What a train does not see, the fast-forward's error (measured in the README):
// - an ACK this engine must send while the train is on the wire waits for its end (packet by packet it would go
//   between two of its packets), and a packet of another flow reaching a port of its path while it crosses waits
//   behind the whole train;
// - the transmit path, which stages up to tx_prefetch of payload ahead of the wire, stages the packets behind a
//   train's at its start rather than as each member leaves: their payload reads are issued up to a train's time early
//   (with the line as the bottleneck, their dates do not bind);
// - the members' ACKs, folded into one that stands for their bytes on the wire, go after the last member: the
//   requester takes the cumulative ACK once its first ACK's worth is in (RdmaPoe::deliver_ahead), as packet by
//   packet, but the reverse direction's wire carries the members' ACKs' bytes then rather than between the members;
// - the members' responder steps are all taken at the last one's date (with ack_every > 1 an ACK-coalescing timer
//   starts up to a train's time late).
#include "nodes/rdma/RdmaPoe.hpp"
#include "protocols/roce/Train.hpp"

namespace nafsim::nodes {

using namespace roce;

std::uint32_t RdmaPoe::longest_wire() const
{
  if (ff_train_ < 2)
    return 0;
  // (every member a full packet with the largest headers a request carries: a bound, never short of a train)
  const std::uint64_t l3 = roce_.base_header.count + roce_.reth.count + wire_mtu_;
  return ff_train_ * fabric_.config().ethernet.wire_bytes(l3);
}

SimTime RdmaPoe::train_arrival(const net::Packet& p, SimTime arrival) const
{
  // The members' ACKs folded into one: its cumulative ACK is the one that went last packet by packet, right behind
  // the last member, so it is in once its first ACK's worth of bytes is; the rest stands for the members' earlier
  // ACKs on the wire (and keeps the reverse direction's load). Taken at its tail it had the requester complete the
  // members' ACKs late (256 KiB with trains of 64: +385 ns on an idle path). The cable carried nothing else
  // meanwhile, so nothing that arrived on it is overtaken. A train of data arrives at its tail.
  const auto* w = p.body.get<Wire>();
  if (!w || !std::holds_alternative<AckPacket>(*w))
    return arrival;
  const BitsPerSecond rate = fabric_.config().link.rate;
  return arrival - (transmit_time(Bytes{p.wire_bytes}, rate) - transmit_time(Bytes{p.wire_bytes / p.train}, rate));
}

std::uint16_t RdmaPoe::gather_train(Staged& done, SimTime now, std::uint32_t& wire)
{
  auto const& eth            = fabric_.config().ethernet;
  const BitsPerSecond rate   = fabric_.config().link.rate;
  wire                       = eth.wire_bytes(l3_bytes(done.pkt, roce_));
  if (done.qp == run_qp_ && now == run_end_)
    ++run_len_;
  else {
    run_qp_  = done.qp;
    run_len_ = 1;
  }
  std::uint16_t members = 1;
  Qp& q                 = qps_[done.qp];
  if (run_len_ >= ff_window_ && may_ride(std::get<RequestPacket>(done.pkt)) &&
      fabric_.path_clear(host_, q.peer, q.flow)) {
    while (members < ff_train_) {
      if (staged_.empty()) // the transmit path stages the packets behind as the train's take the wire (see above)
        refill(now);
      if (staged_.empty())
        break;
      Staged& n = staged_.front();
      if (n.qp != done.qp || !n.request || n.epoch != q.req.epoch())
        break;
      auto const& r = std::get<RequestPacket>(n.pkt);
      // the next packet of the same message, ready by its turn on the wire (packet mode: the port's next pull)
      if (!rides_after(std::get<RequestPacket>(done.pkt), r, wire_mtu_) ||
          n.ready > now + transmit_time(Bytes{wire}, rate))
        break;
      wire += eth.wire_bytes(l3_bytes(n.pkt, roce_));
      staged_bytes_ -= r.data.length;
      ++c_.requests_sent;
      if (psn_le(r.psn, q.max_tx_psn))
        ++c_.retransmitted;
      else
        q.max_tx_psn = r.psn;
      done.pkt  = std::move(n.pkt);
      done.tail = n.tail;
      done.why  = n.why;
      staged_.pop_front();
      ++members;
      ++run_len_;
    }
  }
  run_end_ = now + transmit_time(Bytes{wire}, rate);
  return members;
}

void RdmaPoe::receive_train(QpId id, std::uint64_t place, SimTime now)
{
  const net::Packet& p      = rx_pipe_.at(place);
  const RequestPacket last  = std::get<RequestPacket>(*p.body.get<Wire>());
  const std::uint32_t count = p.train;
  rx_pipe_.release(place);
  Qp& q                     = qps_[id];
  const std::uint64_t folded = q.rsp.counters().acks_coalesced;
  const bool waiting         = q.rsp.ack_at_tail(); // (folding the first member's ACK into it: packet by packet too)
  for (std::uint32_t i = 0; i < count; ++i)
    q.rsp.on_request(train_member(last, i, count, wire_mtu_), now, scratch_);
  // Packet by packet each member's ACK would have left on its own before the next member came: the ACK they were
  // folded into stands for them, when it is the one to leave next (a positive ACK alone in the queue, no READ
  // response staged ahead of it).
  // (no ACK at all among them, with ack_every above the train's length: nothing folded, nothing to stand for)
  const std::uint64_t folds  = q.rsp.counters().acks_coalesced - folded;
  const std::uint64_t merged = folds > (waiting ? 1u : 0u) ? folds - (waiting ? 1u : 0u) : 0;
  auto next                  = q.rsp.front_ack();
  if (merged > 0 && q.rsp.queued() == 1 && next && next->syndrome == Syndrome::Ack && q.staged_responses == 0)
    q.ack_weight = std::min<std::uint32_t>(q.ack_weight + static_cast<std::uint32_t>(merged), ff_train_ - 1);
  auto const& eth          = fabric_.config().ethernet;
  const BitsPerSecond rate = fabric_.config().link.rate;
  const RequestPacket first = train_member(last, 0, count, wire_mtu_);
  placing_ = TrainPlacing{true,
                          last.data.msg,
                          first.data.offset,
                          count,
                          now,
                          transmit_time(Bytes{eth.wire_bytes(l3_bytes(Wire{first}, roce_))}, rate),
                          transmit_time(Bytes{eth.wire_bytes(l3_bytes(Wire{last}, roce_))}, rate)};
  execute(id, scratch_);
  placing_.on = false;
}

SimTime RdmaPoe::placing_date(const PlaceData& d) const
{
  if (d.seg.msg != placing_.msg || d.seg.offset < placing_.first_offset)
    return placing_.last;
  const std::uint64_t i = (d.seg.offset - placing_.first_offset) / wire_mtu_;
  if (i + 1 >= placing_.count)
    return placing_.last;
  // member i's last bit came in before those of the members after it: the last one's, then count - 2 - i middle ones
  const std::int64_t behind = static_cast<std::int64_t>(placing_.count - 2 - i);
  return placing_.last - placing_.last_step - SimTime::ps(placing_.step.ps() * behind);
}

} // namespace nafsim::nodes
