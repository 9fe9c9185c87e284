#include "simcore/app/Gnuplot.hpp"
#include "simcore/sweep/ChildProcess.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace nafsim::app {

std::string gp_quote(const std::string& s)
{
  std::string q = "'";
  for (char c : s)
    q += c == '\'' ? std::string("''") : std::string(1, c);
  return q + "'";
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
