#pragma once
// Loading and combining JSON configuration documents while remembering where each part came from.

#include "simcore/config/Origins.hpp"
#include "simcore/config/Schema.hpp"

#include <string>
#include <string_view>

namespace nafsim::config {

/// Parse a JSON file; errors name the file, line and column.
Json load_json_file(const std::string& path);
/// Parse JSON text that came from `origin` (used for embedded presets and tests). Refuses documents nested
/// deeper than 64 levels, keys repeated in an object, and numbers beyond a double.
Json parse_json_text(const std::string& text, const std::string& origin);

/// Deep-merge `patch` into `target` at `pointer`: objects merge key by key, everything else
/// replaces. Each replaced subtree is recorded as coming from `origin`.
void merge_into(Json& target, const Json& patch, Origins& origins, const std::string& origin,
                const std::string& pointer = "");

/// Whether `dotted` is a parameter path: keys joined by dots, none of them empty.
inline bool is_dotted_path(std::string_view dotted)
{
  return !dotted.empty() && dotted.front() != '.' && dotted.back() != '.' && dotted.find("..") == std::string_view::npos;
}

/// Set `doc` at a dotted path ("platform.network.link.rate"), creating objects on the way.
void set_dotted(Json& doc, const std::string& dotted, Json value, Origins& origins, const std::string& origin);

/// A command-line value: JSON if it parses as JSON (numbers, true, [..]), otherwise a string; errors name `origin`.
Json parse_cli_value(const std::string& text, const std::string& origin);

/// "a.b.c" -> "/a/b/c"
std::string dotted_to_pointer(const std::string& dotted);

} // namespace nafsim::config
