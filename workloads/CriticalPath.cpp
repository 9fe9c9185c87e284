#include "workloads/CriticalPath.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <map>
#include <memory>
#include <unordered_map>

namespace nafsim::workloads {

CriticalPath CriticalPath::walk(const CausalGraph& g, std::uint32_t end_record, SimTime start, SimTime end)
{
  CriticalPath p;
  p.start    = start;
  p.end      = end;
  p.segments = g.path(end_record, start);
  // The call ends in the step of `end_record` (its finalize): were `end` later, the time after that step would be
  // unaccounted for; it shows as an unlabelled ("other") segment rather than vanish.
  const SimTime reached = p.segments.empty() ? start : p.segments.back().end;
  if (end > reached)
    p.segments.push_back(CausalGraph::Segment{reached, end, CauseLabel{}});
  // A record after `end` (a step that noticed the end late): the path is cut at `end`.
  while (!p.segments.empty() && p.segments.back().begin >= end)
    p.segments.pop_back();
  if (!p.segments.empty() && p.segments.back().end > end)
    p.segments.back().end = end;
  return p;
}

namespace {
std::vector<std::pair<std::string, SimTime>> sorted(const std::map<std::string, SimTime>& m)
{
  std::vector<std::pair<std::string, SimTime>> v(m.begin(), m.end());
  std::stable_sort(v.begin(), v.end(), [](auto const& a, auto const& b) { return a.second > b.second; });
  return v;
}
double share(SimTime part, SimTime whole)
{
  return whole > SimTime{} ? 100.0 * static_cast<double>(part.ps()) / static_cast<double>(whole.ps()) : 0.0;
}
} // namespace

std::vector<std::pair<std::string, SimTime>> CriticalPath::by_resource() const
{
  std::map<std::string, SimTime> m;
  for (auto const& s : segments)
    m[std::string(cause_resource(s.label.what))] += s.end - s.begin;
  return sorted(m);
}

std::vector<std::pair<std::string, SimTime>> CriticalPath::by_detail() const
{
  std::map<std::string, SimTime> m;
  for (auto const& s : segments)
    m[fmt::format("{}, {}", cause_resource(s.label.what), cause_detail(s.label.what))] += s.end - s.begin;
  return sorted(m);
}

std::string CriticalPath::summary() const
{
  std::string s = fmt::format("{:.3f} us =", latency().us());
  bool first    = true;
  for (auto const& [name, t] : by_resource()) {
    s += fmt::format("{} {:.0f} % {}", first ? "" : ",", share(t, latency()), name);
    first = false;
  }
  if (first)
    s += " nothing (no time passed)";
  return s;
}

std::string CriticalPath::bottleneck() const
{
  auto d = by_detail();
  if (d.empty())
    return "bottleneck: none (no time passed)";
  return fmt::format("bottleneck: {}: {:.0f} % of the path", d.front().first, share(d.front().second, latency()));
}

std::string CriticalPath::bottleneck(const CausalGraph& g, const std::function<int(std::uint32_t host)>& rank_of) const
{
  const std::string line = bottleneck();
  if (segments.empty() || latency() <= SimTime{})
    return line;
  // The bottleneck (the label with the most path time) and the place where the path spent most of it.
  std::map<std::uint32_t, SimTime> by_what;
  std::map<std::pair<std::uint32_t, std::int32_t>, SimTime> by_place;
  for (auto const& s : segments) {
    by_what[s.label.what] += s.end - s.begin;
    by_place[{s.label.what, s.label.where}] += s.end - s.begin;
  }
  const std::uint32_t what = std::max_element(by_what.begin(), by_what.end(), [](auto const& a, auto const& b) {
                               return a.second < b.second;
                             })->first;
  std::int32_t where = CauseLabel::kNowhere;
  SimTime most;
  for (auto const& [k, t] : by_place)
    if (k.first == what && t > most) {
      most  = t;
      where = k.second;
    }
  if (what == 0)
    return line;
  // Every step of the run so labelled there, clipped to the call: the union of their intervals. A step's lead-in
  // (CausalGraph::path splits it off: a memory's first byte before its stream) counts under its own label.
  std::vector<std::pair<std::int64_t, std::int64_t>> busy;
  auto clip = [&](std::int64_t b, std::int64_t e) {
    b = std::max(b, start.ps());
    e = std::min(e, end.ps());
    if (e > b)
      busy.emplace_back(b, e);
  };
  for (std::uint32_t id = 1; id < g.size(); ++id) {
    auto const& r = g.at(id);
    const bool main_here = r.label.where == where && r.label.what == what;
    const bool lead_here = r.label.lead_what == what && r.label.lead_where == where; // (what 0 never counts)
    if (!main_here && !lead_here)
      continue;
    const std::int64_t from = g.at(r.parent).t;
    const std::int64_t lead = r.label.lead_what != 0 ? std::max(from, std::min(r.label.lead_until, r.t)) : from;
    if (main_here)
      clip(lead, r.t);
    if (lead_here)
      clip(from, lead);
  }
  std::sort(busy.begin(), busy.end());
  std::int64_t total = 0, reach = std::numeric_limits<std::int64_t>::min();
  for (auto const& [b, e] : busy) {
    const std::int64_t from = std::max(b, reach);
    if (e > from)
      total += e - from;
    reach = std::max(reach, e);
  }
  CauseLabel at;
  at.where = where;
  return fmt::format("{}; at {} busy {:.0f} % of the call", line, place_name(at, rank_of),
                     share(SimTime::ps(total), latency()));
}

std::string CriticalPath::elsewhere(int own, const std::function<int(std::uint32_t host)>& rank_of) const
{
  std::map<int, SimTime> ranks;
  SimTime others, switches;
  for (auto const& s : segments) {
    const SimTime d = s.end - s.begin;
    if (s.label.on_switch()) {
      switches += d;
    } else if (s.label.on_host()) {
      const int r = rank_of(static_cast<std::uint32_t>(s.label.where));
      if (r != own) {
        others += d;
        ranks[r] += d;
      }
    }
  }
  std::string out = fmt::format("on other ranks' nodes {:.0f} %", share(others, latency()));
  auto most = std::max_element(ranks.begin(), ranks.end(), [](auto const& a, auto const& b) { return a.second < b.second; });
  if (most != ranks.end())
    out += fmt::format(" (most: {} {}, {:.0f} %)", most->first >= 0 ? "rank" : "host", most->first,
                       share(most->second, latency()));
  return out + fmt::format(", on switches {:.0f} %", share(switches, latency()));
}

std::vector<PathStep> CriticalPath::steps(const std::function<int(std::uint32_t host)>& rank_of) const
{
  std::vector<PathStep> out;
  std::map<std::string, SimTime> spent; // the current step's time per "resource|detail"
  auto close = [&] {
    if (out.empty())
      return;
    auto most = std::max_element(spent.begin(), spent.end(),
                                 [](auto const& a, auto const& b) { return a.second < b.second; });
    if (most != spent.end()) {
      const auto bar       = most->first.find('|');
      out.back().resource = most->first.substr(0, bar);
      out.back().detail   = most->first.substr(bar + 1);
    }
    spent.clear();
  };
  std::string node = "-"; // the last node (not a switch) the path left: whom a step waited on
  for (auto const& s : segments) {
    std::string place = place_name(s.label, rank_of);
    if (out.empty() || out.back().place != place) {
      close();
      out.push_back(PathStep{s.begin, s.end, place, node, {}, {}, 0});
      if (!s.label.on_switch())
        node = place;
    }
    out.back().end = s.end;
    ++out.back().segments;
    spent[fmt::format("{}|{}", cause_resource(s.label.what), cause_detail(s.label.what))] += s.end - s.begin;
  }
  close();
  return out;
}

std::string CriticalPath::steps_line(const std::function<int(std::uint32_t host)>& rank_of) const
{
  auto st = steps(rank_of);
  if (st.empty())
    return "steps: none";
  std::vector<std::string> places;
  for (auto const& s : st)
    if (std::find(places.begin(), places.end(), s.place) == places.end())
      places.push_back(s.place);
  auto longest = std::max_element(st.begin(), st.end(),
                                  [](auto const& a, auto const& b) { return a.end - a.begin < b.end - b.begin; });
  return fmt::format("steps: {} over {} place(s) (critical_path_steps.csv); longest: {}{}, {:.3f} us ({:.0f} %), {}",
                     st.size(), places.size(), longest->place,
                     longest->after == "-" ? std::string() : " after " + longest->after,
                     (longest->end - longest->begin).us(), share(longest->end - longest->begin, latency()),
                     longest->resource);
}

CriticalPathGroups::CriticalPathGroups(const CausalGraph& g, std::vector<std::string> keys, RankOf rank_of)
    : g_(g), rank_of_(std::move(rank_of)), table_(std::move(keys))
{
}

void CriticalPathGroups::add(std::uint64_t order, std::string label, const std::vector<std::string>& key_values,
                             std::uint32_t end_record, SimTime start, SimTime end, int rank)
{
  CriticalPath p = CriticalPath::walk(g_, end_record, start, end);
  p.rank         = rank;
  table_.add(key_values, p, rank_of_);
  auto& group = groups_[order];
  if (group.second.empty())
    group.first = std::move(label);
  group.second.push_back(std::move(p));
}

void CriticalPathGroups::each_median(const std::function<void(const std::string& label, const CriticalPath& median)>& fn)
{
  for (auto& [order, group] : groups_)
    fn(group.first, median_path(group.second));
}

void CriticalPathGroups::summarize_medians(std::vector<std::string>& summary, bool slowest_rank, bool steps)
{
  each_median([&](const std::string& label, const CriticalPath& median) {
    summary.push_back(fmt::format("  {:>10}  {}", label, median.summary()));
    summary.push_back(fmt::format("  {:>10}  {}", "", median.bottleneck(g_, rank_of_)));
    if (slowest_rank)
      summary.push_back(
          fmt::format("  {:>10}  slowest rank {}; {}", "", median.rank, median.elsewhere(median.rank, rank_of_)));
    if (steps)
      summary.push_back(fmt::format("  {:>10}  {}", "", median.steps_line(rank_of_)));
  });
}

void report_bench_paths(const CausalGraph& g, const std::vector<std::uint32_t>& comm, const std::string& collective,
                        const std::vector<std::uint64_t>& sizes, unsigned iterations,
                        const std::function<SlowestCall(std::size_t sample)>& slowest, bool by_rank,
                        results::ResultSink& sink, std::vector<std::string>& summary)
{
  CriticalPathGroups paths(g, {"collective", "bytes", "iteration", "rank"}, rank_in(comm));
  std::size_t sample = 0;
  for (std::size_t si = 0; si < sizes.size(); ++si)
    for (unsigned it = 0; it < iterations; ++it, ++sample) {
      const SlowestCall call  = slowest(sample);
      const std::string bytes = std::to_string(sizes[si]);
      paths.add(si, bytes, {collective, bytes, std::to_string(it), std::to_string(call.rank)}, call.end_cause,
                call.start, call.end, by_rank ? static_cast<int>(call.rank) : -1);
    }
  summary.push_back("  critical path of each size's median call (critical_path.csv has every call's), from the slowest "
                    "rank's start:");
  paths.summarize_medians(summary, by_rank, true);
  paths.write(sink);
}

void report_run_path(const CausalGraph& g, const std::vector<std::uint32_t>& hosts, unsigned last,
                     std::uint32_t end_cause, SimTime end, results::ResultSink& sink, std::vector<std::string>& summary)
{
  const auto rank_of = rank_in(hosts);
  CriticalPath p     = CriticalPath::walk(g, end_cause, SimTime{}, end);
  p.rank             = static_cast<int>(last);
  CriticalPathTable table({"rank"});
  table.add({std::to_string(last)}, p, rank_of);
  table.write(sink);
  summary.push_back(fmt::format("  critical path of the run, to rank {}'s end (the last; critical_path.csv): {}", last,
                                p.summary()));
  summary.push_back("  " + p.bottleneck(g, rank_of));
  summary.push_back("  " + p.steps_line(rank_of));
}

const CriticalPath& median_path(std::vector<CriticalPath>& paths)
{
  std::stable_sort(paths.begin(), paths.end(),
                   [](const CriticalPath& a, const CriticalPath& b) { return a.latency() < b.latency(); });
  return paths.at(paths.size() / 2);
}

std::function<int(std::uint32_t host)> rank_in(const std::vector<std::uint32_t>& hosts)
{
  auto ranks = std::make_shared<std::unordered_map<std::uint32_t, int>>();
  for (std::size_t r = 0; r < hosts.size(); ++r)
    ranks->emplace(hosts[r], static_cast<int>(r));
  return [ranks](std::uint32_t h) {
    auto it = ranks->find(h);
    return it == ranks->end() ? -1 : it->second;
  };
}

std::string place_name(const CauseLabel& l, const std::function<int(std::uint32_t host)>& rank_of)
{
  if (l.on_switch())
    return fmt::format("switch {}", l.switch_vertex());
  if (!l.on_host())
    return "-";
  const auto host = static_cast<std::uint32_t>(l.where);
  if (int r = rank_of ? rank_of(host) : -1; r >= 0)
    return fmt::format("rank {}", r);
  return fmt::format("host {}", host);
}

CriticalPathTable::CriticalPathTable(std::vector<std::string> keys)
    : t_("critical_path", {}), steps_("critical_path_steps", {}), keys_(keys.size())
{
  auto step_keys = keys;
  for (const char* c : {"segment", "start_us", "duration_us", "share_pct", "resource", "detail", "place"})
    keys.emplace_back(c);
  t_ = results::Table("critical_path", std::move(keys));
  for (const char* c : {"step", "start_us", "duration_us", "share_pct", "place", "after", "resource", "detail",
                        "segments"})
    step_keys.emplace_back(c);
  steps_ = results::Table("critical_path_steps", std::move(step_keys));
}

void CriticalPathTable::write(results::ResultSink& sink)
{
  sink.add(std::move(t_));
  sink.add(std::move(steps_));
}

void CriticalPathTable::add(const std::vector<std::string>& key_values, const CriticalPath& p,
                            const std::function<int(std::uint32_t host)>& rank_of)
{
  // A row of `t` for the call: its key values, then the row's number, start, duration and share of the latency
  // (us with 6 decimals are exact, 1 ps: the durations add up to the latency; the share in % with 4 decimals, so
  // that a path of a thousand segments still adds up to 100 % within 0.1 %: with 2 they summed to 95.7 %).
  auto timed = [&](results::Table& t, unsigned k, SimTime begin, SimTime end) -> results::Table& {
    t.row();
    for (std::size_t i = 0; i < keys_; ++i)
      t.add(key_values.at(i));
    return t.add(k).add((begin - p.start).us(), 6).add((end - begin).us(), 6).add(share(end - begin, p.latency()), 4);
  };
  unsigned k = 0;
  for (auto const& s : p.segments) {
    timed(t_, k++, s.begin, s.end)
        .add(cause_resource(s.label.what))
        .add(cause_detail(s.label.what))
        .add(place_name(s.label, rank_of));
  }
  k = 0;
  for (auto const& st : p.steps(rank_of)) {
    timed(steps_, k++, st.begin, st.end)
        .add(st.place)
        .add(st.after)
        .add(st.resource)
        .add(st.detail)
        .add(st.segments);
  }
}

} // namespace nafsim::workloads
