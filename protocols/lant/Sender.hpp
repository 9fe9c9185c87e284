#pragma once
// The sending half of the connectionless transport (paper section 3, Fig 1 and 3): command queues
// fed by the CPU and by accelerators, the Large Transfer queue that cuts big commands into
// segments, the DMA operation table (one op number per operation, count of acknowledged packets)
// and the DMA transaction table (one entry and timeout per unacknowledged packet; timeouts and
// NACKs build retransmission entries). Both tables are real limits: when one is full the DMA
// engine waits, and the wait is counted.

#include "protocols/lant/Actions.hpp"
#include "protocols/lant/LantConfig.hpp"

#include <array>
#include <deque>
#include <optional>
#include <unordered_map>

namespace nafsim::lant {

struct SenderCounters {
  std::uint64_t commands_posted       = 0;
  std::uint64_t command_queue_full    = 0; ///< posts refused because the queue was full
  std::uint64_t segments              = 0; ///< operations cut from Large Transfer commands
  std::uint64_t operations            = 0; ///< operations started (op numbers issued)
  std::uint64_t operations_completed  = 0;
  std::uint64_t operations_failed     = 0;
  std::uint64_t packets_sent          = 0; ///< first transmissions
  std::uint64_t retransmitted         = 0;
  std::uint64_t retransmit_requests   = 0; ///< retransmission entries built (timeouts and NACKs)
  std::uint64_t retransmit_on_timeout = 0; ///< ... of them on a data packet's timeout
  std::uint64_t retransmit_on_nack    = 0; ///< ... of them on a NACK (a timeout or NACK for a packet already queued
                                           ///< builds none: `timeouts` and `nacks_received` count those too)
  std::uint64_t retransmissions_cancelled = 0; ///< entries dropped because the ACK came first
  std::uint64_t timeouts              = 0;
  std::uint64_t nacks_received        = 0;
  std::uint64_t acks_received         = 0;
  std::uint64_t stale_acks            = 0; ///< ACKs for packets already acknowledged
  std::uint64_t notifications_sent    = 0; ///< sender notifications of unregistered operations
  std::uint64_t notifications_resent  = 0; ///< ... sent again after their ACK timed out
  std::uint64_t op_table_stalls       = 0; ///< times the DMA engine waited for a free op entry
  SimTime op_table_stall_time;
  std::uint64_t transaction_table_stalls = 0;
  SimTime transaction_table_stall_time;
};

class Sender {
public:
  /// `self`: this node's id (for error messages).
  Sender(const LantConfig& cfg, std::uint32_t self);

  /// Whether queue `queue` can take a command of `bytes` (a message or not) now.
  bool can_post(unsigned queue, std::uint64_t bytes, bool message = false) const;
  /// Queue a command. False (and counted) when its queue is full: the poster waits and retries.
  bool post(const Command& c, SimTime now, Actions& out);

  struct TxPacket {
    DataPacket pkt;
    std::uint32_t dst          = 0;
    std::uint64_t local_addr   = 0; ///< where the DMA engine reads the payload
    std::uint64_t command      = 0;
    bool retransmission        = false;
    bool starts_command        = false; ///< the DMA engine fetches a new descriptor first
    bool last_of_command       = false; ///< its departure means the command's data is all pushed
  };
  /// The DMA engine's next packet now (retransmissions first), or nothing: no work, or a full
  /// table (the wait is counted; an ACK that frees an entry asks for transmission again).
  std::optional<TxPacket> next_packet(SimTime now, Actions& out);
  /// Whether packet (op, index) still needs to go out (an ACK may have overtaken a staged copy).
  bool still_needed(std::uint64_t op, std::uint32_t index) const;

  void on_ack(const AckPacket& a, SimTime now, Actions& out);
  void on_timer(SimTime now, Actions& out);
  /// Earliest pending packet timeout (SimTime::max() when none).
  SimTime next_deadline();

  const SenderCounters& counters() const { return c_; }
  std::size_t ops_in_flight() const { return ops_.size(); }
  std::size_t transactions_in_flight() const { return txns_.size(); }
  std::size_t queued_commands() const;

private:
  struct Queued {
    Command cmd;
    std::uint64_t offset = 0; ///< Large Transfer queue: bytes already issued as segments
  };
  struct Op {
    std::uint64_t command = 0;
    std::uint32_t dst     = 0;
    std::uint64_t local   = 0;
    std::uint64_t remote  = 0;
    std::uint64_t bytes   = 0;
    std::uint64_t msg     = 0;
    std::uint32_t count   = 0;
    std::uint32_t next    = 0; ///< next packet to send for the first time
    std::uint32_t acked   = 0;
    bool registered       = false;
    bool final            = true; ///< the command's last (or only) operation: raises local completion
    bool message          = false;
    bool data_acked       = false; ///< every packet acknowledged (counted off its command's open segments)
    Header header{};
  };
  struct Txn {
    SimTime deadline;
    unsigned retries = 0;
    bool queued      = false; ///< waiting in the retransmission queue
  };
  static std::uint64_t key(std::uint64_t op, std::uint32_t index) { return (op << 24) | index; }

  bool start_operation(SimTime now);
  TxPacket packet(std::uint64_t op, const Op& o, std::uint32_t index) const;
  void retransmit(std::uint64_t k, Txn& t, SimTime now, Actions& out, const char* why);
  void fail(std::uint64_t op, const std::string& why, Actions& out);
  void stall(bool& flag, SimTime& since, std::uint64_t& episodes, SimTime now);
  void unstall(bool& flag, SimTime since, SimTime& total, SimTime now);

  LantConfig cfg_;
  std::uint32_t self_;
  std::array<std::deque<Queued>, 3> queues_; ///< CPU, accelerator, Large Transfer
  unsigned rr_ = 0;
  std::uint64_t next_op_ = 1;
  std::unordered_map<std::uint64_t, Op> ops_;
  /// A segmented command's operations whose packets are not all acknowledged yet, by command id: its local completion
  /// waits for the last of them (a lost packet of an earlier segment can outlive the final segment).
  struct Segmented {
    unsigned open  = 0;     ///< operations issued and not all acknowledged
    bool last_issued = false; ///< the final one has been issued
    bool failed      = false; ///< one of them failed (reported): no completion follows
  };
  std::unordered_map<std::uint64_t, Segmented> open_segments_;
  std::optional<std::uint64_t> current_; ///< operation the DMA engine is packetizing
  bool current_starts_ = false;
  std::unordered_map<std::uint64_t, Txn> txns_;
  std::deque<std::pair<SimTime, std::uint64_t>> timers_; ///< (deadline, key), in deadline order
  std::deque<std::uint64_t> retx_;
  bool op_stalled_ = false, txn_stalled_ = false;
  SimTime op_stall_since_, txn_stall_since_;
  SenderCounters c_;
};

} // namespace nafsim::lant
