#include "simcore/net/MaxMin.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace nafsim::net {

MaxMinSharing::MaxMinSharing(std::vector<double> capacity)
    : capacity_(std::move(capacity)), on_link_(capacity_.size()), link_mark_(capacity_.size(), 0),
      residual_(capacity_.size(), 0), share_(capacity_.size(), 0), unfixed_(capacity_.size(), 0),
      heap_pos_(capacity_.size(), kNotQueued), touch_mark_(capacity_.size(), 0)
{
}

bool MaxMinSharing::before(std::uint32_t a, std::uint32_t b) const
{
  return share_[a] < share_[b] || (share_[a] == share_[b] && a < b);
}

std::size_t MaxMinSharing::sift_down(std::size_t i)
{
  const std::size_t n = heap_.size();
  std::uint32_t l     = heap_[i];
  for (;;) {
    std::size_t c = 2 * i + 1;
    if (c >= n)
      break;
    if (c + 1 < n && before(heap_[c + 1], heap_[c]))
      ++c;
    if (!before(heap_[c], l))
      break;
    heap_[i]           = heap_[c];
    heap_pos_[heap_[i]] = static_cast<std::uint32_t>(i);
    i                  = c;
  }
  heap_[i]     = l;
  heap_pos_[l] = static_cast<std::uint32_t>(i);
  return i;
}

void MaxMinSharing::sift_up(std::size_t i)
{
  std::uint32_t l = heap_[i];
  while (i > 0) {
    std::size_t parent = (i - 1) / 2;
    if (!before(l, heap_[parent]))
      break;
    heap_[i]            = heap_[parent];
    heap_pos_[heap_[i]] = static_cast<std::uint32_t>(i);
    i                   = parent;
  }
  heap_[i]     = l;
  heap_pos_[l] = static_cast<std::uint32_t>(i);
}

void MaxMinSharing::heap_remove(std::size_t i)
{
  std::uint32_t gone = heap_[i];
  std::uint32_t last = heap_.back();
  heap_.pop_back();
  heap_pos_[gone] = kNotQueued;
  if (gone == last)
    return;
  heap_[i]        = last;
  heap_pos_[last] = static_cast<std::uint32_t>(i);
  sift_up(sift_down(i));
}

std::uint32_t MaxMinSharing::add(std::span<const std::uint32_t> links)
{
  std::uint32_t id;
  if (free_.empty()) {
    id = static_cast<std::uint32_t>(flows_.size());
    flows_.emplace_back();
    flow_mark_.push_back(0);
    flow_fixed_.push_back(0);
  } else {
    id = free_.back();
    free_.pop_back();
  }
  Flow& f = flows_[id];
  f.links.assign(links.begin(), links.end());
  f.rate = 0;
  f.live = true;
  ++active_;
  for (auto l : f.links) {
    assert(l < on_link_.size());
    on_link_[l].push_back(id);
    seeds_.push_back(l);
  }
  return id;
}

void MaxMinSharing::remove(std::uint32_t id)
{
  Flow& f = flows_[id];
  assert(f.live);
  for (auto l : f.links) {
    auto& v = on_link_[l];
    auto it = std::find(v.begin(), v.end(), id);
    assert(it != v.end());
    *it = v.back();
    v.pop_back();
    seeds_.push_back(l);
  }
  f.live = false;
  f.rate = 0;
  --active_;
  free_.push_back(id);
}

const std::vector<std::uint32_t>& MaxMinSharing::solve()
{
  changed_.clear();
  if (seeds_.empty())
    return changed_;
  if (++epoch_ == 0) { // wrapped: clear the stamps
    std::fill(link_mark_.begin(), link_mark_.end(), 0);
    std::fill(flow_mark_.begin(), flow_mark_.end(), 0);
    std::fill(flow_fixed_.begin(), flow_fixed_.end(), 0);
    epoch_ = 1;
  }
  // 1. The component: links and flows reachable from the touched links.
  comp_links_.clear();
  comp_flows_.clear();
  for (auto l : seeds_)
    if (link_mark_[l] != epoch_) {
      link_mark_[l] = epoch_;
      comp_links_.push_back(l);
    }
  seeds_.clear();
  for (std::size_t i = 0; i < comp_links_.size(); ++i)
    for (auto f : on_link_[comp_links_[i]])
      if (flow_mark_[f] != epoch_) {
        flow_mark_[f] = epoch_;
        comp_flows_.push_back(f);
        for (auto l : flows_[f].links)
          if (link_mark_[l] != epoch_) {
            link_mark_[l] = epoch_;
            comp_links_.push_back(l);
          }
      }
  flows_solved_ += comp_flows_.size();
  // 2. Progressive filling: the link with the smallest fair share fixes its
  // flows at that share. The links wait in an indexed heap keyed (share, id),
  // one entry per link re-keyed in place once per fixing step (a heap of stale
  // entries, one per flow and link, cost 87 % of an all-to-all's run time).
  heap_.clear();
  for (auto l : comp_links_) {
    residual_[l] = capacity_[l];
    unfixed_[l]  = static_cast<std::uint32_t>(on_link_[l].size());
    heap_pos_[l] = kNotQueued;
    if (unfixed_[l] > 0) {
      share_[l]    = residual_[l] / unfixed_[l];
      heap_pos_[l] = static_cast<std::uint32_t>(heap_.size());
      heap_.push_back(l);
    }
  }
  for (std::size_t i = heap_.size() / 2; i-- > 0;)
    sift_down(i);
  while (!heap_.empty()) {
    std::uint32_t l = heap_.front();
    double share    = share_[l];
    heap_remove(0);
    touched_.clear();
    for (auto f : on_link_[l]) {
      if (flow_fixed_[f] == epoch_)
        continue;
      flow_fixed_[f] = epoch_;
      Flow& fl       = flows_[f];
      if (fl.rate != share && std::abs(fl.rate - share) > 1e-12 * share)
        changed_.push_back(f);
      fl.rate = share;
      for (auto k : fl.links) {
        residual_[k] = std::max(0.0, residual_[k] - share);
        --unfixed_[k];
        if (k != l && heap_pos_[k] != kNotQueued && touch_mark_[k] != touch_epoch_) {
          touch_mark_[k] = touch_epoch_;
          touched_.push_back(k);
        }
      }
    }
    for (auto k : touched_) {
      if (unfixed_[k] == 0) {
        heap_remove(heap_pos_[k]);
        continue;
      }
      share_[k] = residual_[k] / unfixed_[k];
      sift_up(sift_down(heap_pos_[k]));
    }
    if (++touch_epoch_ == 0) {
      std::fill(touch_mark_.begin(), touch_mark_.end(), 0);
      touch_epoch_ = 1;
    }
  }
  return changed_;
}

} // namespace nafsim::net
