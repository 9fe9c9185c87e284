#include "simcore/net/MaxMin.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace nafsim::net {

MaxMinSharing::MaxMinSharing(std::vector<double> capacity, Weights weights)
    : weights_(weights), inputs_(weights == Weights::InputPorts ? capacity.size() : 0, 0),
      weight_sum_(weights == Weights::InputPorts ? capacity.size() : 0, 0.0),
      capacity_(std::move(capacity)), on_link_(capacity_.size()), link_mark_(capacity_.size(), 0),
      residual_(capacity_.size(), 0), share_(capacity_.size(), 0), unfixed_(capacity_.size(), 0),
      heap_(ShareBefore{&share_}), touch_mark_(capacity_.size(), 0)
{
}

std::uint32_t MaxMinSharing::add(std::span<const std::uint32_t> links)
{
  std::uint32_t id;
  if (free_.empty()) {
    id = static_cast<std::uint32_t>(hot_.size());
    hot_.emplace_back();
    cold_.emplace_back();
  } else {
    id = free_.back();
    free_.pop_back();
  }
  Hot& h  = hot_[id];
  Cold& f = cold_[id];
  h.rate  = 0;
  h.n     = static_cast<std::uint32_t>(links.size());
  if (links.size() <= Hot::kInline)
    std::copy(links.begin(), links.end(), h.link);
  else
    f.long_path.assign(links.begin(), links.end());
  f.live = true;
  ++active_;
  f.at.clear();
  for (auto l : links) {
    assert(l < on_link_.size());
    f.at.push_back(static_cast<std::uint32_t>(on_link_[l].size()));
    on_link_[l].push_back(id);
    seeds_.push_back(l);
  }
  if (fresh_.size() <= id)
    fresh_.resize(hot_.size(), 0);
  fresh_[id] = 1;
  fresh_ids_.push_back(id);
  ++changes_;
  if (weights_ == Weights::InputPorts) { // its (link, input link) pair at every hop; the first link's input: itself
    f.groups.clear();
    for (std::size_t i = 0; i < links.size(); ++i) {
      const std::uint32_t l = links[i], in = i == 0 ? l : links[i - 1];
      auto [it, fresh] =
          group_id_.try_emplace(std::uint64_t{l} << 32 | in, static_cast<std::uint32_t>(group_flows_.size()));
      if (fresh)
        group_flows_.push_back(0);
      f.groups.push_back(it->second);
      if (group_flows_[it->second]++ == 0)
        ++inputs_[l];
    }
  }
  return id;
}

void MaxMinSharing::remove(std::uint32_t id)
{
  Cold& f                                   = cold_[id];
  const std::span<const std::uint32_t> path = links(id);
  assert(f.live);
  if (!fresh_[id]) // a flow added since the last solve never had a level of its own
    floor_ = std::min(floor_, hot_[id].rate);
  ++changes_;
  for (std::size_t i = 0; i < path.size(); ++i) { // the last flow of each link takes its place there
    const std::uint32_t l = path[i];
    auto& v               = on_link_[l];
    assert(f.at[i] < v.size() && v[f.at[i]] == id);
    const std::uint32_t last = v.back();
    v[f.at[i]]               = last;
    v.pop_back();
    if (last != id) {
      const std::span<const std::uint32_t> other = links(last);
      for (std::size_t j = 0; j < other.size(); ++j)
        if (other[j] == l) {
          cold_[last].at[j] = f.at[i];
          break;
        }
    }
    seeds_.push_back(l);
  }
  f.live        = false;
  hot_[id].rate = 0;
  fresh_[id]    = 0;
  --active_;
  if (weights_ == Weights::InputPorts)
    for (std::size_t i = 0; i < path.size(); ++i)
      if (--group_flows_[f.groups[i]] == 0)
        --inputs_[path[i]];
  free_.push_back(id);
}

const std::vector<std::uint32_t>& MaxMinSharing::solve()
{
  changed_.clear();
  if (seeds_.empty())
    return changed_;
  if (++epoch_ == 0) { // wrapped: clear the stamps
    std::fill(link_mark_.begin(), link_mark_.end(), 0);
    for (Hot& h : hot_)
      h.mark = h.fixed = 0;
    epoch_ = 1;
  }
  // 1. The component: links and flows reachable from the touched links. Where the last traversals found nearly
  // every flow in one component (an all-to-all), the unweighted filling takes every link that carries flows
  // instead, a scan of the links rather than a walk of the flows: the other components' rates come out the same
  // (max-min decomposes by component, and each component's links are fixed in the same (level, id) order, so with
  // the same arithmetic), and a traversal every 16th solve checks that it still holds.
  comp_links_.clear();
  comp_flows_.clear();
  const bool whole = weights_ == Weights::Equal && whole_ && ++solves_since_walk_ < 16;
  if (whole) {
    seeds_.clear();
    for (std::uint32_t l = 0; l < on_link_.size(); ++l)
      if (!on_link_[l].empty())
        comp_links_.push_back(l);
    flows_in_components_ += active_;
  } else {
    for (auto l : seeds_)
      if (link_mark_[l] != epoch_) {
        link_mark_[l] = epoch_;
        comp_links_.push_back(l);
      }
    seeds_.clear();
    for (std::size_t i = 0; i < comp_links_.size(); ++i)
      for (auto f : on_link_[comp_links_[i]])
        if (hot_[f].mark != epoch_) {
          hot_[f].mark = epoch_;
          comp_flows_.push_back(f);
          for (auto l : links(f))
            if (link_mark_[l] != epoch_) {
              link_mark_[l] = epoch_;
              comp_links_.push_back(l);
            }
        }
    flows_in_components_ += comp_flows_.size();
    solves_since_walk_ = 0;
    whole_ = active_ >= kWholeFrom && comp_flows_.size() * 10 >= active_ * 9;
  }
  if (weights_ == Weights::Equal)
    fill<false>(whole);
  else
    fill<true>(whole);
  for (auto id : fresh_ids_)
    fresh_[id] = 0;
  fresh_ids_.clear();
  floor_   = 1e300;
  changes_ = 0;
  return changed_;
}

double MaxMinSharing::equal_share(std::uint32_t id) const
{
  double s = 1e300;
  for (auto l : links(id))
    s = std::min(s, capacity_[l] / static_cast<double>(std::max<std::size_t>(1, on_link_[l].size())));
  return s;
}

double MaxMinSharing::weight(std::uint32_t id) const
{
  if (weights_ == Weights::Equal)
    return 1.0;
  const Cold& f = cold_[id];
  double w      = 1.0 / static_cast<double>(group_flows_[f.groups[0]]);
  for (auto l : links(id))
    w /= static_cast<double>(inputs_[l]);
  return w;
}

void MaxMinSharing::lower_floor_to_starts()
{
  // Each link a started flow joined: the level at which it would fill if nothing else filled first, its flows from
  // before holding their rates below it and the started ones rising with it (water-filling the one link).
  // (Each link once: the stamps of the filling's steps, before its first.)
  for (auto id : fresh_ids_) {
    if (!fresh_[id])
      continue; // ended since
    for (auto l : links(id)) {
      if (touch_mark_[l] == touch_epoch_)
        continue;
      touch_mark_[l] = touch_epoch_;
      rates_scratch_.clear();
      std::size_t starts = 0;
      for (auto f : on_link_[l]) {
        if (fresh_[f])
          ++starts;
        else
          rates_scratch_.push_back(hot_[f].rate);
      }
      std::sort(rates_scratch_.begin(), rates_scratch_.end());
      double residual   = capacity_[l];
      std::size_t count = rates_scratch_.size() + starts;
      for (double r : rates_scratch_) {
        if (r * static_cast<double>(count) >= residual)
          break;
        residual -= r;
        --count;
      }
      floor_ = std::min(floor_, residual / static_cast<double>(count));
    }
  }
  next_touch_epoch();
}

void MaxMinSharing::next_touch_epoch()
{
  if (++touch_epoch_ == 0) { // wrapped: clear the stamps
    std::fill(touch_mark_.begin(), touch_mark_.end(), 0);
    touch_epoch_ = 1;
  }
}

std::size_t MaxMinSharing::keep_below_floor(bool whole)
{
  // Why the flows below the floor keep their rates (unweighted progressive filling, exact arithmetic): below the
  // floor, the filling of the changed set of flows fixes the same links at the same levels as the last solve's
  // did, by induction on the level. A link no change touched carries the same flows, and those fixed below the
  // current level are the same, so it fills as before. A link on a removed flow's path had a level of at least
  // that flow's rate, so at least the floor, and now carries less, so it fills later still. A link an added flow
  // joined fills no lower than the level at which it would if its flows from before held their rates below it and
  // the added ones rose with it (lower_floor_to_starts), since below the floor they do; nor did it before (it
  // carried those flows and no added one then, unless a flow was removed from it too, which that flow's rate
  // bounds). So no changed link is fixed below the floor either way. A flow whose rate equals the floor is filled
  // again. See Bertsekas and Gallager, Data Networks (2nd ed., 1992), section 6.5.2: progressive filling fixes the
  // links in the order of their levels.
  std::size_t kept = 0;
  auto keep        = [&](std::uint32_t f) {
    Hot& fl = hot_[f];
    if (fresh_[f] || !(fl.rate < floor_ * (1 - 1e-9))) // a rate at the floor but for rounding is filled again
      return;
    fl.fixed = epoch_;
    for (auto k : links(f)) {
      residual_[k] = std::max(0.0, residual_[k] - fl.rate);
      --unfixed_[k];
    }
    ++kept;
  };
  if (whole) { // every flow in progress, in id order
    for (std::uint32_t f = 0; f < hot_.size(); ++f)
      if (cold_[f].live)
        keep(f);
  } else {
    for (auto f : comp_flows_)
      keep(f);
  }
  return kept;
}

template <bool Weighted> double MaxMinSharing::level_of(std::uint32_t l) const
{
  // A link's level: its residual over its unfixed flows (their weights).
  if constexpr (Weighted)
    return residual_[l] / std::max(weight_sum_[l], 1e-300);
  else
    return residual_[l] / unfixed_[l];
}

template <bool Weighted> void MaxMinSharing::start_fill(bool whole)
{
  // The component's links at their capacities with all their flows unfixed (but those kept below the floor), in the
  // heap by level.
  if constexpr (Weighted) {
    if (weight_of_.size() < hot_.size())
      weight_of_.resize(hot_.size());
    for (auto f : comp_flows_)
      weight_of_[f] = weight(f);
  }
  queued_.clear();
  for (auto l : comp_links_) {
    residual_[l] = capacity_[l];
    unfixed_[l]  = static_cast<std::uint32_t>(on_link_[l].size());
    if constexpr (Weighted) {
      weight_sum_[l] = 0;
      for (auto f : on_link_[l])
        weight_sum_[l] += weight_of_[f];
    }
  }
  std::size_t refill = whole ? active_ : comp_flows_.size();
  if constexpr (!Weighted) {
    // The floor is the lowest of the changes' bounds, and the passes cost a walk of the component's flows and a
    // sort of each started flow's links' rates: after at most four starts and ends (an exact solve's usual one or
    // two; the exact 64-rank all-to-all keeps 65 %) only. After more the floor lies near the lowest rate: a
    // 256-rank all-to-all solved every 2 % of its flows' starts and ends (about 140 per solve) kept 6 % and ran
    // 1.5 to 1.8 times as long.
    if (floor_ > 0 && changes_ <= 4) {
      lower_floor_to_starts();
      refill -= keep_below_floor(whole);
    }
  }
  flows_solved_ += refill;
  for (auto l : comp_links_)
    if (unfixed_[l] > 0) {
      share_[l] = level_of<Weighted>(l);
      queued_.push_back(l);
    }
  heap_.assign(queued_);
}

template <bool Weighted> inline void MaxMinSharing::fix_link(std::uint32_t l, double level)
{
  // The link at the top fixes its unfixed flows at its level (times their weights); the other links they cross
  // lose them, and those whose level fell are re-keyed.
  touched_.clear();
  const std::vector<std::uint32_t>& on = on_link_[l];
  for (std::size_t i = 0; i < on.size(); ++i) {
    // The flows of a link lie anywhere in hot_: ask for the record a few flows ahead, so that the cache misses
    // overlap rather than stall one after the other.
    if (i + kPrefetch < on.size())
      __builtin_prefetch(&hot_[on[i + kPrefetch]]);
    const std::uint32_t f = on[i];
    Hot& fl               = hot_[f];
    if (fl.fixed == epoch_)
      continue;
    fl.fixed    = epoch_;
    double rate = level;
    if constexpr (Weighted)
      rate *= weight_of_[f];
    if (fl.rate != rate && std::abs(fl.rate - rate) > 1e-12 * rate)
      changed_.push_back(f);
    fl.rate = rate;
    for (auto k : links(f)) {
      // The link being fixed is left as it is: its level is not read again in this solve, and its residual,
      // brought down flow after flow, made every flow of the step wait on the one before.
      if (k == l)
        continue;
      residual_[k] = std::max(0.0, residual_[k] - rate);
      if constexpr (Weighted)
        weight_sum_[k] -= weight_of_[f];
      --unfixed_[k];
      if (heap_.contains(k) && touch_mark_[k] != touch_epoch_) {
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
    if (const double now = level_of<Weighted>(k); now < share_[k]) {
      share_[k] = now;
      heap_.update(k);
    }
  }
  next_touch_epoch();
}

template <bool Weighted> void MaxMinSharing::fill(bool whole)
{
  // 2. Progressive filling: the link with the lowest level fixes its flows at that level (times their weights:
  // weighted max-min, every flow has a full link on which no flow gets more per unit of weight; unweighted, the
  // level is the link's fair share). A link's level is its residual over its unfixed flows (their weights). The
  // links wait in an indexed heap keyed (level, id), one entry per link re-keyed in place (a heap of stale entries,
  // one per flow and link, cost 87 % of an all-to-all's run time).
  start_fill<Weighted>(whole);
  // Keys re-written lazily: fixing flows only raises the other links' levels (each flow fixed took at most their
  // level), so a link's key is at most its level, and the top link, if its key is its level, is the lowest in
  // (level, id) order. A risen level is written when its link comes to the top (it then sinks and the next is
  // looked at), a fallen one (rounding, when the levels were equal) at once: the links are fixed in the order and
  // at the levels that re-keying every touched link at every step gives, for a sift per link reaching the top
  // instead of one per link touched (an all-to-all's step touches most links of the component).
  while (!heap_.empty()) {
    const std::uint32_t l = heap_.top();
    const double level    = level_of<Weighted>(l);
    if (level > share_[l]) { // risen since keyed
      share_[l] = level;
      heap_.update(l);
      continue;
    }
    heap_.pop();
    fix_link<Weighted>(l, level);
  }
}

} // namespace nafsim::net
