#pragma once
// What a TCP segment carries that the state machines read. Sequence numbers are 64-bit stream
// offsets (a simulated session never wraps 2^32 bytes in practice; wrap-around is not modeled).
// Sessions are opened when the communicator is set up (the driver's session establishment), before
// any measured traffic: no SYN/FIN exchange is modeled.

#include <cstdint>

namespace nafsim::tcp {

struct Segment {
  std::uint32_t dst_session = 0; ///< the receiving engine's session number
  std::uint64_t seq         = 0; ///< stream offset of the first payload byte
  std::uint32_t len         = 0; ///< payload bytes
  std::uint64_t ack         = 0; ///< next stream byte the sender of this segment expects
  std::uint64_t window      = 0; ///< bytes the sender of this segment can still receive
  bool probe                = false; ///< zero-window probe: the receiver must answer with an ACK
  bool dsack                = false; ///< the ACK answers a segment its sender already had (D-SACK, RFC 2883)
};

} // namespace nafsim::tcp
