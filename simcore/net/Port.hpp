#pragma once
// One egress port: the sending side of a cable at a host NIC or a switch. It serializes one
// packet at a time at line rate; the queue holds packets waiting for it (switch ports only: a
// host port pulls from its endpoint instead). A port is serializing until `free_at`; it takes its
// next packet then through an event that is scheduled only when something waits for it (Fabric::kick),
// so a packet crossing idle switch ports costs one event per hop, its arrival.

#include "simcore/engine/Fifo.hpp"
#include "simcore/engine/Rng.hpp"
#include "simcore/units/Units.hpp"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace nafsim::net {

/// What a port counts that its hop does not touch (tx_packets, tx_bytes and max_queue_bytes are in Port's hot block).
struct PortCounters {
  std::uint64_t queue_drops = 0; ///< tail drops: the queue was full
  std::uint64_t fault_drops = 0; ///< lost on this cable (fault injection)
  std::uint64_t corrupted   = 0; ///< corrupted on this cable (fault injection)
  std::uint64_t duplicated  = 0; ///< delivered twice by this cable (fault injection)
  std::uint64_t held_back   = 0; ///< delayed by this cable so that later packets overtake (fault injection)
  std::uint64_t pauses = 0; ///< lossless flow control: times this port waited for room downstream
  SimTime paused;           ///< ... and for how long in all
};

struct alignas(64) Port {
  // Hot: what a packet's hop reads and writes (forward, enqueue, transmit), in the port's first two cache lines
  // (128 bytes, aligned: the pair of lines an Intel L2's spatial prefetcher fetches together). At thousands of
  // nodes every hop finds its port out of cache, and fields spread over three or four lines cost a miss each.
  LineRate line;
  SimTime free_at;                    ///< the packet being serialized is out at this date
  std::uint64_t queued_bytes = 0;
  std::uint64_t capacity     = 0;     ///< queue capacity in bytes (0 = unlimited)
  SimTime propagation;
  Fifo<std::uint32_t> queue;          ///< packet slots waiting
  std::uint32_t peer         = 0;     ///< vertex at the other end
  bool wake_pending          = false; ///< a kTxDone event will take the next packet at free_at
  bool pulling               = false; ///< host ports: inside the endpoint's pull()
  bool source_ready          = false; ///< host ports: the endpoint has something to send
  bool peer_is_host          = false;
  std::uint64_t tx_packets      = 0;
  std::uint64_t tx_bytes        = 0;
  std::uint64_t max_queue_bytes = 0;

  // Wiring (fixed), the rest of the counters, and what lossless flow control and faults use.
  PortCounters counters;
  std::uint32_t vertex    = 0;
  std::uint32_t index     = 0; ///< port number at its vertex
  std::uint32_t peer_port = 0;
  std::uint32_t held      = UINT32_MAX; ///< lossless: packet slot waiting for room at the next switch
  BitsPerSecond rate;
  std::uint64_t reserved = 0;             ///< lossless: bytes upstream ports have sent toward this queue
  SimTime paused_since;
  std::vector<std::uint32_t> blocked;     ///< upstream ports waiting for room in this queue
  /// Host ports: the place (Scheduler::reserve_place) of the question at free_at not asked, its endpoint having said
  /// that it is idle until it calls tx_ready() (Endpoint::idle_until_told); 0: none.
  std::uint64_t skipped_pull = 0;
  /// Host ports, in a run recording causes: the port's busy spans recorded (kTxBusy events pending) with no question
  /// kept, and the step that started its last packet (a pull that then waits for the port walks back to it).
  std::uint32_t busy_recorded = 0;
  std::uint32_t busy_cause    = 0;
  std::uint64_t last_flow    = 0; ///< fast_forward: the flow of the packet it started last (Fabric::path_clear)
  Rng rng;                           ///< this cable's fault stream
};

static_assert(offsetof(Port, counters) == 128, "a port's hot fields fill its first two cache lines");

} // namespace nafsim::net
