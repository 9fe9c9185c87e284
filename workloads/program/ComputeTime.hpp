#pragma once
// How long a compute phase keeps a rank busy: its duration, or its work (operations and bytes) through the
// engine's compute model, a roofline: the FPGA's user kernel (nodes/compute/FpgaKernel) or the host's cores
// (nodes/compute/CpuCompute).

#include "nodes/platform/Cluster.hpp"
#include "workloads/program/ProgramConfig.hpp"

#include <memory>

namespace nafsim::workloads {

SimTime compute_time(const nodes::Cluster& c, ProgramEngine engine, const ProgramCompute& model, SimTime duration,
                     double operations, std::uint64_t bytes);

/// Refuse a model the device cannot hold: more DSP slices or HBM channels for the FPGA's kernel than the device has
/// (`at`: the model's JSON path, "/workload/compute" or "/workload/model"). Engine mpi: nothing to check here.
void check_compute_model(const nodes::Cluster& c, ProgramEngine engine, const ProgramCompute& model,
                         const std::string& at);

/// How many compute phases by work one rank runs at once: the FPGA has one user kernel (every DSP and HBM channel,
/// Whether a phase by work on `engine` takes every core of its host (the MPI engine with compute.threads 0 or at
/// least the cores): the rank's own thread computes, and the MPI library makes no progress meanwhile.
bool takes_every_core(const nodes::Cluster& c, ProgramEngine engine, const ProgramCompute& m);
/// the roofline's ASSUMPTION), so one; the host as many as its cores hold phases of `threads` cores.
unsigned compute_slots(const nodes::Cluster& c, ProgramEngine engine, const ProgramCompute& model);

/// When a compute phase of `t`, started at `now`, ends. A phase given by its work (`by_work`: no duration) takes one
/// of the rank's compute slots (`free_at`: when each is free; updated), the earliest free, so phases beyond the slots
/// wait in the order they start (two on one FPGA kernel run one after the other, not each at the kernel's whole
/// rate). A phase whose duration is given ends after it, beside anything else (the user said how long it takes).
SimTime compute_end(SimTime now, SimTime t, bool by_work, std::vector<SimTime>& free_at);

class DramShare;
/// Each of `ranks` ranks' DRAM shared by host phases side by side (engine mpi, compute_slots > 1; DramShare.hpp), or
/// none (each rank's phases then take compute_end's slots).
std::vector<std::unique_ptr<DramShare>> dram_shares(nodes::Cluster& c, ProgramEngine engine, const ProgramCompute& m,
                                                    std::size_t ranks);

/// A compute phase: its `duration`, or (0) its work.
struct ComputeWork {
  SimTime duration;
  double operations   = 0;
  std::uint64_t bytes = 0;
};
/// Run a compute phase on ctx's actor from `start` until it ends: by work beside other phases on `dram` (when the
/// rank has one), else its compute_time on the earliest free slot of `free_at` (compute_end).
void run_compute(ActorContext& ctx, const nodes::Cluster& c, ProgramEngine engine, const ProgramCompute& m,
                 SimTime start, const ComputeWork& w, std::vector<SimTime>& free_at, DramShare* dram,
                 const CauseLabel& busy);

/// Workload::unread_reason of the workload setting `key` for a compute model held in the workload's `section`
/// ("compute" of a program, "model" of a Chakra trace): the FPGA kernel's keys ("<section>.kernel.clock",
/// "<section>.hbm_channels") when the engine is MPI, the hosts' "<section>.threads" when it is the CCLO; "" otherwise.
std::string compute_model_unread(ProgramEngine engine, std::string_view section, std::string_view key);

} // namespace nafsim::workloads
