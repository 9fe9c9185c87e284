#pragma once
// Where each part of a merged configuration document came from (scenario file, preset file,
// `overrides`, `--set`), so that an error can name the file that holds the bad value.

#include <filesystem>
#include <map>
#include <string>
#include <system_error>

namespace nafsim::config {

/// Whether a platform reference names a file (ends in .json) rather than a preset.
inline bool names_json_file(const std::string& ref) { return ref.size() > 5 && ref.ends_with(".json"); }

/// `path` read against `folder` ("" for the working directory), absolute, as the system opens it: each link
/// followed before a ".." is taken (lexically_normal drops "link/..", which names another folder than the system's).
inline std::string path_in(const std::string& folder, const std::string& path)
{
  namespace fs = std::filesystem;
  const fs::path p = fs::absolute(fs::path(path).is_absolute() || folder.empty() ? fs::path(path)
                                                                                 : fs::path(folder) / path);
  std::error_code ec;
  const fs::path c = fs::weakly_canonical(p, ec);
  return (ec ? p : c).string();
}

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

  /// The folder a relative file path given at `json_pointer` is read against: the folder of the file that gave it
  /// (a scenario, a platform file, a scenario's `overrides`), "" for the working directory (a value given on the
  /// command line by --set, or by an origin that names no file).
  std::string folder_of(const std::string& json_pointer) const
  {
    const std::string& origin = of(json_pointer);
    if (auto it = folders_.find(origin); it != folders_.end())
      return it->second;
    std::error_code ec;
    if (std::filesystem::is_regular_file(origin, ec))
      return std::filesystem::absolute(origin).parent_path().string();
    return "";
  }
  /// Values recorded from `origin`, a label that is not a file's path ("s.json (overrides.workload.trace)"), came
  /// from a file in `folder`.
  void set_folder(const std::string& origin, std::string folder) { folders_[origin] = std::move(folder); }

private:
  std::map<std::string, std::string> by_path_;
  std::map<std::string, std::string> folders_;
};

} // namespace nafsim::config
