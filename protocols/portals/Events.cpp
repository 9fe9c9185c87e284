#include "protocols/portals/Events.hpp"

#include <algorithm>
#include <stdexcept>

namespace nafsim::portals {

// ---------------------------------------------------------------------------------------------
// Counting events and triggered operations.

std::optional<std::int32_t> CountingEvents::alloc()
{
  if (events_.size() >= capacity_)
    return std::nullopt;
  std::int32_t h = 0;
  while (events_.count(h))
    ++h;
  events_[h];
  return h;
}

void CountingEvents::free(std::int32_t ct)
{
  events_.erase(ct);
}

CountingEvents::Event& CountingEvents::at(std::int32_t ct)
{
  auto it = events_.find(ct);
  if (it == events_.end())
    throw std::invalid_argument("counting event " + std::to_string(ct) + " is not allocated");
  return it->second;
}

const CountingEvents::Event& CountingEvents::at(std::int32_t ct) const
{
  auto it = events_.find(ct);
  if (it == events_.end())
    throw std::invalid_argument("counting event " + std::to_string(ct) + " is not allocated");
  return it->second;
}

std::vector<TriggeredOp> CountingEvents::fire(std::int32_t ct)
{
  // The operations whose threshold the count has reached, in the order they were registered; a CtInc
  // among them is applied now and may fire operations on its own event.
  std::vector<TriggeredOp> out;
  std::vector<std::pair<std::uint64_t, TriggeredOp>> ready;
  Event& e = at(ct);
  for (auto it = e.waiting.begin(); it != e.waiting.end() && it->first <= e.success;)
    ready.push_back(it->second), it = e.waiting.erase(it);
  std::sort(ready.begin(), ready.end(), [](auto const& a, auto const& b) { return a.first < b.first; });
  for (auto& [order, op] : ready) {
    out.push_back(op);
    if (op.kind == TriggeredOp::Kind::CtInc) {
      auto more = inc(op.target_ct, op.increment);
      out.insert(out.end(), more.begin(), more.end());
    }
  }
  return out;
}

std::vector<TriggeredOp> CountingEvents::inc(std::int32_t ct, std::uint64_t n, bool failure)
{
  Event& e = at(ct);
  if (failure) {
    e.failure += n;
    return {};
  }
  e.success += n;
  return fire(ct);
}

std::vector<TriggeredOp> CountingEvents::set(std::int32_t ct, std::uint64_t success)
{
  at(ct).success = success;
  return fire(ct);
}

std::vector<TriggeredOp> CountingEvents::trigger(const TriggeredOp& op)
{
  Event& e = at(op.ct);
  e.waiting.emplace(op.threshold, std::pair{order_++, op});
  return fire(op.ct);
}

std::uint64_t CountingEvents::success(std::int32_t ct) const
{
  return at(ct).success;
}

std::uint64_t CountingEvents::failure(std::int32_t ct) const
{
  return at(ct).failure;
}

std::size_t CountingEvents::pending() const
{
  std::size_t n = 0;
  for (auto const& [h, e] : events_)
    n += e.waiting.size();
  return n;
}

// ---------------------------------------------------------------------------------------------
// Memory descriptors.

std::optional<std::int32_t> MdTable::bind(const MemoryDescriptor& md)
{
  if (mds_.size() >= capacity_)
    return std::nullopt;
  std::int32_t h = 0;
  while (mds_.count(h))
    ++h;
  mds_[h] = md;
  return h;
}

void MdTable::release(std::int32_t md)
{
  mds_.erase(md);
}

const MemoryDescriptor& MdTable::at(std::int32_t md) const
{
  auto it = mds_.find(md);
  if (it == mds_.end())
    throw std::invalid_argument("memory descriptor " + std::to_string(md) + " is not bound");
  return it->second;
}

// ---------------------------------------------------------------------------------------------
// The buddy allocator.

BuddyAllocator::BuddyAllocator(std::uint64_t store_bytes, std::uint64_t min_block) : store_(store_bytes), min_(min_block)
{
  if (min_ == 0 || (min_ & (min_ - 1)) || store_ < min_ || store_ % min_ || ((store_ / min_) & (store_ / min_ - 1)))
    throw std::invalid_argument("a buddy allocator needs a power-of-two block size and a power-of-two number of "
                                "blocks in its store");
  levels_ = 0;
  while ((min_ << levels_) < store_)
    ++levels_;
  free_.resize(levels_ + 1);
  free_[levels_].insert(0);
}

unsigned BuddyAllocator::order_for(std::uint64_t bytes) const
{
  unsigned k = 0;
  while ((min_ << k) < bytes)
    ++k;
  return k;
}

std::optional<std::uint64_t> BuddyAllocator::allocate(std::uint64_t bytes)
{
  if (bytes > store_)
    return std::nullopt;
  const unsigned want = order_for(std::max<std::uint64_t>(bytes, 1));
  unsigned k          = want;
  while (k <= levels_ && free_[k].empty())
    ++k;
  if (k > levels_)
    return std::nullopt;
  std::uint64_t off = *free_[k].begin();
  free_[k].erase(free_[k].begin());
  while (k > want) { // split, keeping the lower half
    --k;
    free_[k].insert(off + (min_ << k));
    ++ops_;
  }
  used_[off] = want;
  return off;
}

void BuddyAllocator::free(std::uint64_t offset)
{
  auto it = used_.find(offset);
  if (it == used_.end())
    throw std::invalid_argument("freeing offset " + std::to_string(offset) + ", which is not allocated");
  unsigned k = it->second;
  used_.erase(it);
  while (k < levels_) { // merge with the buddy while it is free
    const std::uint64_t buddy = offset ^ (min_ << k);
    auto b                    = free_[k].find(buddy);
    if (b == free_[k].end())
      break;
    free_[k].erase(b);
    offset = std::min(offset, buddy);
    ++k;
    ++ops_;
  }
  free_[k].insert(offset);
}

std::uint64_t BuddyAllocator::free_bytes() const
{
  std::uint64_t n = 0;
  for (unsigned k = 0; k <= levels_; ++k)
    n += free_[k].size() * (min_ << k);
  return n;
}

std::uint64_t BuddyAllocator::largest_free() const
{
  for (unsigned k = levels_ + 1; k-- > 0;)
    if (!free_[k].empty())
      return min_ << k;
  return 0;
}

} // namespace nafsim::portals
