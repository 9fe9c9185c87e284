// The TCP engine's receive side (nodes/transport/TcpPoe.hpp): the shared receive FIFO (rx_fifo), and the records
// of a session's in-order stream, each placed where it goes (a SEND where the receive provider says, a WRITE at its
// address) as its bytes are consumed, a READ request served, a READ response completed.
#include "nodes/transport/TcpPoe.hpp"

#include "protocols/roce/Wire.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <stdexcept>

namespace nafsim::nodes {

bool TcpPoe::open_record(QpId s)
{
  Session& ss = sessions_[s];
  auto it     = ss.heads.find(ss.consumed);
  if (it == ss.heads.end())
    throw SimulationError(fmt::format("host {} session {}: stream byte {} starts no known record", host_, s,
                                      ss.consumed));
  RxRecord r{it->second};
  ss.heads.erase(ss.heads.begin(), std::next(it));
  switch (r.head.kind) {
    case RecordKind::Send: {
      roce::RecvOffer o = provider_ ? provider_(r.head.header) : roce::RecvOffer{};
      if (o.status == roce::RecvOffer::Status::NotReady) { // no room: the stream stalls
        ss.heads.emplace(r.head.start, r.head);
        ss.stalled = true;
        ++c_.consumer_stalls;
        if (!ss.stalled_since)
          ss.stalled_since = sched_.now();
        // Stuck, not slow: for consumer_stall the consumer took nothing on any session and no poll found an actor
        // asleep (a rank computing before it takes its messages frees room after it wakes).
        if (sched_.actors_sleeping())
          consumer_live_ = sched_.now();
        const SimTime since = std::max(*ss.stalled_since, consumer_live_);
        if (timing_.consumer_stall > SimTime{} && sched_.now() - since >= timing_.consumer_stall) {
          report_consumer_deadlock(ss, r.head.bytes, since);
          return false;
        }
        sched_.after(timing_.consumer_poll, this, kPoll, s);
        return false;
      }
      ss.stalled_since.reset();
      consumer_live_ = sched_.now();
      if (o.status == roce::RecvOffer::Status::Unclaimed)
        throw SimulationError(fmt::format("host {}: a {}-byte message from host {} arrived and nothing receives "
                                          "messages on this engine",
                                          host_, r.head.bytes, ss.peer));
      if (o.recv.length < r.head.bytes)
        throw SimulationError(fmt::format("host {}: a {}-byte message from host {} does not fit its {}-byte "
                                          "receive buffer",
                                          host_, r.head.bytes, ss.peer, o.recv.length));
      r.addr    = o.recv.local_addr;
      r.recv_wr = o.recv.wr_id;
      break;
    }
    case RecordKind::Write: r.addr = r.head.remote_addr; break;
    case RecordKind::ReadRequest: break;
    case RecordKind::ReadResponse: r.addr = reads_.at(r.head.wr_id).local_addr; break;
  }
  ss.current = r;
  return true;
}

void TcpPoe::report_consumer_deadlock(const Session& ss, std::uint64_t bytes, SimTime since)
{
  // The hardware would hang with its streams stalled; the model polls, so events would still come until the time
  // limit: stop here, with what every actor waits for.
  sched_.fail(std::make_exception_ptr(DeadlockError(fmt::format(
      "simulated deadlock at t={}: host {}'s TCP engine has offered a {}-byte message from host {} to its consumer "
      "since {} and found no free receive buffer ({}), and for {} ({}) its consumer took no message on any session "
      "while no actor slept: the buffers never drain, as every peer waits for another whose buffers are "
      "full (the streams poll, so events still come, but nothing moves). Give the consumer more room ({}), or "
      "raise {} if it only drains slowly. What waits then:{}",
      format_time(sched_.now()), host_, bytes, ss.peer, format_time(*ss.stalled_since), consumer_.room,
      format_time(sched_.now() - since), consumer_.stall_setting, consumer_.room_setting, consumer_.stall_setting,
      sched_.blocked_actors()))));
}

bool TcpPoe::fifo_room(SimTime now)
{
  if (cfg_.rx_fifo.count == 0)
    return true;
  while (!fifo_.empty() && fifo_.front().first <= now) {
    fifo_bytes_ -= fifo_.front().second;
    fifo_.pop_front();
  }
  const std::uint64_t held = fifo_held_ + fifo_bytes_;
  return cfg_.rx_fifo.count > held && cfg_.rx_fifo.count - held > cfg_.rx_fifo_min_free.count;
}

void TcpPoe::consume(QpId s)
{
  Session& ss = sessions_[s];
  while (ss.consumed < ss.delivered && !ss.stalled) {
    if (!ss.current && !open_record(s))
      break; // stalled: what it consumed so far (a reopened window's update) is still executed below
    RxRecord& r         = *ss.current;
    std::uint64_t end   = r.head.start + r.head.bytes;
    std::uint64_t upto  = std::min(ss.delivered, end);
    std::uint64_t off   = ss.consumed - r.head.start;
    std::uint64_t piece = upto - ss.consumed;
    if (r.head.kind != RecordKind::ReadRequest) {
      const Stream put   = memory_.write(Engine::PoeWrite, sched_.now(), r.addr + off, Bytes{piece}, copy_cap_);
      const SimTime done = put.last;
      writes_.wrote(put.first, done, [&] {
        const BitsPerSecond w = memory_.write_rate(Engine::PoeWrite, r.addr);
        return copy_cap_.bps < w.bps ? copy_cap_ : w;
      });
      if (cfg_.rx_fifo.count > 0) {
        fifo_.emplace_back(done, piece);
        fifo_bytes_ += piece;
      }
      r.checksum += roce::range_checksum(r.head.msg, off, off + piece);
    }
    if (cfg_.rx_fifo.count > 0)
      fifo_held_ -= piece;
    ss.consumed = upto;
    ss.conn.consumed(piece, scratch_);
    if (upto < end)
      continue;
    ++c_.records_received;
    RxRecord done = std::move(*ss.current);
    ss.current.reset();
    record_done(s, std::move(done));
  }
  if (!scratch_.empty())
    execute(s, scratch_);
}

void TcpPoe::record_done(QpId s, RxRecord done)
{
  switch (done.head.kind) {
    case RecordKind::Send:
    case RecordKind::Write: {
      roce::InboundMessage m;
      m.verb       = done.head.kind == RecordKind::Send ? roce::Verb::Send : roce::Verb::Write;
      m.msg        = done.head.msg;
      m.addr       = done.addr;
      m.bytes      = done.head.bytes;
      m.checksum   = done.checksum;
      m.recv_wr_id = done.recv_wr;
      m.header     = done.head.header;
      notify_after_writes(Notice{s, true, {}, m});
      break;
    }
    case RecordKind::ReadRequest: { // serve it: stream the bytes back from memory
      TxRecord resp;
      resp.verb        = roce::Verb::Read;
      resp.report      = false;
      resp.head.kind   = RecordKind::ReadResponse;
      resp.head.bytes  = std::max<std::uint64_t>(done.head.length, 1);
      resp.head.msg    = done.head.msg;
      resp.head.wr_id  = done.head.wr_id;
      resp.local_addr  = done.head.remote_addr;
      append(s, std::move(resp));
      break;
    }
    case RecordKind::ReadResponse: {
      roce::Completion c;
      c.wr_id = done.head.wr_id;
      c.verb  = roce::Verb::Read;
      c.bytes = reads_.at(done.head.wr_id).length;
      reads_.erase(done.head.wr_id);
      notify_after_writes(Notice{s, false, c, {}});
      break;
    }
  }
}

} // namespace nafsim::nodes
