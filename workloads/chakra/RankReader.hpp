#pragma once
// One rank's Chakra file read as a stream (the streamed replay, ChakraStream): nodes parsed one at a time from a
// buffer refilled by reopening the file at its offset, so a thousand ranks' files are read without a thousand open
// descriptors and without holding a file in memory. The framing is protobuf's delimited one (a varint length, that
// many bytes); a truncated file, an overlong varint or a node beyond kMaxNodeBytes is an error naming the file and
// the node's position.

#include "workloads/chakra/ChakraNodes.hpp"

#include <string>

namespace nafsim::workloads::chakra {

class RankReader {
public:
  static constexpr std::uint64_t kMaxNodeBytes = 64ULL << 20;
  static constexpr std::size_t kRefill         = 256 << 10;
  explicit RankReader(std::string file) : file_(std::move(file)) {}
  /// The next node into `n` (false: the file has no more).
  bool next(pb::Node& n);
  std::uint64_t nodes() const { return count_; }
  const std::string& file() const { return file_; }

private:
  /// At least `need` unread bytes in the buffer, unless the file ends first; false then.
  bool fill(std::size_t need);
  /// A message's length, or nothing at the end of the file.
  std::optional<std::uint64_t> length();

  std::string file_;
  std::string buf_;
  std::size_t pos_     = 0;
  std::uint64_t offset_ = 0; ///< where in the file buf_ ends
  bool end_            = false;
  bool meta_           = false;
  std::uint64_t count_ = 0;
};

} // namespace nafsim::workloads::chakra
