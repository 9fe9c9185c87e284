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
#include <string>
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
};

struct SweepSummary {
  std::size_t total     = 0; ///< points of this rank
  std::size_t already   = 0; ///< done before this invocation
  std::size_t succeeded = 0;
  std::size_t failed    = 0;
  bool interrupted      = false;
  std::vector<std::string> failures; ///< "point N (axis=value, ...): error"
  std::vector<std::string> merged_files;
};

class SweepRunner {
public:
  /// `validate(sets)` must throw config::ConfigError if the base scenario with these --set
  /// arguments is invalid; every point is validated before any is run.
  SweepRunner(SweepSpec spec, SweepOptions opt, std::function<void(const std::vector<std::string>&)> validate);
  SweepSummary run();
  /// Regenerate the merged tables from the completed points.
  std::vector<std::string> merge() const;

private:
  std::string point_name(std::size_t i) const;
  std::string describe_point(const Point& p) const;
  void prepare_directory();
  std::vector<std::string> point_sets(const Point& p) const;

  SweepSpec spec_;
  SweepOptions opt_;
  std::function<void(const std::vector<std::string>&)> validate_;
  std::string base_path_; ///< scenario file the children load
};

} // namespace nafsim::sweep
