#pragma once
// Run the nafsim binary as a user would (tests of test_app, which define NAFSIM_BINARY): in a folder, stdout captured,
// stderr into stderr.txt there.

#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <string>
#include <sys/wait.h>

namespace nafsim::testing {

struct Cmd {
  int code;        ///< exit code (-1: killed by a signal)
  std::string out; ///< stdout
};

/// Run `nafsim ARGS` in `dir` with environment assignments `env` ("A=1 B=2") before it.
inline Cmd run_cli(const std::filesystem::path& dir, const std::string& args, const std::string& env = "")
{
  std::string cmd = fmt::format("cd '{}' && {} '{}' {} 2>stderr.txt", dir.string(), env, NAFSIM_BINARY, args);
  FILE* p         = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, p))
    out.append(buf, n);
  int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

} // namespace nafsim::testing
