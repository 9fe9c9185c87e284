#include "nodes/compute/FpgaKernel.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>

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
    // From about 3.7e19 operations the multiply-adds are beyond 64 bits, and a cast would wrap them to a short
    // kernel; the cycles are checked the same way. Counts that large are far beyond the clock at any kernel rate.
    const double macs_needed = std::ceil(flops / 2);
    const std::uint64_t mpc  = macs_per_cycle();
    auto beyond              = [&] {
      return TimeRangeError(fmt::format("a kernel of {:g} operations at {} multiply-adds per cycle is beyond the "
                                        "simulator's clock (about 106 days in picoseconds): a count too large for "
                                        "the kernel's rate",
                                        flops, mpc));
    };
    if (!(macs_needed < 1.8e19))
      throw beyond();
    const auto macs            = static_cast<std::uint64_t>(macs_needed);
    const std::uint64_t blocks = macs / mpc + (macs % mpc != 0);
    if (blocks > (std::numeric_limits<std::uint64_t>::max() - k_.pipeline_depth) / std::max(1U, k_.ii))
      throw beyond();
    const auto issue = blocks * k_.ii;
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
