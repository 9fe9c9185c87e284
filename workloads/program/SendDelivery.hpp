#pragma once
// Sends that complete at delivery: a Chakra trace's send completes in ASTRA-sim when its data is delivered (its
// callback at the analytical backend's arrival, at ns-3's last ACK; shared/reference/chakra/semantics.md section 3),
// not when the engine has taken its data. The ranks' engines (the CCLO, the hosts' MPI library) keep which of their
// messages are not yet acknowledged by the peer's transport, and such a send, once its engine's call is done,
// waits for the acknowledgement of the last message it posted to its peer (in a connection's order, every one before
// it is acknowledged then too). ASSUMPTION: delivery is the transport's acknowledgement (RoCE RC, TCP, the
// connectionless transport); over UDP, which acknowledges nothing, the send completes when its engine took its data.

#include "nodes/platform/Cluster.hpp"
#include "workloads/program/ProgramConfig.hpp"

#include <vector>

namespace nafsim::workloads {

/// The engines of `hosts` keep, from now on, what wait_delivered needs.
void track_delivery(nodes::Cluster& c, ProgramEngine engine, const std::vector<net::HostId>& hosts);
/// On `host`'s rank: wait until what its engine posted to `peer` so far is acknowledged.
void wait_delivered(ActorContext& ctx, nodes::Cluster& c, ProgramEngine engine, net::HostId host, net::HostId peer);

} // namespace nafsim::workloads
