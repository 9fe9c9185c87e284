#pragma once
// The receive registration mask (paper section 3.2, Fig 4): one bit per packet of the largest
// registrable operation. Registration builds the initial mask with a barrel shifter: the bits of
// packets the operation does not have are ones from the start, the `expected` low bits are zero
// except the first packet's. Every later packet flips its bit; an unchanged mask means a
// duplicate, an all-ones mask a complete operation.

#include <cstdint>
#include <string>
#include <vector>

namespace nafsim::lant {

class Bitmask {
public:
  /// The initial mask of an operation of `expected` packets whose packet `arrived` is in.
  static Bitmask initial(unsigned width, unsigned expected, unsigned arrived = 0);

  enum class Update { New, Duplicate, Complete };
  /// Mark packet `bit` (the barrel-shifter offset (addr - base) / packet size).
  Update set(unsigned bit);
  bool all_ones() const;
  unsigned width() const { return width_; }
  bool test(unsigned bit) const { return (words_[bit / 64] >> (bit % 64)) & 1; }
  /// Most significant bit first, a '.' every 4 bits, as the paper writes it ('b1111.0001).
  std::string to_string() const;
  bool operator==(const Bitmask&) const = default;

private:
  unsigned width_ = 0;
  std::vector<std::uint64_t> words_;
};

/// The barrel-shifter offset of the packet at `addr` in an operation starting at `base`.
inline unsigned packet_bit(std::uint64_t base, std::uint64_t addr, std::uint64_t packet_size)
{
  return static_cast<unsigned>((addr - base) / packet_size);
}

} // namespace nafsim::lant
