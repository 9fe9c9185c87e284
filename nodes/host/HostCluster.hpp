#pragma once
// The host kind's part of the cluster: its nodes (c.at<HostNode>(i)) and each one's MPI library, made on first use
// over the node's transport and the cluster's connections.

#include "nodes/host/HostNode.hpp"
#include "nodes/platform/Cluster.hpp"

namespace nafsim::nodes {

/// The MPI library of host node `i`, made on first use; a config error naming /platform/node/kinds/<i> if the node
/// there is not a host.
MpiProcess& mpi_of(Cluster& c, std::size_t i);

} // namespace nafsim::nodes
