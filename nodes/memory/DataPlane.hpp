#pragma once
// Real data for runs that carry it (the collective workload's `verify`): each node's memory
// contents, and the bytes of every message in flight, keyed by message id (the packet model moves
// sizes and checksums, not bytes). Off by default: timing never depends on it.

#include "nodes/memory/MemoryImage.hpp"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace nafsim::nodes {

struct DataPlane {
  explicit DataPlane(std::size_t hosts) : memory(hosts) {}
  std::vector<MemoryImage> memory; ///< by host
  std::unordered_map<std::uint64_t, std::vector<std::byte>> payloads;
};

} // namespace nafsim::nodes
