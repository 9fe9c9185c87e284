#include "protocols/lant/Receiver.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace nafsim::lant {

Receiver::Receiver(const LantConfig& cfg, std::uint32_t self) : cfg_(cfg), self_(self) {}

void Receiver::ack(std::uint32_t src, const DataPacket& p, bool nack, Actions& out)
{
  ++c_.acks_sent;
  out.emplace_back(SendAck{src, AckPacket{p.op, p.index, nack}});
}

void Receiver::complete(const Key& k, const Entry& e, Actions& out)
{
  out.emplace_back(Delivered{k.src, k.op, e.place, e.bytes, e.msg, true, e.message, e.recv_id, e.header});
  ++c_.registered_completed;
}

bool Receiver::apply(const Key& k, Entry& e, const DataPacket& p, Actions& out)
{
  const std::uint64_t P = cfg_.packet_payload.count;
  unsigned bit          = packet_bit(e.base, p.addr(P), P);
  if (p.index < e.highest)
    ++c_.out_of_order;
  e.highest = std::max(e.highest, p.index);
  switch (e.mask.set(bit)) {
    case Bitmask::Update::Duplicate:
      // Dropped straight away (paper 3.3); acknowledged again in case the first ACK is still on
      // its way back after a spurious retransmission.
      ++c_.duplicates_dropped;
      ack(k.src, p, false, out);
      return false;
    case Bitmask::Update::New:
      ++c_.packets_written;
      out.emplace_back(WriteData{k.src, p, e.place + std::uint64_t{bit} * P});
      ack(k.src, p, false, out);
      return false;
    case Bitmask::Update::Complete:
      ++c_.packets_written;
      out.emplace_back(WriteData{k.src, p, e.place + std::uint64_t{bit} * P});
      ack(k.src, p, false, out);
      complete(k, e, out);
      return true;
  }
  return false;
}

void Receiver::remember_completed(const Key& k, SimTime now)
{
  if (cfg_.completed_filter_entries == 0)
    return;
  recently_completed(k, now); // expire old ones first
  if (completed_order_.size() >= cfg_.completed_filter_entries) {
    completed_.erase(completed_order_.front().second);
    completed_order_.pop_front();
    ++c_.filter_evictions;
  }
  completed_order_.emplace_back(now + cfg_.completed_filter_time, k);
  completed_.insert(k);
}

bool Receiver::recently_completed(const Key& k, SimTime now)
{
  while (!completed_order_.empty() && completed_order_.front().first <= now) {
    completed_.erase(completed_order_.front().second);
    completed_order_.pop_front();
  }
  return completed_.count(k) != 0;
}

void Receiver::register_first(std::uint32_t src, const DataPacket& p, const Key& k, SimTime now, Actions& out)
{
  if (table_.size() >= cfg_.registration_entries) { // unacknowledged: the sender retries later
    ++c_.registration_full_drops;
    return;
  }
  Entry e{Bitmask::initial(cfg_.bitmask_bits, p.count, 0), p.base, p.bytes, p.msg, p.base, 0, p.message, p.header};
  if (p.message && placement_) { // the receiver chooses where a message lands
    Placement pl = placement_(src, p);
    if (pl.status == Placement::Status::NotReady) { // unacknowledged: the sender retries later
      ++c_.not_ready_drops;
      return;
    }
    if (pl.status == Placement::Status::Ready) {
      if (pl.capacity < p.bytes)
        throw ProtocolError(fmt::format("node {}: a {}-byte message from node {} does not fit the {}-byte receive "
                                        "buffer chosen for it",
                                        self_, p.bytes, src, pl.capacity));
      e.place   = pl.addr;
      e.recv_id = pl.id;
    }
  }
  ++c_.registrations;
  ++c_.packets_written;
  out.emplace_back(WriteData{src, p, e.place});
  ack(src, p, false, out);
  bool done = false;
  if (e.mask.all_ones()) { // a one-packet operation
    complete(k, e, out);
    done = true;
  }
  // Drain what waited in the escape channel for this registration.
  for (auto it = escape_.begin(); it != escape_.end();) {
    if (it->src == src && it->pkt.op == p.op) {
      ++c_.escape_drained;
      if (!done)
        done = apply(k, e, it->pkt, out);
      else {
        ++c_.duplicates_dropped;
        ack(src, it->pkt, false, out);
      }
      it = escape_.erase(it);
    } else {
      ++it;
    }
  }
  if (done)
    remember_completed(k, now);
  else {
    table_.emplace(k, std::move(e));
    c_.peak_registrations = std::max<std::uint64_t>(c_.peak_registrations, table_.size());
  }
}

void Receiver::on_data(std::uint32_t src, const DataPacket& p, bool corrupted, SimTime now, Actions& out)
{
  ++c_.packets_received;
  if (corrupted) { // CRC failure: the data never reaches memory; the sender retransmits at once
    ++c_.crc_nacks;
    ack(src, p, true, out);
    return;
  }
  if (!p.registered) { // written wherever it belongs, in any order; the sender notifies
    ++c_.unregistered_packets;
    ++c_.packets_written;
    out.emplace_back(WriteData{src, p, p.addr(cfg_.packet_payload.count)});
    ack(src, p, false, out);
    return;
  }
  if (p.count > cfg_.bitmask_bits || p.index >= p.count)
    throw ProtocolError(fmt::format("node {}: registered packet {}/{} of operation {} from node {} does not fit a "
                                    "{}-bit registration mask (nodes disagree on bitmask_bits?)",
                                    self_, p.index, p.count, p.op, src, cfg_.bitmask_bits));
  Key k{src, p.op};
  if (auto it = table_.find(k); it != table_.end()) {
    if (apply(k, it->second, p, out)) {
      table_.erase(it);
      remember_completed(k, now);
    }
    return;
  }
  if (recently_completed(k, now)) {
    // A late copy of a completed operation's packet: a network duplicate, or a retransmission
    // after a lost ACK. Dropped and acknowledged (again), so the sender can finish.
    ++c_.late_duplicates;
    ack(src, p, false, out);
    return;
  }
  if (p.first()) {
    register_first(src, p, k, now, out);
    return;
  }
  // Ahead of its registration (or a late duplicate of a completed operation).
  if (escape_.size() >= cfg_.escape_packets) {
    ++c_.escape_overflow_drops;
    return;
  }
  ++c_.escaped;
  escape_.push_back(Escaped{src, p, now + cfg_.escape_timeout});
  c_.peak_escape = std::max<std::uint64_t>(c_.peak_escape, escape_.size());
}

void Receiver::on_notify(std::uint32_t src, const NotifyPacket& n, SimTime now, Actions& out)
{
  ++c_.notifications_received;
  Key k{src, n.op};
  ++c_.acks_sent;
  out.emplace_back(SendAck{src, AckPacket{n.op, kNotifyIndex, false}});
  if (recently_completed(k, now)) { // a resent notification whose ACK was lost or late
    ++c_.duplicate_notifications;
    return;
  }
  out.emplace_back(Delivered{src, n.op, n.base, n.bytes, n.msg, false, false, 0, n.header});
  remember_completed(k, now);
}

void Receiver::on_timer(SimTime now, Actions&)
{
  // Deadlines are in arrival order (one timeout for all); drained packets left the deque.
  while (!escape_.empty() && escape_.front().deadline <= now) {
    escape_.pop_front();
    ++c_.escape_timeouts;
  }
}

SimTime Receiver::next_deadline() const
{
  return escape_.empty() ? SimTime::max() : escape_.front().deadline;
}

} // namespace nafsim::lant
