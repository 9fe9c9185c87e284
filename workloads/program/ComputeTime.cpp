#include "workloads/program/ComputeTime.hpp"

#include "nodes/compute/CpuCompute.hpp"
#include "nodes/compute/FpgaKernel.hpp"
#include "nodes/fpga/FpgaNodeConfig.hpp"
#include "nodes/host/HostNodeConfig.hpp"
#include "workloads/program/DramShare.hpp"
#include "simcore/config/ConfigError.hpp"
#include "workloads/Workload.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace nafsim::workloads {

SimTime compute_time(const nodes::Cluster& c, ProgramEngine engine, const ProgramCompute& m, SimTime duration,
                     double operations, std::uint64_t bytes)
{
  if (duration > SimTime{})
    return duration;
  if (engine == ProgramEngine::Mpi) {
    const nodes::CpuCompute cpu(nodes::host_config(c.config().node).compute);
    return cpu.roofline(operations, bytes, m.threads == 0 ? cpu.config().cores : m.threads).total;
  }
  auto const& fabric = nodes::fpga_config(c.config().node).fabric;
  nodes::FpgaKernelConfig kernel = m.kernel;
  if (kernel.dsps == 0)
    kernel.dsps = fabric.dsps;
  return nodes::FpgaKernel(fabric, kernel)
      .roofline(operations, bytes, m.hbm_channels == 0 ? fabric.hbm_channels : m.hbm_channels)
      .total;
}

void check_compute_model(const nodes::Cluster& c, ProgramEngine engine, const ProgramCompute& m, const std::string& at)
{
  if (engine == ProgramEngine::Mpi) {
    // (more threads than cores had run as every core, unsaid, where the kernel's DSPs and channels are refused)
    const unsigned cores = nodes::host_config(c.config().node).compute.cores;
    if (m.threads > cores)
      throw config::ConfigError("", at + "/threads",
                                fmt::format("{} threads for a compute phase, but the hosts "
                                            "(platform.node.host.compute) have {} cores: give at most {} (0: all of "
                                            "them)",
                                            m.threads, cores, cores));
    return;
  }
  auto const& fabric = nodes::fpga_config(c.config().node).fabric;
  if (m.kernel.dsps > fabric.dsps)
    throw config::ConfigError("", at + "/kernel/dsps",
                              fmt::format("{} DSP slices for the kernel, but the device (platform.node.fpga.fabric) "
                                          "has {}: give at most {} (0: all of them)",
                                          m.kernel.dsps, fabric.dsps, fabric.dsps));
  if (m.kernel.dsps != 0 && m.kernel.dsps < m.kernel.dsps_per_mac)
    throw config::ConfigError("", at + "/kernel/dsps",
                              fmt::format("{} DSP slices build no multiply-add, which takes {} "
                                          "(kernel.dsps_per_mac): give at least {} (0: all of the device's)",
                                          m.kernel.dsps, m.kernel.dsps_per_mac, m.kernel.dsps_per_mac));
  if (m.hbm_channels > fabric.hbm_channels)
    throw config::ConfigError("", at + "/hbm_channels",
                              fmt::format("{} HBM channels for the kernel, but the device (platform.node.fpga.fabric) "
                                          "has {}: give at most {} (0: all of them)",
                                          m.hbm_channels, fabric.hbm_channels, fabric.hbm_channels));
}

bool takes_every_core(const nodes::Cluster& c, ProgramEngine engine, const ProgramCompute& m)
{
  return engine == ProgramEngine::Mpi &&
         (m.threads == 0 || m.threads >= nodes::host_config(c.config().node).compute.cores);
}

unsigned compute_slots(const nodes::Cluster& c, ProgramEngine engine, const ProgramCompute& m)
{
  if (engine != ProgramEngine::Mpi)
    return 1;
  const unsigned cores = nodes::host_config(c.config().node).compute.cores;
  return std::max(1U, m.threads == 0 ? 1U : cores / std::min(m.threads, cores));
}

std::vector<std::unique_ptr<DramShare>> dram_shares(nodes::Cluster& c, ProgramEngine engine, const ProgramCompute& m,
                                                    std::size_t ranks)
{
  std::vector<std::unique_ptr<DramShare>> shares;
  const unsigned slots = compute_slots(c, engine, m);
  if (slots <= 1)
    return shares;
  const double socket = nodes::host_config(c.config().node).compute.dram_bandwidth.bps / 8;
  for (std::size_t r = 0; r < ranks; ++r)
    shares.push_back(std::make_unique<DramShare>(c.scheduler(), socket, slots));
  return shares;
}

void run_compute(ActorContext& ctx, const nodes::Cluster& c, ProgramEngine engine, const ProgramCompute& m,
                 SimTime start, const ComputeWork& w, std::vector<SimTime>& free_at, DramShare* dram,
                 const CauseLabel& busy)
{
  const bool by_work = w.duration == SimTime{};
  if (dram && by_work && (w.operations > 0 || w.bytes > 0)) {
    auto const& host   = nodes::host_config(c.config().node).compute;
    const unsigned t   = std::clamp(m.threads == 0 ? host.cores : m.threads, 1U, host.cores);
    const nodes::CpuCompute cpu(host);
    DramShare::Phase p;
    p.compute = cpu.flops_time(w.operations, t);
    p.bytes   = static_cast<double>(w.bytes);
    p.cap     = std::min(host.dram_bandwidth.bps, t * host.dram_bandwidth_per_core.bps) / 8;
    p.extra   = t > 1 ? host.parallel_region : SimTime{};
    dram->run(ctx, start, p, busy);
    return;
  }
  const SimTime d = compute_time(c, engine, m, w.duration, w.operations, w.bytes);
  ctx.sleep_until(compute_end(start, d, by_work, free_at), busy);
}

SimTime compute_end(SimTime now, SimTime t, bool by_work, std::vector<SimTime>& free_at)
{
  if (!by_work || t == SimTime{} || free_at.empty()) // (a phase with no work waits for nothing)
    return now + t;
  auto slot = std::min_element(free_at.begin(), free_at.end());
  *slot     = std::max(now, *slot) + t;
  return *slot;
}

std::string compute_model_unread(ProgramEngine engine, std::string_view section, std::string_view key)
{
  if (key.size() <= section.size() || key.substr(0, section.size()) != section || key[section.size()] != '.')
    return {};
  key.remove_prefix(section.size() + 1);
  const std::string_view head = key_head(key);
  if (engine == ProgramEngine::Mpi && (head == "kernel" || head == "hbm_channels"))
    return "compute runs on the hosts' cores (engine mpi); the FPGA's kernel reads it (engine cclo)";
  if (engine == ProgramEngine::Cclo && head == "threads")
    return "compute runs on the FPGA's kernel (engine cclo); the hosts' cores read it (engine mpi)";
  return {};
}

} // namespace nafsim::workloads
