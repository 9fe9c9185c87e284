#pragma once
// Runs a sweep: every point is an independent `nafsim run` in its own child process (SimGrid keeps
// one engine per process), up to `jobs` at a time.
//
// Output directory:
//   sweep.json            what the sweep computes (a resume refuses a different sweep)
//   points/NNNNN/         each point's results, committed atomically by the child: a point is done
//                         exactly when its directory exists, so an interrupted sweep resumes without
//                         losing or duplicating rows
//   logs/NNNNN.log        each point's stdout and stderr
//   failures.csv          points that failed, with their error (the sweep carries on)
//   <table>.csv           every point's table merged, with the axis values as leading columns
//
// Under mpirun (OpenMPI sets OMPI_COMM_WORLD_RANK/SIZE) each rank takes the points whose index
// modulo the world size is its rank; `--merge-only` afterwards merges the shared directory.

#include "simcore/sweep/SweepSpec.hpp"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <sys/types.h>
#include <utility>
#include <vector>

namespace nafsim::sweep {

struct SweepOptions {
  std::filesystem::path out_dir;
  std::string program;                 ///< the nafsim executable
  unsigned jobs = 1;
  std::vector<std::string> extra_sets; ///< --set applied to every point (axis values win)
  bool progress  = false;              ///< live progress line on stderr
  unsigned rank  = 0;
  unsigned ranks = 1;
  /// Before any point runs, each one still to run is checked against its built platform in a child process
  /// (`nafsim run --check-only`): ranks beyond the hosts, node kinds, ranges only the platform knows.
  bool check_against_platform = true;
};

struct SweepSummary {
  std::size_t total     = 0; ///< points of this rank
  std::size_t already   = 0; ///< done before this invocation
  std::size_t succeeded = 0;
  std::size_t failed    = 0;
  bool interrupted      = false;
  std::vector<std::string> failures; ///< "point N (axis=value, ...): error"
  std::vector<std::string> merged_files;
  /// Settings that nothing read in some points (their metadata's unread_settings), one line per path: which points
  /// and why, e.g. "platform.network.flow_sharing: read by nothing in 2 of 4 points (0, 2): the network ran at ...".
  std::vector<std::string> unread;
};

/// How a point's process ended, from its wait status: "exit 3", or "killed by signal 9 (SIGKILL: out of memory, or
/// killed from outside)".
std::string exit_text(int status);

class SweepRunner {
public:
  /// `resolve(sets)` returns the complete scenario (metadata.json's "scenario") of the base with these --set
  /// arguments, or throws config::ConfigError if it is invalid. Every point is resolved before any runs, and a
  /// point already done must have run exactly the scenario it resolves to now (else a different platform, --set
  /// or build would be mixed into one table).
  using Resolve = std::function<config::Json(const std::vector<std::string>&)>;
  SweepRunner(SweepSpec spec, SweepOptions opt, Resolve resolve);
  SweepSummary run();
  /// Regenerate the merged tables from the completed points.
  std::vector<std::string> merge() const;
  /// SweepSummary::unread, from the points' metadata.
  std::vector<std::string> unread_settings() const;

private:
  std::string point_name(std::size_t i) const;
  std::string describe_point(const Point& p) const;
  void prepare_directory();
  /// Throws config::ConfigError if the directory holds another sweep (its sweep.json's base and axes differ).
  void check_manifest() const;
  /// The first of the files a point's metadata lists (`listed`) that `dir` no longer holds.
  static std::optional<std::string> missing_output(const std::filesystem::path& dir, const config::Json& listed);
  /// Start point `p` as a child `nafsim run` (its output in points/, its log in logs/); returns its process id.
  pid_t launch(const Point& p) const;
  /// failures.csv (failures.rank<r>.csv for one rank of several): each failed point's axis values and error.
  void write_failures(const std::vector<std::pair<const Point*, std::string>>& failures) const;
  /// The inline base scenario as the children read it (a relative platform file made absolute).
  config::Json inline_base() const;
  /// The folder a path in the sweep file is read against: the sweep file's (absolute).
  std::filesystem::path sweep_folder() const;
  std::vector<std::string> point_sets(const Point& p) const;
  /// Resolve every point, compare the done ones with what they ran; returns the points still to run.
  std::vector<const Point*> resolve_points();
  /// `nafsim run --check-only` on each of `todo`, `jobs` at a time; throws config::ConfigError on the first failure.
  void check_points(const std::vector<const Point*>& todo) const;

  SweepSpec spec_;
  SweepOptions opt_;
  Resolve resolve_;
  std::string base_path_; ///< scenario file the children load
};

} // namespace nafsim::sweep
