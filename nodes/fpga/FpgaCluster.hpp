#pragma once
// The FPGA kind's part of the cluster: its nodes (c.at<FpgaNode>(i)), each node's CCLO made on first use and wired to
// the node's network engine through a CcloLink (CcloWiring.cpp), and the transports workloads require of FPGAs.

#include "nodes/fpga/FpgaNode.hpp"
#include "nodes/platform/Cluster.hpp"

#include <string>
#include <vector>

namespace nafsim::nodes {

/// The collective engine of FPGA node `i`, made (its link to the node's transport wired, its firmware started) on
/// first use; a config error naming /platform/node/kinds/<i> if the node there is not an FPGA.
Cclo& cclo_of(Cluster& c, std::size_t i);
/// Check what building a communicator of CCLO ranks (`hosts`: each rank's position) asks of the FPGAs, as ACCL's
/// driver builds it: over TCP its openCon opens a session from every rank to every other and accepts the peer's
/// (tcp_path.md section 1), 2 (N - 1) sessions on each FPGA; a config error at tcp/max_sessions when a stack holds
/// fewer (the model opens each session on its first use). Workloads call it on their world: ACCL's sub-communicators
/// open no sessions of their own (Xilinx/ACCL: `open_con` runs once, on the global communicator, behind a driver-wide
/// flag; `create_communicator` copies the session ids openCon stored, read back from the device, `communicator.cpp`
/// 49-76; no test or example of the repository, nor its DLRM, opens one for a sub-communicator).
void check_communicator(const Cluster& c, const std::vector<net::HostId>& hosts);
/// How many of the cluster's FPGAs have run a CCLO so far (made by cclo_of).
std::size_t cclos_made(const Cluster& c);
/// Throw a config error unless the cluster's FPGAs (if any) run the RoCE POE (`workload` names who needs it).
void require_roce(const Cluster& c, const std::string& workload);
/// Throw a config error unless the cluster's FPGAs (if any) run the connectionless transport.
void require_connectionless(const Cluster& c, const std::string& workload);

} // namespace nafsim::nodes
