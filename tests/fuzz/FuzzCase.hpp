#pragma once
// nafsim-fuzz's cases (Fuzz.cpp runs them): what a case is, the deterministic generator each one draws from, the
// awkward values parameters get, and the makers of each family of case (FuzzMutate.cpp: scenarios run with
// mutations; FuzzCommands.cpp: sweep, bench and figures command lines; FuzzTrace.cpp: damaged Chakra traces).

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace nafsim::fuzz {

namespace fs = std::filesystem;
using Json   = nlohmann::json;
using Corpus = std::vector<std::pair<std::string, Json>>;

struct Param {
  std::string path, type;
  std::vector<std::string> choices; ///< "one of a|b|c"
};

struct Case {
  std::size_t index = 0;
  std::string command = "run";   ///< run, sweep, bench, figures, plot or explain
  std::string base;              ///< corpus file it came from
  std::string text;              ///< scenario (run) or sweep (sweep) file contents; none for bench and figures
  std::vector<std::string> args; ///< after `run <file>` / `sweep <file>` / `bench` / `figures`
  std::string what;              ///< mutations applied
  std::string out;               ///< where an exit 2 must have written nothing (empty: not checked)
  double time_scale = 1;         ///< of --timeout: a sweep runs several points
  /// Files the case needs beside its scenario (a trace's rank files): written into the scratch directory before it
  /// runs, under these names, and removed after it.
  std::vector<std::pair<std::string, std::string>> files;
  /// A user's files (path, contents) the case must leave as they were: always, or only when nafsim fails
  /// (`keep_only_on_failure`: a plot asked to write over a file replaces it when it succeeds).
  std::vector<std::pair<std::string, std::string>> keep;
  bool keep_only_on_failure = false;
  std::string forbidden; ///< a file that must not exist after the case (a command injected into gnuplot made it)
};

class Gen {
public:
  Gen(std::uint64_t seed, std::size_t index) : rng_(seed * 0x9E3779B97F4A7C15ULL ^ (index + 1) * 0xD1B54A32D192ED03ULL) {}
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(rng_() % n); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  template <class T> const T& pick(const std::vector<T>& v) { return v[below(v.size())]; }

private:
  std::mt19937_64 rng_;
};

// Awkward values, by the kind of parameter they go to.
extern const std::vector<std::string> kNumbers, kSizes, kTimes, kRates, kFreqs, kOther;

std::string value_for(const Param& p, Gen& g);
/// Every JSON pointer to a value in `j` (objects and arrays included).
void pointers(const Json& j, const std::string& at, std::vector<std::string>& out);
Json parse_value(const std::string& s);
/// A SimGrid log setting, valid or not (a log file goes to the scratch directory, or to a folder that does not exist).
std::string log_setting(Gen& g, const fs::path& scratch);
/// An odd --out: empty, a device, a file, a path through a file, one too long, one with a newline, a deep new one;
/// for run and sweep (which refuse a folder they did not write) also the root and the working directory.
std::string odd_out(Gen& g, const fs::path& scratch, std::size_t index, bool refuses_foreign_folders = true);

/// Case `index` of run `seed`: one of the families below, the same for the same (seed, index).
Case make_case(std::uint64_t seed, std::size_t index, const Corpus& corpus, const std::vector<Param>& params,
               const fs::path& scratch);
Case make_sweep_case(Gen& g, Case c, const Corpus& corpus, const std::vector<Param>& params, const fs::path& scratch);
Case make_bench_case(Gen& g, Case c, const fs::path& scratch);
Case make_figures_case(Gen& g, Case c, const fs::path& scratch);
/// A Chakra trace, valid or damaged (bytes flipped, cut, lengths and counts out of range, fields with awkward
/// values, dependencies on missing nodes or themselves, a rank file missing), run as a chakra workload.
Case make_trace_case(Gen& g, Case c, const fs::path& scratch);
/// FuzzAnswers.cpp: a plot command line (odd CSVs, hostile titles, a user's file at --out) and an explain one (odd
/// --out, a user's folder).
Case make_plot_case(Gen& g, Case c, const fs::path& scratch);
Case make_explain_case(Gen& g, Case c, const Corpus& corpus, const fs::path& scratch);
/// FuzzProgram.cpp: a generated program (streams, dependencies, either engine), and a scenario with faults of every
/// kind on every fabric.
Case make_program_case(Gen& g, Case c);
Case make_fault_case(Gen& g, Case c, const Corpus& corpus);

} // namespace nafsim::fuzz
