#include "simcore/app/LogSetting.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <unistd.h>

namespace nafsim::app {

namespace {

constexpr const char* kForm = "expected <category>.<key>:<value>, e.g. nafsim_engine.thres:debug or "
                              "root.app:file:nafsim.log (key: thres, fmt, app or add)";

bool one_of(const std::string& v, std::initializer_list<const char*> names)
{
  return std::any_of(names.begin(), names.end(), [&](const char* n) { return v == n; });
}

std::string check_appender(const std::string& setting, const std::string& value)
{
  std::string path;
  if (value.rfind("file:", 0) == 0) {
    path = value.substr(5);
  } else if (value.rfind("rollfile:", 0) == 0 || value.rfind("splitfile:", 0) == 0) {
    const auto rest  = value.substr(value.find(':') + 1);
    const auto colon = rest.find(':');
    const auto size  = rest.substr(0, colon);
    if (colon == std::string::npos || size.empty() ||
        !std::all_of(size.begin(), size.end(), [](unsigned char c) { return std::isdigit(c); }))
      return fmt::format("--log '{}': a {} appender is {}:<size in bytes>:<path>", setting,
                         value.substr(0, value.find(':')), value.substr(0, value.find(':')));
    path = rest.substr(colon + 1);
  } else {
    return fmt::format("--log '{}': the appender is file:<path>, rollfile:<size>:<path> or splitfile:<size>:<path>",
                       setting);
  }
  if (path.empty())
    return fmt::format("--log '{}': the log file has no name", setting);
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty())
    dir = ".";
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    return fmt::format("--log '{}': the folder {} of the log file does not exist: create it or log elsewhere", setting,
                       dir.string());
  if (::access(dir.c_str(), W_OK) != 0)
    return fmt::format("--log '{}': the folder {} of the log file is not writable", setting, dir.string());
  if (path.find('%') != std::string::npos) // (a splitfile's pattern: its files are made as it goes)
    return {};
  // SimGrid aborts the process when it cannot open its log file: learn it here (a folder, a read-only file, a
  // folder that takes no files such as /proc, where root passes the access check).
  const auto st = std::filesystem::status(path, ec);
  if (std::filesystem::is_directory(st))
    return fmt::format("--log '{}': {} is a folder: name a file in it (e.g. {}/nafsim.log)", setting, path, path);
  if (std::filesystem::exists(st)) {
    if (::access(path.c_str(), W_OK) != 0)
      return fmt::format("--log '{}': the log file {} is not writable", setting, path);
    return {};
  }
  // A file of our own beside it, made and removed (the log's own name is left alone: another run may be opening it,
  // or it may be a link the user made).
  const std::filesystem::path probe = dir / fmt::format(".nafsim-log-probe-{}", ::getpid());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd >= 0) {
    ::close(fd);
    std::filesystem::remove(probe, ec);
    return {};
  }
  if (errno == EEXIST) // (a probe left by a process of this id: the folder takes files)
    return {};
  return fmt::format("--log '{}': the log file {} cannot be made there ({}): log elsewhere", setting, path,
                     std::strerror(errno));
}

} // namespace

std::string check_log_setting(const std::string& setting)
{
  const auto colon = setting.find(':');
  if (colon == std::string::npos)
    return fmt::format("--log '{}': no ':' between the setting and its value; {}", setting, kForm);
  const std::string left = setting.substr(0, colon), value = setting.substr(colon + 1);
  const auto dot         = left.rfind('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == left.size())
    return fmt::format("--log '{}': {}", setting, kForm);
  const std::string category = left.substr(0, dot), key = left.substr(dot + 1);
  if (!std::all_of(category.begin(), category.end(),
                   [](unsigned char c) { return std::isalnum(c) || c == '_' || c == '.'; }))
    return fmt::format("--log '{}': the category '{}' may hold only letters, digits, '_' and '.'", setting, category);
  if (value.empty())
    return fmt::format("--log '{}': the value after ':' is missing; {}", setting, kForm);
  if (one_of(key, {"thres", "threshold"})) {
    if (!one_of(value, {"trace", "debug", "verbose", "info", "warning", "error", "critical"}))
      return fmt::format("--log '{}': the threshold '{}' is not one of trace, debug, verbose, info, warning, error, "
                         "critical",
                         setting, value);
    return {};
  }
  if (one_of(key, {"add", "additivity"}))
    return one_of(value, {"on", "off", "yes", "no", "1", "0"})
               ? std::string{}
               : fmt::format("--log '{}': additivity is on or off", setting);
  if (one_of(key, {"app", "appender"}))
    return check_appender(setting, value);
  if (one_of(key, {"fmt", "format", "layout"}))
    return {};
  return fmt::format("--log '{}': unknown key '{}'; {}", setting, key, kForm);
}

} // namespace nafsim::app
