#pragma once
// What the connectionless transport's state machines ask their executor (the NI in nodes/lant/)
// to do. Engine-free: inputs are packets, commands, timers and `now`; outputs are these actions.

#include "protocols/lant/Wire.hpp"
#include "simcore/config/Schema.hpp"

#include <functional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace nafsim::lant {

/// A protocol invariant broken by a packet or a command (names what and where).
class ProtocolError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Who tells the receiver that an operation is complete.
enum class Notify {
  Auto,     ///< the receiver, when the operation is within the registration range; else the sender
  Receiver, ///< registered: the receiver's table notices the last packet (error when too large)
  Sender    ///< unregistered: the sender's notification after the last ACK
};

/// An RDMA command posted by the CPU or an accelerator.
struct Command {
  std::uint64_t id          = 0; ///< the poster's id, returned in local notifications
  std::uint32_t dst         = 0;
  std::uint64_t local_addr  = 0;
  std::uint64_t remote_addr = 0;
  std::uint64_t bytes       = 0;
  std::uint64_t msg         = 0; ///< content id of the payload
  Notify notify             = Notify::Auto;
  unsigned queue            = 0; ///< 0 = CPU, 1 = accelerator
  bool message              = false; ///< a SEND: the receiver places it (must be registrable)
  Header header{};
};

/// Where the receiver puts an incoming message (decided when its first packet registers it).
struct Placement {
  enum class Status { Sender, NotReady, Ready };
  Status status      = Status::Sender; ///< Sender: at the address the sender gave
  std::uint64_t addr = 0;
  std::uint64_t id   = 0; ///< the receive buffer's id, returned in the notification
  std::uint64_t capacity = 0;
};
/// Chooses the placement of an incoming message from its source and first packet.
using PlacementProvider = std::function<Placement(std::uint32_t src, const DataPacket& first)>;

/// Send an ACK/NACK to `dst` (control path: ahead of data).
struct SendAck {
  std::uint32_t dst = 0;
  AckPacket ack;
};
/// Send the completion notice of an unregistered operation to its receiver.
struct SendNotify {
  std::uint32_t dst = 0;
  NotifyPacket notify;
};
/// Write a received packet's payload to local memory.
struct WriteData {
  std::uint32_t src = 0;
  DataPacket pkt;
  std::uint64_t addr = 0;
};
/// Receive-side notification: an operation's data is complete in local memory.
struct Delivered {
  std::uint32_t src   = 0;
  std::uint64_t op    = 0;
  std::uint64_t base  = 0; ///< where the data is (a message: where the receiver placed it)
  std::uint64_t bytes = 0;
  std::uint64_t msg   = 0;
  bool registered     = false;
  bool message        = false;
  std::uint64_t recv_id = 0; ///< a placed message: its receive buffer's id
  Header header{};
};
/// Sender-side notification for a command: `pushed` (all data handed to the network: the paper's
/// non-blocking send) or complete (every packet acknowledged), or failed.
struct LocalNotice {
  enum class Kind { Pushed, Complete, Failed } kind = Kind::Complete;
  std::uint64_t command = 0;
  std::string error;
};
/// The state machine has packets to transmit.
struct WantTx {};

using Action  = std::variant<SendAck, SendNotify, WriteData, Delivered, LocalNotice, WantTx>;
using Actions = std::vector<Action>;

} // namespace nafsim::lant

namespace nafsim::config {
template <> struct EnumNames<lant::Notify> {
  static constexpr std::array list{std::pair{lant::Notify::Auto, "auto"}, std::pair{lant::Notify::Receiver, "receiver"},
                                   std::pair{lant::Notify::Sender, "sender"}};
};
} // namespace nafsim::config
