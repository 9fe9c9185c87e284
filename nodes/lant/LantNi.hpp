#pragma once
// The network interface of Lant et al.'s FPGA nodes (paper Fig 1): executes the connectionless
// transport's sender and receiver (protocols/lant) in simulated time against the packet fabric,
// and offers programs the user-space interface of the paper: post a command, poll the local and
// the receive notification queues.
//
// Transmit: the port pulls packets when free; ACKs, NACKs and sender notifications go first
// (strongly ECC-protected, section 3.4: injected faults spare them); data packets are read ahead
// from memory by the DMA engine (up to tx_prefetch_packets) and leave after the NI pipeline and
// the PHY's transmit half. Receive: a packet is acted on after the PHY's receive half and the NI
// pipeline, once its last bit is in (store-and-forward: the CRC must pass before memory is
// written); notifications wait until the data they announce is in memory.

#include "nodes/lant/LantNiConfig.hpp"
#include "nodes/memory/MemorySystem.hpp"
#include "nodes/rdma/RdmaPoe.hpp"
#include "nodes/transport/PayloadWrites.hpp"
#include "nodes/transport/RxPipe.hpp"
#include "nodes/transport/RunStart.hpp"
#include "nodes/transport/TxWake.hpp"
#include "protocols/lant/Receiver.hpp"
#include "protocols/lant/Sender.hpp"
#include "simcore/engine/Fifo.hpp"
#include "simcore/engine/Scheduler.hpp"
#include "simcore/net/Fabric.hpp"
#include "simcore/results/Trace.hpp"

#include <deque>
#include <unordered_map>

namespace nafsim::nodes {

/// A receive-side notification as a program polls it.
struct ReceiveNotice {
  std::uint32_t src   = 0;
  std::uint64_t op    = 0;
  std::uint64_t base  = 0;
  std::uint64_t bytes = 0;
  std::uint64_t msg   = 0;
  bool registered     = false;
  bool verified       = false; ///< every packet of [base, base + bytes) holds this operation's data
  SimTime at;                  ///< when it entered the notification queue
  bool message          = false;
  std::uint64_t recv_id = 0;
  lant::Header header{};
  std::uint32_t cause = 0; ///< its delivery's step in the causal graph (critical paths; 0: not recorded)
};

struct LantNiCounters {
  std::uint64_t data_packets_sent     = 0;
  std::uint64_t control_packets_sent  = 0;
  std::uint64_t stale_staged          = 0; ///< read-ahead packets acknowledged before they left
  std::uint64_t deliveries            = 0;
  std::uint64_t verification_failures = 0;
  std::uint64_t post_waits            = 0; ///< posts that waited for command-queue space
};

class LantNi final : public net::Endpoint, public EventHandler {
public:
  LantNi(net::HostId host, const LantNiConfig& cfg, Hertz clock, Scheduler& sched, net::Fabric& fabric,
         MemorySystem& memory);

  // The program's interface (user-space driver).
  /// Post a command from software: the post costs post_overhead; a full queue makes it wait.
  void post(ActorContext& ctx, const lant::Command& c);
  /// Post from an accelerator (no software cost); false when the queue is full.
  bool try_post(const lant::Command& c);
  /// Poll the local notification queue until command `id` reports `kind`; returns when the program
  /// sees it. A failed command raises SimulationError.
  SimTime wait_local(ActorContext& ctx, std::uint64_t id, lant::LocalNotice::Kind kind);
  /// Poll the receive notification queue until a notification `accept` takes is there (the
  /// oldest; default: any); it is removed from the queue and returned.
  ReceiveNotice wait_receive(ActorContext& ctx, const std::function<bool(const ReceiveNotice&)>& accept = {});
  /// Forget the local notices of command `id` (after the program has seen what it waits for).
  void release(std::uint64_t id) { local_.erase(id); }

  // The hardware interface (an on-chip block such as the CCLO's Tx/Rx systems).
  /// Post from hardware through the accelerator queue; when it is full the command waits in order
  /// inside the NI. `source` tells when each payload byte range is ready (default: memory reads).
  void submit(lant::Command c, PayloadSource source = {});
  /// Offered every local completion first; true = consumed (not queued for programs).
  void set_local_hook(std::function<bool(std::uint64_t command)> h) { local_hook_ = std::move(h); }
  /// Offered every receive notification first; true = consumed.
  void set_receive_hook(std::function<bool(const ReceiveNotice&)> h) { receive_hook_ = std::move(h); }
  /// Where incoming messages land.
  void set_placement(lant::PlacementProvider p) { rx_.set_placement(std::move(p)); }

  const lant::Sender& sender() const { return tx_; }
  const lant::Receiver& receiver() const { return rx_; }
  const LantNiCounters& counters() const { return c_; }
  const LantNiConfig& config() const { return cfg_; }
  /// Record commands (post -> every packet acknowledged) and receive notifications on track `pid`.
  void set_trace(results::Trace* t, std::uint32_t pid);
  /// Nothing in flight and no table entry held (checked after a run: leaks).
  std::string leaks() const;

  // net::Endpoint
  void deliver(net::Packet&& p) override;
  bool takes_ahead() const override { return true; }
  bool sends_frames() const override { return true; } ///< (packet(): ethernet.wire_bytes)
  std::string refusals() const override;
  void deliver_ahead(net::Packet&& p, SimTime arrival, const net::WireCause& wire) override;
  std::optional<net::Packet> pull() override;
  // EventHandler
  void on_event(std::uint32_t kind, std::uint64_t arg) override;
  CauseLabel cause(std::uint32_t kind, std::uint64_t arg) const override;
  /// Critical paths: a notice waiting for the program's poll.
  CauseLabel poll_cause() const;

private:
  enum EventKind : std::uint32_t { kRx, kTxWake, kTimer, kNotify };
  struct Staged {
    lant::Sender::TxPacket t;
    SimTime ready;
    CauseLabel why{}; ///< critical paths: what its ready date waits for
    std::uint32_t parent = Scheduler::kRunningStep; ///< ... and the step that began it (TxWake::at)
  };
  /// A control packet (ACK, NACK, notification) waiting for its write response and the transmit pipeline.
  struct Control {
    SimTime ready;
    net::Packet p;
    CauseLabel why{};                               ///< critical paths: what its ready date waits for
    std::uint32_t parent = Scheduler::kRunningStep; ///< ... from the step that queued it
  };
  struct Local {
    SimTime pushed  = SimTime::max();
    SimTime complete = SimTime::max();
  };

  void execute(lant::Actions& acts);
  /// Queue a control packet; it is built once `from` (a memory write response) has passed.
  void control(std::uint32_t dst, lant::Wire w, SimTime from);
  net::Packet make(std::uint32_t dst, lant::Wire w, std::uint32_t l3, std::uint64_t flow, std::uint32_t seq) const;
  void refill(SimTime now);
  void rearm();
  void wake_waiters();
  SimTime seen_by_poll(SimTime waiting_since, SimTime posted) const;
  /// Whether every packet slot of `d` holds its own data; the slots that do are then forgotten (a
  /// delivered operation is never checked again: the image holds only what is in flight, not every
  /// slot ever written).
  bool verify_and_forget(const lant::Delivered& d);

  net::HostId host_;
  LantNiConfig cfg_;
  SimTime cycle_;
  SimTime phy_tx_, phy_rx_;
  Scheduler& sched_;
  net::Fabric& fabric_;
  /// Flow fidelity: when the NI's line is free of the packets it handed over (see on_line).
  SimTime line_free_;
  SimTime on_line(const net::Packet& p, SimTime now);
  MemorySystem& memory_;
  lant::Sender tx_;
  lant::Receiver rx_;
  std::deque<Control> ctrl_;
  std::deque<Staged> staged_;
  TxWake tx_wake_{sched_, this, kTxWake, fabric_, host_};
  RunStart payload_reads_{sched_}; ///< (critical paths) the run of the NI's own payload reads
  RxPipe rx_pipe_{sched_, this, kRx};
  PayloadWrites writes_{sched_, "connectionless NI", host_}; ///< when every payload written so far is in memory
  std::deque<std::pair<SimTime, ReceiveNotice>> notices_; ///< waiting for their data to be in memory
  std::deque<ReceiveNotice> received_;
  std::unordered_map<std::uint64_t, Local> local_;
  std::vector<ActorId> waiters_;
  bool timer_live_ = false;
  SimTime timer_at_;
  EventId timer_event_ = 0;
  /// What each packet-sized slot of memory last received: (content id, packet index).
  std::unordered_map<std::uint64_t, std::pair<std::uint64_t, std::uint32_t>> image_;
  lant::Actions scratch_;
  LantNiCounters c_;
  struct Source {
    std::uint64_t local = 0;
    PayloadSource fn;
    std::uint32_t posted = Scheduler::kRunningStep; ///< critical paths: the step that submitted it (its stream's start)
  };
  std::unordered_map<std::uint64_t, Source> sources_; ///< by command id
  std::deque<lant::Command> submitted_;               ///< hardware posts waiting for queue space
  std::function<bool(std::uint64_t)> local_hook_;
  std::function<bool(const ReceiveNotice&)> receive_hook_;
  void drain_submitted();
  /// Hand a command to the sender's queues (it has room), recording it for the trace.
  void enqueue(const lant::Command& c);
  results::Trace* trace_ = nullptr;
  std::uint32_t trace_pid_ = 0;
  struct Posted {
    SimTime at;
    std::string what;
  };
  std::unordered_map<std::uint64_t, Posted> posted_; ///< tracing only
};

} // namespace nafsim::nodes
