#pragma once
// Where results may be written. nafsim replaces only what it wrote itself: a result directory is
// replaced whole (ResultSink::commit), so the path must be new, empty, or an earlier nafsim result
// directory; anything else (a user's folder, a file) is refused before the run starts.

#include <filesystem>
#include <stdexcept>
#include <string>

namespace nafsim::results {

/// Results could not be written (disk full, no permission): the run itself was fine. Exit code 4.
class OutputError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Why `name` cannot name a folder under results/ (empty when it can): one plain path component of
/// letters, digits, '.', '_', '-' and '+', not "." or "..", at most 200 characters.
std::string result_name_problem(const std::string& name);

/// Whether `dir` is a directory nafsim's `run` wrote: metadata.json naming a nafsim version, and plain files only.
/// `p` made absolute and lexically normal, without a trailing separator ("." becomes the working directory).
std::filesystem::path absolute_normal(const std::filesystem::path& p);

bool is_run_result_dir(const std::filesystem::path& dir);

/// The list of plots `nafsim plot` drew into a folder (one file name per line): they are nafsim's, so a run's result
/// directory stays one a rerun replaces whole (the README's plot beside its CSV made it a user's folder).
inline constexpr const char* kPlotsList = ".nafsim-plots";
/// Note that `nafsim plot` drew `plot` in its folder's list (in a run's result directory, so that the folder stays a
/// run's, which a rerun replaces whole; anywhere, so that a plot without --out may replace it).
void note_plot(const std::filesystem::path& plot);
/// Whether `plot` is in its folder's list of plots `nafsim plot` drew (a plot without --out replaces only those).
bool listed_plot(const std::filesystem::path& plot);

/// The result directory `requested` made absolute and normal ("." and "results/x/" work), checked so that
/// replacing it can only replace an earlier run's results: throws config::ConfigError with `origin`
/// ("--out" or the scenario file) when it is a file, or a directory that is neither empty nor a run result.
std::filesystem::path checked_run_dir(const std::filesystem::path& requested, const std::string& origin,
                                      const std::string& json_path);

/// The same for a sweep's directory: new, empty, or holding a sweep.json (a sweep resumes in it). Under mpirun
/// (`shared_by_ranks`) the ranks create it at once: one that holds only what a sweep starts with (points/, logs/,
/// base-scenario.json) is a sibling rank's, not a user's folder.
std::filesystem::path checked_sweep_dir(const std::filesystem::path& requested, const std::string& origin,
                                        const std::string& json_path, bool shared_by_ranks = false);

/// Throws config::ConfigError (with `origin` and `json_path`) when the directory `p` could not be made: a part of its
/// path exists and is not a directory, or the nearest existing folder above it cannot be written (a read-only file
/// system, no permission). Called before work starts, so that a sweep or figures run never fails at its end.
void check_creatable(const std::filesystem::path& p, const std::string& origin, const std::string& json_path);

/// A folder a subcommand adds its own files to (explain's runs, bench's tables): it must be new, empty, or one this
/// command wrote before (its marker file `.nafsim-<command>`), so a user's files are never replaced. Otherwise throws
/// config::ConfigError with `origin` naming the first entry found; a path that exists and is no folder is refused.
/// check_own_dir checks only (before any work: bad input writes nothing); claim_own_dir checks, makes the folder and
/// leaves the marker in it.
void check_own_dir(const std::filesystem::path& dir, const std::string& origin, const std::string& command);
void claim_own_dir(const std::filesystem::path& dir, const std::string& origin, const std::string& command);

/// create_directories, a failure an OutputError naming the path and the system's reason.
void make_directories(const std::filesystem::path& p);

/// A failed write as an OutputError naming the path and the system's reason ("No space left on device").
[[noreturn]] void throw_write_error(const std::filesystem::path& p, int err);

} // namespace nafsim::results
