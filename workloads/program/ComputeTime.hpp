#pragma once
// How long a compute phase keeps a rank busy: its duration, or its work (operations and bytes) through the
// engine's compute model, a roofline: the FPGA's user kernel (nodes/compute/FpgaKernel) or the host's cores
// (nodes/compute/CpuCompute).

#include "nodes/platform/Cluster.hpp"
#include "workloads/program/ProgramConfig.hpp"

namespace nafsim::workloads {

SimTime compute_time(const nodes::Cluster& c, ProgramEngine engine, const ProgramCompute& model, SimTime duration,
                     double operations, std::uint64_t bytes);

/// Workload::unread_reason of a compute model's setting `key` (under the model's section: "kernel.clock",
/// "hbm_channels", "threads"): the FPGA kernel's keys when the engine is MPI, the hosts' threads when it is the CCLO.
std::string compute_model_unread(ProgramEngine engine, std::string_view key);

} // namespace nafsim::workloads
