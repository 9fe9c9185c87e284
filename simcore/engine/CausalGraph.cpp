#include "simcore/engine/CausalGraph.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>
#include <deque>
#include <map>
#include <utility>

namespace nafsim {

namespace {
struct Names {
  std::deque<std::pair<std::string, std::string>> names{{"other", "not labelled"}}; ///< by id (stable addresses)
  std::map<std::pair<std::string, std::string>, std::uint32_t, std::less<>> ids;
};
Names& names()
{
  static Names n;
  return n;
}
} // namespace

std::uint32_t cause_what(std::string_view resource, std::string_view detail)
{
  auto& n = names();
  std::pair<std::string, std::string> key{resource, detail};
  if (auto it = n.ids.find(key); it != n.ids.end())
    return it->second;
  n.names.push_back(key);
  const auto id = static_cast<std::uint32_t>(n.names.size() - 1);
  n.ids.emplace(std::move(key), id);
  return id;
}

std::string_view cause_resource(std::uint32_t what)
{
  auto const& n = names().names;
  return what < n.size() ? std::string_view(n[what].first) : std::string_view("other");
}

std::string_view cause_detail(std::uint32_t what)
{
  auto const& n = names().names;
  return what < n.size() ? std::string_view(n[what].second) : std::string_view("not labelled");
}

void CausalGraph::full() const
{
  throw std::length_error(fmt::format(
      "--critical-path: more than {} events recorded ({:.1f} GB of causes); record the critical paths of a shorter run "
      "(fewer iterations or sizes, fewer ranks) or run without --critical-path",
      max_, static_cast<double>(max_ * sizeof(Record)) / 1e9));
}

std::vector<CausalGraph::Segment> CausalGraph::path(std::uint32_t to, SimTime from) const
{
  std::vector<Segment> out;
  std::uint32_t id = to;
  while (id != 0) {
    const Record& r = at(id);
    const Record& p = at(r.parent);
    if (r.t <= from.ps())
      break;
    const SimTime begin = SimTime::ps(std::max(p.t, from.ps()));
    const SimTime end   = SimTime::ps(r.t);
    CauseLabel main     = r.label;
    main.lead_what      = 0;
    if (r.label.lead_what != 0 && r.label.lead_until > begin.ps()) { // its lead-in first (pushed last: reversed below)
      const SimTime split = std::min(end, SimTime::ps(r.label.lead_until));
      if (end > split)
        out.push_back(Segment{split, end, main});
      if (split > begin)
        out.push_back(Segment{begin, split, CauseLabel{r.label.lead_what, r.label.lead_where}});
    } else if (end > begin) {
      out.push_back(Segment{begin, end, main});
    }
    id = r.parent;
  }
  // The origin (date 0) ends every chain: a chain that reached it covers [from, first record] too.
  std::reverse(out.begin(), out.end());
  return out;
}

} // namespace nafsim
