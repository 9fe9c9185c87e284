#pragma once
// User/config errors: exceptions with context (what, where: file and JSON path, how to fix),
// caught in main and turned into exit code 2 (DESIGN.md section 7, rule 12).

#include <stdexcept>
#include <string>

namespace nafsim::config {

class ConfigError : public std::runtime_error {
public:
  ConfigError(std::string origin, std::string json_path, std::string message)
      : std::runtime_error(compose(origin, json_path, message))
      , origin_(std::move(origin))
      , json_path_(std::move(json_path))
      , message_(std::move(message))
  {
  }
  const std::string& origin() const { return origin_; }
  const std::string& json_path() const { return json_path_; }
  const std::string& message() const { return message_; }

private:
  static std::string compose(const std::string& origin, const std::string& path, const std::string& msg)
  {
    std::string s = origin.empty() ? std::string("<input>") : origin;
    if (!path.empty())
      s += ": " + path;
    return s + ": " + msg;
  }
  std::string origin_;
  std::string json_path_;
  std::string message_;
};

} // namespace nafsim::config
