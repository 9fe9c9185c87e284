#pragma once
// The contents of a node's memory (device and host address ranges alike), for runs that carry real
// data: sparse 4 KiB pages, allocated on first write; never-written bytes read as zero.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

namespace nafsim::nodes {

class MemoryImage {
public:
  void write(std::uint64_t addr, std::span<const std::byte> data);
  void read(std::uint64_t addr, std::span<std::byte> out) const;
  std::vector<std::byte> read(std::uint64_t addr, std::uint64_t bytes) const;
  std::size_t pages() const { return pages_.size(); }

private:
  static constexpr std::uint64_t kPage = 4096;
  std::unordered_map<std::uint64_t, std::array<std::byte, kPage>> pages_;
};

} // namespace nafsim::nodes
