#pragma once
// Starting a child process whose output and errors go to a log file (the sweeps' points, gnuplot).

#include <filesystem>
#include <string>
#include <sys/types.h>
#include <vector>

namespace nafsim::sweep {

/// Fork and execute `args` (args[0] the program: a path, or looked up in PATH if `search_path`), its stdout and
/// stderr into `log`. Pending output of this process is flushed first. Returns the child's pid, or -1 if the fork
/// failed (errno set). A program that cannot be executed exits 127, saying why in the log.
pid_t spawn_logged(const std::vector<std::string>& args, const std::filesystem::path& log, bool search_path = false);

} // namespace nafsim::sweep
