#include "protocols/portals/Window.hpp"

#include <stdexcept>
#include <string>

namespace nafsim::portals {

Window win_create(std::uint32_t id, const std::vector<ProcessId>& members, ProcessId nprocs)
{
  if (nprocs <= 0)
    throw std::invalid_argument("a window needs at least one node");
  Window w;
  w.id = id;
  w.members.assign(static_cast<std::size_t>(nprocs), false);
  w.match_bits.assign(static_cast<std::size_t>(nprocs), 0);
  for (ProcessId n : members) {
    if (n < 0 || n >= nprocs)
      throw std::invalid_argument("window member " + std::to_string(n) + " is not one of the " +
                                  std::to_string(nprocs) + " nodes");
    w.members[static_cast<std::size_t>(n)]    = true;
    w.match_bits[static_cast<std::size_t>(n)] = (MatchBits{1} << 63) | (MatchBits{id} << 32) | static_cast<MatchBits>(n);
  }
  return w;
}

MatchEntry window_entry(const Window& w, ProcessId self, std::uint64_t start, std::uint64_t length, std::uint64_t user)
{
  if (!w.member(self))
    throw std::invalid_argument("node " + std::to_string(self) + " is not a member of window " + std::to_string(w.id));
  MatchEntry me;
  me.source     = kAnySource; // any member may put or get
  me.match_bits = w.match_bits[static_cast<std::size_t>(self)];
  me.start      = start;
  me.length     = length;
  me.use_once   = false; // persistent: the window stays until it is freed
  me.user       = user;
  return me;
}

Header window_put(const Window& w, ProcessId source, ProcessId target, std::uint64_t offset, std::uint64_t bytes)
{
  if (!w.member(target) || !w.member(source))
    throw std::invalid_argument("a one-sided operation between nodes " + std::to_string(source) + " and " +
                                std::to_string(target) + ", not both members of window " + std::to_string(w.id));
  Header h;
  h.source        = source;
  h.match_bits    = w.match_bits[static_cast<std::size_t>(target)];
  h.length        = bytes;
  h.carried       = bytes;
  h.remote_offset = offset;
  return h;
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> ga_distribution(std::uint64_t elements, unsigned nodes)
{
  if (nodes == 0)
    throw std::invalid_argument("a global array needs at least one node");
  const std::uint64_t block = (elements + nodes - 1) / nodes;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> d;
  for (unsigned i = 0; i < nodes; ++i) {
    const std::uint64_t first = std::min(elements, block * i);
    d.emplace_back(first, std::min(elements, first + block) - first);
  }
  return d;
}

std::pair<unsigned, std::uint64_t> ga_locate(std::uint64_t index, std::uint64_t elements, unsigned nodes)
{
  if (index >= elements)
    throw std::invalid_argument("element " + std::to_string(index) + " of a global array of " +
                                std::to_string(elements));
  const std::uint64_t block = (elements + nodes - 1) / nodes;
  return {static_cast<unsigned>(index / block), index % block};
}

} // namespace nafsim::portals
