#include "simcore/app/Gnuplot.hpp"
#include "simcore/config/ConfigError.hpp"
#include "simcore/sweep/ChildProcess.hpp"

#include <algorithm>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <stdexcept>
#include <unistd.h>

namespace fs = std::filesystem;

namespace nafsim::app {

namespace {
bool is_control(char c)
{
  auto u = static_cast<unsigned char>(c);
  return u < 0x20 || u == 0x7f;
}

std::string single_quoted(const std::string& s)
{
  std::string q = "'";
  for (char c : s)
    q += c == '\'' ? std::string("''") : std::string(1, c);
  return q + "'";
}
} // namespace

bool has_control_char(const std::string& s)
{
  return std::any_of(s.begin(), s.end(), is_control);
}

std::string gp_quote(const std::string& s)
{
  if (has_control_char(s))
    throw std::invalid_argument(fmt::format("text for gnuplot holds a control character (a line break?): '{}'", s));
  return single_quoted(s);
}

void require_printable_name(const fs::path& name, const std::string& option, const std::string& what)
{
  if (has_control_char(name.string()))
    throw config::ConfigError(option, "",
                              fmt::format("{} holds a control character (a line break, a tab, ...): '{}'; gnuplot "
                                          "takes file names of printable characters only: give another with {}",
                                          what, name.string(), option));
}

std::string gp_text(const std::string& s)
{
  std::string shown = s;
  for (char& c : shown)
    if (is_control(c))
      c = ' ';
  return single_quoted(shown);
}

/// Run gnuplot on `script` with `setup` executed first; stderr to `log`. Returns an error text or "".
std::string gnuplot(const std::string& setup, const fs::path& script, const fs::path& log)
{
  pid_t pid = sweep::spawn_logged({"gnuplot", "-e", setup, script.string()}, log, true);
  if (pid < 0)
    return "cannot fork to run gnuplot";
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
    return "gnuplot not found: install it (Debian: apt-get install gnuplot-nox, or sh python-free-tools/install-deps.sh)";
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return fmt::format("gnuplot failed on {} (see {})", script.string(), log.string());
  return {};
}

} // namespace nafsim::app
