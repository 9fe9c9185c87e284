#include "simcore/net/MaxMin.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace nafsim::net {

MaxMinSharing::MaxMinSharing(std::vector<double> capacity)
    : capacity_(std::move(capacity)), on_link_(capacity_.size()), link_mark_(capacity_.size(), 0),
      residual_(capacity_.size(), 0), share_(capacity_.size(), 0), unfixed_(capacity_.size(), 0),
      heap_(ShareBefore{&share_}), touch_mark_(capacity_.size(), 0)
{
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
  queued_.clear();
  for (auto l : comp_links_) {
    residual_[l] = capacity_[l];
    unfixed_[l]  = static_cast<std::uint32_t>(on_link_[l].size());
    if (unfixed_[l] > 0) {
      share_[l] = residual_[l] / unfixed_[l];
      queued_.push_back(l);
    }
  }
  heap_.assign(queued_);
  while (!heap_.empty()) {
    std::uint32_t l = heap_.pop();
    double share    = share_[l];
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
        if (k != l && heap_.contains(k) && touch_mark_[k] != touch_epoch_) {
          touch_mark_[k] = touch_epoch_;
          touched_.push_back(k);
        }
      }
    }
    for (auto k : touched_) {
      if (unfixed_[k] == 0) {
        heap_.remove(k);
        continue;
      }
      share_[k] = residual_[k] / unfixed_[k];
      heap_.update(k);
    }
    if (++touch_epoch_ == 0) {
      std::fill(touch_mark_.begin(), touch_mark_.end(), 0);
      touch_epoch_ = 1;
    }
  }
  return changed_;
}

} // namespace nafsim::net
