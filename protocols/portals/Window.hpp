#pragma once
// One-sided windows and Global Arrays over Portals (PAC paper section 3.3.2). PtlWinCreate gives every
// participating node unique match bits (the MatchBits array, with the IntraNodes bits of who takes part)
// and inserts, at each of them, one persistent priority entry over its window buffer that accepts those
// bits from any source. A one-sided put or get to node k carries k's match bits and an offset into the
// window; since the entry is in place before any one-sided message can come, such a message is never
// unexpected, and the UM and OF lists are never walked. The entry accepts any source, so hashing on the
// source cannot narrow its search (with hashing it sits with the wildcard entries, walked every time).
// GA_Create divides a global array into equal blocks, one per node, the last taking what remains.

#include "protocols/portals/Matching.hpp"

#include <cstdint>
#include <utility>
#include <vector>

namespace nafsim::portals {

struct Window {
  std::uint32_t id = 0;
  std::vector<bool> members;         ///< IntraNodes: node i takes part
  std::vector<MatchBits> match_bits; ///< MatchBits: node i's bits for this window (0 where not a member)
  bool member(ProcessId n) const { return n >= 0 && static_cast<std::size_t>(n) < members.size() && members[n]; }
};

/// PtlWinCreate's announcement: the window's match bits for every member of `members` (of `nprocs`
/// nodes). Bits are unique per (window, node) and stay clear of two-sided tags (the top bit is set).
Window win_create(std::uint32_t id, const std::vector<ProcessId>& members, ProcessId nprocs);

/// The persistent priority entry node `self` appends for window `w` over its buffer [start, start + length).
MatchEntry window_entry(const Window& w, ProcessId self, std::uint64_t start, std::uint64_t length,
                        std::uint64_t user = 0);

/// The header of a one-sided put of `bytes` from `source` into node `target`'s window at `offset`.
Header window_put(const Window& w, ProcessId source, ProcessId target, std::uint64_t offset, std::uint64_t bytes);

/// GA_Create's division of `elements` over `nodes`: node i holds [first, first + count).
std::vector<std::pair<std::uint64_t, std::uint64_t>> ga_distribution(std::uint64_t elements, unsigned nodes);
/// The node holding element `index`, and its offset there.
std::pair<unsigned, std::uint64_t> ga_locate(std::uint64_t index, std::uint64_t elements, unsigned nodes);

} // namespace nafsim::portals
