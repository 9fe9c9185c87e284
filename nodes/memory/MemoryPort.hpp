#pragma once
// One memory engine (a read or write data mover of a block): a pipelined bus. An access occupies
// the bus for bytes / rate, where rate is the engine's bandwidth or a slower consumer/producer
// (back-pressure); its first data is available `latency` after it starts, its last `latency` after
// it leaves the bus. Back-to-back accesses therefore stream at the bandwidth and pay the latency
// once.

#include "simcore/config/Schema.hpp"
#include "simcore/units/Units.hpp"

#include <algorithm>

namespace nafsim::nodes {

struct MemoryConfig {
  BitsPerSecond read_bandwidth{128e9};
  BitsPerSecond write_bandwidth{128e9};
  SimTime read_latency  = SimTime::ns(250);
  SimTime write_latency = SimTime::ns(250);
  /// false: every engine has a channel of its own. true: one channel of channel_bandwidth that all engines
  /// reach through a memory crossbar (RecoNIC's mem_crossbar to one DDR4 channel), reads and writes alike.
  bool shared_channel = false;
  BitsPerSecond channel_bandwidth{153.6e9};
  template <class V> void describe(V& v)
  {
    v.field("read_bandwidth", read_bandwidth, "sustained read bandwidth of one engine's port into device memory (host memory is read at the PCIe rate)");
    v.field("write_bandwidth", write_bandwidth, "sustained write bandwidth of one engine's port into device memory (host memory is written at the PCIe rate)");
    v.field("read_latency", read_latency, "time from a read request to its first data");
    v.field("write_latency", write_latency, "time from write data to its completion");
    v.field("shared_channel", shared_channel,
            "false: each engine has its own memory channel (the HBM pseudo-channels of the U55C); true: every "
            "engine reaches one channel through a memory crossbar (a DDR4 DIMM), reads and writes alike, granted "
            "in whole accesses in the order they come");
    v.field("channel_bandwidth", channel_bandwidth, "bandwidth of the shared channel (shared_channel)");
  }
};

/// When a stream's bytes are available: the first at `first`, byte x at first + x / rate.
struct Stream {
  SimTime first;
  SimTime last;
  BitsPerSecond rate;
  std::uint32_t cause = 0;      ///< critical paths: what paces it (an interned label, CausalGraph.hpp; 0: not said)
  std::uint32_t lead_cause = 0; ///< ... and what delays its first byte (up to `first`)
};

class MemoryPort {
public:
  MemoryPort(BitsPerSecond bandwidth, SimTime latency) : bw_(bandwidth), line_(bandwidth), latency_(latency) {}
  /// Issue an access of `b` bytes at `now` at the full bandwidth; returns when it completes.
  SimTime access(SimTime now, Bytes b) { return stream(now, b, bw_).last; }
  /// Stream `b` bytes at `now`, no faster than `cap` (the slowest other stage).
  Stream stream(SimTime now, Bytes b, BitsPerSecond cap)
  {
    BitsPerSecond rate = cap.bps < bw_.bps ? cap : bw_;
    SimTime start      = std::max(now, bus_free_);
    SimTime dur        = rate.bps == bw_.bps ? line_.time_for(b) : transmit_time(b, rate);
    bus_free_          = start + dur;
    busy_ += dur;
    bytes_ += b.count;
    ++accesses_;
    return Stream{start + latency_, bus_free_ + latency_, rate};
  }
  /// Count an access that used the bus while others were reserved around it (it does not move them).
  void account(Bytes b, SimTime busy)
  {
    busy_ += busy;
    bytes_ += b.count;
    ++accesses_;
  }
  BitsPerSecond bandwidth() const { return bw_; }
  SimTime latency() const { return latency_; }
  std::uint64_t bytes() const { return bytes_; }
  std::uint64_t accesses() const { return accesses_; }
  SimTime busy() const { return busy_; }

private:
  BitsPerSecond bw_;
  LineRate line_;
  SimTime latency_;
  SimTime bus_free_;
  SimTime busy_;
  std::uint64_t bytes_    = 0;
  std::uint64_t accesses_ = 0;
};

} // namespace nafsim::nodes
