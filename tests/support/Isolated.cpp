#include "tests/support/Isolated.hpp"

#include <cstdio>
#include <exception>
#include <sys/wait.h>
#include <unistd.h>

namespace nafsim::testing {

ChildResult run_isolated(const std::function<std::string()>& fn)
{
  int fds[2];
  if (pipe(fds) != 0)
    return {-1, "pipe failed"};
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    std::string out;
    int code = 0;
    try {
      out = fn();
    } catch (const std::exception& e) {
      out  = e.what();
      code = 1;
    }
    std::size_t off = 0;
    while (off < out.size()) {
      auto n = write(fds[1], out.data() + off, out.size() - off);
      if (n <= 0)
        break;
      off += static_cast<std::size_t>(n);
    }
    close(fds[1]);
    std::fflush(nullptr);
    _exit(code);
  }
  close(fds[1]);
  ChildResult r;
  char buf[65536];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0)
    r.output.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

} // namespace nafsim::testing
