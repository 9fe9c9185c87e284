#include "workloads/Workload.hpp"

#include "simcore/config/ConfigError.hpp"

#include <fmt/format.h>

namespace nafsim::workloads {

std::vector<std::uint64_t> message_sizes(const std::vector<Bytes>& sizes, Bytes min, Bytes max,
                                         std::uint64_t first_step)
{
  std::vector<std::uint64_t> v;
  if (!sizes.empty()) {
    for (auto b : sizes)
      v.push_back(b.count);
    return v;
  }
  if (min > max)
    throw config::ConfigError("", "/workload/min_size",
                              fmt::format("min_size {} is larger than max_size {}", format_bytes(min), format_bytes(max)));
  for (std::uint64_t s = min.count;; s = s == 0 ? first_step : s * 2) {
    v.push_back(s);
    if (s >= max.count)
      break;
  }
  return v;
}

} // namespace nafsim::workloads
