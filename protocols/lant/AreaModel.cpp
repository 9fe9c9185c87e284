#include "protocols/lant/AreaModel.hpp"

#include <algorithm>
#include <cmath>

namespace nafsim::lant {

AreaEstimate registration_area(unsigned entries, unsigned bitmask_bits, unsigned escape_packets,
                               unsigned long long packet_payload)
{
  const double w = bitmask_bits;
  AreaEstimate a;
  a.luts             = 1621.388 + 10.67956 * w - 0.00142675 * w * w;
  double depth       = std::pow(std::max(1.0, entries / 512.0), 0.6);
  double table       = 2.0 * std::ceil(w / 72.0) * depth;
  a.brams            = 43.0 + 2.0 + std::round(table * 2.0) / 2.0;
  a.measured_range   = entries >= 64 && entries <= 1024 && bitmask_bits >= 64 && bitmask_bits <= 1024 &&
                     escape_packets == 64 && packet_payload == 512;
  return a;
}

} // namespace nafsim::lant
