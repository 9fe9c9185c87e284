#include "nodes/pac/PortalsProcessor.hpp"

namespace nafsim::nodes {

SimTime PortalsProcessor::command(const std::string& list, unsigned visited, std::size_t list_entries, bool hashing)
{
  double cyc = cfg_.command_cycles + (hashing ? cfg_.hash_cycles : 0.0) + cfg_.entry_cycles * visited;
  SimTime t  = cycles(cyc);
  if (visited == 0)
    return t;
  // The walk touches the list from its head: served by the cache when the whole list, with what was touched
  // since its last walk, fits (LRU under a cyclic walk); otherwise every entry visited misses.
  const std::uint64_t footprint = static_cast<std::uint64_t>(list_entries) * cfg_.entry_bytes.count;
  CacheSplit s                  = cache_.access(list, footprint, cfg_.cache.count, cfg_.cache.count);
  if (s.dram > 0) {
    missed_ += visited;
    t = t + cfg_.miss_latency * static_cast<std::int64_t>(visited);
  }
  return t;
}

} // namespace nafsim::nodes
