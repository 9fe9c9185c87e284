#pragma once
// A connection number local to one engine (a RoCE queue pair, a TCP session, a UDP peer): what the cluster hands out
// and the engines (nodes/transport/Poe.hpp) take.

#include <cstdint>

namespace nafsim::nodes {

using QpId = std::uint32_t;

} // namespace nafsim::nodes
