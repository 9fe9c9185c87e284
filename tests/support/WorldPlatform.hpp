#pragma once
// The platform of an engine-free test world (NodeWorld, HostWorld): a scenario's "platform" object put through the
// scenario loader (presets, overrides, validation) with a placeholder workload of the world's kind.

#include "nodes/platform/Cluster.hpp"

#include <cstdint>
#include <memory>
#include <string>

namespace nafsim::testing {

struct WorldPlatform {
  std::unique_ptr<nodes::PlatformConfig> cfg;
  std::uint64_t seed = 0;
};

/// `platform`: the JSON object; `workload`: a placeholder workload's JSON object that the loader accepts with it;
/// `name`: the world's name in error messages.
WorldPlatform load_world_platform(const std::string& platform, const std::string& workload, const std::string& name);

} // namespace nafsim::testing
