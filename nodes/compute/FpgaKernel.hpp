#pragma once
// What an application kernel on the FPGA fabric takes (ACCL+ section 6: the DLRM kernels). An HLS
// dataflow kernel: a vector-matrix multiply issues `dsps / dsps_per_mac` fixed-point multiply-adds per
// cycle at initiation interval `ii`, plus the pipeline's fill; its weights stream from on-chip memory
// (URAM/BRAM: one word per block per cycle, never the bottleneck when they fit) or, when they do not
// fit, from HBM at the bandwidth of the channels it owns. Embedding lookups are random reads: on-chip
// tables answer in a few cycles, HBM tables in the memory's random-access latency, one outstanding
// lookup per HBM channel (tables spread over the channels, looked up in parallel).

#include "simcore/config/Schema.hpp"
#include "simcore/units/Units.hpp"

#include <cstdint>

namespace nafsim::nodes {

/// The device's resources (defaults: Alveo U55C, from AMD's data sheet DS978 and ACCL+ Table 3).
struct FpgaFabricConfig {
  unsigned dsps         = 9024;
  unsigned uram_blocks  = 960;
  Bytes uram_block{36 * 1024};
  unsigned bram_blocks  = 2016;
  Bytes bram_block{4608};
  Bytes hbm{16ULL << 30};
  unsigned hbm_channels = 32;
  BitsPerSecond hbm_channel_bandwidth{14.375e9 * 8};
  SimTime hbm_random_latency = SimTime::ns(200);
  unsigned onchip_latency = 3;
  template <class V> void describe(V& v)
  {
    v.field("dsps", dsps, "DSP slices (U55C: 9024, ACCL+ Table 3)", config::Limits::at_least(1));
    v.field("uram_blocks", uram_blocks, "UltraRAM blocks (U55C: 960, ACCL+ Table 3)");
    v.field("uram_block", uram_block, "capacity of one UltraRAM block (288 Kb)");
    v.field("bram_blocks", bram_blocks, "block RAMs (U55C: 2016 36-Kb blocks, ACCL+ Table 3)");
    v.field("bram_block", bram_block, "capacity of one block RAM (36 Kb)");
    v.field("hbm", hbm, "HBM capacity (U55C: 16 GB, ACCL+ section 6)", config::Limits::at_least(1));
    v.field("hbm_channels", hbm_channels, "HBM pseudo-channels kernels can read in parallel (U55C: 32)",
            config::Limits::at_least(1));
    v.field("hbm_channel_bandwidth", hbm_channel_bandwidth,
            "bandwidth of one HBM pseudo-channel (U55C: 460 GB/s over 32 channels)");
    v.field("hbm_random_latency", hbm_random_latency,
            "latency of one random read from HBM as a kernel sees it (AXI + memory controller + DRAM; ASSUMPTION: "
            "200 ns, the order reported for Alveo HBM)");
    v.field("onchip_latency", onchip_latency,
            "kernel-clock cycles of one random read from URAM/BRAM (read latency + address pipeline)");
  }
  std::uint64_t onchip_bytes() const { return uram_blocks * uram_block.count + bram_blocks * bram_block.count; }
};

/// One kernel's design: what it was built with (defaults: the DLRM build of ACCL+ section 6).
struct FpgaKernelConfig {
  Hertz clock{115e6};
  unsigned dsps       = 0; ///< 0: the layer's share set by the workload
  unsigned dsps_per_mac = 4;
  unsigned ii         = 1;
  unsigned pipeline_depth = 64;
  template <class V> void describe(V& v)
  {
    v.field("clock", clock, "kernel clock (ACCL+ DLRM: 115 MHz achieved)");
    v.field("dsps", dsps, "DSP slices the kernel's multiply-add array uses on one FPGA");
    v.field("dsps_per_mac", dsps_per_mac,
            "DSP slices per 32-bit fixed-point multiply-add (a 32 x 32 product needs 4 DSP48E2 27x18 multipliers)",
            config::Limits::at_least(1));
    v.field("ii", ii, "initiation interval of the multiply-add loop (cycles between successive iterations)",
            config::Limits::at_least(1));
    v.field("pipeline_depth", pipeline_depth,
            "cycles from the first operand in to the last result out beyond the issue cycles (adder tree, "
            "activation, stream out; ASSUMPTION: 64)");
  }
};

struct FpgaKernelTime {
  SimTime total;
  SimTime compute; ///< issue cycles + pipeline fill
  SimTime memory;  ///< weights from HBM (zero when on chip)
  bool weights_on_chip = true;
};

class FpgaKernel {
public:
  FpgaKernel(const FpgaFabricConfig& fabric, const FpgaKernelConfig& kernel) : fabric_(fabric), k_(kernel) {}

  /// Multiply-adds the kernel issues per cycle.
  std::uint64_t macs_per_cycle() const;
  /// A vector-matrix multiply (in x out), weights on chip if `on_chip_budget` bytes hold them, else in
  /// HBM read over `hbm_channels` channels.
  FpgaKernelTime vector_matrix(std::uint64_t in, std::uint64_t out, std::uint64_t on_chip_budget,
                               unsigned hbm_channels) const;
  /// One lookup in each of `hbm_tables` HBM tables and `onchip_tables` on-chip tables, vectors of
  /// `vector_bytes`, in parallel over the HBM channels and the on-chip memories.
  SimTime lookups(unsigned hbm_tables, unsigned onchip_tables, std::uint64_t vector_bytes) const;
  /// A kernel known only by its work (ASTRA-sim's roofline for Chakra compute nodes): `flops` operations (a
  /// multiply-add is two) issued on the multiply-add array, `bytes` streamed from HBM over `hbm_channels`
  /// channels; the slower of the two.
  FpgaKernelTime roofline(double flops, std::uint64_t bytes, unsigned hbm_channels) const;
  SimTime cycles(std::uint64_t n) const { return cycles_time(Cycles{n}, k_.clock); }

private:
  FpgaFabricConfig fabric_;
  FpgaKernelConfig k_;
};

} // namespace nafsim::nodes
