#pragma once
// Every transport's largest packet must fit the largest Ethernet frame the network carries
// (network.ethernet.max_frame): the checks each node kind runs on its transports' parameters.

#include "protocols/roce/RoceConfig.hpp"
#include "simcore/net/NetworkConfig.hpp"

#include <string>

namespace nafsim::nodes {

/// A ConfigError at `path` unless an IP packet of `l3` bytes (`what`) fits a frame of `eth`.
void check_frame(const net::EthernetConfig& eth, std::uint64_t l3, const std::string& what, const std::string& path);
/// The same for a full RoCE packet of `r`, blaming the part that cannot fit (under `at`/rdma/).
void check_roce_frame(const net::EthernetConfig& eth, const roce::RoceConfig& r, const std::string& at);

} // namespace nafsim::nodes
