#pragma once
// One MPI rank's library on a host CPU: runs a collective's schedule (protocols/collectives, the
// algorithm the library selects: protocols/mpi) over the host's RDMA NIC with the transport layer's
// point-to-point protocol (UCX over RoCE, as the ACCL+ baseline):
//   eager (<= eager_threshold): the sender copies the payload into a registered bounce buffer and
//     SENDs header + payload into one of the receiver's pre-posted bounce buffers; the receiver
//     matches it (source, sequence number) and copies it out; an early message waits, unexpected;
//     above mpi.fragment the message goes as fragments, each copied, SENT into a bounce buffer of its
//     own and copied out as it arrives (UCX's multi-fragment eager), pipelined with the wire;
//   rendezvous: the sender SENDs a request-to-send naming its buffer; once the receive is posted
//     the receiver READs the data straight into the user buffer and SENDs a finish message, on
//     which the sender's send completes (zero-copy, UCX's get protocol).
// The CPU is one core spinning in the progress loop during a blocking call: every piece of
// library work (posting to the NIC, handling an arrival, copying, reducing) runs on it one after
// another, at the configured costs.

#include "nodes/memory/DataPlane.hpp"
#include "nodes/cclo/Plugins.hpp"
#include "nodes/host/HostNodeConfig.hpp"
#include "nodes/host/ReceiveQueue.hpp"
#include "nodes/rdma/RdmaPoe.hpp"
#include "nodes/transport/DeliveryFence.hpp"
#include "protocols/collectives/Schedule.hpp"

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <memory>
#include <unordered_map>

namespace nafsim::nodes {

/// A rank's buffers with real contents (runs that carry data), by coll::Buf: input, output,
/// scratch 0..2. Sized by the caller (input / output) and by run() (scratch).
struct RankBuffers {
  std::array<std::vector<std::byte>, 5> buf;
};

struct MpiCounters {
  std::uint64_t calls             = 0;
  std::uint64_t eager_sent        = 0;
  std::uint64_t rendezvous_sent   = 0;
  std::uint64_t eager_received    = 0;
  std::uint64_t unexpected        = 0; ///< arrivals (eager or request-to-send) before their receive was posted
  std::uint64_t reads             = 0;
  std::uint64_t bytes_sent        = 0; ///< payload bytes of sends
  std::uint64_t bytes_copied      = 0; ///< CPU copies (bounce buffers, local copies)
  std::uint64_t bytes_reduced     = 0;
  std::uint64_t bounce_max_used   = 0; ///< posted receives at most taken at once (ReceiveQueue::max_in_use)
  std::uint64_t bounce_buffers_max = 0; ///< bounce buffers at most in use at once (ReceiveQueue::max_buffers)
  std::uint64_t bounce_refusals   = 0; ///< arrivals refused (RNR) for want of a free bounce buffer
  std::uint64_t fragments_sent    = 0; ///< SENDs of eager messages larger than mpi.fragment
  std::uint64_t progress_held     = 0; ///< CPU steps that waited for a compute phase of every core (hold_progress)
  SimTime cpu_busy;
};

class MpiProcess final {
public:
  using QpOf = std::function<QpId(net::HostId peer)>;
  MpiProcess(net::HostId id, const HostNodeConfig& cfg, Scheduler& sched, Poe& nic, QpOf qp_of,
             DataPlane* data);
  MpiProcess(const MpiProcess&)            = delete;
  MpiProcess& operator=(const MpiProcess&) = delete;
  ~MpiProcess();

  struct RunOptions {
    /// Messages match in order within a context (MPI's communicator context and tag): a program's
    /// point-to-point tags and communicators each have their own, below kContexts.
    std::uint32_t context = 0;
    /// A local operation of the program (a memcpy or a reduction loop), not a library call: no call overhead.
    bool local = false;
    /// Every send of the call eager whatever its size (a buffered send, as a Chakra trace's producers mean one: it
    /// completes once its data has left, into the receiver's bounce buffers, without waiting for the receive), when
    /// the messages fit: fragments (mpi.fragment), or one bounce buffer. Otherwise the library's protocol.
    bool eager = false;
  };
  /// A message's number: its context above bit 32, its number within the context below; the header carries it
  /// above an 8-bit message type, so 56 bits in all (24 of context).
  static constexpr unsigned kContextShift = 32;
  static constexpr std::uint32_t kContexts = 1U << 24;
  /// Run this rank's part of a collective (schedule `s`; `comm[r]` is the host of rank r); blocks the
  /// calling actor until it is complete. `bufs`: real buffers (runs carrying data), else null.
  void run(ActorContext& ctx, const coll::Schedule& s, const std::vector<net::HostId>& comm, DataType dtype,
           RankBuffers* bufs, const RunOptions& opt);
  void run(ActorContext& ctx, const coll::Schedule& s, const std::vector<net::HostId>& comm, DataType dtype,
           RankBuffers* bufs)
  {
    run(ctx, s, comm, dtype, bufs, RunOptions{});
  }
  /// The same from a task actor (Scheduler::spawn_task: engine-free worlds, tests/support/HostWorld.hpp). `s` and
  /// `comm` are copied when the task starts (a Task starts when awaited), so they must live until then; `bufs` until
  /// it ends.
  Task<> run_task(TaskContext& ctx, const coll::Schedule& s, const std::vector<net::HostId>& comm, DataType dtype,
                  RankBuffers* bufs, RunOptions opt);

  /// Notices of the host's NIC.
  void on_completion(const roce::Completion& c);
  /// Keep, from now on, which SENDs posted are not yet acknowledged (what wait_delivered reads; off unless a
  /// workload asks). Over RoCE only (ASSUMPTION, as CcloLink::acknowledges: a TCP stack's delayed ACK would stand
  /// for a later delivery).
  void track_delivery() { track_delivery_ = cfg_.transport == Transport::Roce; }
  /// Wait until every SEND posted to host `peer` so far is acknowledged by the peer's NIC: delivered, as a trace's
  /// send completes in ASTRA-sim (its callback at delivery). At once when nothing was posted or nothing is tracked.
  void wait_delivered(ActorContext& ctx, net::HostId peer);
  void on_inbound(net::HostId src, const roce::InboundMessage& m);

  const MpiCounters& counters() const { return c_; }
  const HostNodeConfig& config() const { return cfg_; }

  /// The rank's thread enters (leaves) a compute phase that takes every core. Open MPI and MPICH over UCX run no
  /// progress thread by default: the library progresses only inside MPI calls, so none of its CPU work (posts,
  /// arrivals, a rendezvous' READ, copies, reductions) starts while such a phase runs; what was queued meanwhile
  /// starts, in order, when the last phase ends. The NIC's own work goes on. Phases nest.
  void hold_progress() { ++held_; }
  void release_progress();

private:
  struct Call;
  enum MsgType : std::uint64_t { kEager = 1, kRts = 2, kFin = 3, kFragment = 4 };
  using Payload = std::vector<std::byte>;
  using Key     = std::pair<net::HostId, std::uint64_t>; ///< (source host, sequence number)
  struct PostedRecv {
    std::uint64_t bytes = 0;
    std::uint64_t addr  = 0;
    std::function<void(Payload&&)> arrived; ///< the data is in the receive buffer
  };
  struct Arrival {
    roce::InboundMessage m;
    net::HostId src = 0;
  };
  struct Read {
    net::HostId src   = 0;
    std::uint64_t msg = 0;
    PostedRecv recv;
  };
  /// An eager message arriving in fragments (mpi.fragment): held in their bounce buffers until its receive is
  /// posted, then copied into the user buffer one by one.
  struct Fragments {
    std::optional<PostedRecv> recv; ///< matched
    std::vector<std::pair<std::uint32_t, std::uint64_t>> held{}; ///< (bounce buffer, bytes) arrived unmatched
    std::uint64_t total = 0, copied = 0;
    std::uint64_t msg = 0;
  };

  /// Queue `cost` of CPU work; `then` runs when it is done.
  void cpu(SimTime cost, std::function<void()> then);
  SimTime copy_cost(std::uint64_t bytes) const;
  /// A SEND of `length` bytes (header included) the CPU writes into the work request itself (inline_max).
  bool fits_inline(std::uint64_t length) const { return length <= cfg_.inline_max.count; }
  SimTime reduce_cost(std::uint64_t bytes) const;
  void post_send(net::HostId peer, std::uint64_t length, const roce::AppHeader& h, std::uint64_t addr);
  /// An eager message larger than mpi.fragment: its fragments, each copied into a send buffer and posted.
  void send_fragments(net::HostId peer, std::uint64_t seq, std::uint64_t bytes, std::uint64_t msg,
                      std::function<void()> done);
  /// A fragment arrived (`bounce`, `bytes` of payload) of message `k`.
  void on_fragment(const Key& k, const roce::InboundMessage& m);
  /// Copy one fragment of matched message `k` into its receive buffer, after `cost` of handling.
  void copy_fragment(const Key& k, std::uint32_t bounce, std::uint64_t bytes, SimTime cost);
  /// Send `bytes` (real contents `payload`) to `peer` as message `seq`; `done` when the send buffer
  /// may be reused (eager: once copied out; rendezvous: once the receiver has read it).
  void send(net::HostId peer, std::uint64_t seq, std::uint64_t bytes, std::uint64_t addr, Payload payload,
            std::function<void()> done, bool eager = false);
  /// Receive message `seq` from `peer` into `addr`.
  void recv(net::HostId peer, std::uint64_t seq, PostedRecv r);
  /// `a` meets receive `r`; `posted_first`: the receive was posted before the message arrived (expected).
  void match(const Arrival& a, PostedRecv r, bool posted_first);
  /// run() and run_task(): the call's record made (its matching numbers taken), then its first ops issued.
  std::shared_ptr<Call> begin(ActorId actor, const coll::Schedule& s, const std::vector<net::HostId>& comm,
                              DataType dtype, RankBuffers* bufs, const RunOptions& opt);
  void start(const std::shared_ptr<Call>& call);
  CauseLabel call_overhead_label() const;
  /// What a rank blocked in a call waits for (a deadlock's report).
  std::string waiting_for(const Call& call) const;
  /// Message `seq` from `src` carries `bytes`; its receive expects `expected`: they must agree.
  void check_size(net::HostId src, std::uint64_t seq, std::uint64_t bytes, std::uint64_t expected) const;
  void release_bounce(std::uint64_t idx);
  /// An unexpected arrival keeps its bounce buffer; its receive is posted again when the CPU polls it.
  void hold_bounce(std::uint64_t idx);
  void issue(const std::shared_ptr<Call>& call, std::uint32_t i);
  /// The schedule operations that receive (and reduce, or forward, what they received).
  void issue_receive(const std::shared_ptr<Call>& call, std::uint32_t i);
  /// The operations the CPU runs on local data (combine, copy), with a send of the result for CombineSend.
  void issue_local(const std::shared_ptr<Call>& call, std::uint32_t i);
  void op_done(const std::shared_ptr<Call>& call, std::uint32_t i);
  /// Op i's send has been posted: receives waiting only for it may be posted.
  void send_posted(const std::shared_ptr<Call>& call, std::uint32_t i);
  std::uint64_t next_msg() { return (static_cast<std::uint64_t>(id_) << 40) | ++msg_counter_; }

  net::HostId id_;
  HostNodeConfig cfg_;
  Scheduler& sched_;
  Poe& nic_;
  QpOf qp_of_;
  DataPlane* data_;
  SimTime cpu_free_;
  std::uint32_t busy_cause_ = 0; ///< critical paths: the step that set the CPU busy this spell (cpu())
  unsigned held_ = 0; ///< compute phases of every core running (hold_progress)
  std::vector<std::pair<SimTime, std::function<void()>>> held_work_; ///< CPU work queued while held, in order
  ReceiveQueue rq_; ///< the pre-posted receives and their bounce buffers
  std::uint64_t msg_counter_ = 0;
  std::uint64_t wr_counter_  = 0;
  /// Per matching context: the messages sent to / received from each host so far.
  std::map<std::uint32_t, std::pair<std::map<net::HostId, std::uint64_t>, std::map<net::HostId, std::uint64_t>>> seqs_;
  std::map<Key, PostedRecv> posted_;
  std::map<Key, Arrival> unexpected_;
  std::unordered_map<std::uint64_t, std::function<void()>> awaiting_fin_; ///< by message id
  std::unordered_map<std::uint64_t, Read> reads_; ///< by work request id
  bool track_delivery_ = false;
  DeliveryFence delivery_; ///< track_delivery: the SENDs each peer has not yet acknowledged
  std::map<Key, Fragments> fragments_;
  MpiCounters c_;
};

} // namespace nafsim::nodes
