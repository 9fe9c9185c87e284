#include "simcore/app/Gnuplot.hpp"

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
  pid_t pid = fork();
  if (pid < 0)
    return "cannot fork to run gnuplot";
  if (pid == 0) {
    int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    std::string s = script.string();
    execlp("gnuplot", "gnuplot", "-e", setup.c_str(), s.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
    return "gnuplot not found: install it (Debian: apt-get install gnuplot-nox, or sh python-free-tools/install-deps.sh)";
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return fmt::format("gnuplot failed on {} (see {})", script.string(), log.string());
  return {};
}

} // namespace nafsim::app
