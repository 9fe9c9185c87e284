#pragma once
#include "simcore/config/Schema.hpp"

namespace nafsim::nodes {

/// Timing of the RDMA protocol offload engine around the RoCE state machines.
struct PoeConfig {
  SimTime tx_latency = SimTime::ns(200);
  SimTime rx_latency = SimTime::ns(200);
  Bytes tx_prefetch{32 * 1024};
  SimTime consumer_poll = SimTime::us(1);
  SimTime consumer_stall = SimTime::us(100000);
  /// (Engines share equal configurations: simcore/engine/Interned.hpp.)
  bool operator==(const PoeConfig&) const = default;
  template <class V> void describe(V& v)
  {
    v.field("tx_latency", tx_latency, "from a packet being scheduled to its first byte leaving the POE "
                                      "(packetization pipeline)");
    v.field("rx_latency", rx_latency, "from a packet's last byte arriving to the POE acting on it (parsing, "
                                      "ICRC, state lookup)");
    v.field("tx_prefetch", tx_prefetch, "payload bytes the POE may have in flight from memory ahead of the wire",
            config::Limits::at_least(64));
    v.field("consumer_poll", consumer_poll,
            "TCP and UDP engines: a stream stalled because its consumer had no room (no free Rx buffer) offers its "
            "next message again after this (the hardware resumes when a buffer frees; the model looks this often, so "
            "a resume is late by at most this); at least 1 ns: 0 would look again at the same instant for ever",
            config::Limits::at_least(1e-9));
    v.field("consumer_stall", consumer_stall,
            "TCP engine: a stream whose next message its consumer refused (no free Rx buffer) this long is reported as "
            "a simulated deadlock (the buffers never drain: every peer waits for another whose buffers are full) "
            "instead of being offered again every consumer_poll until the time limit, as RoCE's rnr_stall; 0: never");
  }
};

} // namespace nafsim::nodes
