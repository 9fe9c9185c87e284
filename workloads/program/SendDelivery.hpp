#pragma once
// Sends that complete at delivery: a Chakra trace's send completes in ASTRA-sim when its data is delivered (its
// callback at the analytical backend's arrival, at ns-3's last ACK; shared/reference/chakra/semantics.md section 3),
// not when the engine has taken its data. The ranks' engines (the CCLO, the hosts' MPI library) keep which of their
// messages are not yet acknowledged by the peer's transport, and such a send, once its engine's call is done,
// waits until every message its engine had posted to its peer by then is acknowledged (later ones need not be).
// ASSUMPTION: delivery is the transport's acknowledgement where it comes promptly (RoCE RC, the connectionless
// transport); over TCP (whose stack acknowledges a lone segment only after its 44 us delayed-ACK time, which would
// stand for a later delivery) and UDP (no acknowledgement) the send completes when its engine took its data.

#include "nodes/platform/Cluster.hpp"
#include "workloads/program/ProgramConfig.hpp"

#include <vector>

namespace nafsim::workloads {

/// The engines of `hosts` keep, from now on, what wait_delivered needs.
void track_delivery(nodes::Cluster& c, ProgramEngine engine, const std::vector<net::HostId>& hosts);
/// On `host`'s rank: wait until what its engine posted to `peer` so far is acknowledged.
void wait_delivered(ActorContext& ctx, nodes::Cluster& c, ProgramEngine engine, net::HostId host, net::HostId peer);

} // namespace nafsim::workloads
