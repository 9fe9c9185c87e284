#pragma once
// How long a compute phase keeps a rank busy: its duration, or its work (operations and bytes) through the
// engine's compute model, a roofline: the FPGA's user kernel (nodes/compute/FpgaKernel) or the host's cores
// (nodes/compute/CpuCompute).

#include "nodes/platform/Cluster.hpp"
#include "workloads/program/ProgramConfig.hpp"

namespace nafsim::workloads {

SimTime compute_time(const nodes::Cluster& c, ProgramEngine engine, const ProgramCompute& model, SimTime duration,
                     double operations, std::uint64_t bytes);

/// Workload::unread_reason of the workload setting `key` for a compute model held in the workload's `section`
/// ("compute" of a program, "model" of a Chakra trace): the FPGA kernel's keys ("<section>.kernel.clock",
/// "<section>.hbm_channels") when the engine is MPI, the hosts' "<section>.threads" when it is the CCLO; "" otherwise.
std::string compute_model_unread(ProgramEngine engine, std::string_view section, std::string_view key);

} // namespace nafsim::workloads
