#pragma once
// One direction of a memory interface (read or write): a pipelined bus. Each access occupies the
// bus for bytes / bandwidth; its data is available `latency` after it leaves the bus. Back-to-back
// accesses therefore stream at the bandwidth and pay the latency once.

#include "simcore/config/Schema.hpp"
#include "simcore/units/Units.hpp"

#include <algorithm>

namespace nafsim::nodes {

struct MemoryConfig {
  BitsPerSecond read_bandwidth{128e9};
  BitsPerSecond write_bandwidth{128e9};
  SimTime read_latency  = SimTime::ns(250);
  SimTime write_latency = SimTime::ns(250);
  template <class V> void describe(V& v)
  {
    v.field("read_bandwidth", read_bandwidth, "sustained read bandwidth seen by one engine");
    v.field("write_bandwidth", write_bandwidth, "sustained write bandwidth seen by one engine");
    v.field("read_latency", read_latency, "time from a read request to its first data");
    v.field("write_latency", write_latency, "time from write data to its completion");
  }
};

class MemoryPort {
public:
  MemoryPort(BitsPerSecond bandwidth, SimTime latency) : bw_(bandwidth), latency_(latency) {}
  /// Issue an access of `b` bytes at `now`; returns when its data is available / written.
  SimTime access(SimTime now, Bytes b)
  {
    SimTime start = std::max(now, bus_free_);
    bus_free_     = start + bw_.time_for(b);
    bytes_ += b.count;
    ++accesses_;
    return bus_free_ + latency_;
  }
  std::uint64_t bytes() const { return bytes_; }
  std::uint64_t accesses() const { return accesses_; }

private:
  LineRate bw_;
  SimTime latency_;
  SimTime bus_free_;
  std::uint64_t bytes_    = 0;
  std::uint64_t accesses_ = 0;
};

} // namespace nafsim::nodes
