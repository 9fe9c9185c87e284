#pragma once
// Putting one message back together from its datagrams, which may arrive in any order, twice, or
// never: a bitmap of the fragments seen.

#include <cstdint>
#include <vector>

namespace nafsim::udp {

class Reassembly {
public:
  explicit Reassembly(std::uint32_t fragments) : seen_(fragments, false) {}
  enum class Outcome { Fresh, Duplicate, Complete };
  Outcome add(std::uint32_t index)
  {
    if (index >= seen_.size() || seen_[index])
      return Outcome::Duplicate;
    seen_[index] = true;
    return ++count_ == seen_.size() ? Outcome::Complete : Outcome::Fresh;
  }
  std::uint32_t received() const { return count_; }
  std::uint32_t fragments() const { return static_cast<std::uint32_t>(seen_.size()); }
  /// The first fragment not seen (fragments() when complete).
  std::uint32_t first_missing() const
  {
    for (std::uint32_t i = 0; i < seen_.size(); ++i)
      if (!seen_[i])
        return i;
    return fragments();
  }

private:
  std::vector<bool> seen_;
  std::uint32_t count_ = 0;
};

} // namespace nafsim::udp
