#pragma once
// The data-movement processor (DMP): executes move instructions with two operand slots and one result
// slot. Operands come from memory (device or host), from a kernel stream, or from an Rx buffer
// ("on receive": the move waits until the data mover finds the message); the result goes to memory,
// to a stream, or to the network through the Tx system (eager message, or rendezvous RDMA WRITE).
// Moves are issued in order and pipelined: a move is one stream through the engines it uses, at the
// rate of the slowest (memory or PCIe port, the 64 B/cycle datapath and plugins, the network).

#include "nodes/cclo/CcloConfig.hpp"
#include "nodes/cclo/RxBufferManager.hpp"
#include "nodes/memory/MemorySystem.hpp"
#include "simcore/engine/Scheduler.hpp"

#include <deque>
#include <functional>
#include <vector>

namespace nafsim::nodes {

enum class OperandKind : std::uint8_t { None, Memory, Stream, RxBuffer };
enum class ResultKind : std::uint8_t { None, Memory, Stream, Eager, Rendezvous };

struct Operand {
  OperandKind kind = OperandKind::None;
  std::uint64_t addr = 0;      ///< Memory
  std::uint32_t src_host = 0;  ///< RxBuffer: the message's sender
  std::uint64_t seq = 0;       ///< RxBuffer: its sequence number
};

struct Move {
  Operand op0, op1;
  ResultKind res = ResultKind::None;
  std::uint64_t res_addr = 0;  ///< Memory: local; Rendezvous: the peer's
  std::uint32_t peer = 0;      ///< Eager / Rendezvous destination host
  std::uint64_t seq = 0;       ///< Eager: sequence number of the message
  std::uint64_t bytes = 0;     ///< bytes of each operand and of the result
  bool reduce = false;         ///< op0 and op1 through the reduction plugin
  std::function<void()> on_done;
};

/// Where the DMP hands results bound for the network.
class TxSystem {
public:
  /// Send an eager message; returns when its data has been handed to the POE.
  virtual SimTime send_eager(std::uint32_t peer, std::uint64_t seq, std::uint64_t bytes, Stream data) = 0;
  /// RDMA WRITE to the peer's buffer, then the completion notice; `done` runs when the notice is sent.
  virtual void write_rendezvous(std::uint32_t peer, std::uint64_t remote_addr, std::uint64_t bytes, Stream data,
                                std::function<void()> done) = 0;

protected:
  ~TxSystem() = default;
};

struct DmpCounters {
  std::uint64_t moves = 0;
  std::uint64_t bytes = 0;
  SimTime busy;       ///< time with at least one move streaming (union of the moves' intervals)
  SimTime rx_waits;   ///< time the head move waited for a message
  std::size_t max_queue = 0; ///< most moves queued behind the issue stage
};

class DataMover final : public EventHandler {
public:
  DataMover(const DmpConfig& cfg, unsigned seek_cycles, Hertz clock, BitsPerSecond network, Scheduler& sched,
            MemorySystem& mem, RxBufferManager& rbm, TxSystem& tx);
  void submit(Move m);
  /// A message completed in an Rx buffer: a waiting move may find it.
  void rx_arrived();
  std::size_t queued() const { return queue_.size(); }
  const DmpCounters& counters() const { return c_; }
  /// What the head move waits for, if it waits (diagnoses).
  std::string waiting() const;

  void on_event(std::uint32_t kind, std::uint64_t arg) override;

private:
  enum EventKind : std::uint32_t { kTry, kDone };
  void try_start();
  void start(Move& m, SimTime t, std::optional<std::size_t> rx);
  void finish_at(SimTime t, std::function<void()> fn);

  DmpConfig cfg_;
  unsigned seek_cycles_;
  SimTime cycle_;
  BitsPerSecond datapath_;
  BitsPerSecond network_;
  Scheduler& sched_;
  MemorySystem& mem_;
  RxBufferManager& rbm_;
  TxSystem& tx_;
  std::deque<Move> queue_;
  SimTime issue_free_;
  SimTime busy_until_; ///< end of the latest streaming interval counted in c_.busy
  bool waiting_rx_ = false;
  SimTime waiting_since_;
  bool try_scheduled_ = false;
  std::vector<std::function<void()>> done_;
  std::vector<std::uint64_t> free_done_;
  DmpCounters c_;
};

} // namespace nafsim::nodes
