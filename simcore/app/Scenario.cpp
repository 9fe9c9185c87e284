#include "simcore/app/Scenario.hpp"

#include "nodes/cclo/CcloBuild.hpp"
#include "nodes/fpga/FpgaNodeConfig.hpp"
#include "simcore/app/Presets.hpp"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fmt/format.h>
#include <string_view>

namespace fs = std::filesystem;

namespace nafsim::app {

using config::ConfigError;
using config::Json;

std::vector<std::string> preset_names()
{
  std::vector<std::string> n;
  for (auto const& p : embedded_presets())
    n.push_back(p.name);
  return n;
}

Json preset_json(const std::string& name, const std::string& origin, const std::string& pointer, bool names_only)
{
  for (auto const& p : embedded_presets())
    if (p.name == name)
      return config::parse_json_text(p.json, "platforms/" + name + ".json");
  std::string valid;
  for (auto const& n : preset_names())
    valid += (valid.empty() ? "" : ", ") + n;
  throw ConfigError(origin, pointer,
                    "unknown platform preset '" + name + "'; presets: " + valid +
                        (names_only ? std::string(" (params lists a preset by its name; a platform file's values are "
                                                  "its preset's with the file's changes)")
                                    : std::string(" (or give a path ending in .json, or an inline object)")));
}

namespace {

/// Platform document + origin label of a preset or platform file reference at `pointer`; a file is read against
/// `base_dir`, the folder of the scenario that names it, or the working directory when `--set` gives it (`cli`).
std::pair<Json, std::string> platform_reference(const std::string& ref, const std::string& origin,
                                                const std::string& base_dir, bool cli, const std::string& pointer)
{
  if (config::names_json_file(ref)) {
    // (not lexically_normal: "link/../x.json" is the link's parent's, as the system opens it)
    const fs::path p = fs::path(ref).is_absolute() || base_dir.empty() ? fs::path(ref) : fs::path(base_dir) / ref;
    std::error_code ec;
    if (!fs::exists(p, ec))
      throw ConfigError(origin, pointer,
                        fmt::format("no platform file {} (read against {}): give a path that exists, or a preset's "
                                    "name ({})",
                                    p.string(),
                                    cli ? "the working directory, as every path given by --set"
                                        : "the folder of the scenario that names it",
                                    fmt::join(preset_names(), ", ")));
    return {config::load_json_file(p.string()), p.string()};
  }
  return {preset_json(ref, origin, pointer), "platforms/" + ref + ".json"};
}

void check_sources(const Json& sources, const std::string& origin)
{
  if (!sources.is_object())
    throw ConfigError(origin, "/sources", "expected an object mapping parameter paths to citations");
  nodes::PlatformConfig defaults;
  std::vector<config::ParamRow> rows;
  config::Lister::list(defaults, "", rows);
  for (auto it = sources.begin(); it != sources.end(); ++it) {
    bool ok = false;
    for (auto const& r : rows)
      ok = ok || r.path == it.key() || r.path.rfind(it.key() + ".", 0) == 0;
    if (!ok)
      throw ConfigError(origin, "/sources/" + it.key(),
                        "'" + it.key() + "' names no platform parameter (see `nafsim params platform`)");
    if (!it.value().is_string())
      throw ConfigError(origin, "/sources/" + it.key(), "a source must be a string (a citation)");
  }
}

} // namespace

Scenario load_scenario(const std::string& path, const ScenarioOptions& opt, const workloads::WorkloadRegistry& reg)
{
  Json doc        = config::load_json_file(path);
  std::string origin = path;
  // A run's metadata.json holds the complete scenario it ran: run it as it is (to repeat or vary a result). Its
  // errors name the file with the scenario's place in it, since their JSON paths are the scenario's.
  if (doc.is_object() && doc.contains("nafsim_version") && doc.contains("scenario")) {
    if (!doc["scenario"].is_object())
      throw ConfigError(path, "/scenario", "a metadata.json's scenario is an object; this file is damaged");
    Json sc = doc["scenario"];
    doc     = std::move(sc);
    origin  = path + " (under /scenario)";
  }
  Scenario s      = load_scenario_doc(doc, origin, fs::path(path).parent_path().string(), opt, reg);
  s.file          = path;
  if (s.header.name.empty()) {
    s.header.name              = fs::path(path).stem().string();
    s.resolved["name"]         = s.header.name;
  }
  return s;
}

namespace {

/// A scenario's keys, in the order its messages name them; overrides last (no path starts there).
constexpr std::array<std::string_view, 8> kTopLevelKeys{"name",     "description", "seed",     "max_sim_time",
                                                        "critical_path", "platform", "workload", "overrides"};

bool is_top_level(std::string_view key)
{
  return std::find(kTopLevelKeys.begin(), kTopLevelKeys.end(), key) != kTopLevelKeys.end();
}

/// The first `n` keys as "a, b, c" (`last` before the final one: ", " or " or ").
std::string top_level_list(std::size_t n, std::string_view last)
{
  std::string s;
  for (std::size_t i = 0; i < n; ++i)
    s += std::string(i == 0 ? "" : i + 1 == n ? last : ", ") + std::string(kTopLevelKeys[i]);
  return s;
}

void check_top_level(const Json& doc, const std::string& origin)
{
  if (!doc.is_object())
    throw ConfigError(origin, "/", "a scenario is a JSON object with 'platform' and 'workload'");
  for (auto it = doc.begin(); it != doc.end(); ++it)
    if (!is_top_level(it.key()))
      throw ConfigError(origin, "/" + it.key(),
                        "unknown key '" + it.key() + "'; a scenario has: " + top_level_list(kTopLevelKeys.size(), ", "));
}

/// `--set platform=<preset>` (or a .json file, or an object), and the --set that said so.
struct PlatformSet {
  std::optional<Json> value;
  std::string where;
};

PlatformSet platform_set_of(const ScenarioOptions& opt)
{
  // `--set platform=<preset>` (or a .json file, or an object) replaces the scenario's platform reference, as if the
  // file said so: presets are whole documents, so the path "platform" is not patched but substituted.
  PlatformSet ps;
  for (auto const& st : opt.sets)
    if (st.rfind("platform=", 0) == 0) {
      ps.where = "--set " + (st.size() > 120 ? st.substr(0, 100) + "..." : st);
      ps.value = config::parse_cli_value(st.substr(9), ps.where);
    }
  return ps;
}

/// The platform document: its preset or file, patched inline; `origins` learns where it came from.
Json resolve_platform(const Json& doc, PlatformSet ps, const std::string& origin, const std::string& base_dir,
                      config::Origins& origins)
{
  Json platform = Json::object();
  // A preset named on the command line keeps the scenario's inline changes to its preset (topology, kinds...).
  if (ps.value && ps.value->is_string() && doc.contains("platform") && doc["platform"].is_object() &&
      doc["platform"].contains("preset")) {
    Json patched      = doc["platform"];
    patched["preset"] = *ps.value;
    ps.value          = std::move(patched);
  }
  const Json& p = ps.value ? *ps.value : doc["platform"];
  const std::string& porigin = ps.value ? ps.where : origin;
  // A platform file named on the command line is the working directory's, as every path given by --set is (one in
  // the scenario file is that file's folder's).
  const std::string base = ps.value ? std::string() : base_dir;
  if (ps.value)
    origins.set("/platform", porigin);
  if (p.is_string()) {
    auto [j, from] = platform_reference(p.get<std::string>(), porigin, base, ps.value.has_value(), "/platform");
    platform       = std::move(j);
    origins.set("/platform", from);
  } else if (p.is_object()) {
    Json inline_part = p;
    if (p.contains("preset")) {
      if (!p["preset"].is_string())
        throw ConfigError(porigin, "/platform/preset", "expected a preset name or a .json path");
      auto [j, from] = platform_reference(p["preset"].get<std::string>(), porigin, base, ps.value.has_value(),
                                          "/platform/preset");
      platform       = std::move(j);
      origins.set("/platform", from);
      inline_part.erase("preset");
    }
    config::merge_into(platform, inline_part, origins, porigin, "/platform");
  } else {
    throw ConfigError(porigin, "/platform", "expected a preset name, a .json path or an object, got " + p.dump());
  }
  if (!platform.is_object())
    throw ConfigError(origins.of("/platform"), "/", "a platform is a JSON object");
  return platform;
}

/// The value at dotted `path` in `doc`, or nullptr.
const Json* at_dotted(const Json& doc, const std::string& path)
{
  const Json* cur = &doc;
  for (std::size_t start = 0;;) {
    const std::size_t dot = path.find('.', start);
    const std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!cur->is_object() || !cur->contains(key))
      return nullptr;
    cur = &(*cur)[key];
    if (dot == std::string::npos)
      return cur;
    start = dot + 1;
  }
}

/// Record in `sets` what a path set gives, for the unread-settings check: the path, or each key of an object at any
/// depth (named by the key and the set that gave it).
void record_path_sets(std::vector<Scenario::PathSet>& sets, const std::string& path, const Json& value,
                      const std::string& where, bool nested)
{
  if (!value.is_object() || value.empty()) {
    sets.push_back({path, nested ? path + " (given by " + where + ")" : where});
    return;
  }
  for (auto it = value.begin(); it != value.end(); ++it)
    record_path_sets(sets, path + "." + it.key(), it.value(), where, true);
}

/// Set `value` at `path` of `resolved` (set_dotted) and record what it gives (record_path_sets). A non-empty object
/// given where an object is (or nothing yet) patches it key by key, as an inline platform patches its preset:
/// `--set 'platform.node.fpga={"tcp": {"rx_fifo": "1MiB"}}'` is `--set platform.node.fpga.tcp.rx_fifo=1MiB` (it
/// replaced the section, every key of the preset it left out back at its default: the Coyote preset's MMU off, a
/// 2-rank allgather 47 % faster, said by nothing). These replace: an empty object (the section back at its
/// defaults), a workload of another kind (the other kind's keys mean nothing to it), the platform itself (as `--set
/// platform=` does) and any value that is not an object.
void apply_path_set(Json& resolved, const std::string& path, const Json& value, config::Origins& origins,
                    const std::string& where, std::vector<Scenario::PathSet>& sets, bool nested = false)
{
  const Json* now         = at_dotted(resolved, path);
  const bool another_kind = path == "workload" && value.is_object() && value.contains("kind") && now &&
                            now->is_object() && now->value("kind", Json()) != value["kind"];
  const bool patch = value.is_object() && !value.empty() && (!now || now->is_object()) && !another_kind &&
                     path != "platform";
  if (!patch) {
    config::set_dotted(resolved, path, value, origins, where);
    record_path_sets(sets, path, value, where, nested);
    return;
  }
  for (auto it = value.begin(); it != value.end(); ++it) {
    // (a key is one name: one with a dot would be taken as a path, and an inline object refuses it)
    if (it.key().empty() || it.key().find('.') != std::string::npos) {
      throw ConfigError(where, config::dotted_to_pointer(path),
                        "unknown key '" + it.key() + "': a key of an object is one name; write nested objects ({\"a\": "
                        "{\"b\": 1}}) or the dotted path in the path itself (" + path + ".a.b=1)");
    }
    apply_path_set(resolved, path + "." + it.key(), it.value(), origins, where, sets, true);
  }
}

/// The scenario's overrides, then the command line's --set, then --seed.
std::vector<Scenario::PathSet> apply_overrides(const Json& doc, const ScenarioOptions& opt, const std::string& origin,
                                               Json& resolved, config::Origins& origins)
{
  std::vector<Scenario::PathSet> sets;
  // A path must start at a key a scenario has (overrides aside: they are not set by a path): an unknown one would be
  // added to the scenario and read by nothing.
  auto check_root = [](const std::string& path, const std::string& where, const std::string& json_path) {
    if (path == "platform.preset") // (a platform document's own key, not a path into the platform)
      throw ConfigError(where, json_path.empty() ? "/platform/preset" : json_path,
                        "a preset is named by the path 'platform' itself: --set platform=<preset> (e.g. --set "
                        "platform=accl-xrt-u55c) replaces the scenario's preset and keeps its inline keys");
    const std::string root = path.substr(0, path.find('.'));
    if (root == "overrides" || !is_top_level(root))
      throw ConfigError(where, json_path.empty() ? "/" + root : json_path,
                        "unknown key '" + root + "' at the start of '" + path + "': a path starts at " +
                            top_level_list(kTopLevelKeys.size() - 1, " or ") +
                            " (e.g. workload.sizes, platform.network.link.rate)");
  };
  if (doc.contains("overrides")) {
    if (!doc["overrides"].is_object())
      throw ConfigError(origin, "/overrides", "expected an object of \"dotted.path\": value");
    for (auto it = doc["overrides"].begin(); it != doc["overrides"].end(); ++it) {
      check_root(it.key(), origin, "/overrides/" + it.key());
      if (it.key() == "platform") // (taken before any override applies: a preset is a whole document)
        throw ConfigError(origin, "/overrides/platform",
                          "overrides set paths inside the platform (e.g. platform.network.link.rate); the platform "
                          "itself, a preset or a platform file, is the scenario's \"platform\" key (or --set "
                          "platform=...)");
      const std::string where = origin + " (overrides." + it.key() + ")";
      origins.set_folder(where, origins.folder_of("")); // (its relative paths are the scenario file's)
      apply_path_set(resolved, it.key(), it.value(), origins, where, sets);
    }
  }
  for (auto const& s : opt.sets) {
    if (s.rfind("platform=", 0) == 0)
      continue; // the platform itself, taken above
    // Errors quote the --set (a very long value shortened).
    const std::string where = "--set " + (s.size() > 120 ? s.substr(0, 100) + "..." : s);
    auto eq                 = s.find('=');
    if (eq == std::string::npos || eq == 0)
      throw ConfigError(where, "", "expected path=value, e.g. --set platform.network.link.rate=25Gbps");
    check_root(s.substr(0, eq), where, "");
    apply_path_set(resolved, s.substr(0, eq), config::parse_cli_value(s.substr(eq + 1), where), origins, where, sets);
  }
  if (opt.seed)
    resolved["seed"] = *opt.seed;
  return sets;
}

/// The workload made from its section (sc.workload, sc.workload_kind); returns its settings as resolved.
Json create_workload(const Json& w, const workloads::WorkloadRegistry& reg, const config::Origins& origins,
                     Scenario& sc)
{
  if (!w.is_object())
    throw ConfigError(origins.of("/workload"), "/workload", "expected an object like {\"kind\": \"sendrecv\", ...}");
  if (!w.contains("kind") || !w["kind"].is_string()) {
    std::string valid;
    for (auto const& e : reg.entries())
      valid += (valid.empty() ? "" : ", ") + e.kind;
    throw ConfigError(origins.of("/workload"), "/workload/kind", "missing workload kind; valid kinds: " + valid);
  }
  sc.workload_kind = w["kind"].get<std::string>();
  auto const& entry = reg.get(sc.workload_kind, origins.of("/workload/kind"), "/workload/kind");
  Json body         = w;
  body.erase("kind");
  Json workload_resolved;
  try {
    sc.workload = entry.create(body, "/workload", origins, workload_resolved);
  } catch (const ConfigError& e) {
    if (!e.origin().empty())
      throw;
    throw ConfigError(origins.of(e.json_path()), e.json_path(), e.message());
  }
  return workload_resolved;
}

/// topology.hosts "ranks": as many hosts as the workload has ranks (a sweep over ranks sizes its cluster).
void hosts_from_ranks(Json& plat, const Json& workload_resolved, const config::Origins& origins,
                      const std::string& workload_kind)
{
  if (!plat.is_object() || !plat.contains("topology") || !plat["topology"].is_object() ||
      !plat["topology"].contains("hosts") || plat["topology"]["hosts"] != "ranks")
    return;
  if (!workload_resolved.contains("ranks") || !workload_resolved["ranks"].is_number_unsigned())
    throw ConfigError(origins.of("/platform/topology/hosts"), "/platform/topology/hosts",
                      fmt::format("hosts \"ranks\" takes the workload's rank count, and a {} workload has none: give "
                                  "a number of hosts",
                                  workload_kind));
  plat["topology"]["hosts"] = workload_resolved["ranks"];
}

/// The scenario as it runs, every default written out (metadata.json's "scenario").
Json resolved_scenario(Scenario& sc, const Json& workload_resolved)
{
  Json r            = Json::object();
  r["name"]         = sc.header.name;
  r["description"]  = sc.header.description;
  r["seed"]         = sc.header.seed;
  r["max_sim_time"] = format_time(sc.header.max_sim_time);
  if (sc.header.critical_path) // (only when asked: the resolved scenarios of other runs stay as they were)
    r["critical_path"] = true;
  r["platform"] = config::Writer::write(sc.platform);
  Json wl       = Json::object();
  wl["kind"]    = sc.workload_kind;
  for (auto it = workload_resolved.begin(); it != workload_resolved.end(); ++it)
    wl[it.key()] = it.value();
  r["workload"] = std::move(wl);
  return r;
}

} // namespace

Scenario load_scenario_doc(const Json& doc, const std::string& origin, const std::string& base_dir,
                           const ScenarioOptions& opt, const workloads::WorkloadRegistry& reg)
{
  check_top_level(doc, origin);
  PlatformSet ps = platform_set_of(opt);
  if (!doc.contains("platform") && !ps.value)
    throw ConfigError(origin, "/platform", "missing: give a preset name (e.g. \"accl-coyote-u55c\"), a .json file "
                                           "or an inline platform object");
  if (!doc.contains("workload"))
    throw ConfigError(origin, "/workload", "missing: e.g. {\"kind\": \"sendrecv\"}");

  config::Origins origins(origin);
  origins.set_folder(origin, config::path_in(base_dir, "."));
  Json resolved = Json::object();
  for (auto const* k : {"name", "description", "seed", "max_sim_time", "critical_path"})
    if (doc.contains(k))
      resolved[k] = doc[k];
  Json platform = resolve_platform(doc, std::move(ps), origin, base_dir, origins);
  Json sources  = Json::object();
  if (platform.contains("sources")) {
    sources = platform["sources"];
    check_sources(sources, origins.of("/platform/sources"));
    platform.erase("sources");
  }
  resolved["platform"] = std::move(platform);
  resolved["workload"] = doc["workload"];
  auto path_sets = apply_overrides(doc, opt, origin, resolved, origins);

  Scenario sc;
  sc.path_sets = std::move(path_sets);
  Json header = Json::object();
  for (auto const* k : {"name", "description", "seed", "max_sim_time", "critical_path"})
    if (resolved.contains(k))
      header[k] = resolved[k];
  config::Reader::read(header, sc.header, "", origins);
  const Json workload_resolved = create_workload(resolved["workload"], reg, origins, sc);
  hosts_from_ranks(resolved["platform"], workload_resolved, origins, sc.workload_kind);
  config::Reader::read(resolved["platform"], sc.platform, "/platform", origins);
  // A named CCLO build sets the Rx buffers and protocol registers for the workload's ranks (every FPGA of the
  // platform when the workload has no rank count).
  nodes::apply_build(nodes::fpga_config(sc.platform.node).cclo, sc.workload->rank_count().value_or(sc.platform.topology.hosts));
  sc.platform_sources = sources;
  sc.resolved         = resolved_scenario(sc, workload_resolved);
  sc.origins          = origins;
  return sc;
}

Json resolve_sweep_point(const Json& base, const std::string& base_file, const std::string& sweep_file,
                         const std::vector<std::string>& sets, const workloads::WorkloadRegistry& reg)
{
  ScenarioOptions o;
  o.sets = sets;
  if (base_file != sweep_file) // (a base file: its own folder's paths, as its runs read them)
    return load_scenario(base_file, o, reg).resolved;
  return load_scenario_doc(base, sweep_file, fs::path(sweep_file).parent_path().string(), o, reg).resolved;
}

} // namespace nafsim::app
