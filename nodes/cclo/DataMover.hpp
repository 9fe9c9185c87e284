#pragma once
// The data-movement processor (DMP): executes move instructions with two operand slots and one result
// slot. Operands come from memory (device or host), from a kernel stream, or from an Rx buffer
// ("on receive": the move waits until the data mover finds the message); the result goes to memory,
// to a stream, or to the network through the Tx system (eager message, or rendezvous RDMA WRITE).
// Moves are issued in order and pipelined: a move is one stream through the engines it uses, as fast
// as the slowest allows (memory or PCIe port, the 64 B/cycle datapath and plugins, the network); a
// compressed slot carries half the bytes of its fp32 elements.
// A move larger than an Rx buffer is the data mover's to cut (dma_mover.cpp @bf51613): an eager result leaves as
// one message per Rx buffer's worth of its bytes (eth_cmd_execute: a header and a sequence number each); an operand
// "on receive" reads as many Rx buffers as its bytes need, found one after the other (instruction_decode's seek
// loop), and its result starts only once the last one is found (the result's command follows the loop), every
// buffer held until the move retires. Sequence numbers are taken as moves are decoded (SeqNumbers.hpp).

#include "nodes/cclo/CcloConfig.hpp"
#include "nodes/cclo/Plugins.hpp"
#include "nodes/cclo/RxBufferManager.hpp"
#include "nodes/cclo/SeqNumbers.hpp"
#include "nodes/cclo/TagOrderWatch.hpp"
#include "nodes/memory/MemoryImage.hpp"
#include "nodes/memory/MemorySystem.hpp"
#include "simcore/engine/Fifo.hpp"
#include "simcore/engine/Scheduler.hpp"
#include "simcore/engine/SlotPool.hpp"
#include "simcore/results/Trace.hpp"

#include <functional>
#include <vector>

namespace nafsim::nodes {

enum class OperandKind : std::uint8_t { None, Memory, Stream, RxBuffer };
enum class ResultKind : std::uint8_t { None, Memory, Stream, Eager, Rendezvous };

struct Operand {
  OperandKind kind = OperandKind::None;
  std::uint64_t addr = 0;      ///< Memory (Stream: where the kernel's data lives, for real-data runs)
  std::uint32_t src_host = 0;  ///< RxBuffer: the message's sender
  std::uint64_t seq = 0;       ///< RxBuffer: its (first) sequence number, set by the data mover as it decodes the move
  bool compressed = false;     ///< fp16 on this slot for fp32 elements (decompressed on the way in)
};

struct Move {
  Operand op0, op1;
  ResultKind res = ResultKind::None;
  std::uint64_t res_addr = 0;  ///< Memory: local; Rendezvous: the peer's
  std::uint32_t peer = 0;      ///< Eager / Rendezvous destination host
  std::uint64_t seq = 0;       ///< Eager: unused, the data mover numbers the messages as it decodes the move; a
                               ///< stream_put's: where the peer keeps the stream's data, set by the firmware
  std::uint32_t tag = 0;       ///< Eager / RxBuffer: the call's tag (whose sequence numbers the messages take)
  std::uint64_t count = 0;     ///< elements of each operand and of the result
  DataType dtype = DataType::Float32;
  bool reduce = false;         ///< op0 and op1 through the reduction plugin
  coll::ReduceFunc func = coll::ReduceFunc::Sum;
  bool res_compressed = false; ///< the result leaves as fp16 (compression plugin)
  std::int16_t remote_stream = -1; ///< Eager: for the peer's kernel stream with this id (stream_put)

  std::uint64_t slot_bytes(bool compressed) const { return count * (compressed ? 2 : dtype_bytes(dtype)); }
  std::uint64_t result_bytes() const { return slot_bytes(res_compressed); }
};

/// Where the DMP hands results bound for the network (`payload`: their bytes, in real-data runs).
class TxSystem {
public:
  /// Send an eager message; `accepted` runs when the transport has taken its last byte (the packetizer's
  /// status, which completes the move). `stream` >= 0: for the peer's kernel stream with that id (`seq` is then
  /// where the peer keeps the stream's data).
  virtual void send_eager(std::uint32_t peer, std::uint64_t seq, std::uint64_t bytes, Stream data,
                          std::vector<std::byte> payload, std::function<void()> accepted, int stream) = 0;
  /// RDMA WRITE to the peer's buffer followed by the completion notice; `accepted` as for send_eager.
  virtual void write_rendezvous(std::uint32_t peer, std::uint64_t remote_addr, std::uint64_t bytes, Stream data,
                                std::vector<std::byte> payload, std::function<void()> accepted) = 0;

protected:
  ~TxSystem() = default;
};

struct DmpCounters {
  std::uint64_t moves = 0;
  std::uint64_t bytes = 0;   ///< result bytes
  SimTime busy;              ///< time with at least one move streaming (union of the moves' intervals)
  SimTime rx_waits;          ///< time the head move waited for a message
  std::size_t max_queue = 0; ///< most moves queued behind the issue stage
};

class DataMover final : public EventHandler {
public:
  /// `image`: this node's memory contents when the run carries real data, else null.
  DataMover(const DmpConfig& cfg, unsigned seek_cycles, Hertz clock, Scheduler& sched, MemorySystem& mem,
            RxBufferManager& rbm, TxSystem& tx, MemoryImage* image);
  /// Queue a move; `on_done` runs when it completes (its status). A Move is a plain descriptor (trivially
  /// destructible: the firmware passes it to the tasks it awaits, see simcore/engine/Task.hpp).
  void submit(const Move& m, std::function<void()> on_done);
  /// A message completed in an Rx buffer: a waiting move may find it, and starts at once, in the caller's event (the
  /// Rx system's; no retry event of its own at the same date, issue 53), unless a retry is already due.
  void rx_arrived();
  /// The most Rx buffers one move may read: instruction_decode queues each buffer's index for release in a 64-deep
  /// FIFO that only the move's retirement drains ("the maximum message size is 64 segments", dma_mover.cpp).
  static constexpr std::size_t kMaxRxPieces = 64;
  /// Called once if the data mover can never progress: its next message can get no Rx buffer, or (`fifo` true) its
  /// move needs more than kMaxRxPieces buffers.
  void on_deadlock(std::function<void(std::string, bool fifo)> fn) { on_deadlock_ = std::move(fn); }
  std::size_t queued() const { return queue_.size(); }
  const DmpCounters& counters() const { return c_; }
  /// What the head move waits for, if it waits (diagnoses).
  std::string waiting() const;

  void on_event(std::uint32_t kind, std::uint64_t arg) override;
  /// Critical paths: a move's completion is spent on its bottleneck engine (the leg that paces its stream), the
  /// issue stage's wake-up on the issue slot and the operands' writes.
  CauseLabel cause(std::uint32_t kind, std::uint64_t arg) const override;
  /// The node's host (where its delays are, on critical paths).
  void set_host(std::uint32_t host) { host_ = host; }
  /// Record every move on the node's trace process (--trace blocks): one track per move in flight at once.
  void set_trace(results::Trace* t, std::uint32_t pid) { trace_ = t, trace_pid_ = pid; }
  static constexpr std::uint32_t kTrackBase = 110;
  /// The plugins' track: each move through the reduction or compression plugins.
  static constexpr std::uint32_t kPluginTrack = 103;

private:
  enum EventKind : std::uint32_t { kTry, kDone };
  void try_start();
  /// The Rx buffers a move reads (its pieces, in order): the first inline, any others beside it (a move of one piece,
  /// nearly every move, allocates nothing).
  struct RxHold {
    std::optional<std::size_t> first;
    std::vector<std::size_t> more;
    template <class F> void each(F&& f) const
    {
      if (first)
        f(*first);
      for (auto i : more)
        f(i);
    }
  };
  /// Start the head move at `t`, reading Rx buffers `rx` (if any).
  void start(const Move& m, std::function<void()> on_done, SimTime t, RxHold rx);
  /// Find the head move's next Rx buffers; false while one has not arrived (or the data mover is stuck).
  bool seek_pieces(Move& m, SimTime t);
  /// A stream is paced by its bottleneck: the leg (engine and the bytes it carries) that needs the longest;
  /// every other leg runs at the same element rate.
  struct Pace {
    std::uint64_t bytes = 0;
    BitsPerSecond bw;
    const char* engine = "datapath"; ///< the leg's engine
    /// The rate of a leg carrying `b` bytes.
    BitsPerSecond rate(std::uint64_t b) const
    {
      if (bytes == 0 || b == bytes)
        return bw;
      return BitsPerSecond{bw.bps * static_cast<double>(b) / static_cast<double>(bytes)};
    }
  };
  Pace pace(const Move& m, std::uint64_t op1_addr) const;
  /// Schedule what happens when the move's stream [first, last] is over: its result written or handed to the
  /// packetizer, its Rx buffer (if any) freed, the firmware told.
  void complete(const Move& m, std::function<void()> done, RxHold rx, SimTime first, SimTime last, const Pace& p,
                std::vector<std::byte> out);
  /// Hand an eager result to the Tx system: one message per Rx buffer's worth of its bytes.
  void send_pieces(const Move& m, std::uint64_t bytes, SimTime first, SimTime last, const Pace& p,
                   std::vector<std::byte> out, std::function<void()> accepted);
  /// At `t`: write `out` at `addr` in the memory image (real-data runs, a result to memory), free Rx buffers `rx`
  /// (if any), then run `fn` (if any): a delay spent on `engine` after the stream's first byte at `first` (critical
  /// paths; null: no delay worth naming).
  void finish_at(SimTime t, std::function<void()> fn, const Pace* engine = nullptr, SimTime first = {},
                 RxHold rx = {}, std::uint64_t addr = 0, std::vector<std::byte> out = {});
  /// Critical paths: what a move's first byte waits for (the memory's latency, the datapath's pipeline).
  static std::uint32_t first_byte_cause();
  /// Critical paths: a move's stream, paced by `p` (to the network: an eager message or a rendezvous write).
  std::uint32_t engine_cause(const Pace& p, bool to_network);
  struct EngineCause {
    const char* engine;
    double bps;
    bool to_network;
    std::uint32_t what;
  };
  std::vector<EngineCause> engine_causes_;
  /// What the move outputs, from its operands' bytes (real-data runs).
  std::vector<std::byte> compute(const Move& m, const RxHold& rx) const;

  DmpConfig cfg_;
  unsigned seek_cycles_;
  SimTime cycle_;
  BitsPerSecond datapath_;
  Scheduler& sched_;
  MemorySystem& mem_;
  RxBufferManager& rbm_;
  TxSystem& tx_;
  MemoryImage* image_;
  struct Queued {
    Move m;
    std::function<void()> on_done;
  };
  Fifo<Queued> queue_; ///< (a ring buffer: a deque allocated and freed a block every three moves)
  SimTime issue_free_;
  SimTime busy_until_; ///< end of the latest streaming interval counted in c_.busy
  /// (Critical paths) the last byte of the latest read of each operand port, and the lead-in of the move being
  /// started: its first byte's latency (first_byte_cause), or none when its read streamed behind an earlier move's
  /// on the same port (that wait is the read's: a 64-rank all-to-all's 63 moves, issued back to back, called 57 %
  /// of the path "first byte", whose what-if gained 0.4 %).
  SimTime read_end_[2];
  std::uint32_t lead_ = 0;
  bool waiting_rx_ = false;
  SimTime waiting_since_;
  SeqNumbers in_seq_, out_seq_; ///< by (peer host, tag)
  TagOrderWatch& order_;        ///< the run's: the hardware's per-peer numbering of the same messages
  /// The head move's Rx buffers found so far (its pieces, in order), the bytes it still needs, and when the seeks so
  /// far are done (one after the other, seek_cycles each).
  RxHold head_rx_;
  std::size_t head_pieces_ = 0;
  std::uint64_t head_left_ = 0;
  bool head_seeking_       = false;
  SimTime head_seeks_done_;
  bool try_scheduled_ = false;
  /// What a move's completion does (finish_at), by slot: its result written to the memory image, the Rx buffer it
  /// frees, then `fn` (kept here, not captured in a closure around `fn`, so that completions need no allocation).
  struct Done {
    std::function<void()> fn;
    RxHold rx;                    ///< the Rx buffers it frees
    std::uint64_t addr = 0;       ///< image writes: where
    std::vector<std::byte> out{}; ///< ... and what (empty: none)
  };
  SlotPool<Done> done_;
  struct PendingWrite {
    std::uint64_t addr, bytes;
    SimTime done;
  };
  std::vector<PendingWrite> writes_; ///< results not yet in memory (read-after-write interlock)
  /// When every earlier result a move reads is in memory.
  SimTime operands_ready(const Move& m, SimTime t);
  std::vector<CauseLabel> done_cause_; ///< by slot of done_, when causes are recorded
  std::uint32_t host_ = 0;
  DmpCounters c_;
  results::Trace* trace_ = nullptr;
  std::uint32_t trace_pid_ = 0;
  std::vector<SimTime> lane_end_; ///< traced runs: when the last move on each track ends
  bool plugin_named_ = false;
  void trace_move(const Move& m, SimTime first, SimTime last);
  std::function<void(std::string, bool)> on_deadlock_;
};

} // namespace nafsim::nodes
