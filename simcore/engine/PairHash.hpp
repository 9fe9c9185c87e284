#pragma once
// The hash of a key made of two integers (a sender and its flow, operation or peer) for the simulator's hashed
// look-ups: the first times the golden ratio's 64-bit constant, xor the second, through the standard library's
// hash. One function, so that every such key hashes alike.

#include <cstddef>
#include <cstdint>
#include <functional>

namespace nafsim {

inline std::size_t pair_hash(std::uint64_t first, std::uint64_t second)
{
  return std::hash<std::uint64_t>{}(first * 0x9E3779B97F4A7C15ULL ^ second);
}

} // namespace nafsim
