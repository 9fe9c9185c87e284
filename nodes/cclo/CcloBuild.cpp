#include "nodes/cclo/CcloBuild.hpp"

#include <fmt/format.h>

namespace nafsim::nodes {

void apply_build(CcloConfig& cfg, unsigned ranks)
{
  switch (cfg.build) {
    case CcloBuild::Custom: return;
    case CcloBuild::Eager:
      cfg.rx_buffers.count               = ranks + 2;
      cfg.rx_buffers.size                = Bytes{kBuildSegment};
      cfg.tuning.max_eager_size          = Bytes{kBuildSegment};
      cfg.tuning.max_rendezvous_size     = Bytes{8ULL << 20};
      return;
    case CcloBuild::Rendezvous:
      cfg.rx_buffers.count           = std::max(ranks, 1U);
      cfg.rx_buffers.size            = Bytes{64};
      cfg.tuning.max_eager_size      = Bytes{64};
      cfg.tuning.max_rendezvous_size = Bytes{kBuildSegment};
      return;
  }
}

std::string describe_build(const CcloConfig& cfg, Transport transport)
{
  if (cfg.build == CcloBuild::Custom)
    return {};
  // The benchmark built both on Coyote's RDMA stack; over another transport the registers and Rx buffers are its,
  // the system is not (TCP and UDP have no rendezvous: every message goes eager through the Rx buffers).
  std::string how = "as the ACCL+ benchmark built it";
  if (transport != Transport::Roce)
    how = fmt::format("the ACCL+ benchmark built it over RDMA, not over {}: a system it did not build{}",
                      config::enum_name(transport),
                      cfg.build == CcloBuild::Rendezvous && (transport == Transport::Tcp || transport == Transport::Udp)
                          ? fmt::format(", and {} has no rendezvous: every message goes eager through these Rx "
                                        "buffers", config::enum_name(transport))
                          : "");
  return fmt::format("CCLO build {} ({}): {} Rx buffers of {}, max_eager_size {}, max_rendezvous_size {}",
                     config::enum_name(cfg.build), how, cfg.rx_buffers.count, format_bytes(cfg.rx_buffers.size),
                     format_bytes(cfg.tuning.max_eager_size), format_bytes(cfg.tuning.max_rendezvous_size));
}

} // namespace nafsim::nodes

namespace nafsim::nodes {

std::string segmentation_note(const CcloConfig& cfg, std::uint64_t largest, bool forced)
{
  const std::uint64_t rx = cfg.rx_buffers.size.count;
  if (largest <= rx)
    return {};
  const std::uint64_t segments = (largest + rx - 1) / rx;
  const std::string whole =
      largest <= kBuildSegment
          ? fmt::format("platform.node.fpga.cclo.build: eager (Rx buffers of {}, max_eager_size {}) runs it whole",
                        format_bytes(Bytes{kBuildSegment}), format_bytes(Bytes{kBuildSegment}))
          : fmt::format("no build of the ACCL+ benchmark holds it whole (the eager build's Rx buffers are {})",
                        format_bytes(Bytes{kBuildSegment}));
  return fmt::format("eager messages of up to {} went through Rx buffers of {} (build {}{}): up to {} segments each, "
                     "one Rx buffer per segment; {}",
                     format_bytes(Bytes{largest}), format_bytes(cfg.rx_buffers.size), config::enum_name(cfg.build),
                     forced ? ", the eager protocol forced: a system the benchmark did not build" : "", segments,
                     whole);
}

} // namespace nafsim::nodes

namespace nafsim::nodes {

std::string build_sets_these(const CcloConfig& cfg)
{
  if (cfg.build == CcloBuild::Custom)
    return {};
  // (the other build is not offered: its limits may be lower still, and over TCP or UDP there is no rendezvous)
  return fmt::format("; platform.node.fpga.cclo.build is {}, which sets rx_buffers, max_eager_size and "
                     "max_rendezvous_size for its ranks whatever is given: set build to custom to give them",
                     config::enum_name(cfg.build));
}

std::string forced_rendezvous_note(const CcloConfig& cfg)
{
  if (cfg.build != CcloBuild::Eager)
    return {};
  return "the rendezvous protocol forced on build eager: a system the benchmark did not build (it ran rendezvous on "
         "its rendezvous build: platform.node.fpga.cclo.build: rendezvous)";
}

} // namespace nafsim::nodes
