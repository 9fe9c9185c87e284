#include "protocols/lant/Sender.hpp"

#include <fmt/format.h>

namespace nafsim::lant {

namespace {
constexpr unsigned kLargeQueue = 2;
} // namespace

Sender::Sender(const LantConfig& cfg, std::uint32_t self) : cfg_(cfg), self_(self) {}

std::size_t Sender::queued_commands() const
{
  return queues_[0].size() + queues_[1].size() + queues_[2].size();
}

bool Sender::can_post(unsigned queue, std::uint64_t bytes, bool message) const
{
  bool large = !message && cfg_.large_transfer.threshold.count > 0 && bytes > cfg_.large_transfer.threshold.count;
  return queues_[large ? kLargeQueue : std::min(queue, 1u)].size() < cfg_.command_queue_depth;
}

bool Sender::post(const Command& c, SimTime, Actions& out)
{
  if (auto why = cfg_.command_size_problem(c.bytes); !why.empty())
    throw ProtocolError(fmt::format("node {}: command {}: {}", self_, c.id, why));
  if (c.queue > 1)
    throw ProtocolError(fmt::format("node {}: command {} names queue {}; queues are 0 (CPU) and 1 (accelerator)",
                                    self_, c.id, c.queue));
  if (c.message && !cfg_.registrable(c.bytes))
    throw ProtocolError(fmt::format(
        "node {}: message {} of {} bytes cannot be registered (registration range [{}, {}] bytes, registration {}): "
        "a message lands where the receiver's registration puts it; send smaller messages or widen the bitmask",
        self_, c.id, c.bytes, cfg_.register_min.count, cfg_.max_registered(), cfg_.registration ? "on" : "off"));
  if (c.notify == Notify::Receiver) {
    // (every segment: a last one below register_min would go sender-notified, unasked)
    const std::uint64_t big = cfg_.largest_operation(c.bytes), small = cfg_.smallest_operation(c.bytes);
    const std::uint64_t seg = cfg_.registrable(big) ? small : big;
    if (!cfg_.registrable_command(c.bytes))
      throw ProtocolError(fmt::format(
          "node {}: command {} asks for receive-side notification of {} bytes{}, outside the registration range "
          "[{}, {}] bytes (registration {}); use notify 'auto' or 'sender', widen the bitmask, or choose a size "
          "whose segments all fit",
          self_, c.id, seg, seg == c.bytes ? "" : fmt::format(" (a segment of its {})", c.bytes),
          cfg_.register_min.count, cfg_.max_registered(), cfg_.registration ? "on" : "off"));
  }
  if (!can_post(c.queue, c.bytes, c.message)) {
    ++c_.command_queue_full;
    return false;
  }
  bool large = !c.message && cfg_.large_transfer.threshold.count > 0 && c.bytes > cfg_.large_transfer.threshold.count;
  queues_[large ? kLargeQueue : c.queue].push_back(Queued{c, 0});
  ++c_.commands_posted;
  out.emplace_back(WantTx{});
  return true;
}

void Sender::stall(bool& flag, SimTime& since, std::uint64_t& episodes, SimTime now)
{
  if (!flag) {
    flag  = true;
    since = now;
    ++episodes;
  }
}

void Sender::unstall(bool& flag, SimTime since, SimTime& total, SimTime now)
{
  if (flag) {
    flag  = false;
    total = total + (now - since);
  }
}

bool Sender::start_operation(SimTime now)
{
  // The DMA engine pulls the next command round-robin over the CPU, accelerator and Large
  // Transfer queues; every operation takes an op number from the operation table.
  unsigned q = 0;
  bool found = false;
  for (unsigned i = 0; i < queues_.size() && !found; ++i) {
    q     = (rr_ + i) % queues_.size();
    found = !queues_[q].empty();
  }
  if (!found)
    return false;
  if (ops_.size() >= cfg_.op_table_entries) {
    stall(op_stalled_, op_stall_since_, c_.op_table_stalls, now);
    return false;
  }
  unstall(op_stalled_, op_stall_since_, c_.op_table_stall_time, now);
  rr_ = (q + 1) % queues_.size();
  Queued& head = queues_[q].front();
  const Command& cmd = head.cmd;
  Op o;
  o.command = cmd.id;
  o.dst     = cmd.dst;
  o.msg     = cmd.msg;
  if (q == kLargeQueue) {
    // The head stays for ceil(M/N) issues; each issue advances its offset (paper Fig 3).
    std::uint64_t seg = std::min(cfg_.large_transfer.segment.count, cmd.bytes - head.offset);
    o.local           = cmd.local_addr + head.offset;
    o.remote          = cmd.remote_addr + head.offset;
    o.bytes           = seg;
    current_starts_   = head.offset == 0;
    head.offset += seg;
    o.final = head.offset == cmd.bytes;
    ++c_.segments;
    auto& sg = open_segments_[cmd.id];
    ++sg.open;
    sg.last_issued = o.final;
  } else {
    o.local         = cmd.local_addr;
    o.remote        = cmd.remote_addr;
    o.bytes         = cmd.bytes;
    current_starts_ = true;
  }
  o.count      = static_cast<std::uint32_t>(cfg_.packets_for(o.bytes)); // <= kMaxCommandPackets (post checks)
  o.message    = cmd.message;
  o.header     = cmd.header;
  o.registered = cmd.message || (cmd.notify != Notify::Sender && cfg_.registrable(o.bytes));
  if (o.final)
    queues_[q].pop_front();
  std::uint64_t op = next_op_++;
  ops_.emplace(op, o);
  current_ = op;
  ++c_.operations;
  return true;
}

Sender::TxPacket Sender::packet(std::uint64_t op, const Op& o, std::uint32_t index) const
{
  TxPacket t;
  std::uint64_t off = std::uint64_t{index} * cfg_.packet_payload.count;
  t.pkt.op          = op;
  t.pkt.index       = index;
  t.pkt.count       = o.count;
  t.pkt.base        = o.remote;
  t.pkt.bytes       = o.bytes;
  t.pkt.length      = static_cast<std::uint32_t>(std::min<std::uint64_t>(cfg_.packet_payload.count, o.bytes - off));
  t.pkt.registered  = o.registered;
  t.pkt.msg         = o.msg;
  t.pkt.message     = o.message;
  t.pkt.header      = o.header;
  t.dst             = o.dst;
  t.local_addr      = o.local + off;
  t.command         = o.command;
  return t;
}

std::optional<Sender::TxPacket> Sender::next_packet(SimTime now, Actions&)
{
  // 1. Retransmission entries built by timeouts and NACKs.
  while (!retx_.empty()) {
    std::uint64_t k = retx_.front();
    retx_.pop_front();
    auto it = txns_.find(k);
    if (it == txns_.end() || !it->second.queued) {
      ++c_.retransmissions_cancelled; // acknowledged meanwhile (or its operation failed)
      continue;
    }
    it->second.queued   = false;
    it->second.deadline = now + cfg_.packet_timeout;
    timers_.emplace_back(it->second.deadline, k);
    std::uint64_t op = k >> 24;
    TxPacket t       = packet(op, ops_.at(op), static_cast<std::uint32_t>(k & 0xFFFFFF));
    t.retransmission = true;
    ++c_.retransmitted;
    return t;
  }
  // 2. The next new packet of the current operation (or of the next command).
  if (!current_ && !start_operation(now))
    return std::nullopt;
  if (txns_.size() >= cfg_.transaction_table_entries) {
    stall(txn_stalled_, txn_stall_since_, c_.transaction_table_stalls, now);
    return std::nullopt;
  }
  unstall(txn_stalled_, txn_stall_since_, c_.transaction_table_stall_time, now);
  std::uint64_t op = *current_;
  Op& o            = ops_.at(op);
  std::uint32_t i  = o.next++;
  TxPacket t       = packet(op, o, i);
  t.starts_command = i == 0 && current_starts_;
  std::uint64_t k  = key(op, i);
  SimTime deadline = now + cfg_.packet_timeout;
  txns_.emplace(k, Txn{deadline, 0, false});
  timers_.emplace_back(deadline, k);
  ++c_.packets_sent;
  if (o.next == o.count) {
    current_          = std::nullopt;
    t.last_of_command = o.final;
  }
  return t;
}

bool Sender::still_needed(std::uint64_t op, std::uint32_t index) const
{
  return txns_.count(key(op, index)) != 0;
}

void Sender::fail(std::uint64_t op, const std::string& why, Actions& out)
{
  auto it = ops_.find(op);
  if (it == ops_.end())
    return;
  const Op& o = it->second;
  for (std::uint32_t i = 0; i < o.count; ++i)
    txns_.erase(key(op, i));
  txns_.erase(key(op, kNotifyIndex));
  out.emplace_back(LocalNotice{LocalNotice::Kind::Failed, o.command,
                               fmt::format("node {}: operation {} ({} bytes to node {}, command {}) failed: {}", self_,
                                           op, o.bytes, o.dst, o.command, why)});
  if (auto s = open_segments_.find(o.command); s != open_segments_.end()) {
    s->second.failed = true;
    if (!o.data_acked) // (a segment whose data was acknowledged, failing on its notification, was counted off)
      --s->second.open;
    if (s->second.open == 0 && s->second.last_issued)
      open_segments_.erase(s);
  }
  if (current_ == op)
    current_ = std::nullopt;
  ops_.erase(it);
  ++c_.operations_failed;
}

void Sender::retransmit(std::uint64_t k, Txn& t, SimTime, Actions& out, const char* why)
{
  if (t.queued)
    return;
  const bool nack = std::string_view(why).find("NACK") != std::string_view::npos;
  if (++t.retries > cfg_.retry_limit) {
    // What the last retransmission answered says where to look: a NACK is the receiver's CRC check failing (the
    // packet arrived corrupted); a timeout, a packet or its acknowledgement lost on the way (the network's drops are
    // named in the run's note) or refused at the receiver (its registration table or escape channel full).
    fail(k >> 24,
         fmt::format("packet {} was not acknowledged after {} retransmissions (last cause: {}); {}", k & 0xFFFFFF,
                     cfg_.retry_limit, why,
                     nack ? "the receiver keeps finding it corrupted (its CRC check fails: the network's corruption)"
                          : "it or its acknowledgement keeps being lost on the way (the network's drops) or refused "
                            "at the receiver (its registration table or escape channel full)"),
         out);
    return;
  }
  t.queued = true;
  ++c_.retransmit_requests;
  ++(nack ? c_.retransmit_on_nack : c_.retransmit_on_timeout);
  retx_.push_back(k);
  out.emplace_back(WantTx{});
}

void Sender::on_ack(const AckPacket& a, SimTime now, Actions& out)
{
  std::uint64_t k = key(a.op, a.index);
  auto it         = txns_.find(k);
  if (a.nack)
    ++c_.nacks_received;
  else
    ++c_.acks_received;
  if (it == txns_.end()) {
    ++c_.stale_acks;
    return;
  }
  if (a.nack) {
    retransmit(k, it->second, now, out, "NACK");
    return;
  }
  txns_.erase(it);
  auto oi = ops_.find(a.op);
  Op& o   = oi->second;
  if (a.index == kNotifyIndex) { // the receiver has the notification: the op entry is free
    ops_.erase(oi);
    ++c_.operations_completed;
    out.emplace_back(WantTx{});
    return;
  }
  ++o.acked;
  if (o.acked == o.count && o.next == o.count) {
    // Every packet acknowledged: the sender's local completion, for a segmented command once its last operation has
    // been issued (the paper's "special status flag" deasserted) and every one of its operations is acknowledged.
    bool whole   = o.final;
    o.data_acked = true;
    if (auto s = open_segments_.find(o.command); s != open_segments_.end()) {
      whole = --s->second.open == 0 && s->second.last_issued && !s->second.failed;
      if (s->second.open == 0 && s->second.last_issued)
        open_segments_.erase(s);
    }
    if (whole)
      out.emplace_back(LocalNotice{LocalNotice::Kind::Complete, o.command, {}});
    if (!o.registered) {
      // The receiver learns of it from our notification, one trip later; it is acknowledged
      // (and resent on timeout), and the op entry is held until then.
      out.emplace_back(SendNotify{o.dst, NotifyPacket{a.op, o.remote, o.bytes, o.msg, o.header}});
      ++c_.notifications_sent;
      SimTime deadline = now + cfg_.packet_timeout;
      txns_.emplace(key(a.op, kNotifyIndex), Txn{deadline, 0, false});
      timers_.emplace_back(deadline, key(a.op, kNotifyIndex));
      return;
    }
    ops_.erase(oi);
    ++c_.operations_completed;
  }
  // A freed entry may unblock the DMA engine.
  out.emplace_back(WantTx{});
}

void Sender::on_timer(SimTime now, Actions& out)
{
  while (!timers_.empty() && timers_.front().first <= now) {
    auto [deadline, k] = timers_.front();
    timers_.pop_front();
    auto it = txns_.find(k);
    if (it == txns_.end() || it->second.deadline != deadline || it->second.queued)
      continue;
    ++c_.timeouts;
    if ((k & 0xFFFFFF) == kNotifyIndex) { // resend the notification (control path)
      Txn& t = it->second;
      if (++t.retries > cfg_.retry_limit) {
        fail(k >> 24, fmt::format("its notification was not acknowledged after {} retransmissions", cfg_.retry_limit),
             out);
        continue;
      }
      const Op& o = ops_.at(k >> 24);
      out.emplace_back(SendNotify{o.dst, NotifyPacket{k >> 24, o.remote, o.bytes, o.msg, o.header}});
      ++c_.notifications_resent;
      t.deadline = now + cfg_.packet_timeout;
      timers_.emplace_back(t.deadline, k);
      continue;
    }
    retransmit(k, it->second, now, out, "timeout");
  }
}

SimTime Sender::next_deadline()
{
  while (!timers_.empty()) {
    auto [deadline, k] = timers_.front();
    auto it            = txns_.find(k);
    if (it != txns_.end() && it->second.deadline == deadline && !it->second.queued)
      return deadline;
    timers_.pop_front();
  }
  return SimTime::max();
}

} // namespace nafsim::lant
