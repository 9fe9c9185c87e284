#pragma once
// Parameters of the UDP offload engine of ACCL's XRT builds (the Vitis 100 Gb/s UDP stack with the
// CCLO's packetizer): each message leaves as datagrams, each carrying the message signature so the
// receiver can put it where it belongs. Nothing is acknowledged or resent.

#include "simcore/config/Schema.hpp"

namespace nafsim::udp {

struct UdpConfig {
  Bytes packet{1536};
  Bytes headers{28};
  Bytes fragment_header{64};

  /// Message bytes per datagram.
  std::uint64_t fragment_payload() const { return packet.count - headers.count - fragment_header.count; }

  config::FieldProblem check() const
  {
    if (headers.count + fragment_header.count >= packet.count)
      return {"packet", "a " + format_bytes(packet) + " datagram holds no message bytes after its headers (" +
                            format_bytes(headers) + ") and fragment header (" + format_bytes(fragment_header) +
                            "): raise packet or lower the headers"};
    return {};
  }

  template <class V> void describe(V& v)
  {
    v.field("packet", packet, "IP packet size of every datagram (ACCL's XRT builds: 1536 B)",
            config::Limits::between(256, 9216));
    v.field("headers", headers, "IPv4 (20) + UDP (8) header bytes per datagram", config::Limits::between(28, 120));
    v.field("fragment_header", fragment_header,
            "bytes of message signature the packetizer puts in every datagram (source, message, offset, length)",
            config::Limits::between(8, 512));
  }
};

} // namespace nafsim::udp
