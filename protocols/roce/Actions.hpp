#pragma once
// What the RoCE state machines ask their executor (the POE in nodes/) to do.

#include "protocols/roce/Wire.hpp"
#include "simcore/units/Units.hpp"

#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace nafsim::roce {

/// A work request posted to a queue pair's send queue.
struct WorkRequest {
  std::uint64_t wr_id       = 0;
  Verb verb                 = Verb::Write;
  std::uint64_t local_addr  = 0;
  std::uint64_t remote_addr = 0;
  std::uint64_t length      = 0;
  std::uint64_t msg         = 0; ///< content id of the payload (simulated checksums)
  AppHeader header{};           ///< carried by the first packet (e.g. the CCLO message signature)
  /// Critical paths: what paces the payload the caller streams in (an interned label of the simulator's causal
  /// graph; 0: the engine reads it from memory itself). Carried, never interpreted, by the protocol.
  std::uint32_t payload_cause = 0;
  std::uint32_t payload_lead_cause = 0; ///< ... and what delays its first byte, ready at `payload_first` (ps)
  std::int64_t payload_first       = 0;
};

/// A receive posted for incoming SENDs.
struct RecvRequest {
  std::uint64_t wr_id      = 0;
  std::uint64_t local_addr = 0;
  std::uint64_t length     = 0;
};

enum class Status { Success, RetryExceeded, RnrRetryExceeded, LocalLengthError, Flushed };
const char* status_name(Status s);

/// Call on_timer(token) at `at`.
struct ArmTimer {
  SimTime at;
  std::uint64_t token = 0;
};
/// A send-queue work request finished (WRITE/SEND: acknowledged; READ: data in local memory).
struct Completion {
  std::uint64_t wr_id = 0;
  Verb verb           = Verb::Write;
  Status status       = Status::Success;
  std::uint64_t bytes = 0;
  Psn psn             = 0; ///< failures: the PSN that could not be delivered
  unsigned attempts   = 0; ///< failures: timeouts or RNR NAKs endured
  std::optional<std::uint64_t> stream_byte; ///< TCP failures: the first unacknowledged stream byte (psn unused)
  std::uint64_t msg = 0;                    ///< the work request's `msg` (RoCE: its engine's in-flight record)
  SimTime stalled{}; ///< RNR failures under rnr_retry_limit 7: how long the same packet was refused (rnr_stall)
};
/// A sentence describing a failed completion, for error reports.
std::string describe_failure(const Completion& c);
/// Write received payload to local memory at `addr`.
struct PlaceData {
  std::uint64_t addr = 0;
  Segment seg;
  /// Whether writing this packet is a memory command of its own: every WRITE packet is (the RDMA stack writes
  /// each packet's payload at its address); a SEND's first packet is the receiver's one command for the whole
  /// message, and its further packets stream under it; a SEND the receiver consumes (RecvOffer::consumed) has none.
  bool command = true;
};
/// An incoming SEND or WRITE has been received completely (once its data is in memory).
struct InboundMessage {
  Verb verb                = Verb::Write;
  std::uint64_t msg        = 0;
  std::uint64_t addr       = 0;
  std::uint64_t bytes      = 0;
  std::uint64_t checksum   = 0;
  std::uint64_t recv_wr_id = 0; ///< SEND: the receive it consumed
  AppHeader header{};
};
/// The state machine has packets to transmit.
struct WantTx {};

using Action  = std::variant<ArmTimer, Completion, PlaceData, InboundMessage, WantTx>;
using Actions = std::vector<Action>;

} // namespace nafsim::roce
