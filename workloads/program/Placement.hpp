#pragma once
// Where a program's ranks run: the platform's nodes of the engine's kind (FPGAs for the CCLO, CPU hosts for MPI),
// the first ones in order or the positions given.

#include "nodes/platform/Cluster.hpp"
#include "workloads/program/ProgramConfig.hpp"

#include <vector>

namespace nafsim::workloads {

/// The host of each rank (config errors name /workload/ranks or /workload/positions/<i>).
std::vector<net::HostId> place_ranks(const nodes::Cluster& c, ProgramEngine engine, unsigned ranks,
                                     const std::vector<unsigned>& positions);

} // namespace nafsim::workloads
