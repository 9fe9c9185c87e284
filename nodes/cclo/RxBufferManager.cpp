#include "nodes/cclo/RxBufferManager.hpp"

#include <fmt/format.h>
#include <stdexcept>

namespace nafsim::nodes {

RxBufferManager::RxBufferManager(const RxBufferConfig& cfg, std::uint64_t base, std::uint64_t header)
    : size_(cfg.size.count), header_(header)
{
  for (unsigned i = 0; i < cfg.count; ++i)
    bufs_.push_back(Entry{base + i * stride()});
}

std::optional<std::size_t> RxBufferManager::take_free()
{
  for (std::size_t i = 0; i < bufs_.size(); ++i)
    if (bufs_[i].state == State::Free) {
      bufs_[i].state = State::Filling;
      max_in_use_    = std::max(max_in_use_, ++in_use_);
      if (on_change_)
        on_change_(in_use_);
      return i;
    }
  ++refusals_;
  return std::nullopt;
}

void RxBufferManager::filled(std::size_t i, std::uint32_t src, std::uint64_t seq, std::uint64_t bytes)
{
  auto& e = bufs_.at(i);
  if (e.state != State::Filling)
    throw std::logic_error(fmt::format("Rx buffer {} completed while not filling", i));
  e.state = State::Reserved;
  ++reserved_;
  e.src   = src;
  e.seq   = seq;
  e.bytes = bytes;
}

std::optional<std::size_t> RxBufferManager::seek(std::uint32_t src, std::uint64_t seq)
{
  for (std::size_t i = 0; i < bufs_.size(); ++i)
    if (bufs_[i].state == State::Reserved && bufs_[i].src == src && bufs_[i].seq == seq) {
      bufs_[i].state = State::Reading;
      --reserved_;
      return i;
    }
  return std::nullopt;
}

void RxBufferManager::release(std::size_t i)
{
  auto& e = bufs_.at(i);
  if (e.state != State::Reading)
    throw std::logic_error(fmt::format("Rx buffer {} released while not being read", i));
  e.state = State::Free;
  --in_use_;
  if (on_change_)
    on_change_(in_use_);
}

bool RxBufferManager::all_waiting(std::size_t held) const
{
  return !bufs_.empty() && reserved_ + held == bufs_.size();
}

std::string RxBufferManager::describe() const
{
  std::string s;
  for (std::size_t i = 0; i < bufs_.size(); ++i) {
    auto const& e = bufs_[i];
    const char* st = e.state == State::Free ? "free" : e.state == State::Filling ? "filling"
                   : e.state == State::Reserved                                 ? "holds"
                                                                                : "being read";
    s += fmt::format("{}#{} {}", s.empty() ? "" : ", ", i, st);
    if (e.state == State::Reserved || e.state == State::Reading)
      s += fmt::format(" message {} from host {} ({} B)", e.seq, e.src, e.bytes);
  }
  return s;
}

} // namespace nafsim::nodes
