#pragma once
// What a host CPU's cores take to run an application kernel (ACCL+ section 6: the Eigen vector-matrix
// multiply of Fig. 16, the TensorFlow-Serving DLRM baseline of Fig. 17). A roofline with a cache
// hierarchy: a kernel streams its operands from the level of the hierarchy each one sits in (an LRU
// stack-distance model, CpuCache) while the SIMD units do its arithmetic; the slower of the two sets
// its time. Nothing here is fitted: every constant is a data-sheet or microarchitecture figure with its
// source in CpuComputeConfig's help text, defaults = the ACCL+ testbed hosts (AMD EPYC 7302).

#include "simcore/config/Schema.hpp"
#include "simcore/units/Units.hpp"

#include <cstdint>
#include <list>
#include <optional>
#include <string>

namespace nafsim::nodes {

struct CpuComputeConfig {
  unsigned cores = 16;
  Hertz frequency{3.0e9};
  unsigned simd_flops_per_cycle = 32;
  Bytes l2{8ULL << 20};
  unsigned l2_bytes_per_cycle = 64;
  Bytes l3{128ULL << 20};
  unsigned l3_bytes_per_cycle = 32;
  BitsPerSecond dram_bandwidth{204.8e9 * 8};
  BitsPerSecond dram_bandwidth_per_core{20e9 * 8};
  SimTime dram_latency = SimTime::ns(90);
  unsigned misses_in_flight_per_core = 10;
  Bytes cache_line{64};
  SimTime parallel_region = SimTime::us(2);
  template <class V> void describe(V& v)
  {
    v.field("cores", cores,
            "physical cores (the ACCL+ hosts' EPYC 7302: 16; the DLRM baseline sets its Xeon 8259CL's)",
            config::Limits::between(1, 4096));
    v.field("frequency", frequency,
            "core clock under load (the ACCL+ hosts' EPYC 7302: 3.0 GHz base, 3.3 GHz boost; the DLRM baseline "
            "sets its Xeon 8259CL's)");
    v.field("simd_flops_per_cycle", simd_flops_per_cycle,
            "single-precision flops one core retires per cycle (Zen 2: two 256-bit FMA pipes = 2 x 8 lanes x 2)",
            config::Limits::at_least(1));
    v.field("l2", l2,
            "L2 capacity of all cores together (the ACCL+ hosts' EPYC 7302: 16 x 512 KiB = 8 MiB, ACCL+ section "
            "6.2's FC-on-CPU experiment: 8 MB; the DLRM baseline sets its Xeon 8259CL's)");
    v.field("l2_bytes_per_cycle", l2_bytes_per_cycle, "bytes one core streams from its L2 per cycle (Zen 2: 64)",
            config::Limits::at_least(1));
    v.field("l3", l3,
            "L3 capacity of all cores together (the ACCL+ hosts' EPYC 7302: 128 MiB, ACCL+ section 6.2's "
            "FC-on-CPU experiment: 128 MB; the DLRM baseline sets its Xeon 8259CL's)");
    v.field("l3_bytes_per_cycle", l3_bytes_per_cycle, "bytes one core streams from the L3 per cycle (Zen 2: 32)",
            config::Limits::at_least(1));
    v.field("dram_bandwidth", dram_bandwidth,
            "the socket's DRAM bandwidth (the ACCL+ hosts' EPYC 7302: 8 channels DDR4-3200 = 204.8 GB/s "
            "peak; the DLRM baseline sets its Xeon 8259CL's)");
    v.field("dram_bandwidth_per_core", dram_bandwidth_per_core,
            "what one core's streams draw from DRAM with the hardware prefetchers (ASSUMPTION: 20 GB/s, the order "
            "of single-core STREAM on server cores)");
    v.field("dram_latency", dram_latency, "load-to-use latency of a random DRAM access (ASSUMPTION: 90 ns, typical)");
    v.field("misses_in_flight_per_core", misses_in_flight_per_core,
            "cache misses one core keeps in flight for independent random accesses (line fill buffers; Zen 2: 22 "
            "L1 misses, ~10 effective for dependent-index gathers: ASSUMPTION)",
            config::Limits::at_least(1));
    v.field("cache_line", cache_line, "cache line size", config::Limits::at_least(1));
    v.field("parallel_region", parallel_region,
            "fork and join of a kernel run on several threads (wake the worker threads, barrier at the end; "
            "ASSUMPTION: 2 us, OpenMP-class runtimes)");
  }
};

/// Which level of the hierarchy served how many bytes of one access.
struct CacheSplit {
  std::uint64_t l2   = 0;
  std::uint64_t l3   = 0;
  std::uint64_t dram = 0;
};

/// The CPU's caches as an LRU stack of buffers (a stack-distance model): a buffer streamed again is
/// served by the smallest level that holds it together with every byte touched since its last use
/// (its stack distance); a level too small for that serves none of it (LRU under a cyclic scan). A
/// buffer never touched comes from DRAM. Capacities are those of the cores a kernel
/// runs on (each core has its own L2 and its share of the L3).
class CpuCache {
public:
  /// Touch `bytes` of buffer `name`: where they came from, and the buffer becomes the most recent.
  CacheSplit access(const std::string& name, std::uint64_t bytes, std::uint64_t l2_cap, std::uint64_t l3_cap);
  /// Bytes touched since `name` was last touched (its stack distance), or nullopt if it never was.
  std::optional<std::uint64_t> distance(const std::string& name) const;
  void clear() { lru_.clear(); }

private:
  struct Entry {
    std::string name;
    std::uint64_t bytes = 0;
  };
  std::list<Entry> lru_; ///< most recent first
};

/// The time of one kernel on `threads` cores.
struct CpuKernelTime {
  SimTime total;
  SimTime compute; ///< the arithmetic alone
  SimTime memory;  ///< streaming the operands alone
  CacheSplit operands;
  CacheSplit weights; ///< the part of `operands` that is the weight matrix (fc_batch, gemv)
};

/// Where a buffer came from: "l2", "l3", "dram", or "mixed".
std::string level_name(const CacheSplit& s);

class CpuCompute {
public:
  explicit CpuCompute(const CpuComputeConfig& cfg) : cfg_(cfg) {}
  const CpuComputeConfig& config() const { return cfg_; }

  /// y = W x with W of `rows` x `cols` float32 (Eigen's GEMV, the ACCL+ Fig. 16 kernel): reads x
  /// and W, writes y; 2 flops per weight.
  CpuKernelTime gemv(CpuCache& cache, const std::string& weights, std::uint64_t rows, std::uint64_t cols,
                     unsigned threads) const;
  /// A batch of `batch` input vectors through one FC layer (GEMM, batch x in x out); weights read once.
  CpuKernelTime fc_batch(CpuCache& cache, const std::string& weights, std::uint64_t in, std::uint64_t out,
                         std::uint64_t batch, unsigned threads) const;
  /// `lookups` independent random reads of `bytes` each (embedding-table gathers), spread over `threads`
  /// cores, each keeping misses_in_flight_per_core lines in flight.
  SimTime random_reads(std::uint64_t lookups, std::uint64_t bytes, unsigned threads) const;
  /// A kernel known only by its work (ASTRA-sim's roofline for Chakra compute nodes): `flops` on `threads` cores'
  /// SIMD units while `bytes` stream from DRAM (its first touch); the slower of the two, plus the parallel region's
  /// fork and join on more than one thread.
  CpuKernelTime roofline(double flops, std::uint64_t bytes, unsigned threads) const;
  /// One core copies `bytes` from buffer `src` to buffer `dst` (memcpy).
  CpuKernelTime copy(CpuCache& cache, const std::string& src, const std::string& dst, std::uint64_t bytes) const;

  /// Capacities and rates for `threads` cores (threads <= cores).
  std::uint64_t l2_capacity(unsigned threads) const;
  std::uint64_t l3_capacity(unsigned threads) const;
  SimTime stream_time(const CacheSplit& s, unsigned threads) const;
  SimTime flops_time(double flops, unsigned threads) const;

private:
  unsigned clamp_threads(unsigned threads) const;
  CpuComputeConfig cfg_;
};

} // namespace nafsim::nodes
