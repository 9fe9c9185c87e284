// The compute models of nodes/compute: the CPU's stack-distance caches and roofline, the FPGA
// kernel's multiply-add array and lookups. Expected values are the closed forms of the models'
// documented mechanisms, worked out by hand from the defaults.
#include "nodes/compute/CpuCompute.hpp"
#include "nodes/compute/FpgaKernel.hpp"

#include <gtest/gtest.h>
#include <limits>

using namespace nafsim;
using namespace nafsim::nodes;

TEST(CpuCache, LruStackDistanceDecidesTheLevel)
{
  CpuCache c;
  constexpr std::uint64_t KiB = 1 << 10;
  constexpr std::uint64_t MiB = 1 << 20;
  auto first = c.access("w", 4 * MiB, 8 * MiB, 128 * MiB);
  EXPECT_EQ(first.dram, 4 * MiB) << "a buffer never touched comes from DRAM";
  auto again = c.access("w", 4 * MiB, 8 * MiB, 128 * MiB);
  EXPECT_EQ(again.l2, 4 * MiB) << "touched again with nothing in between: all in L2";
  c.access("other", 6 * MiB, 8 * MiB, 128 * MiB);
  auto split = c.access("w", 4 * MiB, 8 * MiB, 128 * MiB);
  EXPECT_EQ(split.l2, 0U) << "6 MiB touched since: 6 + 4 > 8, a front-to-back scan finds none of it in L2 (LRU)";
  EXPECT_EQ(split.l3, 4 * MiB);
  EXPECT_EQ(split.dram, 0U);
  c.access("small", 3 * MiB, 8 * MiB, 128 * MiB);
  EXPECT_EQ(c.access("w", 4 * MiB, 8 * MiB, 128 * MiB).l2, 4 * MiB) << "3 + 4 <= 8: all of it in L2";
  EXPECT_EQ(c.access("x", 512 * KiB, 8 * MiB, 128 * MiB).dram, 512 * KiB);
  c.access("huge", 200 * MiB, 8 * MiB, 128 * MiB);
  auto gone = c.access("w", 4 * MiB, 8 * MiB, 128 * MiB);
  EXPECT_EQ(gone.dram, 4 * MiB) << "200 MiB touched since: pushed out of the 128 MiB L3";
}

TEST(CpuCompute, GemvRunsFromTheLevelItsPartitionFitsIn)
{
  CpuComputeConfig cfg; // EPYC 7302: 16 cores, 3 GHz, L2 8 MiB at 64 B/cycle/core, L3 128 MiB at 32, DRAM 204.8 GB/s
  CpuCompute cpu(cfg);
  constexpr std::uint64_t n = 8192; // 8192 x 8192 float32 = 256 MiB: DRAM even when warm
  CpuCache big;
  cpu.gemv(big, "w", n, n, 16);
  auto warm_big = cpu.gemv(big, "w", n, n, 16);
  EXPECT_EQ(warm_big.operands.dram, n * n * 4 + 2 * n * 4);
  const double dram_s = static_cast<double>(n * n * 4 + 2 * n * 4) / 204.8e9;
  EXPECT_NEAR(warm_big.total.seconds(), dram_s + 2e-6, 1e-9) << "memory bound from DRAM + fork/join";

  // A quarter of it (the 4-rank partition: 64 MiB) stays in the L3 between calls.
  CpuCache quarter;
  cpu.gemv(quarter, "w", n, n / 4, 16);
  auto warm_quarter = cpu.gemv(quarter, "w", n, n / 4, 16);
  EXPECT_EQ(warm_quarter.operands.dram, 0U);
  EXPECT_EQ(warm_quarter.operands.l2 + warm_quarter.operands.l3, n * n + n * 4 + n);
  EXPECT_GT(warm_big.total.seconds() / warm_quarter.total.seconds(), 4.0)
      << "a partition that fits the L3 runs more than 4x faster than a quarter of the DRAM-bound whole";
}

TEST(CpuCompute, ComputeBoundWhenTheBatchReusesTheWeights)
{
  CpuCompute cpu(CpuComputeConfig{});
  CpuCache c;
  auto k = cpu.fc_batch(c, "fc1", 3200, 2048, 256, 16);
  const double flops = 2.0 * 256 * 3200 * 2048;
  EXPECT_EQ(k.compute, SimTime::from_seconds(flops / (16 * 32 * 3e9)));
  EXPECT_GE(k.total, k.compute);
}

TEST(CpuCompute, RandomReadsAreLatencyBoundByMissesInFlight)
{
  CpuComputeConfig cfg;
  CpuCompute cpu(cfg);
  // 100 lookups of 128 B (2 lines each) on 1 core with 10 misses in flight: 20 rounds of 90 ns.
  EXPECT_EQ(cpu.random_reads(100, 128, 1), SimTime::ns(90) * 20);
  // On 16 cores: 200 lines / 160 in flight -> 2 rounds.
  EXPECT_EQ(cpu.random_reads(100, 128, 16), SimTime::ns(90) * 2);
}

TEST(FpgaKernel, MultiplyAddArrayAndWeightsOnChipOrInHbm)
{
  FpgaFabricConfig fabric; // U55C
  FpgaKernelConfig k;      // 115 MHz, 4 DSPs per 32-bit MAC, II 1, 64 cycles of pipeline
  k.dsps = 6544;
  FpgaKernel fc1(fabric, k);
  EXPECT_EQ(fc1.macs_per_cycle(), 1636U);
  auto t = fc1.vector_matrix(800, 1024, fabric.onchip_bytes(), 32);
  EXPECT_TRUE(t.weights_on_chip) << "3.3 MB of weights fit the U55C's 34 MB of URAM + 9 MB of BRAM";
  EXPECT_EQ(t.total, cycles_time(Cycles{(800 * 1024 + 1635) / 1636 + 64}, Hertz{115e6}));
  auto hbm = fc1.vector_matrix(800, 1024, 0, 4); // no on-chip room: 3.3 MB over 4 channels of 14.375 GB/s
  EXPECT_FALSE(hbm.weights_on_chip);
  EXPECT_EQ(hbm.memory, transmit_time(Bytes{800 * 1024 * 4}, BitsPerSecond{4 * 14.375e9 * 8}));
  EXPECT_EQ(hbm.total, std::max(hbm.compute, hbm.memory));
}

TEST(FpgaKernel, LookupsSpreadOverHbmChannels)
{
  FpgaFabricConfig fabric;
  FpgaKernel k(fabric, FpgaKernelConfig{});
  const SimTime one = fabric.hbm_random_latency + transmit_time(Bytes{128}, fabric.hbm_channel_bandwidth);
  EXPECT_EQ(k.lookups(25, 0, 128), one) << "25 tables over 32 channels: one round";
  EXPECT_EQ(k.lookups(33, 0, 128), one * 2) << "33 tables: two rounds";
  EXPECT_LT(k.lookups(0, 25, 128), one) << "on-chip tables answer in cycles";
}

TEST(Roofline, AKernelKnownByItsWorkTakesTheSlowerOfArithmeticAndMemory)
{
  FpgaFabricConfig fabric; // U55C: 9024 DSPs, 32 HBM channels of 14.375 GB/s
  FpgaKernelConfig k;      // 115 MHz, 4 DSPs per MAC, II 1, 64 cycles of pipeline
  k.dsps = fabric.dsps;
  FpgaKernel f(fabric, k);
  // 1 GFLOP = 5e8 multiply-adds on 2256 per cycle: 221,632 issue cycles (rounded up) + 64.
  auto a = f.roofline(1e9, 1 << 20, 32);
  EXPECT_EQ(a.compute, cycles_time(Cycles{(500'000'000ULL + 2255) / 2256 + 64}, Hertz{115e6}));
  EXPECT_EQ(a.memory, transmit_time(Bytes{1 << 20}, BitsPerSecond{32 * 14.375e9 * 8}));
  EXPECT_EQ(a.total, a.compute); // arithmetic-bound
  auto m = f.roofline(1e3, 1ULL << 30, 8); // memory-bound over 8 channels
  EXPECT_EQ(m.total, transmit_time(Bytes{1ULL << 30}, BitsPerSecond{8 * 14.375e9 * 8}));

  CpuComputeConfig cfg; // EPYC 7302: 16 cores x 32 flops/cycle x 3 GHz; DRAM 204.8 GB/s, 20 GB/s per core
  CpuCompute cpu(cfg);
  auto c = cpu.roofline(1.536e12, 0, 16); // one second of the socket's peak, plus the fork / join
  EXPECT_EQ(c.total, SimTime::from_seconds(1.0) + cfg.parallel_region);
  auto d = cpu.roofline(0, 20'000'000'000ULL, 1); // one core streams 20 GB at its 20 GB/s: one second
  EXPECT_EQ(d.total, SimTime::from_seconds(1.0));
  auto e = cpu.roofline(1e6, 204'800'000'000ULL, 16); // all cores: the socket's 204.8 GB/s, not 16 x 20
  EXPECT_EQ(e.memory, SimTime::from_seconds(1.0));
  EXPECT_EQ(e.total, e.memory + cfg.parallel_region);
}

TEST(Roofline, AKernelBeyondTheClockFailsWhateverItsCount)
{
  // From about 3.7e19 operations the multiply-adds are beyond 64 bits: a cast wrapped them to a kernel of a quarter
  // of a microsecond. Every count beyond the clock is an error, the largest ones too.
  FpgaFabricConfig fabric;
  FpgaKernelConfig k;
  k.dsps = fabric.dsps;
  FpgaKernel f(fabric, k);
  EXPECT_THROW(f.roofline(1.1e19, 0, 1), TimeRangeError);
  EXPECT_THROW(f.roofline(1e20, 0, 1), TimeRangeError);
  EXPECT_THROW(f.roofline(1e30, 0, 1), TimeRangeError);
  EXPECT_THROW(f.roofline(std::numeric_limits<double>::infinity(), 0, 1), TimeRangeError);
  EXPECT_GT(f.roofline(1e15, 0, 1).total, SimTime::from_seconds(1.0)); // large, within the clock: its time
}
