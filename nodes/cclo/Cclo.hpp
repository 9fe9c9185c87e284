#pragma once
// The ACCL+ collective offload engine (CCLO) of an FPGA node (ACCL+ section 4.4): the micro-controller
// running the firmware (Firmware), the data-movement processor (DataMover), the Tx and Rx systems and
// the Rx-buffer manager, between the invocation paths (FPGA kernel, Coyote or XRT host driver) and the
// RDMA POE. Blocks talk through queues as in the hardware; each is timed by its own parameters.

#include "nodes/cclo/CcloConfig.hpp"
#include "nodes/cclo/CcloCore.hpp"
#include "nodes/cclo/CcloLink.hpp"
#include "nodes/cclo/DataMover.hpp"
#include "nodes/cclo/FirmwarePorts.hpp"
#include "nodes/cclo/HostInvocation.hpp"
#include "nodes/cclo/RndzvQueue.hpp"
#include "nodes/cclo/RxBufferManager.hpp"
#include "nodes/memory/DataPlane.hpp"
#include "nodes/rdma/RdmaPoe.hpp"
#include "nodes/transport/DeliveryFence.hpp"
#include "protocols/collectives/Selection.hpp"
#include "simcore/engine/SlotPool.hpp"

#include <deque>
#include <unordered_map>
#include <fmt/format.h>
#include <initializer_list>
#include <stdexcept>
#include <memory>
#include <optional>
#include <vector>

namespace simgrid::s4u {
class Host;
}

namespace nafsim::nodes {

class Firmware;

class Cclo final : public TxSystem, public FirmwarePorts {
public:
  /// Device memory below kUserBase holds the CCLO's own buffers (Rx and spare buffers).
  static constexpr std::uint64_t kUserBase = 1ULL << 36;
  /// Device buffers the XRT driver stages host operands (and results) in.
  static constexpr std::uint64_t kStagingBase = 1ULL << 44;
  static constexpr std::uint64_t kStagingSpan = 1ULL << 40;

  /// `seed`: the run's seed (the host invocation's jitter stream).
  Cclo(net::HostId host, const CcloConfig& cfg, Hertz clock,
       Scheduler& sched, CcloLink link, MemorySystem& mem, DataPlane* data = nullptr, std::uint64_t seed = 0);
  ~Cclo();
  /// Start the firmware (a daemon task actor: Firmware.hpp).
  void start();
  /// Record the blocks on trace process `pid` (--trace blocks): the micro-controller's primitives and waits, the
  /// data mover's moves and plugins, the Tx system's messages, the Rx system's parses, the invocation path, the Rx
  /// buffers in use.
  void set_trace(results::Trace* t, std::uint32_t pid);
  /// Trace tracks (Firmware::kUcTrack 100; the data mover's from DataMover::kTrackBase).
  static constexpr std::uint32_t kTxTrack = 101, kRxTrack = 102, kInvocationTrack = 104;

  /// Invoke a call and block until its completion reaches the caller (ACCL's call_sync).
  CcloResult call(ActorContext& ctx, const CcloCall& c);
  /// Bytes stream_put messages have delivered to kernel stream `id` so far.
  std::uint64_t stream_received(int id) const;
  /// Block the caller (a kernel reading the stream) until stream `id` has received `bytes` in all.
  void wait_stream(ActorContext& ctx, int id, std::uint64_t bytes);
  /// Keep, from now on, which of the messages posted are not yet acknowledged (what wait_delivered reads; off
  /// unless a workload asks: a set entry per message in flight).
  void track_delivery() { track_delivery_ = true; }
  /// Wait until every message posted to host `peer` so far is acknowledged by the peer's transport (later ones need
  /// not be): delivered, as a trace's send completes in ASTRA-sim (its callback at delivery). At once over a
  /// transport whose acknowledgement does not tell delivery (CcloLink::acknowledges) or when nothing was posted.
  void wait_delivered(ActorContext& ctx, std::uint32_t peer);
  /// How the host driver syncs host buffers with the card (XRT calls on host data); by default a bare DMA.
  void set_buffer_sync(HostInvocation::Sync sync) { inv_.set_sync(std::move(sync)); }

  // From the node: POE notices addressed to the CCLO (returns false if not).
  bool on_completion(const roce::Completion& c);
  bool on_inbound(QpId qp, const roce::InboundMessage& m);
  /// The Rx system's parse delay for a message it takes (a SEND with the CCLO's signature; none for others, or in a
  /// traced run, whose trace records the arrival at its own moment): the transport may then hand the message over
  /// once, at its due date + that delay, to on_inbound_parsed, which does what on_inbound and the parse do.
  PoeListener::Late parse_delay(const roce::InboundMessage& m) const;
  void on_inbound_parsed(const roce::InboundMessage& m, SimTime due);

  // TxSystem
  void send_eager(std::uint32_t peer, std::uint64_t seq, std::uint64_t bytes, Stream data,
                  std::vector<std::byte> payload, std::function<void()> accepted, int stream = -1) override;
  void write_rendezvous(std::uint32_t peer, std::uint64_t remote_addr, std::uint64_t bytes, Stream data,
                        std::vector<std::byte> payload, std::function<void()> accepted) override;

  coll::CcloTuning tuning() const;
  CcloCounters counters() const;
  const DataMover& dmp() const { return *dmp_; }
  const CcloCore& core() const { return core_; }

  // FirmwarePorts: what the firmware and the schedule executor reach.
  const CcloConfig& config() const override { return cfg_; }
  std::uint64_t spare_address(int k) const override
  {
    return spare_base_ + static_cast<std::uint64_t>(k) * spare_stride_;
  }
  CcloCore& core() override { return core_; }
  DataMover& data_mover() override { return *dmp_; }
  const CcloLink& link() const override { return link_; }
  void send_control(std::uint32_t peer, CcloMsg type, std::uint64_t addr, std::uint64_t a, std::uint64_t b,
                    std::optional<SimTime> ready = std::nullopt) override;
  void wake_firmware() override;
  /// Record a failure: the running call reports it, a deadlock report names it.
  void fail(std::string why);
  /// The data mover can never progress (DataMover::on_deadlock): fail with the fix.
  void on_dmp_stuck(const std::string& why, bool fifo);

private:
  using Msg     = CcloMsg;
  using Pending = CcloPending;
  /// Hand a work request to the link; `accepted` runs when its last byte is taken.
  void post(std::uint32_t peer, const roce::WorkRequest& wr, PayloadSource source, std::function<void()> accepted);
  std::uint64_t next_wr() { return kWrBase | ++wr_counter_; }
  std::uint64_t next_msg() { return (std::uint64_t{host_} << 40) | ++msg_counter_; }
  SimTime cycles(unsigned n) const { return core_.cycles(n); }
  std::vector<std::byte> take_payload(std::uint64_t msg);
  /// A stream_put message of `bytes` arrived for kernel stream `id`: count it, wake the readers waiting for it.
  void stream_arrived(int id, std::uint64_t bytes);
  /// The Rx system's signature parse, rx_cycles after a message lands: its Rx buffer filed, or its notification
  /// queued for the firmware. One event per inbound message, its fields kept by slot (a closure holding them was a
  /// heap allocation per message).
  struct Arrival {
    Msg type;
    std::uint32_t src;
    roce::AppHeader h;
    std::uint64_t recv_buf;
  };
  class RxParse final : public EventHandler {
  public:
    explicit RxParse(Cclo& c) : c_(c) {}
    void on_event(std::uint32_t, std::uint64_t slot) override;

  private:
    Cclo& c_;
  };
  void parse(const Arrival& a);
  /// A SEND landed at `at` (its payload where the receiver keeps it, its parse traced); nothing if it does not
  /// carry the CCLO's signature.
  std::optional<Arrival> arrive(const roce::InboundMessage& m, SimTime at);
  static bool ours(const roce::InboundMessage& m) { return (m.header[0] & kMagic) == kMagic; }

  static constexpr std::uint64_t kWrBase  = 1ULL << 62;
  static constexpr std::uint64_t kMagic   = 0xCC10ULL << 48;

  net::HostId host_;
  CcloConfig cfg_;
  SimTime cycle_;
  CcloCore core_; ///< after cfg_ and cycle_: it refers to the config
  Scheduler& sched_;
  CcloLink link_;
  MemorySystem& mem_;
  DataPlane* data_; ///< real data (null: sizes only)
  HostInvocation inv_;
  RxBufferManager rbm_;
  std::unique_ptr<DataMover> dmp_;
  std::unique_ptr<Firmware> fw_;
  RxParse rx_parse_{*this};
  SlotPool<Arrival> parses_; ///< the parses under way, by slot
  std::uint64_t spare_base_;
  std::uint64_t spare_stride_; ///< spare buffer k is at spare_base_ + k * spare_stride_ (2 MiB aligned)
  std::uint64_t control_addr_;
  std::uint64_t wr_counter_  = 0;
  std::uint64_t msg_counter_ = 0;

  std::unordered_map<std::uint64_t, std::function<void()>> on_write_done_; ///< unordered links: WRITE wr -> notice
  std::unordered_map<int, std::uint64_t> stream_bytes_; ///< kernel stream id -> bytes stream_put delivered
  std::vector<ActorId> stream_readers_;                 ///< callers waiting for a stream's data
  bool track_delivery_ = false;
  DeliveryFence delivery_; ///< track_delivery: the messages each peer has not yet acknowledged
};

} // namespace nafsim::nodes
