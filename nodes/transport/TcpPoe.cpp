#include "nodes/transport/TcpPoe.hpp"
#include "nodes/transport/EngineCause.hpp"

#include "protocols/roce/Wire.hpp"
#include "simcore/results/Trace.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <stdexcept>

namespace nafsim::nodes {

TcpPoe::TcpPoe(net::HostId host, const PoeConfig& timing, const tcp::TcpConfig& tcp, Scheduler& sched,
               net::Fabric& fabric, MemorySystem& memory, PoeListener& listener, std::uint64_t buffer_base,
               BitsPerSecond copy_cap)
    : host_(host)
    , timing_(timing)
    , cfg_(tcp)
    , sched_(sched)
    , fabric_(fabric)
    , memory_(memory)
    , listener_(listener)
    , buffer_base_(buffer_base)
    , copy_cap_(copy_cap)
    , copy_(copy_cap, SimTime{})
{
}

QpId TcpPoe::open_session(net::HostId peer, QpId remote)
{
  if (sessions_.size() >= cfg_.max_sessions)
    throw std::length_error(fmt::format("host {}: a session to host {} would be session {} of an engine holding {}",
                                        host_, peer, sessions_.size() + 1, cfg_.max_sessions));
  auto id = static_cast<QpId>(sessions_.size());
  sessions_.push_back(Session{peer, remote, tcp::Connection(cfg_), (std::uint64_t{host_} << 32) | id});
  return id;
}

void TcpPoe::set_trace(results::Trace* t, std::uint32_t pid)
{
  trace_     = t && t->messages() ? t : nullptr;
  trace_pid_ = pid;
  if (trace_)
    trace_->name_thread(pid, 2, "inbound messages");
}

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
  if (r.source)
    in = std::max(in, r.source(0, static_cast<std::uint32_t>(r.head.bytes)));
  static const std::uint32_t taken = cause_what("TCP POE", "last write taken by the stack");
  sched_.call_at(std::max(in, sched_.now()), std::exchange(r.accepted, nullptr), CauseLabel::at_host(taken, host_));
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

void TcpPoe::execute(QpId s, tcp::Actions& acts)
{
  tcp::Actions todo;
  todo.swap(acts);
  bool tx = false, more_space = false;
  for (auto& a : todo) {
    Session& ss = sessions_[s];
    if (auto* t = std::get_if<tcp::ArmTimer>(&a)) {
      arm_timer(s, *t);
    } else if (auto* ad = std::get_if<tcp::ArmAckTimer>(&a)) {
      ss.ack_token = ad->token;
      ss.ack_due   = ad->at;
      ss.ack_event      = sched_.at(ad->at, this, kAckDelay, s); // (a connection arms one only when none is armed)
      ss.ack_event_live = true;
    } else if (auto* d = std::get_if<tcp::Deliver>(&a)) {
      ss.delivered = d->to;
      consume(s);
    } else if (auto* k = std::get_if<tcp::Acked>(&a)) {
      while (!ss.tx.empty() && ss.tx.front().written == ss.tx.front().head.bytes &&
             ss.tx.front().head.start + ss.tx.front().head.bytes <= k->upto) {
        TxRecord& r = ss.tx.front();
        if (r.report) {
          roce::Completion c;
          c.wr_id = r.head.wr_id;
          c.verb  = r.verb;
          c.bytes = r.head.bytes;
          notify_after_writes(Notice{s, false, c, {}});
        }
        ++c_.records_sent;
        ss.tx.pop_front();
        --ss.unwritten;
      }
      while (!ss.pushed.empty() && ss.pushed.front().first <= k->upto)
        ss.pushed.pop_front();
      more_space = true;
    } else if (auto* f = std::get_if<tcp::Failed>(&a)) {
      ++c_.failed_sessions;
      for (auto const& r : ss.tx) {
        roce::Completion c;
        c.wr_id    = r.head.wr_id;
        c.verb     = r.verb;
        c.status   = roce::Status::RetryExceeded;
        c.bytes    = r.head.bytes;
        c.stream_byte = f->at;
        c.attempts = f->attempts;
        notify_after_writes(Notice{s, false, c, {}});
      }
      ss.tx.clear();
      ss.unwritten = 0;
      ss.pushed.clear();
      ss.wait_room = false;
      if (cfg_.serial_tx) { // its unwritten messages leave the command queue; the next session's goes on
        const bool was_head = !write_order_.empty() && write_order_.front() == s;
        std::erase(write_order_, s);
        if (was_head && !write_order_.empty())
          sched_.call_at(sched_.now(), [this, next = write_order_.front()] { write_records(next); });
      }
    } else if (std::holds_alternative<tcp::WantTx>(a)) {
      tx = true;
    }
  }
  Session& ss = sessions_[s];
  if (ss.timer_live && !ss.conn.timer_running()) { // a stopped timer leaves no event behind
    sched_.cancel(ss.timer_event);
    ss.timer_live = false;
  }
  if (ss.wait_room && ss.unwritten < ss.tx.size() && room(ss) >= chunk(ss)) {
    ss.wait_room = false;
    request();
  } else if (more_space && ss.unwritten < ss.tx.size()) {
    write_records(s);
  }
  if (tx)
    want_tx(s);
}

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
        sched_.after(timing_.consumer_poll, this, kPoll, s);
        return false;
      }
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

bool TcpPoe::fifo_room(SimTime now)
{
  if (cfg_.rx_fifo.count == 0)
    return true;
  while (!fifo_.empty() && fifo_.front().first <= now) {
    fifo_bytes_ -= fifo_.front().second;
    fifo_.pop_front();
  }
  return cfg_.rx_fifo.count > fifo_bytes_ && cfg_.rx_fifo.count - fifo_bytes_ > cfg_.rx_fifo_min_free.count;
}

void TcpPoe::consume(QpId s)
{
  Session& ss = sessions_[s];
  while (ss.consumed < ss.delivered && !ss.stalled) {
    if (!ss.current && !open_record(s))
      return;
    RxRecord& r         = *ss.current;
    std::uint64_t end   = r.head.start + r.head.bytes;
    std::uint64_t upto  = std::min(ss.delivered, end);
    std::uint64_t off   = ss.consumed - r.head.start;
    std::uint64_t piece = upto - ss.consumed;
    if (r.head.kind != RecordKind::ReadRequest) {
      SimTime done = memory_.write(Engine::PoeWrite, sched_.now(), r.addr + off, Bytes{piece}, copy_cap_).last;
      writes_done_ = std::max(writes_done_, done);
      if (cfg_.rx_fifo.count > 0) {
        fifo_.emplace_back(done, piece);
        fifo_bytes_ += piece;
      }
      r.checksum += roce::range_checksum(r.head.msg, off, off + piece);
    }
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

void TcpPoe::notify_after_writes(Notice n)
{
  notices_.push(std::move(n), writes_done_);
}

void TcpPoe::hand_over(Notice& n, SimTime now)
{
  if (n.inbound) {
    if (trace_)
      trace_->instant(trace_pid_, 2, fmt::format("message {} from host {}", format_bytes(Bytes{n.message.bytes}),
                                                 sessions_[n.session].peer),
                      now);
    listener_.on_inbound(n.session, n.message);
  } else {
    listener_.on_completion(n.session, n.completion);
  }
}

void TcpPoe::arm_timer(QpId s, const tcp::ArmTimer& t)
{
  Session& ss       = sessions_[s];
  ss.timer_token    = t.token;
  ss.timer_deadline = t.at;
  if (!ss.timer_live || ss.timer_event_at > t.at) {
    if (ss.timer_live)
      sched_.cancel(ss.timer_event);
    ss.timer_live     = true;
    ss.timer_event_at = t.at;
    ss.timer_event    = sched_.at(t.at, this, kTimer, s);
  }
}

void TcpPoe::want_tx(QpId s)
{
  Session& ss = sessions_[s];
  if (!ss.in_ctrl && ss.conn.ack_pending()) {
    ss.in_ctrl = true;
    ctrl_.push_back(s);
  }
  if (!ss.in_data && ss.conn.next()) {
    ss.in_data = true;
    data_rr_.push_back(s);
  }
  fabric_.tx_ready(host_);
}

net::Packet TcpPoe::make_packet(const Session& ss, Packet body) const
{
  net::Packet p;
  p.src        = host_;
  p.dst        = ss.peer;
  p.wire_bytes = fabric_.config().ethernet.wire_bytes(cfg_.headers.count + body.seg.len);
  p.flow       = ss.flow;
  // Deterministic drop rules name the segment by its index in the stream.
  p.seq  = static_cast<std::uint32_t>(body.seg.len ? body.seg.seq / cfg_.mss() : UINT32_MAX);
  p.body = std::move(body);
  return p;
}

SimTime TcpPoe::payload_ready(Session& ss, QpId id, const tcp::Segment& seg, SimTime now, std::uint32_t& paced)
{
  std::uint64_t slot = buffer_base_ + std::uint64_t{id} * cfg_.tx_buffer.count + seg.seq % cfg_.tx_buffer.count;
  const bool host    = is_host(slot);
  // Device memory: the engine's own channel to its buffers; host memory: the NIC reads over PCIe.
  auto read_back = [&](SimTime at) {
    return memory_.read_done(host ? Engine::PoeRead : Engine::TxBufRead, at, slot, Bytes{seg.len});
  };
  if (seg.seq + seg.len <= ss.max_sent) // a retransmission: from the transmit buffer
    return read_back(now);
  // First transmission: the application's bytes go into the transmit buffer (on a host: the kernel
  // copies them from the user buffer), then out of it.
  SimTime in = now;
  for (auto const& r : ss.tx) {
    std::uint64_t a = std::max(seg.seq, r.head.start), b = std::min(seg.seq + seg.len, r.head.start + r.head.bytes);
    if (a >= b || r.head.kind == RecordKind::ReadRequest) // no bytes here, or the engine's own control bytes
      continue;
    std::uint64_t off = a - r.head.start;
    auto len          = static_cast<std::uint32_t>(b - a);
    SimTime t;
    if (r.source)
      t = std::max(now, r.source(off, len));
    else if (host)
      t = copy_.stream(now, Bytes{len}, copy_cap_).last;
    else
      t = memory_.read_done(Engine::PoeRead, now, r.local_addr + off, Bytes{len});
    if (t > in)
      paced = r.payload_cause;
    in = std::max(in, t);
  }
  // tx_status_latency: a write's data enters the stack only after its status.
  for (auto it = std::upper_bound(ss.pushed.begin(), ss.pushed.end(), seg.seq,
                                  [](std::uint64_t v, auto const& e) { return v < e.first; });
       it != ss.pushed.end(); ++it) {
    in = std::max(in, it->second);
    if (it->first >= seg.seq + seg.len)
      break;
  }
  ss.max_sent = std::max(ss.max_sent, seg.seq + seg.len);
  if (host)
    return read_back(in);
  return read_back(memory_.write_done(Engine::TxBufWrite, in, slot, Bytes{seg.len}));
}

void TcpPoe::cancel_delayed_ack(Session& ss)
{
  if (!ss.ack_event_live)
    return;
  sched_.cancel(ss.ack_event);
  ss.ack_event_live = false;
}

void TcpPoe::refill(SimTime now)
{
  while ((staged_bytes_ < timing_.tx_prefetch.count || staged_.empty()) && !data_rr_.empty()) {
    QpId id = data_rr_.front();
    data_rr_.pop_front();
    Session& ss = sessions_[id];
    ss.in_data  = false;
    if (!ss.conn.next())
      continue; // re-enters on its next WantTx
    Packet pkt;
    pkt.seg             = ss.conn.commit(now, scratch_);
    cancel_delayed_ack(ss);
    pkt.seg.dst_session = ss.remote;
    SimTime ready       = now + timing_.tx_latency;
    CauseLabel why{};
    if (pkt.seg.len > 0) {
      std::uint32_t paced = 0;
      const SimTime data  = payload_ready(ss, id, pkt.seg, now, paced);
      if (data > ready && sched_.causes()) {
        static const std::uint32_t buffer = cause_what("TCP POE", "payload through the transmit buffer");
        why = CauseLabel::at_host(paced != 0 ? paced : buffer, host_);
      }
      ready = std::max(ready, data);
      for (auto const& r : ss.tx)
        if (r.head.start >= pkt.seg.seq && r.head.start < pkt.seg.seq + pkt.seg.len)
          pkt.heads.push_back(r.head);
    }
    staged_bytes_ += pkt.seg.len;
    staged_.push_back(Staged{std::move(pkt), ready, id, why});
    execute(id, scratch_);
    if (!ss.in_data && ss.conn.next()) {
      ss.in_data = true;
      data_rr_.push_back(id);
    }
  }
}

std::optional<net::Packet> TcpPoe::pull()
{
  SimTime now = sched_.now();
  // 1. Pure ACKs (window updates, answers to data) first.
  while (!ctrl_.empty()) {
    QpId id = ctrl_.front();
    ctrl_.pop_front();
    Session& ss = sessions_[id];
    ss.in_ctrl  = false;
    if (!ss.conn.ack_pending())
      continue; // a data segment carried it
    Packet pkt;
    pkt.seg             = ss.conn.take_ack();
    cancel_delayed_ack(ss);
    pkt.seg.dst_session = ss.remote;
    return make_packet(ss, std::move(pkt));
  }
  // 2. Data.
  refill(now);
  while (!staged_.empty()) {
    Staged& s = staged_.front();
    Session& ss = sessions_[s.session];
    if (s.pkt.seg.len > 0 && s.pkt.seg.seq + s.pkt.seg.len <= ss.conn.unacknowledged()) {
      ++c_.stale_discarded; // acknowledged while staged (a go-back resent it needlessly)
      staged_bytes_ -= s.pkt.seg.len;
      staged_.pop_front();
      refill(now);
      continue;
    }
    if (s.ready > now) {
      tx_wake_.at(s.ready, s.why);
      return std::nullopt;
    }
    Staged done = std::move(staged_.front());
    staged_.pop_front();
    staged_bytes_ -= done.pkt.seg.len;
    ss.conn.stamp(done.pkt.seg);
    cancel_delayed_ack(ss);
    refill(now);
    return make_packet(ss, std::move(done.pkt));
  }
  return std::nullopt;
}

void TcpPoe::deliver(net::Packet&& p)
{
  ++c_.packets_received;
  if (p.corrupted) { // TCP/IP checksum failure: discarded
    ++c_.corrupted_dropped;
    return;
  }
  rx_pipe_.push(std::move(p), timing_.rx_latency);
}

void TcpPoe::deliver_ahead(net::Packet&& p, SimTime arrival, const net::WireCause& wire)
{
  ++c_.packets_received; // (ahead only on a fabric without faults: never corrupted)
  rx_pipe_.push_ahead(std::move(p), arrival, timing_.rx_latency, wire);
}

CauseLabel TcpPoe::cause(std::uint32_t kind, std::uint64_t) const
{
  static const char* const details[] = {"receive pipeline", "payload", "retransmission timeout", "consumer poll",
                                        "completion notice", "write request status", "delayed ACK"};
  static const auto what = engine_causes("TCP POE", details, kTxWake);
  return kind < what.size() ? CauseLabel::at_host(what[kind], host_) : CauseLabel{};
}

void TcpPoe::on_event(std::uint32_t kind, std::uint64_t arg)
{
  SimTime now = sched_.now();
  notices_.begin_event();
  switch (kind) {
    case kRx: {
      net::Packet p = rx_pipe_.take(arg);
      auto* pkt = p.body.get<Packet>();
      if (!pkt)
        throw SimulationError(fmt::format("host {} (TCP) received a non-TCP packet from host {}", host_, p.src));
      QpId id = pkt->seg.dst_session;
      if (id >= sessions_.size())
        throw SimulationError(fmt::format("host {} received a segment for unknown session {}", host_, id));
      Session& ss = sessions_[id];
      for (auto const& h : pkt->heads)
        if (h.start >= ss.consumed)
          ss.heads.emplace(h.start, h);
      ss.conn.on_segment(pkt->seg, now, scratch_, pkt->seg.len == 0 || fifo_room(now));
      execute(id, scratch_);
      break;
    }
    case kTxWake: tx_wake_.fire(); break;
    case kStatus: on_status(static_cast<QpId>(arg)); break;
    case kAckDelay: {
      Session& ss       = sessions_[arg];
      ss.ack_event_live = false;
      if (ss.ack_due != now)
        break; // an older delay, re-armed since
      ss.conn.on_ack_timer(ss.ack_token, scratch_);
      execute(static_cast<QpId>(arg), scratch_);
      break;
    }
    case kTimer: {
      Session& ss = sessions_[arg];
      if (!ss.timer_live || ss.timer_event_at != now)
        break; // superseded by an earlier event
      ss.timer_live = false;
      if (!ss.conn.timer_running())
        break;
      if (ss.timer_deadline > now) { // restarted since: follow the deadline
        ss.timer_live     = true;
        ss.timer_event_at = ss.timer_deadline;
        ss.timer_event    = sched_.at(ss.timer_deadline, this, kTimer, arg);
        break;
      }
      ss.conn.on_timer(ss.timer_token, now, scratch_);
      execute(static_cast<QpId>(arg), scratch_);
      break;
    }
    case kPoll:
      sessions_[arg].stalled = false;
      consume(static_cast<QpId>(arg));
      break;
    case kNotify: {
      Notice n = notices_.pop();
      hand_over(n, now);
      break;
    }
    default: break;
  }
  notices_.end_event([&](Notice& n) { hand_over(n, now); });
}

TcpPoeCounters TcpPoe::counters() const
{
  TcpPoeCounters c = c_;
  for (auto const& s : sessions_) {
    auto const& k = s.conn.counters();
    c.tcp.segments_sent += k.segments_sent;
    c.tcp.retransmitted += k.retransmitted;
    c.tcp.acks_sent += k.acks_sent;
    c.tcp.fast_retransmits += k.fast_retransmits;
    c.tcp.timeouts += k.timeouts;
    c.tcp.probes += k.probes;
    c.tcp.duplicate_acks += k.duplicate_acks;
    c.tcp.duplicates += k.duplicates;
    c.tcp.out_of_order_held += k.out_of_order_held;
    c.tcp.out_of_order_dropped += k.out_of_order_dropped;
    c.tcp.window_dropped += k.window_dropped;
    c.tcp.refused_full += k.refused_full;
  }
  return c;
}

std::string TcpPoe::in_flight() const
{
  std::string s;
  for (std::size_t i = 0; i < sessions_.size(); ++i) {
    auto const& ss = sessions_[i];
    if (!ss.tx.empty())
      s += fmt::format("{}session {} to host {}: {} message(s) unacknowledged from stream byte {}", s.empty() ? "" : "; ",
                       i, ss.peer, ss.tx.size(), ss.conn.unacknowledged());
    if (ss.consumed < ss.delivered || ss.current)
      s += fmt::format("{}session {} from host {}: a message half placed at stream byte {}", s.empty() ? "" : "; ", i,
                       ss.peer, ss.consumed);
  }
  return s;
}

} // namespace nafsim::nodes
