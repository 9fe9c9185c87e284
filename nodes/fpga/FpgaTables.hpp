#pragma once
// The FPGA kind's result tables: connectionless_nodes.csv (its NI's counters, transport = connectionless),
// cclo.csv (each CCLO's blocks), mmu.csv (Coyote's MMU, node.fpga.mmu).

#include "nodes/platform/Cluster.hpp"
#include "simcore/results/ResultSink.hpp"

#include <cstdint>
#include <vector>

namespace nafsim::nodes {

/// The tables of the FPGA nodes at positions `at` of `c`.
void add_fpga_tables(const Cluster& c, const std::vector<std::size_t>& at, results::ResultSink& sink);

/// The messages every CCLO of `c` sent (eager messages and segments, rendezvous writes, notifications): what the
/// run's events per CCLO message are counted against (metadata.json `cclo`).
std::uint64_t cclo_messages(const Cluster& c);

} // namespace nafsim::nodes
