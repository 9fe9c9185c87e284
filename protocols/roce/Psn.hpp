#pragma once
// 24-bit packet sequence numbers (InfiniBand spec, BTH.PSN) and their modular comparisons.

#include <cstdint>

namespace nafsim::roce {

using Psn = std::uint32_t;
inline constexpr Psn kPsnMask = 0xFFFFFF;

constexpr Psn psn_add(Psn a, std::int64_t d)
{
  return static_cast<Psn>((static_cast<std::int64_t>(a) + d) & kPsnMask);
}
/// Signed distance b - a in the 24-bit ring, in [-2^23, 2^23).
constexpr std::int32_t psn_diff(Psn b, Psn a)
{
  std::int32_t d = static_cast<std::int32_t>((b - a) & kPsnMask);
  return d >= (1 << 23) ? d - (1 << 24) : d;
}
constexpr bool psn_lt(Psn a, Psn b) { return psn_diff(b, a) > 0; }
constexpr bool psn_le(Psn a, Psn b) { return psn_diff(b, a) >= 0; }

} // namespace nafsim::roce
