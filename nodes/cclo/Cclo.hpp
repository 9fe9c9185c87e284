#pragma once
// The ACCL+ collective offload engine (CCLO) of an FPGA node (ACCL+ section 4.4): the micro-controller
// running the firmware (Firmware), the data-movement processor (DataMover), the Tx and Rx systems and
// the Rx-buffer manager, between the invocation paths (FPGA kernel, Coyote or XRT host driver) and the
// RDMA POE. Blocks talk through queues as in the hardware; each is timed by its own parameters.

#include "nodes/cclo/CcloConfig.hpp"
#include "nodes/cclo/DataPlane.hpp"
#include "nodes/cclo/DataMover.hpp"
#include "nodes/cclo/HostInvocation.hpp"
#include "nodes/cclo/RndzvQueue.hpp"
#include "nodes/cclo/RxBufferManager.hpp"
#include "nodes/rdma/RdmaPoe.hpp"
#include "protocols/collectives/Selection.hpp"

#include <deque>
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

enum class DataLocation { Device, Host, Stream };

/// The hosts of a communicator's ranks, shared by every call of every rank (a copy per rank and call made a
/// collective's memory grow with the square of the ranks: 2 GiB of host lists at 16,384 ranks).
class Communicator {
public:
  Communicator() = default;
  Communicator(std::vector<net::HostId> hosts)
      : hosts_(std::make_shared<const std::vector<net::HostId>>(std::move(hosts)))
  {
  }
  Communicator(std::initializer_list<net::HostId> hosts) : Communicator(std::vector<net::HostId>(hosts)) {}
  std::size_t size() const { return hosts_ ? hosts_->size() : 0; }
  net::HostId operator[](std::size_t rank) const { return (*hosts_)[rank]; }
  net::HostId at(std::size_t rank) const
  {
    if (rank >= size())
      throw std::out_of_range(fmt::format("rank {} of a {}-rank communicator", rank, size()));
    return (*hosts_)[rank];
  }
  /// Append a rank (copies the list: for building small groups).
  void push_back(net::HostId h)
  {
    std::vector<net::HostId> v = hosts_ ? *hosts_ : std::vector<net::HostId>{};
    v.push_back(h);
    hosts_ = std::make_shared<const std::vector<net::HostId>>(std::move(v));
  }

private:
  std::shared_ptr<const std::vector<net::HostId>> hosts_;
};

/// One call, as the driver fills it in.
struct CcloCall {
  coll::CollectiveCall call;
  Communicator comm; ///< host of each rank of the communicator
  int rank                 = 0;
  DataLocation location    = DataLocation::Device;
  InvocationPath path      = InvocationPath::Kernel;
  std::uint64_t src_addr   = 0; ///< operand buffer (host memory carries kHostMemory)
  std::uint64_t dst_addr   = 0; ///< result buffer
  std::optional<coll::Protocol> protocol;
  std::optional<coll::Algorithm> algorithm;
  DataType dtype = DataType::Float32; ///< arithmetic configuration: element type (must match call.elem_bytes)
  bool compress  = false;              ///< fp32 data travels as fp16 (compression plugins; eager only)
  /// ACCL's message tag: eager messages between two nodes match in order within one tag, so kernels that
  /// talk to the same peer through separate command streams give each stream its own tag (0: collectives).
  std::uint32_t tag = 0;
};

struct CcloResult {
  SimTime invoked;  ///< the caller issued the call
  SimTime started;  ///< the firmware picked it up (the CCLO cycle counter starts)
  SimTime finished; ///< the firmware finalized it (the counter stops)
  SimTime returned; ///< the caller saw the completion
  coll::Protocol protocol   = coll::Protocol::Eager;
  coll::Algorithm algorithm = coll::Algorithm::Direct;
  std::string error;
};

struct CcloCounters {
  std::uint64_t calls          = 0;
  std::uint64_t safety_warnings = 0; ///< host driver warnings written before calls (HostInvocation)
  SimTime uc_busy;                   ///< micro-controller time spent on control steps
  std::uint64_t eager_messages = 0;
  std::uint64_t rendezvous_writes = 0;
  std::uint64_t notifications_sent = 0;
  std::uint64_t notifications_received = 0;
  std::uint64_t eager_received = 0;
  std::uint64_t polls          = 0;  ///< rendezvous lookups that found their notification
  std::uint64_t loop_passes    = 0;  ///< busy-wait and retry-loop passes that found nothing
  std::uint64_t retries        = 0;  ///< times a call went back to the retry queue (NOT_READY)
  std::size_t max_calls_queued = 0;  ///< deepest call FIFO
  std::uint64_t rx_refusals    = 0;  ///< incoming eager messages refused: no free Rx buffer
  std::size_t rx_buffers_max_used = 0;
};

class Firmware;

/// How the CCLO's Tx system reaches the network: the node's transport (the RoCE POE, or the
/// connectionless NI). Completions and inbound notices come back through Cclo::on_completion and
/// Cclo::on_inbound.
struct CcloLink {
  /// Post a SEND (the receiver places it) or a WRITE to `peer`; `source` tells when payload bytes are ready;
  /// `accepted` (if the link reports it, see below) runs when the transport has taken the last byte.
  std::function<void(std::uint32_t peer, const roce::WorkRequest& wr, PayloadSource source,
                     std::function<void()> accepted)>
      post;
  /// The transport tells when it has taken a message's last byte (the RoCE POE's transmit buffer);
  /// otherwise the CCLO takes the last byte as accepted when the data mover produces it.
  bool reports_acceptance = false;
  /// Messages on a connection arrive in the order posted (RoCE RC): the WRITE's completion notice can follow it
  /// at once. Otherwise (the connectionless transport) it is sent once the WRITE has completed.
  bool ordered = false;
  /// Who places incoming SENDs (the Rx system: Rx buffers or the control slot).
  std::function<void(roce::RecvProvider)> set_recv_provider;
  /// The transport carries the rendezvous protocol's one-sided WRITE (RDMA). Over TCP and UDP the
  /// firmware runs every call eager (ACCL+ section 4.4: eager over UDP/TCP, rendezvous over RDMA).
  bool rendezvous = true;
  /// The transport's name, for errors.
  std::string transport = "roce";
};

class Cclo final : public TxSystem {
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
  /// Start the firmware (a daemon actor on the node's SimGrid host).
  void start(simgrid::s4u::Host* host);

  /// Invoke a call and block until its completion reaches the caller (ACCL's call_sync).
  CcloResult call(ActorContext& ctx, const CcloCall& c);
  /// How the host driver syncs host buffers with the card (XRT calls on host data); by default a bare DMA.
  void set_buffer_sync(HostInvocation::Sync sync) { inv_.set_sync(std::move(sync)); }

  // From the node: POE notices addressed to the CCLO (returns false if not).
  bool on_completion(const roce::Completion& c);
  bool on_inbound(QpId qp, const roce::InboundMessage& m);

  // TxSystem
  void send_eager(std::uint32_t peer, std::uint64_t seq, std::uint64_t bytes, Stream data,
                  std::vector<std::byte> payload, std::function<void()> accepted) override;
  void write_rendezvous(std::uint32_t peer, std::uint64_t remote_addr, std::uint64_t bytes, Stream data,
                        std::vector<std::byte> payload, std::function<void()> accepted) override;

  const CcloConfig& config() const { return cfg_; }
  coll::CcloTuning tuning() const;
  CcloCounters counters() const;
  const DataMover& dmp() const { return *dmp_; }
  std::uint64_t spare_address(int k) const { return spare_base_ + static_cast<std::uint64_t>(k) * spare_stride_; }

private:
  friend class Firmware;
  friend class FirmwareCall;
  friend class ScheduleExecutor;
  enum class Msg : std::uint8_t { Eager = 1, Init = 2, Done = 3, Notify = 4 };
  struct Pending {
    CcloCall call;
    ActorId caller;
    CcloResult result;
    bool done     = false;
    unsigned step = 0; ///< the firmware's current_step, kept across retries
  };

  /// A notification (64 B signature, no payload) through the Tx system, its header ready at `ready` (default:
  /// tx_cycles from now).
  void send_control(std::uint32_t peer, Msg type, std::uint64_t addr, std::uint64_t a, std::uint64_t b,
                    std::optional<SimTime> ready = std::nullopt);
  /// Hand a work request to the link; `accepted` runs when its last byte is taken.
  void post(std::uint32_t peer, const roce::WorkRequest& wr, PayloadSource source, std::function<void()> accepted);
  std::uint64_t next_wr() { return kWrBase | ++wr_counter_; }
  std::uint64_t next_msg() { return (std::uint64_t{host_} << 40) | ++msg_counter_; }
  /// Eager sequence numbers, per peer host and tag (tag 0 keeps the plain per-peer count).
  std::uint64_t next_out_seq(std::uint32_t peer, std::uint32_t tag) { return next_seq(out_seq_, peer, tag); }
  std::uint64_t next_in_seq(std::uint32_t peer, std::uint32_t tag) { return next_seq(in_seq_, peer, tag); }
  /// Counters exist only for the (peer, tag) pairs a node talks to: memory grows with active peers, not ranks.
  static std::uint64_t next_seq(std::unordered_map<std::uint64_t, std::uint64_t>& counters, std::uint32_t peer,
                                std::uint32_t tag)
  {
    const std::uint64_t n = ++counters[(std::uint64_t{peer} << 32) | tag];
    return tag == 0 ? n : (std::uint64_t{tag} << 48) | n;
  }
  SimTime cycles(unsigned n) const { return cycle_ * n; }
  void wake_firmware();
  void fail(std::string why);
  std::vector<std::byte> take_payload(std::uint64_t msg);

  static constexpr std::uint64_t kWrBase  = 1ULL << 62;
  static constexpr std::uint64_t kMagic   = 0xCC10ULL << 48;

  net::HostId host_;
  CcloConfig cfg_;
  SimTime cycle_;
  Scheduler& sched_;
  CcloLink link_;
  MemorySystem& mem_;
  DataPlane* data_; ///< real data (null: sizes only)
  HostInvocation inv_;
  RxBufferManager rbm_;
  std::unique_ptr<DataMover> dmp_;
  std::unique_ptr<Firmware> fw_;
  std::uint64_t spare_base_;
  std::uint64_t spare_stride_; ///< spare buffer k is at spare_base_ + k * spare_stride_ (2 MiB aligned)
  std::uint64_t control_addr_;
  std::uint64_t wr_counter_  = 0;
  std::uint64_t msg_counter_ = 0;

  // Queues between the blocks (STS_RNDZV, Rx-buffer notices, the call FIFO).
  RndzvQueue rndzv_;                                      ///< STS_RNDZV and STS_RNDZV_PENDING
  std::uint64_t arrivals_ = 0;                            ///< rendezvous notifications received so far
  std::unordered_map<std::uint32_t, unsigned> notifies_; ///< schedule notifications, by sender host
  std::unordered_map<std::uint64_t, std::uint64_t> out_seq_, in_seq_; ///< eager sequence numbers by (peer host, tag)
  std::deque<std::shared_ptr<Pending>> calls_;
  std::unordered_map<std::uint64_t, std::function<void()>> on_write_done_; ///< unordered links: WRITE wr -> notice
  std::optional<ActorId> fw_actor_;
  bool fw_waiting_       = false;
  std::string error_;
  CcloCounters c_;
};

} // namespace nafsim::nodes
