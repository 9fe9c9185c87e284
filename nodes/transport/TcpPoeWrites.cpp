// The TCP engine's side of the application's writes (nodes/transport/TcpPoe.hpp): each message's bytes written into
// its session's stream as the transmit buffer (and, write_within_window, the send window) leaves room, one segment's
// payload per write; with tx_status_latency, ACCL's request/status handshake before each write, one request out at
// a time; a message accepted once its last write is taken and its data in (shared/reference/accl/tcp_path.md).
#include "nodes/transport/TcpPoe.hpp"

#include <algorithm>

namespace nafsim::nodes {

void TcpPoe::post_send(QpId session, const roce::WorkRequest& wr, PayloadSource source)
{
  post_send(session, wr, std::move(source), {});
}

void TcpPoe::post_send(QpId session, const roce::WorkRequest& wr, PayloadSource source, std::function<void()> accepted)
{
  TxRecord r;
  r.accepted         = std::move(accepted);
  r.verb             = wr.verb;
  r.head.msg         = wr.msg;
  r.head.header      = wr.header;
  r.head.wr_id       = wr.wr_id;
  r.local_addr       = wr.local_addr;
  r.source           = std::move(source);
  r.payload_cause    = wr.payload_cause;
  r.posted           = sched_.cause_mark();
  switch (wr.verb) {
    case roce::Verb::Send:
      r.head.kind  = RecordKind::Send;
      r.head.bytes = std::max<std::uint64_t>(wr.length, 1);
      break;
    case roce::Verb::Write:
      r.head.kind        = RecordKind::Write;
      r.head.bytes       = std::max<std::uint64_t>(wr.length, 1);
      r.head.remote_addr = wr.remote_addr;
      break;
    case roce::Verb::Read:
      r.head.kind        = RecordKind::ReadRequest;
      r.head.bytes       = kReadRequestBytes;
      r.head.remote_addr = wr.remote_addr;
      r.head.length      = wr.length;
      r.report           = false; // completes when the response is placed
      reads_[wr.wr_id]   = Read{wr.local_addr, wr.length};
      break;
  }
  append(session, std::move(r));
}

void TcpPoe::append(QpId s, TxRecord r)
{
  Session& ss  = sessions_.at(s);
  r.head.start = ss.next_start;
  ss.next_start += r.head.bytes;
  ss.tx.push_back(std::move(r));
  if (cfg_.serial_tx)
    write_order_.push_back(s);
  write_records(s);
}

std::uint64_t TcpPoe::room(const Session& ss) const
{
  std::uint64_t r = ss.conn.tx_space();
  return cfg_.write_within_window ? std::min(r, ss.conn.window_space()) : r;
}

std::uint64_t TcpPoe::chunk(const Session& ss) const
{
  const TxRecord& r = ss.tx[ss.unwritten];
  return std::min(r.head.bytes - r.written, cfg_.mss());
}

void TcpPoe::written(TxRecord& r, SimTime in)
{
  if (!r.accepted)
    return;
  in = std::max(in, sched_.now());
  static const std::uint32_t taken = cause_what("TCP POE", "last write taken by the stack");
  const SimTime streamed = r.source ? r.source(0, static_cast<std::uint32_t>(r.head.bytes)) : SimTime{};
  if (streamed > in && r.payload_cause != 0) {
    // (Critical paths) the stream that feeds it ends later: caused by its beginning, the work request's post, and
    // spent on what paces it (the data mover's read), not on the last write's status that asked.
    sched_.call_at_caused_by(r.posted, streamed, std::exchange(r.accepted, nullptr),
                             CauseLabel::at_host(r.payload_cause, host_));
    return;
  }
  sched_.call_at(std::max(in, streamed), std::exchange(r.accepted, nullptr), CauseLabel::at_host(taken, host_));
}

void TcpPoe::write_records(QpId s)
{
  // Serial: one transmit command at a time, in the order posted (ACCL's tcp_txHandler): only the session
  // holding the oldest unwritten message writes; when it is written the next one's session goes on.
  if (cfg_.serial_tx && (write_order_.empty() || write_order_.front() != s))
    return;
  if (cfg_.tx_status_latency > SimTime::zero()) {
    request();
    return;
  }
  Session& ss = sessions_[s];
  bool finished = false;
  while (ss.unwritten < ss.tx.size()) {
    TxRecord& r = ss.tx[ss.unwritten];
    std::uint64_t n = std::min(r.head.bytes - r.written, room(ss));
    if (n == 0)
      break;
    ss.conn.write(n, scratch_);
    r.written += n;
    if (r.written == r.head.bytes) {
      written(r, sched_.now());
      ++ss.unwritten;
      if (cfg_.serial_tx) {
        write_order_.pop_front();
        finished = true;
        break;
      }
    }
  }
  execute(s, scratch_);
  if (finished && !write_order_.empty())
    write_records(write_order_.front());
}

bool TcpPoe::refused(Session& ss)
{
  if (room(ss) >= chunk(ss))
    return false;
  if (!ss.wait_room) // the stack answers NOSPACE; the handler asks again once an ACK frees room
    ++c_.refused_writes;
  ss.wait_room = true;
  return true;
}

void TcpPoe::request()
{
  // ACCL's tcp_txHandler (kernels/cclo/hls/eth_intf/tcp_txHandler.cpp 38-152): a request {session, at most
  // one packet} to the stack; its status, if OK, sends the next request at once while this write's data
  // streams in. ASSUMPTION: a refused request (NOSPACE, which the handler re-issues at once, busy) is
  // modeled as asked again when an ACK frees room, its status one tx_status_latency later: late by at most
  // one retry period, without an event per retry.
  if (request_out_ || write_order_.empty())
    return;
  QpId s      = write_order_.front();
  Session& ss = sessions_[s];
  if (refused(ss))
    return;
  request_out_ = true;
  ++c_.write_requests;
  sched_.after(cfg_.tx_status_latency, this, kStatus, s);
}

void TcpPoe::on_status(QpId s)
{
  request_out_ = false;
  if (write_order_.empty() || write_order_.front() != s) { // its session failed meanwhile
    request();
    return;
  }
  Session& ss = sessions_[s];
  if (refused(ss)) // an ACK meanwhile may have carried a smaller peer window
    return;
  const std::uint64_t n = chunk(ss);
  ss.conn.write(n, scratch_);
  TxRecord& r = ss.tx[ss.unwritten];
  r.written += n;
  const SimTime in = sched_.now() + transmit_time(Bytes{n}, cfg_.app_rate); // the write's data, after its status
  ss.pushed.emplace_back(ss.conn.write_end(), in);
  if (r.written == r.head.bytes) {
    written(r, in);
    ++ss.unwritten;
    write_order_.pop_front();
  }
  execute(s, scratch_);
  request();
}

} // namespace nafsim::nodes
