#include "workloads/chakra/RankReader.hpp"

#include <fmt/format.h>
#include <fstream>

namespace nafsim::workloads::chakra {

bool RankReader::fill(std::size_t need)
{
  while (buf_.size() - pos_ < need && !end_) {
    buf_.erase(0, pos_);
    pos_ = 0;
    std::ifstream in(file_, std::ios::binary);
    if (!in)
      throw config::ConfigError(file_, "", "cannot open this rank's trace file (a trace is <prefix>.<rank>.et for "
                                           "every rank; check workload.trace and workload.ranks)");
    in.seekg(static_cast<std::streamoff>(offset_));
    const std::size_t want = std::max(kRefill, need - buf_.size());
    const std::size_t had  = buf_.size();
    buf_.resize(had + want);
    in.read(buf_.data() + had, static_cast<std::streamsize>(want));
    const auto got = static_cast<std::size_t>(in.gcount());
    buf_.resize(had + got);
    offset_ += got;
    end_ = got < want;
  }
  return buf_.size() - pos_ >= need;
}

std::optional<std::uint64_t> RankReader::length()
{
  std::uint64_t v = 0;
  for (unsigned shift = 0;; shift += 7) {
    if (!fill(1)) {
      if (shift == 0)
        return std::nullopt;
      throw config::ConfigError(file_, "", fmt::format("truncated after {} node(s): the file ends inside a length",
                                                       count_));
    }
    const auto b = static_cast<unsigned char>(buf_[pos_++]);
    if (shift >= 63 && (b & 0xFE) != 0) // the tenth byte holds bit 63 only, and ends the varint
      throw config::ConfigError(file_, "", fmt::format("corrupt after {} node(s): a length varint overflows 64 bits",
                                                       count_));
    v |= static_cast<std::uint64_t>(b & 0x7F) << shift;
    if ((b & 0x80) == 0)
      return v;
  }
}

bool RankReader::next(pb::Node& n)
{
  auto message = [&](google::protobuf::MessageLite& m, const char* what) -> bool {
    auto len = length();
    if (!len)
      return false;
    if (*len > kMaxNodeBytes)
      throw config::ConfigError(file_, "", fmt::format("{} {} claims {} bytes (more than the {} nafsim reads for one "
                                                       "message): the file is corrupt",
                                                       what, count_ + 1, *len, kMaxNodeBytes));
    if (!fill(*len))
      throw config::ConfigError(file_, "", fmt::format("truncated: {} {} needs {} bytes, the file ends first", what,
                                                       count_ + 1, *len));
    if (!m.ParseFromArray(buf_.data() + pos_, static_cast<int>(*len)))
      throw config::ConfigError(file_, "", fmt::format("corrupt {} {}: not a {} message", what, count_ + 1, what));
    pos_ += *len;
    return true;
  };
  if (!meta_) {
    pb::GlobalMetadata meta;
    if (!message(meta, "GlobalMetadata"))
      throw config::ConfigError(file_, "", "empty file: a Chakra trace starts with its GlobalMetadata");
    meta_ = true;
  }
  if (!message(n, "node"))
    return false;
  ++count_;
  return true;
}

} // namespace nafsim::workloads::chakra
