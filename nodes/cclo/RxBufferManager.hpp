#pragma once
// The Rx-buffer manager: a pool of N eager Rx buffers of S bytes in device memory. An incoming eager
// message takes a free buffer (none free: the sender is back-pressured); once complete it is matched
// by the data mover on (source, sequence number) and freed after it has been read.

#include "nodes/cclo/CcloConfig.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace nafsim::nodes {

class RxBufferManager {
public:
  /// `header`: bytes the transport writes ahead of a buffer's data (a SEND lands whole, its header first); each
  /// buffer's slot holds them, so that a full buffer's message does not spill into the next one.
  RxBufferManager(const RxBufferConfig& cfg, std::uint64_t base_addr, std::uint64_t header = 0);
  /// Bytes from one buffer's address to the next's.
  std::uint64_t stride() const { return size_ + header_; }
  std::size_t count() const { return bufs_.size(); }
  std::uint64_t size() const { return size_; }
  std::uint64_t address(std::size_t i) const { return bufs_.at(i).addr; }

  /// A free buffer for an incoming message (now filling), or nothing.
  std::optional<std::size_t> take_free();
  /// The message in buffer `i` is complete.
  void filled(std::size_t i, std::uint32_t src_host, std::uint64_t seq, std::uint64_t bytes);
  /// The buffer holding message `seq` from `src_host`, if it has arrived (it is now being read).
  std::optional<std::size_t> seek(std::uint32_t src_host, std::uint64_t seq);
  void release(std::size_t i);

  /// The bytes of the message in buffer `i`.
  std::uint64_t bytes(std::size_t i) const { return bufs_.at(i).bytes; }
  /// Every buffer holds a complete message waiting to be read (none free, filling or being read), but `held` ones
  /// being read by a move that waits for more (the data mover's head move, holding its earlier pieces).
  bool all_waiting(std::size_t held = 0) const;
  std::size_t in_use() const { return in_use_; }
  std::size_t max_in_use() const { return max_in_use_; }
  std::uint64_t refusals() const { return refusals_; }
  /// What the buffers hold (for diagnoses).
  std::string describe() const;
  /// Told the number of buffers in use whenever it changes (the occupancy track of --trace blocks).
  void on_change(std::function<void(std::size_t in_use)> f) { on_change_ = std::move(f); }

private:
  enum class State { Free, Filling, Reserved, Reading };
  struct Entry {
    std::uint64_t addr;
    State state = State::Free;
    std::uint32_t src = 0;
    std::uint64_t seq = 0;
    std::uint64_t bytes = 0;
  };
  std::uint64_t size_;
  std::uint64_t header_ = 0;
  std::vector<Entry> bufs_;
  std::size_t in_use_ = 0, max_in_use_ = 0;
  std::size_t reserved_ = 0; ///< buffers holding a complete message not yet sought (all_waiting asks per failed seek)
  std::uint64_t refusals_ = 0;
  std::function<void(std::size_t)> on_change_;
};

} // namespace nafsim::nodes
