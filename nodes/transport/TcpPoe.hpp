#pragma once
// The TCP protocol offload engine of ACCL's XRT builds (and, with host timings, a kernel TCP stack
// under software MPI): sessions running tcp::Connection against the packet fabric.
//
// Messages are records framed in a session's byte stream: a SEND (the receiver's provider places
// it, e.g. in a CCLO Rx buffer), a WRITE (placed at its remote address), a READ request and the READ
// response the peer's engine streams back from its memory. The first packet of a record carries the
// record's header.
// Transmit: every byte written by the application goes to the session's transmit buffer in memory
// (the retransmission buffer: `buffer_base` + session x tx_buffer) and is read back from it for
// transmission (or, tx_bypass, sent from the application's stream beside that copy) and for every
// retransmission (not before its copy is stored); an application whose record does not fit the free buffer
// space waits for ACKs. The port pulls pure ACKs first, then data segments round robin over the
// sessions, staged up to `tx_prefetch` bytes ahead while their bytes come from memory.
// Receive: segments are acted on `rx_latency` after their last bit; in-order bytes stream to where
// their record goes; when the consumer has no room (no free Rx buffer) the stream stalls, the bytes
// stay in the session's receive buffer (with `rx_fifo`, the stack's one FIFO shared by every session, which
// then refuses segments once it is nearly full), its window closes, and the engine offers the record again
// after `consumer_poll`. Notifications wait until the data they announce is in memory.
// One class, a file per mechanism: TcpPoeWrites.cpp, TcpPoeTransmit.cpp, TcpPoeReceive.cpp, TcpPoe.cpp (the rest).

#include "nodes/memory/MemorySystem.hpp"
#include "nodes/rdma/PoeConfig.hpp"
#include "nodes/transport/Poe.hpp"
#include "nodes/transport/NoticeQueue.hpp"
#include "nodes/transport/RxPipe.hpp"
#include "nodes/transport/RunStart.hpp"
#include "nodes/transport/TxWake.hpp"
#include "protocols/tcp/Connection.hpp"
#include "simcore/engine/Fifo.hpp"
#include "simcore/engine/Scheduler.hpp"
#include "simcore/net/Fabric.hpp"

#include <deque>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>

namespace nafsim::nodes {

struct TcpPoeCounters {
  tcp::ConnectionCounters tcp;          ///< summed over the sessions
  std::uint64_t records_sent      = 0;  ///< messages completely acknowledged
  std::uint64_t records_received  = 0;  ///< messages completely placed
  std::uint64_t consumer_stalls   = 0;  ///< offers the consumer refused (no free Rx buffer)
  std::uint64_t packets_received  = 0;
  std::uint64_t corrupted_dropped = 0;  ///< checksum failures
  std::uint64_t stale_discarded   = 0;  ///< staged segments acknowledged before they left
  std::uint64_t write_requests    = 0;  ///< tx_status_latency: request/status handshakes (one per write)
  std::uint64_t refused_writes    = 0;  ///< tx_status_latency: writes the stack refused for lack of room (asked again after an ACK)
  std::uint64_t failed_sessions   = 0;
};

class TcpPoe final : public Poe, public EventHandler {
public:
  TcpPoe(net::HostId host, const PoeConfig& timing, const tcp::TcpConfig& tcp, Scheduler& sched,
         net::Fabric& fabric, MemorySystem& memory, PoeListener& listener, std::uint64_t buffer_base,
         BitsPerSecond copy_cap = MemorySystem::kNoCap);

  /// Open the local end of a session to `peer` whose end there is `remote` (the driver sets up both
  /// ends when the communicator is built). Throws std::length_error beyond max_sessions.
  QpId open_session(net::HostId peer, QpId remote);
  /// What the consumer's room is and the settings that size it and the stall bound, for the deadlock report
  /// (defaults: the CCLO's Rx buffers on an FPGA).
  void name_consumer(std::string room, std::string room_setting, std::string stall_setting)
  {
    consumer_ = {std::move(room), std::move(room_setting), std::move(stall_setting)};
  }
  /// The setting that gives the consumer more room (the CCLO's Rx buffers, the MPI library's bounce buffers).
  const std::string& consumer_room_setting() const { return consumer_.room_setting; }
  std::size_t session_count() const { return sessions_.size(); }
  const tcp::Connection& connection(QpId s) const { return sessions_.at(s).conn; }

  void post_send(QpId session, const roce::WorkRequest& wr, PayloadSource source = {}) override;
  /// As post_send; `accepted` runs when the stack has taken the message's last byte (its last write
  /// accepted and its data in: ACCL's packetizer status, which does not wait for the peer's ACK).
  void post_send(QpId session, const roce::WorkRequest& wr, PayloadSource source, std::function<void()> accepted);
  void set_recv_provider(roce::RecvProvider p) override { provider_ = std::move(p); }
  net::HostId peer_of(QpId session) const override { return sessions_.at(session).peer; }
  void set_trace(results::Trace* t, std::uint32_t pid) override;

  TcpPoeCounters counters() const;
  /// Records not yet acknowledged or placed, described (empty when nothing is in flight).
  std::string in_flight() const;

  // net::Endpoint
  void deliver(net::Packet&& p) override;
  bool takes_ahead() const override { return true; }
  void deliver_ahead(net::Packet&& p, SimTime arrival, const net::WireCause& wire) override;
  std::optional<net::Packet> pull() override;
  /// No ACK owed, nothing staged or waiting in a session: the next packet comes with a want_tx().
  bool may_have_more() const override { return !ctrl_.empty() || !staged_.empty() || !data_rr_.empty(); }
  // EventHandler
  void on_event(std::uint32_t kind, std::uint64_t arg) override;
  CauseLabel cause(std::uint32_t kind, std::uint64_t arg) const override;

  /// Stream bytes of a READ request record.
  static constexpr std::uint64_t kReadRequestBytes = 64;

  enum class RecordKind : std::uint8_t { Send, Write, ReadRequest, ReadResponse };
  /// What the first packet of a record tells the receiver.
  struct RecordHead {
    RecordKind kind     = RecordKind::Send;
    std::uint64_t start = 0; ///< stream offset of its first byte
    std::uint64_t bytes = 0; ///< stream bytes
    std::uint64_t msg   = 0; ///< content id
    roce::AppHeader header{};
    std::uint64_t remote_addr = 0; ///< WRITE: where it goes; READ request: what to read
    std::uint64_t length      = 0; ///< READ request: bytes to read
    std::uint64_t wr_id       = 0; ///< READ request / response: the requester's work request
  };
  /// The packet body.
  struct Packet {
    tcp::Segment seg;
    std::vector<RecordHead> heads; ///< records starting in this segment
  };

private:
  enum EventKind : std::uint32_t { kRx, kTxWake, kTimer, kPoll, kNotify, kStatus, kAckDelay };
  struct TxRecord {
    RecordHead head;
    std::uint64_t local_addr = 0;
    PayloadSource source;
    std::uint64_t written = 0;
    roce::Verb verb       = roce::Verb::Send;
    bool report           = true; ///< complete a work request when acknowledged
    std::uint32_t payload_cause = 0; ///< the work request's (critical paths)
    std::uint32_t posted = Scheduler::kRunningStep; ///< critical paths: the step that posted it (its stream's start)
    std::function<void()> accepted{}; ///< runs when the stack has taken the last byte
  };
  struct RxRecord {
    RecordHead head;
    std::uint64_t addr     = 0;
    std::uint64_t recv_wr  = 0;
    std::uint64_t checksum = 0;
  };
  struct Session {
    net::HostId peer;
    QpId remote;
    tcp::Connection conn;
    std::uint64_t flow;
    std::uint64_t next_start = 0;
    std::deque<TxRecord> tx{}; ///< stream order; leaves when acknowledged
    std::size_t unwritten = 0; ///< index in tx of the first record not completely written
    std::uint64_t max_sent = 0;
    SimTime stored{}; ///< tx_bypass: when the buffer's copy of the bytes sent so far is written
    std::map<std::uint64_t, RecordHead> heads{}; ///< incoming, by start
    std::uint64_t delivered = 0, consumed = 0;
    std::optional<RxRecord> current{};
    /// tx_status_latency: per accepted write, its stream end and when its data is in the stack.
    std::deque<std::pair<std::uint64_t, SimTime>> pushed{};
    bool wait_room = false; ///< its write was refused: asked again when an ACK frees room
    std::uint64_t ack_token = 0; ///< delayed_ack: the armed delayed ACK, due at ack_due
    SimTime ack_due{};
    EventId ack_event    = 0; ///< its timer's event, while pending
    bool ack_event_live  = false;
    bool stalled  = false;
    std::optional<SimTime> stalled_since{}; ///< its next message refused by the consumer since then (consumer_stall)
    bool in_ctrl  = false;
    bool in_data  = false;
    bool timer_live = false;
    std::uint64_t timer_token = 0;
    SimTime timer_deadline{}, timer_event_at{};
    EventId timer_event = 0;
  };
  struct Staged {
    Packet pkt;
    SimTime ready;
    QpId session;
    CauseLabel why{}; ///< critical paths: what its ready date waits for
    std::uint32_t parent = Scheduler::kRunningStep; ///< ... and the step that began it (TxWake::at)
  };
  struct Notice {
    QpId session;
    bool inbound;
    roce::Completion completion;
    roce::InboundMessage message;
  };
  struct Read {
    std::uint64_t local_addr = 0;
    std::uint64_t length     = 0;
  };

  void execute(QpId s, tcp::Actions& acts);
  void want_tx(QpId s);
  /// Write `s`'s unwritten messages into its stream as its transmit buffer allows (serial_tx: only while it
  /// holds the oldest unwritten message of the engine).
  void write_records(QpId s);
  /// tx_status_latency: send the oldest unwritten message's next write request unless one is out.
  void request();
  /// The status of the request for session `s`'s next write: write it, or wait for room.
  void on_status(QpId s);
  /// Bytes session `s` may write now (transmit buffer; write_within_window: and the send window).
  std::uint64_t room(const Session& ss) const;
  /// No room for `ss`'s next write (the stack would refuse it): counted once per wait, asked again after an ACK.
  bool refused(Session& ss);
  /// The next write of `ss`'s first unwritten message: at most one segment's payload.
  std::uint64_t chunk(const Session& ss) const;
  /// `r` is wholly written: tell its poster once its last byte is in (`in`: the last write's data).
  void written(TxRecord& r, SimTime in);
  void consume(QpId s);
  /// Session `s`'s next record starts at the consumed byte: find where it goes (a SEND asks the receive
  /// provider). False when there is no room yet (the stream stalls and polls again).
  bool open_record(QpId s);
  /// consumer_stall ran out on a stream's next message: the run stops with a deadlock report.
  void report_consumer_deadlock(const Session& ss, std::uint64_t bytes, SimTime since);
  struct ConsumerNames {
    std::string room          = "an Rx buffer of the CCLO";
    std::string room_setting  = "platform.node.fpga.cclo.rx_buffers.count";
    std::string stall_setting = "platform.node.fpga.poe.consumer_stall";
  } consumer_;
  /// consumer_stall counts from here: the consumer's last acceptance of a message (on any session), or the last poll
  /// that found an actor asleep.
  SimTime consumer_live_{};
  /// A record wholly consumed: a SEND or WRITE told, a READ request served, a READ response completed.
  void record_done(QpId s, RxRecord done);
  void refill(SimTime now);
  /// `paced`: set to the payload cause of the record whose bytes come last (critical paths; 0: the engine's reads).
  /// When segment `seg`'s payload is ready to go; `paced`, `began` (critical paths): the label of the work request
  /// whose bytes came last, and the step that began what they waited for (a stream's post, the run of the engine's
  /// own reads or copies; Scheduler::kRunningStep where the transmit buffer's copy or a write's status came later).
  SimTime payload_ready(Session& ss, QpId id, const tcp::Segment& seg, SimTime now, std::uint32_t& paced,
                        std::uint32_t& began);
  net::Packet make_packet(const Session& ss, Packet body) const;
  void arm_timer(QpId s, const tcp::ArmTimer& t);
  /// A segment has just carried session `ss`'s ACK (Connection::commit, take_ack, stamp disarm a delayed one): the
  /// delayed ACK's timer would find nothing to do, so its event goes (one event per carried ACK; the run no longer
  /// ends on a timer that does nothing).
  void cancel_delayed_ack(Session& ss);
  void notify_after_writes(Notice n);
  void append(QpId s, TxRecord r);

  net::HostId host_;
  PoeConfig timing_;
  tcp::TcpConfig cfg_;
  Scheduler& sched_;
  net::Fabric& fabric_;
  MemorySystem& memory_;
  PoeListener& listener_;
  std::uint64_t buffer_base_;
  BitsPerSecond copy_cap_; ///< user bytes in and out (a kernel stack's socket copies)
  MemoryPort copy_; ///< the kernel's copies from user buffers into socket buffers (hosts)
  RunStart payload_reads_{sched_}; ///< (critical paths) the run of the engine's own payload reads or the kernel's copies
  roce::RecvProvider provider_;
  std::vector<Session> sessions_;
  std::unordered_map<std::uint64_t, Read> reads_; ///< READs waiting for their response, by wr_id
  std::deque<QpId> ctrl_, data_rr_;
  std::deque<QpId> write_order_; ///< serial_tx: the session of every unwritten message, oldest first
  bool request_out_ = false;     ///< tx_status_latency: a write request awaits its status
  std::deque<Staged> staged_;
  std::uint64_t staged_bytes_ = 0;
  TxWake tx_wake_{sched_, this, kTxWake, fabric_, host_};
  RxPipe rx_pipe_{sched_, this, kRx};
  PayloadWrites writes_{sched_, "TCP POE", host_}; ///< when every payload written so far is in memory
  /// rx_fifo: what the shared receive FIFO holds. With RX_DDR_BYPASS the FIFO is the stack's only receive buffer
  /// (shared/reference/accl/tcp_path.md): an accepted segment's bytes are in it until the consumer has read them
  /// and they are written to memory. `fifo_held_`: accepted and not yet taken by the consumer (a stalled session's
  /// backlog); `fifo_`: taken, each piece until its write ends (in order), `fifo_bytes_` their sum.
  std::uint64_t fifo_held_ = 0;
  std::deque<std::pair<SimTime, std::uint64_t>> fifo_;
  std::uint64_t fifo_bytes_ = 0;
  /// rx_fifo: whether the shared receive FIFO has room for a segment now (drops what has been written).
  bool fifo_room(SimTime now);
  NoticeQueue<Notice> notices_{sched_, this, kNotify};
  void hand_over(Notice& n, SimTime now);
  tcp::Actions scratch_;
  TcpPoeCounters c_;
  results::Trace* trace_   = nullptr;
  std::uint32_t trace_pid_ = 0;
};

} // namespace nafsim::nodes
