#pragma once
// Run a piece of test code in a child process. SimGrid keeps one engine per process, so every
// simulation in a test runs through this; the child returns a string (usually JSON) to the parent.

#include <functional>
#include <string>

namespace nafsim::testing {

struct ChildResult {
  int exit_code = 0;
  std::string output;
};

/// Fork, run `fn` in the child and return what it returned (exit code 0), or the exception's
/// text (exit code 1). Crashes in the child show as other exit codes.
ChildResult run_isolated(const std::function<std::string()>& fn);

} // namespace nafsim::testing
