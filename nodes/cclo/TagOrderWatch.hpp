#pragma once
// Whether the run's eager messages could be matched by the hardware's sequence numbers. nafsim numbers a peer's
// eager messages per (peer, tag) (SeqNumbers.hpp); ACCL's data mover keeps one count per peer rank and its Rx-buffer
// seek checks the tag too (dma_mover.cpp instruction_decode, rxbuf_seek), so the hardware receives a peer's messages
// only in the order they were sent, whatever their tags: where a receiver takes one under another tag than the
// peer's message of that number, its seek would spin for ever. This watch follows every (sender, receiver) pair's
// messages in the hardware's numbering and keeps the first place where the model took one the hardware could not,
// for the run's summary; the model's matching is unchanged. ASSUMPTION: it keys on the hosts, where the hardware
// counts per communicator too, so it judges only messages of two point-to-point tags (both on the world
// communicator), never the collectives' tag 0.

#include "simcore/engine/Fifo.hpp"
#include "simcore/engine/KeyedSlots.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace nafsim::nodes {

class TagOrderWatch {
public:
  struct Miss {
    std::uint32_t from = 0, to = 0; ///< hosts
    std::uint64_t message = 0;      ///< the hardware's number of the message (1: the pair's first)
    std::uint32_t sent_tag = 0, taken_tag = 0;
  };
  /// `from`'s data mover numbered its next eager message to `to`, under `tag`.
  void sent(std::uint32_t from, std::uint32_t to, std::uint32_t tag) { pair(from, to).tags.push_back(tag); }
  /// `to`'s data mover took its next eager message from `from`, under `tag`.
  void taken(std::uint32_t from, std::uint32_t to, std::uint32_t tag)
  {
    Pair& p = pair(from, to);
    ++p.taken;
    if (p.tags.empty()) // (a message is taken only once it arrived, after it was numbered)
      return;
    const std::uint32_t sent_tag = p.tags.front();
    p.tags.pop_front();
    // A message sent under tag 0 (the collectives' TAG_ANY) matches any seek; a receive under tag 0 may be a
    // collective of another communicator, whose messages the hardware numbers apart (the watch keys on the hosts):
    // only two point-to-point tags are told apart for sure.
    if (sent_tag != tag && sent_tag != 0 && tag != 0 && !miss_)
      miss_ = Miss{from, to, p.taken, sent_tag, tag};
  }
  /// The first message taken out of the hardware's order, if any.
  const std::optional<Miss>& miss() const { return miss_; }

private:
  struct Pair {
    Fifo<std::uint32_t> tags; ///< of the messages numbered and not yet taken, in the sender's order
    std::uint64_t taken = 0;
  };
  Pair& pair(std::uint32_t from, std::uint32_t to) { return pairs_[(std::uint64_t{from} << 32) | to]; }
  KeyedSlots<Pair> pairs_;
  std::optional<Miss> miss_;
};

} // namespace nafsim::nodes
