#pragma once
// A packet as the network sees it. The transport's own header lives in `body` (a protocol-defined
// std::variant of small structs, stored inline: PacketBody); the fabric only reads the fields below.

#include "simcore/net/PacketBody.hpp"
#include "simcore/units/Units.hpp"

#include <cstdint>

namespace nafsim::net {

using HostId = std::uint32_t;

struct Packet {
  HostId src = 0;
  HostId dst = 0;
  std::uint32_t wire_bytes = 0; ///< bytes on the wire: every header, FCS, preamble and inter-frame gap
  std::uint64_t flow       = 0; ///< flow identity (ECMP hash); e.g. a queue-pair number
  std::uint32_t seq        = 0; ///< transport sequence number (deterministic drop rules)
  bool corrupted           = false;
  bool duplicate           = false;
  /// Strongly ECC-protected (e.g. the acknowledgements of Lant et al.'s transport): injected loss,
  /// corruption, duplication and reordering spare it; queue overflow does not.
  bool ecc_protected = false;

  // Flow fidelity (NetworkConfig::fidelity): a packet may stand for a whole message that the sender
  // would have cut into segments of `segment_wire_bytes` on the wire each (0: it is one packet),
  // whose last byte is ready for the wire no earlier than `tail_ready`.
  std::uint32_t segment_wire_bytes = 0;
  SimTime tail_ready;

  // Set by the fabric while the packet crosses it.
  std::uint16_t hops = 0;
  /// Fast-forward (NetworkConfig::fast_forward): the packets this one stands for, sent back to back (its wire bytes
  /// are theirs); 0 or 1: itself alone.
  std::uint16_t train = 0;
  SimTime tail_arrival;
  SimTime head_arrival; ///< flow fidelity: when its first segment was in (packet fidelity: = tail_arrival)
  SimTime not_before;
  std::uint32_t at_vertex = 0; ///< vertex the packet is travelling to
  std::uint32_t from_port = 0; ///< port (fabric-wide id) that transmitted it last
  std::uint32_t next_port = UINT32_MAX; ///< lossless: output port reserved at the next switch

  // Last: the fabric reads the fields above at every hop, which then share two cache lines.
  PacketBody body;
};

} // namespace nafsim::net
