#include "simcore/config/JsonDoc.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

namespace nafsim::config {

Json parse_json_text(const std::string& text, const std::string& origin)
{
  try {
    return Json::parse(text, nullptr, true, /*ignore_comments=*/true);
  } catch (const Json::parse_error& e) {
    // Translate the byte offset into line:column for the user.
    std::size_t line = 1, col = 1;
    for (std::size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    std::string what = e.what();
    auto pos         = what.find("syntax error");
    throw ConfigError(origin, "", fmt::format("invalid JSON at line {}, column {}: {}", line, col,
                                              pos == std::string::npos ? what : what.substr(pos)));
  }
}

Json load_json_file(const std::string& path)
{
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
  if (dotted.empty() || dotted.front() == '.' || dotted.back() == '.' || dotted.find("..") != std::string::npos)
    throw ConfigError(origin, "", "'" + dotted + "' is not a parameter path (write it like platform.network.link.rate)");
  Json* cur = &doc;
  std::size_t start = 0;
  std::string pointer;
  while (true) {
    auto dot        = dotted.find('.', start);
    std::string key = dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    pointer += "/" + key;
    if (!cur->is_object())
      throw ConfigError(origin, pointer, "cannot set a field inside a value that is not an object");
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

Json parse_cli_value(const std::string& text)
{
  try {
    return Json::parse(text);
  } catch (const Json::parse_error&) {
    return Json(text);
  }
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
