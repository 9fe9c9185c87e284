#include "simcore/config/JsonDoc.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

namespace nafsim::config {

namespace {

/// Deeper documents are refused: nafsim's own nest four or five levels, and a very deep one would exhaust
/// the stack when it is copied or freed (both recursive).
constexpr int kMaxDepth = 64;

/// Line and column of byte `offset` of `text`.
std::pair<std::size_t, std::size_t> line_column(const std::string& text, std::size_t offset)
{
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i + 1 < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

/// The parser's checks as it reads: nesting depth and keys repeated within an object (which JSON
/// parsers silently resolve to the last one: a typo'd duplicate would be lost without a word).
struct Checks {
  std::string origin;
  std::vector<std::set<std::string>> keys; ///< by object depth
  std::vector<std::string> path;           ///< keys of the enclosing objects ("[]" inside arrays)
  std::string pointer() const
  {
    std::string p;
    for (std::size_t i = 0; i < path.size() && i < 8; ++i)
      p += path[i].empty() ? "/[...]" : "/" + path[i]; // array levels are not indexed
    return path.size() > 8 ? p + "/..." : p;
  }
  bool operator()(int depth, Json::parse_event_t event, Json& parsed)
  {
    using E = Json::parse_event_t;
    if ((event == E::object_start || event == E::array_start) && depth >= kMaxDepth)
      throw ConfigError(origin, pointer(),
                        fmt::format("the document nests deeper than {} levels (a scenario needs a handful)", kMaxDepth));
    switch (event) {
      case E::object_start:
        keys.resize(static_cast<std::size_t>(depth) + 1);
        keys[static_cast<std::size_t>(depth)].clear();
        path.resize(static_cast<std::size_t>(depth));
        break;
      case E::array_start: path.resize(static_cast<std::size_t>(depth)); break;
      case E::key: {
        auto const& k = parsed.get_ref<const std::string&>();
        auto d        = static_cast<std::size_t>(depth);
        path.resize(d - 1 < path.size() ? d - 1 : path.size());
        if (d - 1 < keys.size() && !keys[d - 1].insert(k).second)
          throw ConfigError(origin, pointer() + "/" + k,
                            fmt::format("key '{}' appears twice in the same object (JSON keeps only one of them): "
                                        "remove or rename one",
                                        k));
        path.resize(d - 1);
        path.push_back(k);
        break;
      }
      default: break;
    }
    return true;
  }
};

} // namespace

/// Parse with the checks; a syntax error returns nothing when `syntax_is_not_json`, else throws.
static std::optional<Json> parse_checked(const std::string& text, const std::string& origin, bool syntax_is_not_json)
{
  Checks checks{origin, {}, {}};
  try {
    return Json::parse(
        text, [&](int depth, Json::parse_event_t event, Json& parsed) { return checks(depth, event, parsed); }, true,
        /*ignore_comments=*/true);
  } catch (const Json::parse_error& e) {
    if (syntax_is_not_json)
      return std::nullopt;
    auto [line, col] = line_column(text, e.byte);
    std::string what = e.what();
    auto pos         = what.find("syntax error");
    throw ConfigError(origin, "", fmt::format("invalid JSON at line {}, column {}: {}", line, col,
                                              pos == std::string::npos ? what : what.substr(pos)));
  } catch (const Json::exception& e) { // e.g. a number beyond double's range (1e400)
    std::string what = e.what();
    auto pos         = what.find("] ");
    throw ConfigError(origin, checks.pointer(),
                      fmt::format("invalid JSON: {} (numbers must fit a double: at most about 1.8e308)",
                                  pos == std::string::npos ? what : what.substr(pos + 2)));
  }
}

Json parse_json_text(const std::string& text, const std::string& origin)
{
  return *parse_checked(text, origin, false);
}

Json load_json_file(const std::string& path)
{
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw ConfigError(path, "", "is a folder, not a JSON file: name the file");
  std::ifstream in(path);
  if (!in)
    throw ConfigError(path, "", "cannot open file (check the path; scenario files are JSON)");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_json_text(ss.str(), path);
}

void merge_into(Json& target, const Json& patch, Origins& origins, const std::string& origin,
                const std::string& pointer)
{
  if (patch.is_object() && target.is_object()) {
    for (auto it = patch.begin(); it != patch.end(); ++it) {
      std::string p = pointer + "/" + it.key();
      if (target.contains(it.key()))
        merge_into(target[it.key()], it.value(), origins, origin, p);
      else {
        target[it.key()] = it.value();
        origins.set(p, origin);
      }
    }
    return;
  }
  target = patch;
  origins.set(pointer, origin);
}

std::string dotted_to_pointer(const std::string& dotted)
{
  std::string p;
  std::size_t start = 0;
  while (start <= dotted.size()) {
    auto dot = dotted.find('.', start);
    if (dot == std::string::npos)
      dot = dotted.size();
    p += "/" + dotted.substr(start, dot - start);
    start = dot + 1;
  }
  return p;
}

void set_dotted(Json& doc, const std::string& dotted, Json value, Origins& origins, const std::string& origin)
{
  if (!is_dotted_path(dotted))
    throw ConfigError(origin, "", "'" + dotted + "' is not a parameter path (write it like platform.network.link.rate)");
  Json* cur = &doc;
  std::size_t start = 0;
  std::string pointer;
  while (true) {
    auto dot        = dotted.find('.', start);
    std::string key = dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    const std::string parent = pointer;
    pointer += "/" + key;
    // (the value blamed is the one holding the key, not the key: '/workload/ops/0' had been called no object)
    if (cur->is_array())
      throw ConfigError(origin, parent,
                        fmt::format("is a list: a parameter path reaches no element of a list ('{}' is no key); give "
                                    "the whole list, e.g. --set '{}=[...]'",
                                    key, dotted.substr(0, start - 1)));
    if (!cur->is_object())
      throw ConfigError(origin, parent,
                        fmt::format("is {}, not an object: it has no key '{}'", cur->dump(), key));
    if (dot == std::string::npos) {
      (*cur)[key] = std::move(value);
      origins.set(pointer, origin);
      return;
    }
    if (!cur->contains(key)) {
      (*cur)[key] = Json::object();
      origins.set(pointer, origin); // a key this --set invented: errors about it must name the --set
    }
    cur   = &(*cur)[key];
    start = dot + 1;
  }
}

Json parse_cli_value(const std::string& text, const std::string& origin)
{
  // JSON if it is JSON (numbers, true, [..]), otherwise the text as a string; JSON that does not fit
  // (1e400) is an error, not a string.
  auto j = parse_checked(text, origin, true);
  return j ? std::move(*j) : Json(text);
}

std::string suggest_key(const std::string& key, const std::vector<std::string>& known)
{
  auto distance = [](const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
      row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
      std::size_t prev = row[0];
      row[0]           = i;
      for (std::size_t j = 1; j <= b.size(); ++j) {
        std::size_t cur = row[j];
        row[j]          = std::min({row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] == b[j - 1] ? 0 : 1)});
        prev            = cur;
      }
    }
    return row[b.size()];
  };
  std::string best;
  std::size_t best_d = 3;
  for (auto const& k : known) {
    auto d = distance(key, k);
    if (d < best_d) {
      best_d = d;
      best   = k;
    }
  }
  return best.empty() ? "" : " (did you mean '" + best + "'?)";
}

} // namespace nafsim::config
