#include "simcore/app/Params.hpp"

#include "simcore/app/Scenario.hpp"

#include "simcore/config/ConfigError.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace nafsim::app {

void print_params(std::ostream& out, const std::string& prefix, const std::optional<std::string>& preset,
                  const workloads::WorkloadRegistry& reg, std::size_t width)
{
  std::vector<config::ParamRow> rows;
  ScenarioHeader header;
  config::Lister::list(header, "", rows);

  nodes::PlatformConfig platform;
  config::Json sources = config::Json::object();
  if (preset) {
    config::Json j = preset_json(*preset, "--preset", "", true);
    if (j.contains("sources")) {
      sources = j["sources"];
      j.erase("sources");
    }
    config::Origins origins("platforms/" + *preset + ".json");
    config::Reader::read(j, platform, "", origins);
  }
  std::size_t first_platform = rows.size();
  config::Lister::list(platform, "platform", rows);
  if (preset)
    for (std::size_t i = first_platform; i < rows.size(); ++i) {
      std::string rel = rows[i].path.substr(std::string("platform.").size());
      for (auto it = sources.begin(); it != sources.end(); ++it)
        if (rel == it.key() || rel.rfind(it.key() + ".", 0) == 0)
          rows[i].meaning += " [source: " + it.value().get<std::string>() + "]";
    }

  std::string kinds;
  for (auto const& e : reg.entries())
    kinds += (kinds.empty() ? "" : "|") + e.kind;
  rows.push_back({"workload.kind", "one of " + kinds, "", "what drives the nodes"});
  for (auto const& e : reg.entries()) {
    std::size_t first = rows.size();
    e.list_params(rows, "workload");
    for (std::size_t i = first; i < rows.size(); ++i)
      rows[i].meaning += " (workload.kind = " + e.kind + ")";
  }

  std::size_t wp = 4, wt = 4, wd = 7;
  std::vector<const config::ParamRow*> shown;
  for (auto const& r : rows)
    if (r.path.rfind(prefix, 0) == 0) {
      shown.push_back(&r);
      wp = std::max(wp, r.path.size());
      wt = std::max(wt, r.type.size());
      wd = std::max(wd, std::min<std::size_t>(r.default_value.size(), 24));
    }
  if (shown.empty()) {
    // The nearest section that exists, to point the user at.
    std::string near = prefix;
    while (!near.empty()) {
      near = near.substr(0, near.find_last_of('.') == std::string::npos ? 0 : near.find_last_of('.'));
      if (std::any_of(rows.begin(), rows.end(), [&](auto const& r) { return r.path.rfind(near + ".", 0) == 0; }))
        break;
    }
    throw config::ConfigError("nafsim params", "",
                              fmt::format("no parameter path starts with '{}'; {}", prefix,
                                          near.empty() ? "`nafsim params` without a prefix lists them all"
                                                       : fmt::format("`nafsim params {}` lists that section", near)));
  }
  if (width == 0) { // one line per parameter (for grep and scripts)
    out << fmt::format("{:<{}}  {:<{}}  {:<{}}  {}\n", "PATH", wp, "TYPE", wt, preset ? "PRESET" : "DEFAULT", wd,
                       "MEANING");
    for (auto const* r : shown)
      out << fmt::format("{:<{}}  {:<{}}  {:<{}}  {}\n", r->path, wp, r->type, wt, r->default_value, wd, r->meaning);
    return;
  }
  // Each parameter: its path, type and value on one line, its meaning below, wrapped at `width` (4 spaces in).
  for (auto const* r : shown) {
    out << fmt::format("{}  ({}; {} {})\n", r->path, r->type, preset ? "preset" : "default",
                       r->default_value.empty() ? "none" : r->default_value);
    for (auto const& line : wrap(r->meaning, width > 24 ? width - 4 : 20))
      out << "    " << line << "\n";
  }
}

std::vector<std::string> wrap(const std::string& text, std::size_t width)
{
  std::vector<std::string> lines;
  std::string line;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t sp  = text.find(' ', at);
    std::string word = text.substr(at, sp == std::string::npos ? std::string::npos : sp - at);
    at               = sp == std::string::npos ? text.size() : sp + 1;
    if (word.empty())
      continue;
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word; // a word longer than the width stands alone
  }
  if (!line.empty())
    lines.push_back(line);
  return lines;
}

} // namespace nafsim::app
