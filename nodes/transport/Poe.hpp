#pragma once
// What every protocol offload engine offers the blocks above it (the CCLO's Tx/Rx systems, an MPI
// library): post SENDs (placed by the receiver), WRITEs and READs on a connection (a RoCE queue pair,
// a TCP session, a UDP peer), have incoming SENDs placed by a provider, and report completions and
// inbound messages to a listener. RDMA carries WRITE/READ as one-sided verbs; the stream and datagram
// engines carry them as framed requests the peer's engine serves.

#include "nodes/platform/ConnectionId.hpp"
#include "protocols/roce/Actions.hpp"
#include "protocols/roce/Responder.hpp"
#include "simcore/engine/CausalGraph.hpp"
#include "simcore/net/Endpoint.hpp"

#include <functional>
#include <type_traits>

namespace nafsim::results {
class Trace;
}

namespace nafsim::nodes {

/// Receives what a POE reports to its node.
class PoeListener {
public:
  virtual void on_completion(QpId qp, const roce::Completion& c) = 0;
  virtual void on_inbound(QpId qp, const roce::InboundMessage& m) = 0;

  /// An inbound message this listener takes a fixed `delay` after it falls due, with nothing at the due date itself
  /// that anyone else observes (the CCLO's Rx system parses a SEND rx_cycles after it landed), and what the delay
  /// is spent on. A delay above zero lets the engine hand it over once, through on_inbound_late at due + delay,
  /// instead of on_inbound at the due date and the listener's own event after it (issue 53). None by default.
  struct Late {
    SimTime delay;
    CauseLabel label;
  };
  virtual Late inbound_delay(QpId /*qp*/, const roce::InboundMessage& /*m*/) const { return {}; }
  /// A message inbound_delay gave a delay for, at its due date `due` + that delay.
  virtual void on_inbound_late(QpId qp, const roce::InboundMessage& m, SimTime /*due*/) { on_inbound(qp, m); }

protected:
  ~PoeListener() = default;
};

/// When the payload bytes [offset, offset + length) of a message are ready for the wire (e.g. the
/// CCLO's data mover streaming them in); empty: the POE's own memory read. A stream (`stream`: a header ready at
/// its start, then the bytes at a rate, as the CCLO's Tx system forwards a move's output) is held as three
/// numbers; any other rule as a function (a closure of the CCLO's stream was a heap allocation per message).
class PayloadSource {
public:
  PayloadSource() = default;
  template <class F>
    requires std::is_invocable_r_v<SimTime, F&, std::uint64_t, std::uint32_t> &&
             (!std::is_same_v<std::decay_t<F>, PayloadSource>)
  PayloadSource(F f) : fn_(std::move(f)) // NOLINT: implicit, as the std::function it replaced
  {
  }
  /// Bytes [0, header) ready at `start`, byte `header + k` at start + the time `k + 1` bytes take at `rate`.
  static PayloadSource stream(SimTime start, std::uint64_t header, BitsPerSecond rate)
  {
    PayloadSource s;
    s.stream_ = true;
    s.start_  = start;
    s.header_ = header;
    s.rate_   = rate;
    return s;
  }
  explicit operator bool() const { return stream_ || static_cast<bool>(fn_); }
  SimTime operator()(std::uint64_t offset, std::uint32_t length) const
  {
    if (!stream_)
      return fn_(offset, length);
    const std::uint64_t end = offset + length;
    return end <= header_ ? start_ : start_ + transmit_time(Bytes{end - header_}, rate_);
  }

private:
  std::function<SimTime(std::uint64_t, std::uint32_t)> fn_;
  bool stream_ = false;
  SimTime start_;
  std::uint64_t header_ = 0;
  BitsPerSecond rate_;
};

class Poe : public net::Endpoint {
public:
  bool sends_frames() const override { return true; } ///< (each engine's make_packet: ethernet.wire_bytes)
  virtual ~Poe() = default;
  virtual void post_send(QpId conn, const roce::WorkRequest& wr, PayloadSource source = {}) = 0;
  /// Every connection (present and future) takes its SEND receives from `p` (a shared pool).
  virtual void set_recv_provider(roce::RecvProvider p) = 0;
  virtual net::HostId peer_of(QpId conn) const = 0;
  /// Record work requests and inbound messages on track `pid` of the trace.
  virtual void set_trace(results::Trace* t, std::uint32_t pid) = 0;
};

} // namespace nafsim::nodes
