#pragma once
// Deterministic random streams: one per component (DESIGN.md section 3, determinism), derived
// from the run seed and a stable stream id, so adding a component never shifts another's draws.

#include <cstdint>

namespace nafsim {

class Rng {
public:
  Rng() : Rng(0, 0) {}
  Rng(std::uint64_t seed, std::uint64_t stream)
  {
    std::uint64_t x = seed ^ (stream * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL);
    for (auto& w : s_)
      w = splitmix(x);
  }
  /// Uniform 64-bit value (xoshiro256**).
  std::uint64_t next()
  {
    std::uint64_t r = rotl(s_[1] * 5, 7) * 9;
    std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return r;
  }
  /// Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Uniform in [0, n).
  std::uint64_t below(std::uint64_t n) { return n <= 1 ? 0 : next() % n; }
  bool chance(double p) { return p > 0 && uniform() < p; }

  static std::uint64_t mix(std::uint64_t a, std::uint64_t b)
  {
    std::uint64_t x = a ^ (b + 0x9E3779B97F4A7C15ULL + (a << 6) + (a >> 2));
    return splitmix(x);
  }

private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static std::uint64_t splitmix(std::uint64_t& x)
  {
    std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
    z               = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z               = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  std::uint64_t s_[4];
};

} // namespace nafsim
