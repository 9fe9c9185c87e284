#pragma once
// The UDP offload engine of ACCL's XRT builds: messages leave as datagrams (each with the message
// signature) in the order they were posted; a SEND completes when its last datagram has left, with
// no acknowledgement. The receiver reassembles each message where its provider (the CCLO's Rx-buffer
// manager) puts it, asked when the first datagram of the message arrives; with no free buffer that
// datagram is dropped (UDP has no back-pressure). A datagram lost, corrupted or dropped loses its
// message: it never completes, and lost() names it, so a run waiting for it ends in a report
// instead of a silent hang.

#include "nodes/memory/MemorySystem.hpp"
#include "nodes/rdma/PoeConfig.hpp"
#include "nodes/transport/Poe.hpp"
#include "nodes/transport/NoticeQueue.hpp"
#include "nodes/transport/RxPipe.hpp"
#include "nodes/transport/RunStart.hpp"
#include "nodes/transport/TxWake.hpp"
#include "protocols/udp/Reassembly.hpp"
#include "protocols/udp/UdpConfig.hpp"
#include "simcore/engine/Fifo.hpp"
#include "simcore/engine/Scheduler.hpp"
#include "simcore/net/Fabric.hpp"

#include <deque>
#include <map>
#include <set>

namespace nafsim::nodes {

struct UdpPoeCounters {
  std::uint64_t messages_sent       = 0;
  std::uint64_t datagrams_sent      = 0;
  std::uint64_t datagrams_received  = 0;
  std::uint64_t messages_received   = 0;
  std::uint64_t duplicates          = 0; ///< datagrams of a fragment already seen (or of a finished message)
  std::uint64_t corrupted_dropped   = 0;
  std::uint64_t no_buffer_dropped   = 0; ///< datagrams dropped: the provider had no room for their message
};

class UdpPoe final : public Poe, public EventHandler {
public:
  UdpPoe(net::HostId host, const PoeConfig& timing, const udp::UdpConfig& udp, Scheduler& sched, net::Fabric& fabric,
         MemorySystem& memory, PoeListener& listener);

  /// Connections are the peers' host numbers (UDP keeps no session state).
  void post_send(QpId peer, const roce::WorkRequest& wr, PayloadSource source = {}) override;
  void set_recv_provider(roce::RecvProvider p) override { provider_ = std::move(p); }
  net::HostId peer_of(QpId peer) const override { return peer; }
  void set_trace(results::Trace*, std::uint32_t) override {}

  const UdpPoeCounters& counters() const { return c_; }
  /// Messages sent to each host (for comparing with what arrived).
  const std::map<net::HostId, std::uint64_t>& sent_to() const { return sent_to_; }
  /// Messages received complete from each host.
  const std::map<net::HostId, std::uint64_t>& received_from() const { return received_from_; }
  /// Messages this engine holds incomplete, described (empty when none).
  std::string incomplete() const;
  std::size_t incomplete_count() const { return in_.size(); }

  // net::Endpoint
  void deliver(net::Packet&& p) override;
  bool takes_ahead() const override { return true; }
  void deliver_ahead(net::Packet&& p, SimTime arrival, const net::WireCause& wire) override;
  std::optional<net::Packet> pull() override;
  /// Nothing staged or posted: the next datagram comes with a post_send().
  bool may_have_more() const override { return !staged_.empty() || !out_.empty(); }
  // EventHandler
  void on_event(std::uint32_t kind, std::uint64_t arg) override;
  CauseLabel cause(std::uint32_t kind, std::uint64_t arg) const override;

  /// The packet body.
  struct Datagram {
    std::uint64_t msg   = 0;
    std::uint64_t bytes = 0; ///< the whole message
    std::uint32_t index = 0; ///< fragment number
    std::uint32_t fragments = 0;
    std::uint32_t len   = 0; ///< message bytes in this datagram
    roce::Verb verb     = roce::Verb::Send;
    std::uint64_t remote_addr = 0;
    roce::AppHeader header{};
  };

private:
  enum EventKind : std::uint32_t { kRx, kTxWake, kNotify };
  struct Out {
    net::HostId peer;
    roce::WorkRequest wr;
    PayloadSource source;
    std::uint32_t next = 0; ///< next fragment to stage
    std::uint32_t fragments;
    std::uint32_t posted = Scheduler::kRunningStep; ///< critical paths: the step that posted it (its stream's start)
  };
  struct Staged {
    net::HostId peer;
    Datagram d;
    SimTime ready;
    bool last;
    std::uint64_t wr_id;
    roce::Verb verb;
    std::uint32_t parent = Scheduler::kRunningStep; ///< critical paths: the step that began what `ready` waits for
    CauseLabel why{};                               ///< ... and what it is spent on (none: the payload stream)
  };
  struct In {
    udp::Reassembly parts;
    std::uint64_t addr    = 0;
    std::uint64_t recv_wr = 0;
    std::uint64_t checksum = 0;
    Datagram first{};
    SimTime since{};
  };

  void refill(SimTime now);
  void notify_after_writes(net::HostId peer, bool inbound, roce::Completion c, roce::InboundMessage m);

  net::HostId host_;
  PoeConfig timing_;
  udp::UdpConfig cfg_;
  Scheduler& sched_;
  net::Fabric& fabric_;
  MemorySystem& memory_;
  PoeListener& listener_;
  roce::RecvProvider provider_;
  std::deque<Out> out_;
  std::deque<Staged> staged_;
  std::uint64_t staged_bytes_ = 0;
  TxWake tx_wake_{sched_, this, kTxWake, fabric_, host_};
  RunStart payload_reads_{sched_}; ///< (critical paths) the run of the engine's own payload reads
  RxPipe rx_pipe_{sched_, this, kRx};
  std::map<std::pair<net::HostId, std::uint64_t>, In> in_;  ///< by (source, message)
  std::set<std::pair<net::HostId, std::uint64_t>> finished_;
  PayloadWrites writes_{sched_, "UDP POE", host_}; ///< when every payload written so far is in memory
  struct Notice {
    net::HostId peer;
    bool inbound;
    roce::Completion completion;
    roce::InboundMessage message;
  };
  NoticeQueue<Notice> notices_{sched_, this, kNotify};
  void hand_over(Notice& n);
  std::map<net::HostId, std::uint64_t> sent_to_, received_from_;
  UdpPoeCounters c_;
};

} // namespace nafsim::nodes
