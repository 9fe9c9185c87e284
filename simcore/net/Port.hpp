#pragma once
// One egress port: the sending side of a cable at a host NIC or a switch. It serializes one
// packet at a time at line rate; the queue holds packets waiting for it (switch ports only: a
// host port pulls from its endpoint instead). A port is serializing until `free_at`; it takes its
// next packet then through an event that is scheduled only when something waits for it (Fabric::kick),
// so a packet crossing idle switch ports costs one event per hop, its arrival.

#include "simcore/engine/Fifo.hpp"
#include "simcore/engine/Rng.hpp"
#include "simcore/units/Units.hpp"

#include <cstdint>
#include <deque>
#include <vector>

namespace nafsim::net {

struct PortCounters {
  std::uint64_t tx_packets  = 0;
  std::uint64_t tx_bytes    = 0;
  std::uint64_t max_queue_bytes = 0;
  std::uint64_t queue_drops = 0; ///< tail drops: the queue was full
  std::uint64_t fault_drops = 0; ///< lost on this cable (fault injection)
  std::uint64_t corrupted   = 0; ///< corrupted on this cable (fault injection)
  std::uint64_t duplicated  = 0; ///< delivered twice by this cable (fault injection)
  std::uint64_t held_back   = 0; ///< delayed by this cable so that later packets overtake (fault injection)
  std::uint64_t pauses = 0; ///< lossless flow control: times this port waited for room downstream
  SimTime paused;           ///< ... and for how long in all
};

struct Port {
  // Wiring (fixed).
  std::uint32_t vertex    = 0;
  std::uint32_t index     = 0; ///< port number at its vertex
  std::uint32_t peer      = 0; ///< vertex at the other end
  std::uint32_t peer_port = 0;
  BitsPerSecond rate;
  LineRate line;
  SimTime propagation;
  std::uint64_t capacity = 0; ///< queue capacity in bytes (0 = unlimited)
  bool peer_is_host = false;

  // State.
  Fifo<std::uint32_t> queue; ///< packet slots waiting
  std::uint64_t queued_bytes = 0;
  SimTime free_at;                    ///< the packet being serialized is out at this date
  bool wake_pending          = false; ///< a kTxDone event will take the next packet at free_at
  bool pulling               = false; ///< host ports: inside the endpoint's pull()
  bool source_ready          = false; ///< host ports: the endpoint has something to send
  // Lossless flow control (SwitchConfig::flow_control).
  std::uint64_t reserved = 0;             ///< bytes upstream ports have sent toward this queue
  std::uint32_t held     = UINT32_MAX;    ///< packet slot waiting for room at the next switch
  PortCounters counters;
  // Seldom used (lossless pauses, faults): after what every hop reads and writes, which then fits in three
  // cache lines of the port's five.
  SimTime paused_since;
  std::vector<std::uint32_t> blocked;     ///< upstream ports waiting for room in this queue
  Rng rng;                           ///< this cable's fault stream
};

} // namespace nafsim::net
