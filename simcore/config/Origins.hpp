#pragma once
// Where each part of a merged configuration document came from (scenario file, preset file,
// `overrides`, `--set`), so that an error can name the file that holds the bad value.

#include <map>
#include <string>

namespace nafsim::config {

class Origins {
public:
  explicit Origins(std::string root = "<input>") { by_path_[""] = std::move(root); }
  /// Record that everything at and below `json_pointer` came from `origin`.
  void set(const std::string& json_pointer, const std::string& origin)
  {
    // A new source for a subtree replaces what was recorded below it.
    auto it = by_path_.lower_bound(json_pointer + "/");
    while (it != by_path_.end() && it->first.compare(0, json_pointer.size() + 1, json_pointer + "/") == 0)
      it = by_path_.erase(it);
    by_path_[json_pointer] = origin;
  }
  /// The origin of the deepest recorded ancestor of `json_pointer` (or of itself).
  const std::string& of(std::string json_pointer) const
  {
    while (true) {
      if (auto it = by_path_.find(json_pointer); it != by_path_.end())
        return it->second;
      auto slash = json_pointer.rfind('/');
      if (slash == std::string::npos)
        return by_path_.at("");
      json_pointer.resize(slash);
    }
  }

private:
  std::map<std::string, std::string> by_path_;
};

} // namespace nafsim::config
