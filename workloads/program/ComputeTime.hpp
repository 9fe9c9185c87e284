#pragma once
// How long a compute phase keeps a rank busy: its duration, or its work (operations and bytes) through the
// engine's compute model, a roofline: the FPGA's user kernel (nodes/compute/FpgaKernel) or the host's cores
// (nodes/compute/CpuCompute).

#include "nodes/platform/Cluster.hpp"
#include "workloads/program/ProgramConfig.hpp"

namespace nafsim::workloads {

SimTime compute_time(const nodes::Cluster& c, ProgramEngine engine, const ProgramCompute& model, SimTime duration,
                     double operations, std::uint64_t bytes);

} // namespace nafsim::workloads
