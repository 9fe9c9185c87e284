#pragma once
// RoCEv2 packets as small structs in a std::variant (DESIGN.md section 7, rule 7).

#include "protocols/roce/Psn.hpp"
#include "protocols/roce/RoceConfig.hpp"

#include <array>
#include <cstdint>
#include <variant>

namespace nafsim::roce {

enum class Verb { Send, Write, Read };

enum class Opcode : std::uint8_t {
  SendFirst,
  SendMiddle,
  SendLast,
  SendOnly,
  WriteFirst,
  WriteMiddle,
  WriteLast,
  WriteOnly,
  ReadRequest,
  ReadResponseFirst,
  ReadResponseMiddle,
  ReadResponseLast,
  ReadResponseOnly,
};

constexpr bool is_first(Opcode o)
{
  return o == Opcode::SendFirst || o == Opcode::SendOnly || o == Opcode::WriteFirst || o == Opcode::WriteOnly ||
         o == Opcode::ReadResponseFirst || o == Opcode::ReadResponseOnly;
}
constexpr bool is_last(Opcode o)
{
  return o == Opcode::SendLast || o == Opcode::SendOnly || o == Opcode::WriteLast || o == Opcode::WriteOnly ||
         o == Opcode::ReadResponseLast || o == Opcode::ReadResponseOnly;
}
Opcode opcode_for(Verb v, std::uint32_t index, std::uint32_t count);
const char* opcode_name(Opcode o);

/// Payload bytes [offset, offset+length) of message `msg`, with their simulated checksum.
struct Segment {
  std::uint64_t msg      = 0;
  std::uint64_t offset   = 0;
  std::uint32_t length   = 0;
  std::uint64_t checksum = 0;
};

/// Simulated content checksum of bytes [begin, end) of message `msg`. It is additive over
/// adjacent ranges, so a message's checksum does not depend on how it was segmented, while a
/// missing, duplicated or corrupted segment changes the sum.
namespace detail {
/// splitmix64's finalizer.
constexpr std::uint64_t mix(std::uint64_t x)
{
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}
} // namespace detail
/// (The checksum of [0, at) is mix(mix(msg) ^ at), 0 for at = 0; inline, with mix(msg) taken once: every packet's
/// segment is made with one.)
inline std::uint64_t range_checksum(std::uint64_t msg, std::uint64_t begin, std::uint64_t end)
{
  const std::uint64_t m = detail::mix(msg);
  const std::uint64_t to   = end == 0 ? 0 : detail::mix(m ^ end);
  const std::uint64_t from = begin == 0 ? 0 : detail::mix(m ^ begin);
  return to - from;
}
inline Segment make_segment(std::uint64_t msg, std::uint64_t offset, std::uint32_t length)
{
  return Segment{msg, offset, length, range_checksum(msg, offset, offset + length)};
}

/// Application bytes a message carries at the start of its payload and that the receiving side
/// parses (the CCLO's message signature): opaque to the transport.
using AppHeader = std::array<std::uint64_t, 4>;

/// Requester -> responder: SEND and WRITE data, READ requests.
struct RequestPacket {
  std::uint32_t dst_qp = 0;
  Psn psn              = 0;
  Opcode op            = Opcode::SendOnly;
  bool ack_req         = false;
  std::uint64_t remote_addr = 0; ///< RETH: WRITE first/only, READ request
  std::uint64_t length      = 0; ///< RETH: DMA length
  Segment data;
  AppHeader header{}; ///< first packet of a message only
};

enum class Syndrome : std::uint8_t { Ack, NakSequence, NakRnr };

/// Responder -> requester: ACK / NAK.
struct AckPacket {
  std::uint32_t dst_qp = 0;
  Psn psn              = 0;
  Syndrome syndrome    = Syndrome::Ack;
};

/// Responder -> requester: READ response data.
struct ReadResponsePacket {
  std::uint32_t dst_qp = 0;
  Psn psn              = 0;
  Opcode op            = Opcode::ReadResponseOnly;
  Segment data;
};

using Wire = std::variant<RequestPacket, AckPacket, ReadResponsePacket>;

/// IP datagram bytes of a packet (everything between the Ethernet header and FCS).
std::uint64_t l3_bytes(const Wire& w, const RoceConfig& cfg);
Psn packet_psn(const Wire& w);
std::uint32_t packet_qp(const Wire& w);

} // namespace nafsim::roce
