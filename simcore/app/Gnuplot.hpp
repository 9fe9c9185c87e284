#pragma once
// Running gnuplot (figures and `nafsim plot`).
//
// Every piece of text that reaches gnuplot (titles, labels, series names, file names) goes through gp_quote or
// gp_text. A gnuplot single-quoted string expands nothing (no backslash escapes, no backquote command, no macro)
// except '' for a quote, but it cannot hold a line break: a newline ends the command and the rest of the line would
// run as a command of its own (`system "..."` included). So no control character ever reaches the script.

#include <filesystem>
#include <string>

namespace nafsim::app {

/// True if `s` holds a control character (a byte below 0x20, or 0x7f): text gnuplot cannot take as it is.
bool has_control_char(const std::string& s);
/// `s` as a gnuplot string literal (single quotes, '' inside). For text that must reach gnuplot exactly (a file
/// name): throws std::invalid_argument if `s` holds a control character; callers check user paths first with
/// require_printable_name, which names the option.
std::string gp_quote(const std::string& s);
/// Refuse (config::ConfigError naming `option`, exit 2) a file or folder name that gnuplot will be given when it holds
/// a control character; `what` names it for the message ("the output name").
void require_printable_name(const std::filesystem::path& name, const std::string& option, const std::string& what);
/// Display text (a title, a label, a series name) as a gnuplot string literal: each control character (a line
/// break, a tab, ...) shown as a space, the rest kept.
std::string gp_text(const std::string& s);
/// Run gnuplot on `script` with `setup` executed first; its output and errors to `log`. Returns an error text
/// (gnuplot missing, or failing: see the log) or "".
std::string gnuplot(const std::string& setup, const std::filesystem::path& script, const std::filesystem::path& log);

} // namespace nafsim::app
