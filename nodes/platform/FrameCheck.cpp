#include "nodes/platform/FrameCheck.hpp"

#include "simcore/config/ConfigError.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace nafsim::nodes {

void check_frame(const net::EthernetConfig& eth, std::uint64_t l3, const std::string& what, const std::string& path)
{
  if (l3 <= eth.max_l3())
    return;
  throw config::ConfigError(
      "", path,
      fmt::format("{} is a {} B IP packet, a {} B frame, larger than the largest frame the network carries "
                  "(network.ethernet.max_frame = {}): lower this size or raise max_frame",
                  what, l3, l3 + eth.header.count + eth.fcs.count, format_bytes(eth.max_frame)));
}

void check_roce_frame(const net::EthernetConfig& eth, const roce::RoceConfig& r, const std::string& at)
{
  // Blame the part that cannot fit: the headers when even the smallest MTU (256 B) would not fit beside them.
  const std::uint64_t ext     = std::max(r.reth.count, r.aeth.count);
  const std::uint64_t headers = r.base_header.count + ext;
  std::string part            = "mtu";
  if (headers + 256 > eth.max_l3())
    part = r.base_header.count >= ext ? "base_header" : r.reth.count >= r.aeth.count ? "reth" : "aeth";
  check_frame(eth, headers + r.mtu.count,
              fmt::format("a full RoCE packet (base_header {} + reth or aeth {} + mtu {})", format_bytes(r.base_header),
                          format_bytes(Bytes{ext}), format_bytes(r.mtu)),
              at + "/rdma/" + part);
}

} // namespace nafsim::nodes
