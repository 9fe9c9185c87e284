#pragma once
// What a NIC engine's events are spent on, for critical paths (simcore/engine/CausalGraph.hpp): every engine (RdmaPoe,
// TcpPoe, UdpPoe, LantNi) names its event kinds once; the staged send's wake-up (TxWake) is the payload still
// streaming in from its source (the data mover, a host DMA), not the engine.

#include "simcore/engine/CausalGraph.hpp"
#include "simcore/engine/Scheduler.hpp"

#include <array>
#include <cstdint>

namespace nafsim::nodes {

/// The label of a staged packet's wait for its bytes from their source (the data mover, a host DMA): the wake-up's, and
/// an engine's own where it names that wait itself.
inline std::uint32_t payload_stream_what()
{
  static const std::uint32_t id = cause_what("payload stream", "bytes not yet streamed to the NIC");
  return id;
}

/// The parent of a staged packet's wait for its engine's own transmit pipeline (TxWake::at): the step staging it, not
/// a later pull that finds it not ready yet (that walked a path back through the port's earlier packets and blamed a
/// "payload stream"); the step running now when the run records no causes (nothing reads it then).
inline std::uint32_t staging_step(const Scheduler& s)
{
  return s.causes() ? s.cause_mark() : Scheduler::kRunningStep;
}

/// The interned labels of an engine's event kinds: `details[kind]`, on resource `engine`; kind `tx_wake` on the
/// payload stream.
template <std::size_t N>
std::array<std::uint32_t, N> engine_causes(const char* engine, const char* const (&details)[N], std::uint32_t tx_wake)
{
  std::array<std::uint32_t, N> ids{};
  for (std::size_t k = 0; k < N; ++k)
    ids[k] = k == tx_wake ? payload_stream_what() : cause_what(engine, details[k]);
  return ids;
}

} // namespace nafsim::nodes
