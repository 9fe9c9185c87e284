#pragma once
// Packets of the connectionless transport. No connection state exists: every data packet names its
// operation (the sender's op number), its place in it and the operation's destination range, so
// the receiver can act on it in any order.

#include <array>
#include <cstdint>
#include <variant>

namespace nafsim::lant {

/// An upper layer's message header (e.g. the CCLO's signature), carried by message operations.
using Header = std::array<std::uint64_t, 4>;

/// One packet of an RDMA operation. The first packet (index 0) of a registered operation carries the
/// registration type and the expected packet count.
struct DataPacket {
  std::uint64_t op      = 0; ///< the sender's op number (unique per sender)
  std::uint32_t index   = 0; ///< packet index in the operation
  std::uint32_t count   = 0; ///< packets in the operation
  std::uint64_t base    = 0; ///< destination address of the operation's first byte
  std::uint64_t bytes   = 0; ///< operation size
  std::uint32_t length  = 0; ///< payload bytes of this packet
  bool registered       = false;
  std::uint64_t msg     = 0; ///< content id (simulated payload)
  /// A message (two-sided SEND): the receiver chooses where it lands when it registers it; always
  /// registered. `header` travels with it (counted in the operation's bytes by the upper layer).
  bool message  = false;
  Header header{};
  bool first() const { return registered && index == 0; }
  std::uint64_t addr(std::uint32_t payload) const { return base + std::uint64_t{index} * payload; }
};

/// The packet index an ACK of a sender notification carries.
inline constexpr std::uint32_t kNotifyIndex = 0xFFFFFF;

/// Per-packet acknowledgement; `nack` asks for an immediate retransmission (CRC failure). An ACK
/// with index kNotifyIndex acknowledges the sender's notification of operation `op`.
struct AckPacket {
  std::uint64_t op    = 0;
  std::uint32_t index = 0;
  bool nack           = false;
};

/// The sender's completion notice for an unregistered operation, after its last ACK.
struct NotifyPacket {
  std::uint64_t op    = 0;
  std::uint64_t base  = 0;
  std::uint64_t bytes = 0;
  std::uint64_t msg   = 0;
  Header header{};
};

using Wire = std::variant<DataPacket, AckPacket, NotifyPacket>;

} // namespace nafsim::lant
