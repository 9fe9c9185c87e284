#include "simcore/sweep/SweepSpec.hpp"

#include "simcore/config/JsonDoc.hpp"

#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <set>

namespace fs = std::filesystem;

namespace nafsim::sweep {

using config::ConfigError;
using config::Json;

std::vector<std::string> Point::sets(const std::vector<Axis>& axes) const
{
  std::vector<std::string> s;
  for (std::size_t a = 0; a < axes.size(); ++a)
    s.push_back(axes[a].path + "=" + values[a].dump());
  return s;
}

std::string cell_text(const Json& v)
{
  return v.is_string() ? v.get<std::string>() : v.dump();
}

namespace {

std::vector<Json> expand_range(const Json& r, const std::string& origin, const std::string& ptr)
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
  double from = r["from"].get<double>(), to = r["to"].get<double>();
  bool integral = r["from"].is_number_integer() && r["to"].is_number_integer();
  std::vector<Json> out;
  auto push = [&](double v) {
    if (integral)
      out.emplace_back(static_cast<std::int64_t>(std::llround(v)));
    else
      out.emplace_back(v);
  };
  if (r.contains("step")) {
    if (!r["step"].is_number() || r["step"].get<double>() <= 0)
      throw ConfigError(origin, ptr + "/step", "step must be a positive number");
    double step = r["step"].get<double>();
    integral    = integral && r["step"].is_number_integer();
    for (double v = from; v <= to + 1e-9 * std::abs(to); v += step)
      push(v);
  } else {
    if (!r["factor"].is_number() || r["factor"].get<double>() <= 1 || from <= 0)
      throw ConfigError(origin, ptr + "/factor", "factor must be > 1 and from > 0");
    double f = r["factor"].get<double>();
    for (double v = from; v <= to * (1 + 1e-9); v *= f)
      push(v);
  }
  if (out.empty())
    throw ConfigError(origin, ptr, "the range is empty (from > to?)");
  if (out.size() > 100000)
    throw ConfigError(origin, ptr, "the range has more than 100000 values");
  return out;
}

} // namespace

SweepSpec SweepSpec::load(const std::string& path)
{
  Json doc     = config::load_json_file(path);
  SweepSpec s  = from_json(doc, path, fs::path(path).parent_path().string());
  s.file       = path;
  if (s.name.empty())
    s.name = fs::path(path).stem().string();
  return s;
}

SweepSpec SweepSpec::from_json(const Json& doc, const std::string& origin, const std::string& base_dir)
{
  if (!doc.is_object())
    throw ConfigError(origin, "/", "a sweep is an object with base and axes");
  static const std::set<std::string> top{"name", "description", "base", "mode", "axes"};
  for (auto it = doc.begin(); it != doc.end(); ++it)
    if (!top.count(it.key()))
      throw ConfigError(origin, "/" + it.key(),
                        "unknown key '" + it.key() + "'; a sweep has: name, description, base, mode, axes");
  SweepSpec s;
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
    const Json& a   = doc["axes"][i];
    std::string ptr = fmt::format("/axes/{}", i);
    if (!a.is_object())
      throw ConfigError(origin, ptr, "expected an object");
    for (auto it = a.begin(); it != a.end(); ++it)
      if (it.key() != "path" && it.key() != "values" && it.key() != "range")
        throw ConfigError(origin, ptr + "/" + it.key(), "unknown key '" + it.key() + "'; an axis has path and values or range");
    if (!a.contains("path") || !a["path"].is_string())
      throw ConfigError(origin, ptr + "/path", "missing parameter path, e.g. \"platform.network.link.rate\"");
    Axis axis;
    axis.path = a["path"].get<std::string>();
    if (a.contains("values") == a.contains("range"))
      throw ConfigError(origin, ptr, "give exactly one of values or range");
    if (a.contains("values")) {
      if (!a["values"].is_array() || a["values"].empty())
        throw ConfigError(origin, ptr + "/values", "expected a non-empty list");
      for (auto const& v : a["values"])
        axis.values.push_back(v);
    } else {
      axis.values = expand_range(a["range"], origin, ptr + "/range");
    }
    for (auto const& prev : s.axes)
      if (prev.path == axis.path)
        throw ConfigError(origin, ptr + "/path", "axis '" + axis.path + "' appears twice");
    s.axes.push_back(std::move(axis));
  }

  if (s.zip) {
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
  } else {
    std::size_t total = 1;
    for (auto const& ax : s.axes) {
      total *= ax.values.size();
      if (total > 1000000)
        throw ConfigError(origin, "/axes", "more than 1000000 points");
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
