#pragma once
// The CCLO's shared state (CcloCore): the queues between its blocks and its counters, as the hardware keeps them in
// FIFOs and the configuration memory. The Cclo owns it and hands it by reference to the blocks that read and write
// it (the firmware, the schedule executor); the types of a call and its result live here too.

#include "nodes/cclo/CcloConfig.hpp"
#include "nodes/cclo/HostInvocation.hpp"
#include "nodes/cclo/Plugins.hpp"
#include "nodes/cclo/RndzvQueue.hpp"
#include "protocols/collectives/Selection.hpp"
#include "simcore/engine/Scheduler.hpp"
#include "simcore/net/Packet.hpp"
#include "simcore/results/Trace.hpp"

#include <deque>
#include <fmt/format.h>
#include <initializer_list>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

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
  DataLocation location    = DataLocation::Device; ///< where the operand is (and the result, unless result_location)
  /// Where the result goes when not where the operand is (ACCL's separate OP0_STREAM and RES_STREAM flags: a
  /// stream operand with a memory result, or the other way round).
  std::optional<DataLocation> result_location;
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
  /// A send whose data goes to the receiver's kernel stream with this id (ACCL's stream_put: a send with RES_STREAM,
  /// the stream id as its tag), no receive posted there; dst_addr is where the receiver's stream data is kept (real-
  /// data runs). -1: an ordinary call.
  int remote_stream = -1;
  /// (Invocation jitter) a workload's name for the call's place, drawn with its signature: a barrier run before each
  /// call of a benchmark names that call's size, so its draw follows the size and not the calls before (0: none).
  std::uint64_t invocation_key = 0;

  /// The operand comes from a kernel stream (ACCL's OP0_STREAM).
  bool operand_streamed() const { return location == DataLocation::Stream; }
  /// The result goes to a kernel stream (RES_STREAM).
  bool result_streamed() const { return result_location.value_or(location) == DataLocation::Stream; }
  /// Either end is a stream: stream_put's result is the peer's stream.
  bool streams() const { return operand_streamed() || result_streamed() || remote_stream >= 0; }
};

struct CcloResult {
  SimTime invoked;  ///< the caller issued the call
  SimTime started;  ///< the firmware picked it up (the CCLO cycle counter starts)
  SimTime finished; ///< the firmware finalized it (the counter stops)
  SimTime returned; ///< the caller saw the completion
  std::uint32_t end_cause = 0; ///< the finalize's step in the run's causal graph (critical paths; 0: not recorded)
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
  std::uint64_t stream_received = 0; ///< messages for a kernel stream (stream_put), past the Rx buffers
  std::uint64_t polls          = 0;  ///< rendezvous lookups that found their notification
  std::uint64_t loop_passes    = 0;  ///< busy-wait and retry-loop passes that found nothing
  std::uint64_t retries        = 0;  ///< times a call went back to the retry queue (NOT_READY)
  std::size_t max_moves_pending = 0; ///< most moves started and not yet ended (STS_DMA_MOVE's depth): the windows
  std::size_t max_calls_queued = 0;  ///< deepest call FIFO
  std::uint64_t rx_refusals    = 0;  ///< incoming eager messages refused: no free Rx buffer
  std::size_t rx_buffers_max_used = 0;
  std::uint64_t direct_host_calls = 0; ///< calls on host data the CCLO reads and writes over PCIe itself (not staged)
};

/// The Tx system's message types (the signature's type field).
/// Stream: an eager message for the receiver's kernel stream (ACCL's stream_put), routed by its stream id past the
/// Rx buffers and the firmware.
enum class CcloMsg : std::uint8_t { Eager = 1, Init = 2, Done = 3, Notify = 4, Stream = 5 };

/// A call between its invocation and its completion, as the call FIFO and the retry queue hold it.
struct CcloPending {
  CcloCall call;
  ActorId caller;
  CcloResult result;
  bool done     = false;
  unsigned step = 0; ///< the firmware's current_step, kept across retries
};

/// The queues between the CCLO's blocks and its counters.
struct CcloCore {
  CcloCore(net::HostId h, const CcloConfig& c, SimTime cycle_time) : host(h), cfg(c), cycle(cycle_time) {}

  net::HostId host;
  const CcloConfig& cfg;
  SimTime cycle; ///< one cycle of the CCLO's clock
  SimTime cycles(unsigned n) const { return cycle * n; }

  RndzvQueue rndzv;                                      ///< STS_RNDZV and STS_RNDZV_PENDING
  std::uint64_t arrivals = 0;                            ///< rendezvous notifications received so far
  std::unordered_map<std::uint32_t, unsigned> notifies; ///< schedule notifications, by sender host
  std::deque<std::shared_ptr<CcloPending>> calls;       ///< the call FIFO
  std::optional<ActorId> fw_actor;                      ///< the firmware's actor, when it waits
  bool fw_waiting = false;                              ///< the firmware is blocked until woken
  results::Trace* trace = nullptr;                      ///< block tracks (--trace blocks), else null
  std::uint32_t trace_pid = 0;                          ///< the node's process in the trace
  std::string error;                                    ///< the first failure (a transport error, a deadlock)
  CcloCounters counters;
};

} // namespace nafsim::nodes
