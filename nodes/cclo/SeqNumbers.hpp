#pragma once
// Eager sequence numbers, taken as the data mover takes them (dma_mover.cpp's instruction_decode reads
// RANK_INBOUND_SEQ_OFFSET / RANK_OUTBOUND_SEQ_OFFSET of the communicator when it decodes a move and writes them back
// advanced by the Rx buffers it consumed / the messages it cut): a move's numbers are taken in decode order, one per
// piece, not when the firmware issues it. The hardware keeps one count per peer rank (the tag only goes into the
// seek); nafsim keeps one per peer host and tag, so that calls of several communicators or tags between the same
// two nodes keep their own order (its matching's choice, unchanged here).

#include "simcore/engine/KeyedSlots.hpp"

#include <cstdint>
#include <vector>

namespace nafsim::nodes {

class SeqNumbers {
public:
  /// The number the next message with `peer` under `tag` carries (tag 0 keeps the plain per-peer count).
  std::uint64_t peek(std::uint32_t peer, std::uint32_t tag) const
  {
    const std::uint64_t* n = counts_.find(key(peer, tag));
    return value(tag, (n ? *n : 0) + 1);
  }
  /// Take it: the next message's number.
  std::uint64_t take(std::uint32_t peer, std::uint32_t tag) { return value(tag, ++count(peer, tag)); }

private:
  /// A message's number: its tag in the upper 32 bits (a tag above 16 bits shifted by 48 lost its upper bits and
  /// could take another tag's numbers), the count in the lower 32 (4 billion messages per peer and tag).
  static std::uint64_t value(std::uint32_t tag, std::uint64_t n) { return tag == 0 ? n : (std::uint64_t{tag} << 32) | n; }
  /// Counters exist only for the (peer, tag) pairs a node talks to: memory grows with active peers, not ranks. An
  /// open-addressing index to each pair's count (a look-up per eager message; FlatIndex.hpp).
  static std::uint64_t key(std::uint32_t peer, std::uint32_t tag) { return (std::uint64_t{peer} << 32) | tag; }
  std::uint64_t& count(std::uint32_t peer, std::uint32_t tag) { return counts_[key(peer, tag)]; }
  KeyedSlots<std::uint64_t> counts_; ///< per (peer host << 32 | tag)
};

} // namespace nafsim::nodes
