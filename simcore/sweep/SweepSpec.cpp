#include "simcore/sweep/SweepSpec.hpp"

#include "simcore/config/JsonDoc.hpp"

#include <cmath>
#include <filesystem>
#include <algorithm>
#include <fmt/format.h>
#include <set>

namespace fs = std::filesystem;

namespace nafsim::sweep {

using config::ConfigError;
using config::Json;

std::vector<std::string> Point::sets(const std::vector<Axis>& axes, const fs::path& here) const
{
  std::vector<std::string> s;
  for (std::size_t a = 0; a < axes.size(); ++a)
    s.push_back(axes[a].path + "=" +
                (here.empty() ? values[a] : file_paths_absolute(axes[a].path, values[a], here)).dump());
  return s;
}

Json file_paths_absolute(const std::string& at, Json value, const fs::path& here)
{
  auto absolute = [&](Json& v, bool platform) {
    if (!v.is_string())
      return;
    const std::string t = v.get<std::string>();
    // (a platform string not ending in .json is a preset's name)
    if (t.empty() || fs::path(t).is_absolute() || (platform && !config::names_json_file(t)))
      return;
    v = config::path_in(here.string(), t);
  };
  if (at.empty() && value.is_object()) {
    for (const char* k : {"platform", "workload"})
      if (value.contains(k))
        value[k] = file_paths_absolute(k, std::move(value[k]), here);
    if (value.contains("overrides") && value["overrides"].is_object())
      for (auto it = value["overrides"].begin(); it != value["overrides"].end(); ++it)
        it.value() = file_paths_absolute(it.key(), std::move(it.value()), here);
  } else if (at == "platform") {
    absolute(value.is_object() && value.contains("preset") ? value["preset"] : value, true);
  } else if (at == "workload" && value.is_object()) {
    for (const char* k : {"trace", "comm_groups"})
      if (value.contains(k))
        absolute(value[k], false);
  } else if (at == "workload.trace" || at == "workload.comm_groups") {
    absolute(value, false);
  }
  return value;
}

std::string cell_text(const Json& v)
{
  return v.is_string() ? v.get<std::string>() : v.dump();
}

namespace {

/// A range's values, its count checked against `max_points` before any is made. Values are from + i * step (or
/// from * factor^i), not a running sum, and non-integral ones are tidied to 15 significant digits, so that
/// {"from": 0.1, "to": 0.5, "step": 0.1} gives 0.3, not 0.30000000000000004.
std::vector<Json> expand_range(const Json& r, const std::string& origin, const std::string& ptr, std::size_t max_points)
{
  static const std::set<std::string> keys{"from", "to", "step", "factor"};
  if (!r.is_object())
    throw ConfigError(origin, ptr, "expected {\"from\": a, \"to\": b, \"step\": s} or {..., \"factor\": f}");
  for (auto it = r.begin(); it != r.end(); ++it)
    if (!keys.count(it.key()))
      throw ConfigError(origin, ptr + "/" + it.key(), "unknown key '" + it.key() + "'; a range has from, to, step or factor");
  for (auto const* k : {"from", "to"})
    if (!r.contains(k) || !r[k].is_number())
      throw ConfigError(origin, ptr + "/" + k, "missing or not a number");
  if (r.contains("step") == r.contains("factor"))
    throw ConfigError(origin, ptr, "give exactly one of step (arithmetic) or factor (geometric)");
  const double from = r["from"].get<double>(), to = r["to"].get<double>();
  bool integral     = r["from"].is_number_integer() && r["to"].is_number_integer();
  double count      = 0; // values in the range, as a double: it may be astronomically large
  double step = 0, factor = 0;
  if (r.contains("step")) {
    if (!r["step"].is_number() || !(r["step"].get<double>() > 0))
      throw ConfigError(origin, ptr + "/step", "step must be a positive number");
    step     = r["step"].get<double>();
    integral = integral && r["step"].is_number_integer();
    if (to >= from)
      count = std::floor((to - from) / step * (1 + 1e-12) + 1e-9) + 1;
  } else {
    if (!r["factor"].is_number() || !(r["factor"].get<double>() > 1) || !(from > 0))
      throw ConfigError(origin, ptr + "/factor", "factor must be > 1 and from > 0");
    factor = r["factor"].get<double>();
    if (to >= from)
      count = std::floor(std::log(to / from) / std::log(factor) + 1e-9) + 1;
  }
  if (!(count >= 1))
    throw ConfigError(origin, ptr, "the range is empty (from > to?)");
  if (count > static_cast<double>(max_points))
    throw ConfigError(origin, ptr,
                      fmt::format("the range has {} values, more than the sweep's points limit of {} (max_points): "
                                  "a larger step or factor, or raise the limit (\"max_points\" in the sweep file, or "
                                  "--max-points)",
                                  std::isfinite(count) ? fmt::format("{:.0f}", count) : std::string("countless"),
                                  max_points));
  std::vector<Json> out;
  const auto n = static_cast<std::size_t>(count);
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double v = step > 0 ? from + static_cast<double>(i) * step : from * std::pow(factor, static_cast<double>(i));
    if (integral && std::abs(v) < 9.2e18)
      out.emplace_back(static_cast<std::int64_t>(std::llround(v)));
    else
      out.emplace_back(std::stod(fmt::format("{:.15g}", v)));
  }
  return out;
}

} // namespace

SweepSpec SweepSpec::load(const std::string& path, std::optional<std::size_t> max_points)
{
  Json doc     = config::load_json_file(path);
  SweepSpec s  = from_json(doc, path, fs::path(path).parent_path().string(), max_points);
  s.file       = path;
  if (s.name.empty())
    s.name = fs::path(path).stem().string();
  return s;
}

namespace {

/// Axis `ptr` of the sweep file `origin`: its parameter path and its values (listed, or a range).
Axis read_axis(const Json& a, const std::string& origin, const std::string& ptr, std::size_t max_points)
{
  if (!a.is_object())
    throw ConfigError(origin, ptr, "expected an object");
  for (auto it = a.begin(); it != a.end(); ++it)
    if (it.key() != "path" && it.key() != "values" && it.key() != "range")
      throw ConfigError(origin, ptr + "/" + it.key(), "unknown key '" + it.key() + "'; an axis has path and values or range");
  if (!a.contains("path") || !a["path"].is_string())
    throw ConfigError(origin, ptr + "/path", "missing parameter path, e.g. \"platform.network.link.rate\"");
  Axis axis;
  axis.path = a["path"].get<std::string>();
  // (a point gives it as --set path=value: a path that is none would be blamed on a --set the user never wrote)
  const std::string& d = axis.path;
  if (!config::is_dotted_path(d) || d.find('=') != std::string::npos)
    throw ConfigError(origin, ptr + "/path",
                      "'" + d + "' is not a parameter path: dotted keys, e.g. \"platform.network.link.rate\"");
  if (a.contains("values") == a.contains("range"))
    throw ConfigError(origin, ptr, "give exactly one of values or range");
  if (a.contains("values")) {
    if (!a["values"].is_array() || a["values"].empty())
      throw ConfigError(origin, ptr + "/values", "expected a non-empty list");
    for (auto const& v : a["values"])
      axis.values.push_back(v);
  } else {
    axis.values = expand_range(a["range"], origin, ptr + "/range", max_points);
  }
  return axis;
}

/// Zip mode: the i-th point takes every axis's i-th value.
void zip_points(SweepSpec& s, const std::string& origin)
{
  std::size_t n = s.axes[0].values.size();
  for (std::size_t a = 1; a < s.axes.size(); ++a)
    if (s.axes[a].values.size() != n)
      throw ConfigError(origin, fmt::format("/axes/{}", a),
                        fmt::format("zip mode needs axes of equal length: {} has {} values, {} has {}",
                                    s.axes[0].path, n, s.axes[a].path, s.axes[a].values.size()));
  for (std::size_t i = 0; i < n; ++i) {
    Point p{i, {}};
    for (auto const& ax : s.axes)
      p.values.push_back(ax.values[i]);
    s.points.push_back(std::move(p));
  }
}

/// Product mode: every combination of the axes' values, the last axis varying fastest.
void product_points(SweepSpec& s, const std::string& origin)
{
  // Each axis holds at most max_points values, so the running product cannot overflow before it is refused.
  std::size_t total = 1;
  std::string sizes;
  for (auto const& ax : s.axes)
    sizes += (sizes.empty() ? "" : " x ") + std::to_string(ax.values.size());
  for (auto const& ax : s.axes) {
    total *= ax.values.size();
    if (total > s.max_points)
      throw ConfigError(origin, "/axes",
                        fmt::format("the axes' product ({} values) has more points than the sweep's limit of {} "
                                    "(max_points): fewer values, or raise the limit (\"max_points\" in the sweep "
                                    "file, or --max-points)",
                                    sizes, s.max_points));
  }
  for (std::size_t i = 0; i < total; ++i) {
    Point p{i, std::vector<Json>(s.axes.size())};
    std::size_t rest = i;
    for (std::size_t a = s.axes.size(); a-- > 0;) { // the last axis varies fastest
      p.values[a] = s.axes[a].values[rest % s.axes[a].values.size()];
      rest /= s.axes[a].values.size();
    }
    s.points.push_back(std::move(p));
  }
}

} // namespace

namespace {
/// An axis inside another whose values set it too ({"link": {"rate": ...}} on platform.network, and
/// platform.network.link.rate): each point would set the inner value twice, the axis applied last would win, and the
/// merged table would still label the points by both. An outer axis that names a preset, or patches other keys,
/// leaves the inner value to the inner axis and is fine. (The same path twice is refused too.)
void check_not_overlapping(const std::vector<Axis>& axes, const Axis& axis, const std::string& origin,
                           const std::string& ptr)
{
  auto inside = [](const std::string& outer, const std::string& inner) {
    return inner.size() > outer.size() && inner.compare(0, outer.size(), outer) == 0 &&
           (inner[outer.size()] == '.' || inner[outer.size()] == '[');
  };
  // Whether value `v` of the outer axis sets the key path `rest` (dotted; a list index ends the walk: it is taken
  // as set whenever the list is).
  auto sets = [](const config::Json& v, const std::string& rest) {
    if (v.is_object() && v.empty()) // {} puts the section back to its defaults (apply_path_set), the inner value too
      return true;
    const config::Json* at = &v;
    std::size_t from = 0;
    while (from < rest.size()) {
      const std::size_t end = rest.find_first_of(".[", from);
      const std::string key = rest.substr(from, end == std::string::npos ? std::string::npos : end - from);
      if (!at->is_object() || !at->contains(key))
        return false;
      at = &(*at)[key];
      if (end == std::string::npos || rest[end] == '[')
        return true;
      from = end + 1;
    }
    return true;
  };
  auto overlapping = [&](const Axis& outer, const Axis& inner) {
    if (!inside(outer.path, inner.path))
      return false;
    const std::string rest = inner.path.substr(outer.path.size() + (inner.path[outer.path.size()] == '.' ? 1 : 0));
    // (A workload object that names its kind replaces the workload whole, as another kind's would.)
    return std::any_of(outer.values.begin(), outer.values.end(), [&](auto const& v) {
      return sets(v, rest) || (outer.path == "workload" && v.is_object() && v.contains("kind"));
    });
  };
  for (std::size_t j = 0; j < axes.size(); ++j) {
    auto const& prev = axes[j];
    if (prev.path == axis.path)
      throw ConfigError(origin, ptr + "/path", "axis '" + axis.path + "' appears twice");
    if (overlapping(prev, axis) || overlapping(axis, prev))
      throw ConfigError(origin, ptr + "/path",
                        fmt::format("axis '{}' overlaps axis {} ('{}'): the outer one's values set the inner value "
                                    "too, so a point's value would come from whichever is applied last; sweep the "
                                    "inner value alone, or leave it out of the outer axis' values",
                                    axis.path, j, prev.path));
  }
}

/// A platform file among an axis' values must be there, read against the sweep file's folder: the point that names
/// it would fail later as a --set of its own (read against the working directory, by its message) and name no axis.
void check_platform_files(const Axis& axis, const std::string& origin, const std::string& ptr,
                          const std::string& base_dir)
{
  if (axis.path != "platform")
    return;
  for (std::size_t j = 0; j < axis.values.size(); ++j) {
    const Json& v   = axis.values[j];
    const Json& ref = v.is_object() && v.contains("preset") ? v["preset"] : v;
    if (!ref.is_string() || !config::names_json_file(ref.get<std::string>()))
      continue;
    const Json abs = file_paths_absolute("platform", ref, base_dir.empty() ? fs::path(".") : fs::path(base_dir));
    std::error_code ec;
    if (!fs::exists(abs.get<std::string>(), ec))
      throw ConfigError(origin, fmt::format("{}/values/{}", ptr, j),
                        fmt::format("no platform file {} (read against the sweep file's folder): give a path that "
                                    "exists, or a preset's name",
                                    abs.get<std::string>()));
  }
}

} // namespace

SweepSpec SweepSpec::from_json(const Json& doc, const std::string& origin, const std::string& base_dir,
                               std::optional<std::size_t> max_points_option)
{
  if (!doc.is_object())
    throw ConfigError(origin, "/", "a sweep is an object with base and axes");
  static const std::set<std::string> top{"name", "description", "base", "mode", "axes", "max_points"};
  for (auto it = doc.begin(); it != doc.end(); ++it)
    if (!top.count(it.key()))
      throw ConfigError(origin, "/" + it.key(),
                        "unknown key '" + it.key() + "'; a sweep has: name, description, base, mode, axes, max_points");
  SweepSpec s;
  if (doc.contains("max_points")) {
    const Json& m = doc["max_points"];
    if (!m.is_number_unsigned() || m.get<std::uint64_t>() < 1 || m.get<std::uint64_t>() > kMaxPointsCeiling)
      throw ConfigError(origin, "/max_points",
                        fmt::format("expected a whole number from 1 to {}, got {}", kMaxPointsCeiling, m.dump()));
    s.max_points = m.get<std::size_t>();
  }
  if (max_points_option)
    s.max_points = *max_points_option;
  if (doc.contains("name")) {
    if (!doc["name"].is_string())
      throw ConfigError(origin, "/name", "expected a string");
    s.name = doc["name"].get<std::string>();
  }
  if (!doc.contains("base"))
    throw ConfigError(origin, "/base", "missing: a scenario file (relative to the sweep file) or a scenario object");
  if (doc["base"].is_string()) {
    fs::path p  = doc["base"].get<std::string>();
    p           = p.is_absolute() ? p : fs::path(base_dir) / p;
    s.base      = config::load_json_file(p.string());
    s.base_file = p.string();
  } else if (doc["base"].is_object()) {
    s.base      = doc["base"];
    s.base_file = origin;
  } else {
    throw ConfigError(origin, "/base", "expected a scenario file name or a scenario object");
  }
  if (doc.contains("mode")) {
    if (doc["mode"] != "product" && doc["mode"] != "zip")
      throw ConfigError(origin, "/mode", "unknown mode " + doc["mode"].dump() + "; allowed: product|zip");
    s.zip = doc["mode"] == "zip";
  }
  if (!doc.contains("axes") || !doc["axes"].is_array() || doc["axes"].empty())
    throw ConfigError(origin, "/axes", "expected a non-empty list of {\"path\": ..., \"values\": [...]} or "
                                      "{\"path\": ..., \"range\": {...}}");
  for (std::size_t i = 0; i < doc["axes"].size(); ++i) {
    const std::string ptr = fmt::format("/axes/{}", i);
    Axis axis             = read_axis(doc["axes"][i], origin, ptr, s.max_points);
    check_not_overlapping(s.axes, axis, origin, ptr);
    check_platform_files(axis, origin, ptr, base_dir);
    s.axes.push_back(std::move(axis));
  }
  if (s.zip)
    zip_points(s, origin);
  else
    product_points(s, origin);
  return s;
}

std::string SweepSpec::fingerprint() const
{
  Json j;
  j["base"] = base;
  Json jaxes = Json::array();
  for (auto const& a : axes)
    jaxes.push_back({{"path", a.path}, {"values", a.values}});
  j["axes"] = jaxes;
  j["zip"]  = zip;
  return j.dump();
}

} // namespace nafsim::sweep
