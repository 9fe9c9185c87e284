#include "nodes/memory/MemoryImage.hpp"

#include <algorithm>
#include <cstring>

namespace nafsim::nodes {

void MemoryImage::write(std::uint64_t addr, std::span<const std::byte> data)
{
  std::size_t done = 0;
  while (done < data.size()) {
    const std::uint64_t a   = addr + done;
    const std::uint64_t off = a % kPage;
    const std::size_t n     = std::min<std::size_t>(kPage - off, data.size() - done);
    auto [it, fresh]        = pages_.try_emplace(a / kPage);
    if (fresh)
      it->second.fill(std::byte{0});
    std::memcpy(it->second.data() + off, data.data() + done, n);
    done += n;
  }
}

void MemoryImage::read(std::uint64_t addr, std::span<std::byte> out) const
{
  std::size_t done = 0;
  while (done < out.size()) {
    const std::uint64_t a   = addr + done;
    const std::uint64_t off = a % kPage;
    const std::size_t n     = std::min<std::size_t>(kPage - off, out.size() - done);
    if (auto it = pages_.find(a / kPage); it != pages_.end())
      std::memcpy(out.data() + done, it->second.data() + off, n);
    else
      std::memset(out.data() + done, 0, n);
    done += n;
  }
}

std::vector<std::byte> MemoryImage::read(std::uint64_t addr, std::uint64_t bytes) const
{
  std::vector<std::byte> v(bytes);
  read(addr, v);
  return v;
}

} // namespace nafsim::nodes
