#include "simcore/sweep/ChildProcess.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <unistd.h>

namespace nafsim::sweep {

pid_t spawn_logged(const std::vector<std::string>& args, const std::filesystem::path& log, bool search_path)
{
  std::cout << std::flush;
  std::cerr << std::flush;
  pid_t pid = fork();
  if (pid != 0)
    return pid;
  int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    dup2(fd, 1);
    dup2(fd, 2);
    close(fd);
  }
  std::vector<char*> argv;
  for (auto const& a : args)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  if (search_path)
    execvp(argv[0], argv.data());
  else
    execv(argv[0], argv.data());
  std::fprintf(stderr, "internal error: cannot execute %s: %s\n", argv[0], std::strerror(errno));
  _exit(127);
}

} // namespace nafsim::sweep
