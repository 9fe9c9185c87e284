#pragma once
// What every protocol offload engine offers the blocks above it (the CCLO's Tx/Rx systems, an MPI
// library): post SENDs (placed by the receiver), WRITEs and READs on a connection (a RoCE queue pair,
// a TCP session, a UDP peer), have incoming SENDs placed by a provider, and report completions and
// inbound messages to a listener. RDMA carries WRITE/READ as one-sided verbs; the stream and datagram
// engines carry them as framed requests the peer's engine serves.

#include "protocols/roce/Actions.hpp"
#include "protocols/roce/Responder.hpp"
#include "simcore/net/Endpoint.hpp"

#include <functional>

namespace nafsim::results {
class Trace;
}

namespace nafsim::nodes {

/// A connection number local to one engine (queue pair, session).
using QpId = std::uint32_t;

/// Receives what a POE reports to its node.
class PoeListener {
public:
  virtual void on_completion(QpId qp, const roce::Completion& c) = 0;
  virtual void on_inbound(QpId qp, const roce::InboundMessage& m) = 0;

protected:
  ~PoeListener() = default;
};

/// When the payload bytes [offset, offset + length) of a message are ready for the wire (e.g. the
/// CCLO's data mover streaming them in); the default is the POE's own memory read.
using PayloadSource = std::function<SimTime(std::uint64_t offset, std::uint32_t length)>;

class Poe : public net::Endpoint {
public:
  virtual ~Poe() = default;
  virtual void post_send(QpId conn, const roce::WorkRequest& wr, PayloadSource source = {}) = 0;
  /// Every connection (present and future) takes its SEND receives from `p` (a shared pool).
  virtual void set_recv_provider(roce::RecvProvider p) = 0;
  virtual net::HostId peer_of(QpId conn) const = 0;
  /// Record work requests and inbound messages on track `pid` of the trace.
  virtual void set_trace(results::Trace* t, std::uint32_t pid) = 0;
};

} // namespace nafsim::nodes
