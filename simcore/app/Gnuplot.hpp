#pragma once
// Running gnuplot (figures and `nafsim plot`).

#include <filesystem>
#include <string>

namespace nafsim::app {

/// `s` as a gnuplot string literal (single quotes, '' inside).
std::string gp_quote(const std::string& s);
/// Run gnuplot on `script` with `setup` executed first; its output and errors to `log`. Returns an error text
/// (gnuplot missing, or failing: see the log) or "".
std::string gnuplot(const std::string& setup, const std::filesystem::path& script, const std::filesystem::path& log);

} // namespace nafsim::app
