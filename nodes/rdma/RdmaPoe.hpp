#pragma once
// The RDMA protocol offload engine (RoCEv2 RC, as Coyote's): executes the per-QP requester and
// responder state machines in simulated time against the packet fabric.
//
// Transmit: the host port pulls packets when it is free. ACK/NAKs go first (but never ahead of a
// READ response of the same queue pair, to keep responses in PSN order); data packets are taken
// round-robin over queue pairs and staged while their payload is fetched from memory (up to
// `tx_prefetch` bytes ahead); a go-back-N rewind discards what was staged for that queue pair.
// Receive: packets are acted on `rx_latency` after their last bit arrives; corrupted packets fail
// the ICRC check and are dropped; payload goes to memory through the write port, and message
// notifications are delivered once their data is written.

#include "nodes/memory/MemorySystem.hpp"
#include "nodes/rdma/PoeConfig.hpp"
#include "nodes/transport/Poe.hpp"
#include "nodes/transport/RunStart.hpp"
#include "nodes/transport/RxPipe.hpp"
#include "nodes/transport/NoticeQueue.hpp"
#include "nodes/transport/TxWake.hpp"
#include "protocols/roce/Requester.hpp"
#include "protocols/roce/Responder.hpp"
#include "simcore/engine/Fifo.hpp"
#include "simcore/engine/FlatIndex.hpp"
#include "simcore/engine/Scheduler.hpp"
#include "simcore/engine/SlotPool.hpp"
#include "simcore/net/Fabric.hpp"
#include "simcore/results/Trace.hpp"

#include <unordered_map>
#include <vector>

namespace nafsim::nodes {

struct PoeCounters {
  std::uint64_t requests_sent      = 0;
  std::uint64_t retransmitted      = 0;
  std::uint64_t responses_sent     = 0;
  std::uint64_t acks_sent          = 0;
  std::uint64_t naks_sent          = 0;
  std::uint64_t stale_discarded    = 0; ///< prefetched packets dropped after a rewind
  std::uint64_t packets_received   = 0;
  std::uint64_t corrupted_dropped  = 0;
  std::uint64_t timeouts           = 0;
  std::uint64_t send_timeouts      = 0; ///< (roce::RequesterCounters::send_timeouts)
  std::uint64_t naks_received      = 0;
  std::uint64_t duplicates_received = 0;
  std::uint64_t out_of_sequence    = 0;
};

class RdmaPoe final : public Poe, public EventHandler {
public:
  RdmaPoe(net::HostId host, const PoeConfig& poe, const roce::RoceConfig& roce, Scheduler& sched,
          net::Fabric& fabric, MemorySystem& memory, PoeListener& listener);

  /// Create the local end of a queue pair to `peer` (the other end is created on the peer's POE
  /// with the numbers swapped). Returns the local queue pair number.
  QpId create_qp(net::HostId peer, QpId remote_qpn, roce::Psn initial_psn);
  /// The configured path MTU (payload bytes per packet on the wire), whatever the fidelity.
  Bytes path_mtu() const { return Bytes{wire_mtu_}; }
  void post_send(QpId qp, const roce::WorkRequest& wr, PayloadSource source = {}) override;
  /// As post_send; `accepted` runs when the POE has taken the message's last payload byte into its transmit
  /// path (staged at most tx_prefetch bytes ahead of the wire, and produced by `source`).
  void post_send(QpId qp, const roce::WorkRequest& wr, PayloadSource source, std::function<void()> accepted);
  void post_recv(QpId qp, const roce::RecvRequest& r);
  /// Every queue pair (present and future) takes its SEND receives from `p` (a shared pool).
  void set_recv_provider(roce::RecvProvider p) override;
  net::HostId peer_of(QpId qp) const override { return qps_.at(qp).peer; }

  PoeCounters counters() const;
  std::size_t qp_count() const { return qps_.size(); }
  /// Record work requests and inbound messages on track `pid` of the trace.
  void set_trace(results::Trace* t, std::uint32_t pid) override;

  // net::Endpoint
  void deliver(net::Packet&& p) override;
  bool takes_ahead() const override { return true; }
  /// A train of fast_forward.train packets of a full MTU (RdmaTrain.cpp); 0 without the fast-forward.
  std::uint32_t longest_wire() const override;
  void deliver_ahead(net::Packet&& p, SimTime arrival, const net::WireCause& wire) override;
  std::optional<net::Packet> pull() override;
  /// Nothing to acknowledge, staged or waiting in a queue pair: the next packet comes with a want_tx().
  bool may_have_more() const override { return !ctrl_.empty() || !staged_.empty() || !data_rr_.empty(); }
  bool idle_until_told() const override;
  void pull_skipped(SimTime at, std::uint64_t place) override
  {
    skipped_at_    = at;
    skipped_place_ = place;
  }
  // EventHandler
  void on_event(std::uint32_t kind, std::uint64_t arg) override;
  CauseLabel cause(std::uint32_t kind, std::uint64_t arg) const override;

private:
  enum EventKind : std::uint32_t { kRx, kTxWake, kTimer, kRnrTimer, kNotify, kAckTimer, kLateNotice };
  /// (Critical paths) what a send's acceptance, told through its own event, waited for.
  CauseLabel accept_cause() const;
  /// Critical paths: a staged packet's wait for the line (flow fidelity: nic_free_), in the fabric's words.
  CauseLabel line_cause() const;
  struct Qp { // (its own fields first, where its packets' events read them before the requester's or responder's)
    net::HostId peer;
    QpId remote_qpn;
    std::uint64_t flow;
    bool in_ctrl = false;
    bool in_data = false;
    std::uint32_t staged_responses = 0;
    /// The queue pair is both a READ responder and a requester with packets to send: they take turns (a NIC's
    /// requester and responder are separate engines sharing the port; serving READ responses first starved the
    /// requester's own re-requests while the peer restarted them).
    bool requester_next = false;
    bool sent_any                  = false;
    roce::Psn max_tx_psn           = 0;
    // One pending timer event per queue pair (restarts only move the deadline).
    std::uint64_t timer_token = 0;
    SimTime timer_deadline{};
    bool timer_armed       = false;
    bool timer_event_live  = false;
    SimTime timer_event_at{};
    EventId timer_event = 0;
    std::uint64_t rnr_token = 0;
    std::uint64_t ack_token = 0; ///< the responder's latest ACK-coalescing timer
    /// Fast-forward: the acknowledgements of a train's members the responder folded into one queued ACK (it folds
    /// those that wait together), which goes as a train standing for them all (their wire bytes).
    std::uint32_t ack_weight = 0;
    roce::Requester req;
    roce::Responder rsp;
  };
  struct Staged {
    roce::Wire pkt;
    SimTime ready;
    SimTime tail; ///< flow fidelity: when its last payload byte is ready (ready: its first segment)
    QpId qp;
    std::uint32_t epoch;
    bool request;
    std::function<void()> accepted = {}; ///< flow fidelity: runs once the message is within tx_prefetch of the wire
    CauseLabel why{}; ///< critical paths: what its ready date waits for
    std::uint32_t parent = Scheduler::kRunningStep; ///< ... and the step that began it (TxWake::at)
  };
  struct SpareActions : std::vector<roce::Actions> {}; ///< (Scheduler::shared: the run's spare action lists)
  struct Notice {
    QpId qp;
    bool inbound;
    roce::Completion completion;
    roce::InboundMessage message;
  };

  // Hot: what a packet's events read and write (receive, pull, refill, want_tx, execute), together at the head of
  // the object (issue 53): at thousands of nodes every event finds its engine out of cache, and these fields had been
  // spread over the object's 18 cache lines, a miss each. The configurations are the run's shared copies (one per
  // distinct value: simcore/engine/Interned.hpp), which stay in cache whichever node runs.
  Scheduler& sched_;
  net::Fabric& fabric_;
  MemorySystem& memory_;
  PoeListener& listener_;
  net::HostId host_;
  bool flow_; ///< flow fidelity (platform.network.fidelity)
  const PoeConfig& cfg_;
  const roce::RoceConfig& roce_;
  unsigned ff_train_ = 0, ff_window_ = 0;
  std::uint64_t skipped_place_ = 0; ///< (skipped_at_, below)
  std::uint64_t staged_bytes_  = 0;
  std::vector<Qp> qps_;
  Fifo<Staged> staged_; ///< (a ring buffer: a deque allocated a block every few packets)
  Fifo<QpId> ctrl_;
  Fifo<QpId> data_rr_;
  static constexpr QpId kNoRun = ~QpId{0};
  QpId run_qp_      = kNoRun; ///< the queue pair whose packets the port has been sending back to back
  unsigned run_len_ = 0;      ///< ... how many
  SimTime run_end_;           ///< ... and when the last one's last bit leaves
  PoeCounters c_;
  roce::Actions scratch_;
  /// Emptied action lists kept with their storage (execute nests): the run's, shared by every engine, so that the
  /// list an execute takes is one an engine used last, in cache, not this engine's own, cold (issue 53).
  std::vector<roce::Actions>& spare_actions_;
  TxWake tx_wake_{sched_, this, kTxWake, fabric_, host_};
  RxPipe rx_pipe_{sched_, this, kRx};
  /// (pull_staged, below)
  std::vector<std::pair<SimTime, std::function<void()>>> accepted_;

  void execute(QpId qp, roce::Actions& acts);
  void want_tx(QpId qp);
  void refill(SimTime now);
  /// Stage queue pair `id`'s next READ response `r` (its data read from memory now); returns its payload bytes.
  std::uint32_t stage_response(QpId id, const roce::PendingResponse& r, SimTime now);
  /// Stage queue pair `id`'s next request packet `p` (its payload read or streamed in); returns its payload bytes.
  std::uint32_t stage_request(QpId id, const roce::RequestPacket& p, SimTime now);
  /// The first packet of the control path (acknowledgements), if one may go now.
  std::optional<net::Packet> pull_control();
  /// The staged packet `done` (`payload` bytes) leaves now as `pkt`: flow fidelity's transmit-path drain, and
  /// when its message's last byte is taken.
  void sent(Staged& done, std::uint64_t payload, const net::Packet& pkt, SimTime now);
  /// An arrived packet, after the receive pipeline: to its queue pair's responder or requester.
  void receive(SimTime now, std::uint64_t place);

  // Fast-forward (net::FastForwardConfig, RdmaTrain.cpp): a steady queue pair's packets leave as trains.
  /// `done`, a request just taken off the staged queue at `now`: the run of back-to-back packets it continues and,
  /// once the run is `ff_window_` long, the staged packets of its message behind it that ride with it (taken off
  /// the queue; `done` becomes the train's last member, which carries it). Returns the members (1: none) and sets
  /// `wire` to their bytes on the wire.
  std::uint16_t gather_train(Staged& done, SimTime now, std::uint32_t& wire);
  /// When a train's receive is due: a folded ACK once its first ACK's worth is in (RdmaTrain.cpp), data at its tail.
  SimTime train_arrival(const net::Packet& p, SimTime arrival) const;
  /// A request train at the end of the receive pipeline (`place`): each member to the responder, in order, and its
  /// data written at the date its own receive event would have had.
  void receive_train(QpId id, std::uint64_t place, SimTime now);
  SimTime placing_date(const roce::PlaceData& p) const;
  void on_retransmit_timer(QpId id, SimTime now);
  /// A completion or an inbound message, once the memory writes before it are done: traced, then told.
  void notify(SimTime now);
  net::Packet make_packet(const Qp& q, roce::Wire w, SimTime tail_ready = {}) const;
  void arm_timer(QpId qp, const roce::ArmTimer& t);
  void notify_after_writes(Notice n);
  /// pull() without its messages' acceptances, which stage_request holds in accepted_ with their dates: told at the
  /// end of the pull, each riding the payload wake-up the pull scheduled at its date (the message's last byte is
  /// ready when its packet is), else through an event of its own (issue 53). Runs that trace or record causes keep
  /// the event: the trace and the firmware's causes record it.
  std::optional<net::Packet> pull_staged();

  // Flow fidelity (platform.network.fidelity): a message goes as one packet of up to kFlowSegment
  // payload bytes that the fabric carries as one flow; its wire bytes are those of the
  // wire_mtu_-sized packets it stands for.
  static constexpr std::uint64_t kFlowSegment = 256ULL << 20;
  /// The RoCE configuration the engine runs: `rc`, at flow fidelity with a message per segment and no timeouts.
  static roce::RoceConfig engine_roce(roce::RoceConfig rc, bool flow);
  std::uint64_t wire_mtu_ = 0;
  /// Flow fidelity: when the first segment of a read of `len` payload bytes is in (at most rd.last).
  SimTime first_segment_read(const Stream& rd, std::uint64_t len) const;
  struct Outgoing {
    std::uint64_t local_addr;
    PayloadSource source;
    std::uint64_t length = 0;
    std::function<void()> accepted; ///< runs once, when the last byte is staged and ready
    std::uint32_t payload_cause = 0; ///< the work request's (critical paths)
    std::uint32_t payload_lead_cause = 0;
    std::int64_t payload_first       = 0;
    std::uint32_t posted             = 0; ///< critical paths: the step that posted it (its stream's beginning)
  };
  /// Critical paths: what a staged packet's ready date waits for: its payload (as the work request says what paces
  /// it, else the POE's own memory read) or the transmit pipeline.
  CauseLabel staging_cause(bool payload_later, const Outgoing* o) const;
  // The messages in flight, by message id: their records in a pool (a freed slot reused), found through an
  // open-addressing index (an unordered_map allocated a node per message and missed the cache at every look-up).
  // Posting a message id again replaces its record (an MPI FIN reuses its data message's id).
  SlotPool<Outgoing> out_pool_;
  FlatIndex outgoing_;
  Outgoing* outgoing(std::uint64_t msg)
  {
    const std::uint32_t slot = outgoing_.find(msg);
    return slot == FlatIndex::kNone ? nullptr : &out_pool_[slot];
  }
  /// The pull the port did not make (pull_skipped): due at skipped_at_, in place skipped_place_ (0: none). Past that
  /// place, its one effect is applied before the engine's next step (settle_skipped_pull).
  SimTime skipped_at_;
  void settle_skipped_pull();
  /// A READ response, an acknowledgement or a request packet to send, at any date (an RNR wait aside).
  static bool has_output(const Qp& q)
  {
    return q.rsp.front_response() || q.rsp.has_output() || q.req.peek(SimTime::max());
  }
  RunStart payload_reads_{sched_}; ///< (critical paths) the run of the engine's own payload reads
  PayloadWrites writes_{sched_, "RoCE POE", host_}; ///< when every payload written so far is in memory
  NoticeQueue<Notice> notices_{sched_, this, kNotify};
  void hand_over(Notice& n, SimTime now);
  // Behind: a train's placing (its flag read per packet written), flow fidelity's dates, the set-up's, tracing's.
  /// While a train's actions execute: the dates its members' receive events would have had (PlaceData by offset).
  struct TrainPlacing {
    bool on = false;
    std::uint64_t msg = 0, first_offset = 0;
    std::uint32_t count = 0;
    SimTime last, step, last_step; ///< the last member's date; a middle member's time on the wire; the last one's
  } placing_;
  SimTime rx_head_; ///< flow fidelity: when the packet being received began to come in
  /// Flow fidelity: when the messages handed to the fabric so far would have left at the line rate. The packet
  /// engine stages up to tx_prefetch bytes ahead of the wire in one queue, so a message produced while another
  /// is still going waits behind what is staged of it: the flow of the next one starts no earlier than the
  /// previous one ends (on an idle line), or than tx_prefetch after it is ready.
  SimTime nic_free_;
  roce::RecvProvider provider_;
  results::Trace* trace_ = nullptr;
  std::uint32_t trace_pid_ = 0;
  std::unordered_map<std::uint64_t, SimTime> posted_; ///< wr_id -> post time (tracing only)
};

} // namespace nafsim::nodes
