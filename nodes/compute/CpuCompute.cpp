#include "nodes/compute/CpuCompute.hpp"

#include <algorithm>

namespace nafsim::nodes {

CacheSplit CpuCache::access(const std::string& name, std::uint64_t bytes, std::uint64_t l2_cap, std::uint64_t l3_cap)
{
  CacheSplit s;
  auto d = distance(name);
  if (!d) {
    s.dram = bytes;
  } else {
    // Kernels stream their buffers front to back. Under LRU the front of the buffer has the largest
    // stack distance (the rest of the buffer and the `*d` bytes touched since): if that exceeds a level,
    // each miss evicts the line the scan needs next and the level serves none of it (the classic
    // cyclic-scan result); otherwise all of it.
    auto room = [&](std::uint64_t cap) { return *d + bytes <= cap ? bytes : std::uint64_t{0}; };
    s.l2   = room(l2_cap);
    s.l3   = std::max(room(l3_cap), s.l2) - s.l2;
    s.dram = bytes - s.l2 - s.l3;
  }
  lru_.remove_if([&](const Entry& e) { return e.name == name; });
  lru_.push_front(Entry{name, bytes});
  return s;
}

std::optional<std::uint64_t> CpuCache::distance(const std::string& name) const
{
  std::uint64_t d = 0;
  for (auto const& e : lru_) {
    if (e.name == name)
      return d;
    d += e.bytes;
  }
  return std::nullopt;
}

std::string level_name(const CacheSplit& s)
{
  int levels = (s.l2 > 0) + (s.l3 > 0) + (s.dram > 0);
  if (levels != 1)
    return levels == 0 ? "-" : "mixed";
  return s.l2 > 0 ? "l2" : s.l3 > 0 ? "l3" : "dram";
}

unsigned CpuCompute::clamp_threads(unsigned threads) const
{
  return std::clamp(threads, 1U, cfg_.cores);
}

std::uint64_t CpuCompute::l2_capacity(unsigned threads) const
{
  // Each core has its own L2: a kernel on t cores holds t of them.
  return cfg_.l2.count / cfg_.cores * clamp_threads(threads);
}

std::uint64_t CpuCompute::l3_capacity(unsigned threads) const
{
  // The L3 is split among core complexes; a kernel on t cores uses the share of the complexes they sit in
  // (spread evenly: t/cores of it).
  return cfg_.l3.count / cfg_.cores * clamp_threads(threads);
}

SimTime CpuCompute::stream_time(const CacheSplit& s, unsigned threads) const
{
  const double t    = clamp_threads(threads);
  const double f    = cfg_.frequency.hz;
  const double dram = std::min(cfg_.dram_bandwidth.bps, t * cfg_.dram_bandwidth_per_core.bps) / 8.0;
  double secs       = static_cast<double>(s.l2) / (t * cfg_.l2_bytes_per_cycle * f) +
                static_cast<double>(s.l3) / (t * cfg_.l3_bytes_per_cycle * f) + static_cast<double>(s.dram) / dram;
  return SimTime::from_seconds(secs);
}

SimTime CpuCompute::flops_time(double flops, unsigned threads) const
{
  return SimTime::from_seconds(flops / (clamp_threads(threads) * static_cast<double>(cfg_.simd_flops_per_cycle) *
                                        cfg_.frequency.hz));
}

namespace {
CacheSplit operator+(CacheSplit a, CacheSplit b)
{
  return CacheSplit{a.l2 + b.l2, a.l3 + b.l3, a.dram + b.dram};
}
} // namespace

CpuKernelTime CpuCompute::gemv(CpuCache& cache, const std::string& weights, std::uint64_t rows, std::uint64_t cols,
                               unsigned threads) const
{
  return fc_batch(cache, weights, cols, rows, 1, threads);
}

CpuKernelTime CpuCompute::fc_batch(CpuCache& cache, const std::string& weights, std::uint64_t in, std::uint64_t out,
                                   std::uint64_t batch, unsigned threads) const
{
  const auto l2 = l2_capacity(threads), l3 = l3_capacity(threads);
  CpuKernelTime k;
  k.operands = cache.access(weights + ".in", batch * in * 4, l2, l3);
  k.weights  = cache.access(weights, in * out * 4, l2, l3);
  k.operands = k.operands + k.weights;
  k.operands = k.operands + cache.access(weights + ".out", batch * out * 4, l2, l3);
  k.compute  = flops_time(2.0 * static_cast<double>(batch * in * out), threads);
  k.memory   = stream_time(k.operands, threads);
  k.total    = std::max(k.compute, k.memory) + (clamp_threads(threads) > 1 ? cfg_.parallel_region : SimTime{});
  return k;
}

SimTime CpuCompute::random_reads(std::uint64_t lookups, std::uint64_t bytes, unsigned threads) const
{
  const std::uint64_t line  = std::max<std::uint64_t>(cfg_.cache_line.count, 1);
  const std::uint64_t lines = lookups * ((bytes + line - 1) / line);
  const std::uint64_t inflight = std::uint64_t{clamp_threads(threads)} * cfg_.misses_in_flight_per_core;
  const SimTime latency_bound  = cfg_.dram_latency * static_cast<std::int64_t>((lines + inflight - 1) / inflight);
  const SimTime bandwidth_bound = stream_time(CacheSplit{0, 0, lines * line}, threads);
  return std::max(latency_bound, bandwidth_bound);
}

CpuKernelTime CpuCompute::roofline(double flops, std::uint64_t bytes, unsigned threads) const
{
  CpuKernelTime k;
  k.operands.dram = bytes;
  k.compute       = flops_time(flops, threads);
  k.memory        = stream_time(k.operands, threads);
  k.total         = std::max(k.compute, k.memory) + (clamp_threads(threads) > 1 ? cfg_.parallel_region : SimTime{});
  return k;
}

CpuKernelTime CpuCompute::copy(CpuCache& cache, const std::string& src, const std::string& dst,
                               std::uint64_t bytes) const
{
  const auto l2 = l2_capacity(1), l3 = l3_capacity(1);
  CpuKernelTime k;
  k.operands = cache.access(src, bytes, l2, l3) + cache.access(dst, bytes, l2, l3);
  k.memory   = stream_time(k.operands, 1);
  k.total    = k.memory;
  return k;
}

} // namespace nafsim::nodes
