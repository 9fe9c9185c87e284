#include "nodes/compute/FpgaKernel.hpp"

#include <algorithm>
#include <cmath>

namespace nafsim::nodes {

std::uint64_t FpgaKernel::macs_per_cycle() const
{
  return std::max<std::uint64_t>(1, k_.dsps / std::max(1U, k_.dsps_per_mac));
}

FpgaKernelTime FpgaKernel::vector_matrix(std::uint64_t in, std::uint64_t out, std::uint64_t on_chip_budget,
                                         unsigned hbm_channels) const
{
  FpgaKernelTime t;
  const std::uint64_t macs  = in * out;
  const std::uint64_t issue = (macs + macs_per_cycle() - 1) / macs_per_cycle() * k_.ii;
  t.compute                 = cycles(issue + k_.pipeline_depth);
  const std::uint64_t weight_bytes = macs * 4; // 32-bit fixed point
  t.weights_on_chip                = weight_bytes <= on_chip_budget;
  if (!t.weights_on_chip) {
    const unsigned ch = std::clamp(hbm_channels, 1U, fabric_.hbm_channels);
    t.memory = transmit_time(Bytes{weight_bytes}, BitsPerSecond{fabric_.hbm_channel_bandwidth.bps * ch});
  }
  t.total = std::max(t.compute, t.memory);
  return t;
}

SimTime FpgaKernel::lookups(unsigned hbm_tables, unsigned onchip_tables, std::uint64_t vector_bytes) const
{
  SimTime hbm;
  if (hbm_tables > 0) {
    const std::uint64_t rounds = (hbm_tables + fabric_.hbm_channels - 1) / fabric_.hbm_channels;
    hbm = (fabric_.hbm_random_latency + transmit_time(Bytes{vector_bytes}, fabric_.hbm_channel_bandwidth)) *
          static_cast<std::int64_t>(rounds);
  }
  SimTime onchip;
  if (onchip_tables > 0) // every table in its own blocks: all read in parallel, the vector word by word (72 bits)
    onchip = cycles(fabric_.onchip_latency + (vector_bytes * 8 + 71) / 72);
  return std::max(hbm, onchip);
}

FpgaKernelTime FpgaKernel::roofline(double flops, std::uint64_t bytes, unsigned hbm_channels) const
{
  FpgaKernelTime t;
  if (flops > 0) {
    const auto macs  = static_cast<std::uint64_t>(std::ceil(flops / 2));
    const auto issue = (macs + macs_per_cycle() - 1) / macs_per_cycle() * k_.ii;
    t.compute        = cycles(issue + k_.pipeline_depth);
  }
  if (bytes > 0) {
    const unsigned ch = std::clamp(hbm_channels, 1U, fabric_.hbm_channels);
    t.memory          = transmit_time(Bytes{bytes}, BitsPerSecond{fabric_.hbm_channel_bandwidth.bps * ch});
    t.weights_on_chip = false;
  }
  t.total = std::max(t.compute, t.memory);
  return t;
}

} // namespace nafsim::nodes
