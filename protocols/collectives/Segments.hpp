#pragma once
// How eager transfers are cut to Rx-buffer size: the firmware's segmentation, used by the schedules' builders and by
// the CCLO's firmware alike.

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <utility>

namespace nafsim::coll {

/// The (offset, count) pieces of `count` elements in segments of `seg` elements (one piece if seg is 0 or
/// count <= seg; one empty piece if count is 0), as a range computed on the fly: the firmware walks one per eager
/// transfer, and a vector of them was an allocation each time.
class Segments {
public:
  using Piece = std::pair<std::uint64_t, std::uint64_t>;
  Segments(std::uint64_t count, std::uint64_t seg) : count_(count), seg_(seg == 0 || count <= seg ? count : seg) {}

  class iterator {
  public:
    using iterator_category = std::forward_iterator_tag;
    using value_type        = Piece;
    using difference_type   = std::ptrdiff_t;
    using pointer           = void;
    using reference         = Piece;
    iterator() = default;
    iterator(const Segments* s, std::uint64_t i) : s_(s), i_(i) {}
    Piece operator*() const
    {
      const std::uint64_t off = i_ * s_->seg_;
      return {off, s_->count_ - off < s_->seg_ ? s_->count_ - off : s_->seg_};
    }
    iterator& operator++()
    {
      ++i_;
      return *this;
    }
    iterator operator++(int)
    {
      iterator was = *this;
      ++i_;
      return was;
    }
    bool operator==(const iterator& o) const { return i_ == o.i_; }
    bool operator!=(const iterator& o) const { return i_ != o.i_; }

  private:
    const Segments* s_ = nullptr;
    std::uint64_t i_   = 0;
  };
  iterator begin() const { return {this, 0}; }
  iterator end() const { return {this, size()}; }
  /// How many pieces (at least one).
  std::uint64_t size() const { return seg_ == 0 ? 1 : (count_ + seg_ - 1) / seg_; }
  Piece operator[](std::uint64_t i) const { return *iterator(this, i); }

private:
  std::uint64_t count_;
  std::uint64_t seg_; ///< the piece size: count_ itself when the transfer is one piece (0 for an empty one)
};

inline Segments segments(std::uint64_t count, std::uint64_t seg) { return {count, seg}; }

} // namespace nafsim::coll
