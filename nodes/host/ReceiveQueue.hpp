#pragma once
// The receive queue of a host's MPI library over RDMA (UCX's RC shared receive queue): `posted` receives, each
// with a bounce buffer an arriving SEND is written into; none posted when a SEND arrives: the NIC refuses it with
// an RNR NAK and the sender retries.
//
// What an arrival does to it, as UCX 1.13's sources do (openucx/ucx):
// - the receive it took is counted free again when the CPU polls its completion (rc_mlx5.inl,
//   uct_rc_mlx5_iface_release_srq_seg: ++rx.srq.available whatever the handler returned) and posted again in that
//   progress call (uct_rc_mlx5_iface_common_poll_rx: srq_post_recv; rc_verbs: post_recv_common after the poll);
// - a message UCP can match is copied out inside the handler (ucp_eager_tagged_handler returns UCS_OK), so its
//   buffer goes back to the pool at the same poll (`release`);
// - a message UCP cannot match yet (unexpected) keeps its buffer as the unexpected queue's descriptor
//   (ucp_recv_desc_init with UCT_CB_PARAM_FLAG_DESC: UCS_INPROGRESS, rc_mlx5 hold_srq_desc), and its receive is
//   posted again with a fresh buffer from the pool (srq_post_recv takes one by UCT_TL_IFACE_GET_RX_DESC), which
//   grows without bound by default (RX_MAX_BUFS -1) (`hold`, then `release` once matched and copied).
// So unexpected messages cost memory, not posted receives: a receiver whose ranks post late does not run out of
// receives, where holding a posted receive per unexpected message made every peer wait on another's full queue (a
// gather of 64 KiB on 8 ranks with 2 receives posted failed after thousands of RNR NAKs).
// ASSUMPTION: a receive is posted again at the poll that took its arrival; UCX posts in batches (RX_MAX_BATCH, 16)
// once that many are free, a delay of at most a batch's polls that only a queue nearly empty would notice.
// Not modeled: UCX's RC flow control (FC_ENABLE: each sender may send min(512, queue length) messages before the
// receiver grants it more as it polls), which keeps the queue from emptying while the senders' windows together fit
// in it (senders x window <= queue length: the 7 senders to one rank of an 8-rank job, 3,584 of the preset's 4,095).
// Over TCP (MPICH) the same queue stands for the buffers MPICH reads the socket into; an arrival finding none stalls
// the stream until one is free (TcpPoe).

#include "simcore/units/Units.hpp"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

namespace nafsim::nodes {

class ReceiveQueue {
public:
  explicit ReceiveQueue(std::uint32_t posted) : capacity_(posted), free_(posted), state_(posted, kFree)
  {
    pool_.resize(posted);
    for (std::uint32_t i = 0; i < posted; ++i)
      pool_[i] = posted - 1 - i; // buffer 0 first
  }

  /// A SEND arrives at `now`: the buffer of a posted receive it is written into, or none (RNR).
  std::optional<std::uint32_t> take(SimTime now)
  {
    repost_due(now);
    if (free_ == 0)
      return std::nullopt;
    --free_;
    max_in_use_ = std::max<std::uint64_t>(max_in_use_, capacity_ - free_);
    std::uint32_t buf;
    if (pool_.empty()) { // every buffer held: the pool grows
      buf = static_cast<std::uint32_t>(state_.size());
      state_.push_back(kFree);
    } else {
      buf = pool_.back();
      pool_.pop_back();
    }
    state_[buf]  = kTaken;
    max_buffers_    = std::max<std::uint64_t>(max_buffers_, ++buffers_out_);
    return buf;
  }

  /// The arrival in `buf` is handled (copied out, or its request acted on): its buffer goes back to the pool, and
  /// its receive is posted again now if it has not been already (hold).
  void release(std::uint32_t buf)
  {
    assert(buf < state_.size() && state_[buf] != kFree && "a buffer released twice");
    --buffers_out_;
    if (state_[buf] == kTaken)
      ++free_;
    else
      --held_;
    state_[buf] = kFree;
    pool_.push_back(buf);
  }

  /// The arrival in `buf` is unexpected: it keeps its buffer until release(), and its receive is posted again with
  /// another buffer at `repost` (when the CPU polls it; not before the dates given before: one CPU polls in order).
  void hold(std::uint32_t buf, SimTime repost)
  {
    assert(buf < state_.size() && state_[buf] != kFree && "a free buffer held");
    if (state_[buf] != kTaken)
      return; // held already
    state_[buf] = kHeld;
    assert((reposts_.empty() || reposts_.back() <= repost) && "one CPU polls its arrivals in order");
    reposts_.push_back(repost);
    max_held_ = std::max<std::uint64_t>(max_held_, ++held_);
  }

  /// Posted receives at most taken at once (the queue's length bounds it).
  std::uint64_t max_in_use() const { return max_in_use_; }
  /// Buffers at most held by unexpected messages at once.
  std::uint64_t max_held() const { return max_held_; }
  /// Bounce buffers at most in use at once (arrivals not yet handled and unexpected ones held): the memory the
  /// library had allocated for receiving, beyond the posted receives when unexpected messages held theirs.
  std::uint64_t max_buffers() const { return max_buffers_; }

private:
  void repost_due(SimTime now)
  {
    while (!reposts_.empty() && reposts_.front() <= now) {
      reposts_.pop_front();
      ++free_;
    }
  }
  std::uint32_t capacity_;
  std::uint32_t free_;                  ///< receives posted and not taken
  std::vector<std::uint32_t> pool_;     ///< free buffers, the last released first
  enum State : std::uint8_t { kFree, kTaken, kHeld };
  std::vector<State> state_;            ///< per buffer: in the pool, holding the receive it arrived in, or held
  std::deque<SimTime> reposts_;         ///< receives handed back by unexpected arrivals, by the date they are posted
  std::uint64_t held_ = 0, max_in_use_ = 0, max_held_ = 0, buffers_out_ = 0, max_buffers_ = 0;
};

} // namespace nafsim::nodes
