#include "workloads/Workload.hpp"

#include "simcore/config/ConfigError.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace nafsim::workloads {

std::string size_bounds_unread(std::string_view head, bool listed)
{
  return listed && (head == "min_size" || head == "max_size")
             ? "workload.sizes lists the sizes (min_size and max_size make the list only when sizes is empty)"
             : std::string();
}

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

void check_node(const nodes::Cluster& c, unsigned node, const char* key)
{
  if (node >= c.size())
    throw config::ConfigError("", std::string("/workload/") + key,
                              fmt::format("node {} does not exist: the platform has {} hosts (0..{})", node, c.size(),
                                          c.size() - 1));
}

std::string size_path(const std::vector<Bytes>& given, std::size_t i)
{
  return given.empty() ? std::string("/workload/max_size") : fmt::format("/workload/sizes/{}", i);
}

void check_verify_budget(const std::string& path, std::uint64_t size, std::uint64_t per_rank, std::uint64_t ranks)
{
  // per_rank * ranks may overflow for absurd sizes: compare by division.
  if (per_rank == 0 || per_rank <= kVerifyBudget / std::max<std::uint64_t>(ranks, 1))
    return;
  throw config::ConfigError(
      "", path,
      fmt::format("size {}: verify keeps every rank's operand and result as real bytes ({} per rank, {} rank(s)), more "
                  "than the {} nafsim allows itself; set workload.verify to false for sizes this large (the timing "
                  "does not need the bytes) or verify smaller sizes",
                  format_bytes(Bytes{size}), format_bytes(Bytes{per_rank}), ranks, format_bytes(Bytes{kVerifyBudget})));
}

} // namespace nafsim::workloads
