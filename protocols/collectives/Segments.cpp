#include "protocols/collectives/Segments.hpp"

#include <algorithm>

namespace nafsim::coll {

std::vector<std::pair<std::uint64_t, std::uint64_t>> segments(std::uint64_t count, std::uint64_t seg)
{
  std::vector<std::pair<std::uint64_t, std::uint64_t>> v;
  if (seg == 0 || count <= seg) {
    v.emplace_back(0, count);
    return v;
  }
  for (std::uint64_t off = 0; off < count; off += seg)
    v.emplace_back(off, std::min(seg, count - off));
  return v;
}

} // namespace nafsim::coll
