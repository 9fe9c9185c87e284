#pragma once
// The CCLO's one way to the network (its Tx and Rx systems' side of the node's transport): a named interface the
// node kind wires (nodes/fpga/CcloWiring.cpp) to the RoCE POE, the TCP or UDP engine, or the connectionless NI.

#include "nodes/transport/Poe.hpp"
#include "protocols/roce/Responder.hpp"

#include <cstdint>
#include <functional>
#include <string>

namespace nafsim::nodes {

/// How the CCLO's Tx system reaches the network: the node's transport (the RoCE POE, or the
/// connectionless NI). Completions and inbound notices come back through Cclo::on_completion and
/// Cclo::on_inbound.
struct CcloLink {
  /// Post a SEND (the receiver places it) or a WRITE to `peer`; `source` tells when payload bytes are ready;
  /// `accepted` (if the link reports it, see below) runs when the transport has taken the last byte.
  std::function<void(std::uint32_t peer, const roce::WorkRequest& wr, PayloadSource source,
                     std::function<void()> accepted)>
      post;
  /// The transport tells when it has taken a message's last byte (the RoCE POE's transmit buffer);
  /// otherwise the CCLO takes the last byte as accepted when the data mover produces it.
  bool reports_acceptance = false;
  /// Messages on a connection arrive in the order posted (RoCE RC): the WRITE's completion notice can follow it
  /// at once. Otherwise (the connectionless transport) it is sent once the WRITE has completed.
  bool ordered = false;
  /// The transport reports a message's completion once the peer acknowledged its last byte, promptly enough to stand
  /// for its delivery (RoCE RC, the connectionless transport). ASSUMPTION: not TCP, whose stack acknowledges a lone
  /// segment only after its delayed-ACK time (44 us on the XRT preset), which would stand for a later delivery than
  /// the one the trace means; nor UDP, which acknowledges nothing.
  bool acknowledges = false;
  /// Who places incoming SENDs (the Rx system: Rx buffers or the control slot).
  std::function<void(roce::RecvProvider)> set_recv_provider;
  /// The transport carries the rendezvous protocol's one-sided WRITE (RDMA). Over TCP and UDP the
  /// firmware runs every call eager (ACCL+ section 4.4: eager over UDP/TCP, rendezvous over RDMA).
  bool rendezvous = true;
  /// The transport's name, for errors.
  std::string transport = "roce";
  /// The largest SEND (header included) the transport can place at its receiver, and what to change to place more
  /// (the connectionless transport's registration range); 0: any size.
  std::uint64_t max_send = 0;
  std::string max_send_fix;
  /// The largest rendezvous WRITE the transport takes in one request, and where that limit comes from; 0: any size.
  std::uint64_t max_write = 0;
  std::string max_write_why;
};

/// Coyote's RDMA requests carry their length in LEN_BITS = 28 bits (lynx_pkg.sv; ACCL's Coyote adapter,
/// cyt.h: CYT_LEN_BITS 28, assigns the CCLO's 32-bit length to it): one WRITE of at most 256 MiB - 1 B. Neither the
/// firmware (a rendezvous block is one start_move), the Tx system (rdma_sq_handler.cpp: `rdma_req.len =
/// cmd_in_word.count`) nor Coyote splits a larger one: the length is cut to its low 28 bits.
inline constexpr std::uint64_t kCoyoteMaxWrite = (std::uint64_t{1} << 28) - 1;

} // namespace nafsim::nodes
