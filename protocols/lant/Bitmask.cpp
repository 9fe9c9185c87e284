#include "protocols/lant/Bitmask.hpp"

#include "protocols/lant/Actions.hpp"

#include <fmt/format.h>

namespace nafsim::lant {

Bitmask Bitmask::initial(unsigned width, unsigned expected, unsigned arrived)
{
  if (expected == 0 || expected > width || arrived >= expected)
    throw ProtocolError(fmt::format("registration of {} packets (first in: {}) does not fit a {}-bit mask", expected,
                                      arrived, width));
  Bitmask m;
  m.width_ = width;
  m.words_.assign((width + 63) / 64, ~std::uint64_t{0});
  if (width % 64 != 0)
    m.words_.back() = (std::uint64_t{1} << (width % 64)) - 1;
  for (unsigned b = 0; b < expected; ++b) // shift in zeroes for the expected packets
    m.words_[b / 64] &= ~(std::uint64_t{1} << (b % 64));
  m.words_[arrived / 64] |= std::uint64_t{1} << (arrived % 64);
  return m;
}

Bitmask::Update Bitmask::set(unsigned bit)
{
  if (bit >= width_)
    throw ProtocolError(fmt::format("packet bit {} outside a {}-bit registration mask", bit, width_));
  std::uint64_t& w = words_[bit / 64];
  std::uint64_t before = w;
  w |= std::uint64_t{1} << (bit % 64);
  if (w == before)
    return Update::Duplicate;
  return all_ones() ? Update::Complete : Update::New;
}

bool Bitmask::all_ones() const
{
  for (std::size_t i = 0; i < words_.size(); ++i) {
    unsigned bits       = (i + 1 == words_.size() && width_ % 64 != 0) ? width_ % 64 : 64;
    std::uint64_t full = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
    if (words_[i] != full)
      return false;
  }
  return true;
}

std::string Bitmask::to_string() const
{
  std::string s = "'b";
  for (unsigned i = width_; i-- > 0;) {
    s += test(i) ? '1' : '0';
    if (i % 4 == 0 && i != 0)
      s += '.';
  }
  return s;
}

} // namespace nafsim::lant
