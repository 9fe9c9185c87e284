#pragma once
// The `nafsim` command line as a function: main() calls it, and so do tools that run many scenarios in
// forked children without loading the program again (tests/fuzz).

namespace nafsim::app {

/// Parse `argv` (argv[0] the program) and run the subcommand; returns the process exit code.
int cli_main(int argc, char** argv);

} // namespace nafsim::app
