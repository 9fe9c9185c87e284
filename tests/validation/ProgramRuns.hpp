#pragma once
// What the `program` workload's tests share: a program scenario on either engine, the rows of one operation in
// program_ops.csv, when its last rank ended, whether the run verified, and the chained program both engines run.
#include "tests/support/RunScenario.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <string>
#include <vector>

namespace nafsim::testing {

/// A program of `ranks` ranks on a star of as many nodes: the ACCL+ FPGAs (engine cclo) or its CPU hosts (mpi).
inline std::string program(unsigned ranks, const std::string& buffers, const std::string& ops,
                           const std::string& extra = "", const std::string& engine = "cclo")
{
  return fmt::format(R"({{"name": "program-test", "platform": {{"preset": "{4}",
      "topology": {{"kind": "star", "hosts": {0}}}}},
      "workload": {{"kind": "program", "engine": "{5}", "ranks": {0}, "buffers": [{1}], "ops": [{2}] {3}}}}})",
                     ranks, buffers, ops, extra, engine == "mpi" ? "accl-cpu-cx5" : "accl-coyote-u55c", engine);
}

/// Rows of program_ops for operation `op` (all ranks).
inline std::vector<std::size_t> rows_of(const Csv& t, int op)
{
  std::vector<std::size_t> v;
  for (std::size_t i = 0; i < t.rows.size(); ++i)
    if (std::stoi(t.rows[i].at("op")) == op)
      v.push_back(i);
  return v;
}

/// When the last rank running operation `op` ended.
inline double latest_end(const Csv& t, int op)
{
  double m = 0;
  for (auto i : rows_of(t, op))
    m = std::max(m, t.num(i, "end_us"));
  return m;
}

/// The summary's program line (empty: none).
inline std::string program_line(const ScenarioRun& r)
{
  for (auto const& l : r.summary)
    if (l.find("program:") != std::string::npos)
      return l;
  return {};
}

inline bool verified(const ScenarioRun& r)
{
  return program_line(r).find("verified:") != std::string::npos;
}

/// A chain on 4 ranks: a ring of send / recv, two sub-communicator allgathers at once, an allreduce of their
/// results, a reduce-scatter of that (kChainOps; tests append their own ending), on the buffers and communicators
/// below.
inline const std::string kChainBuffers = R"({"name": "x", "elements": 512}, {"name": "y", "elements": 512, "init": "zero"},
         {"name": "g", "elements": 1024, "init": "zero"}, {"name": "s", "elements": 1024, "init": "zero"})";
inline const std::string kChainOps = R"({"op": "send", "shift": 1, "src": "x", "count": 128, "tag": 3},
         {"op": "recv", "shift": -1, "dst": "y", "count": 128, "tag": 3},
         {"op": "allgather", "comm": "left", "src": "y", "dst": "g"},
         {"op": "allgather", "comm": "right", "src": "y", "dst": "g"},
         {"op": "allreduce", "src": "g", "dst": "s"},
         {"op": "reduce-scatter", "src": "s", "dst": "x", "count": 256})";
inline const std::string kChainComms =
    R"(, "communicators": [{"name": "left", "ranks": [0, 1]}, {"name": "right", "ranks": [3, 2]}])";

} // namespace nafsim::testing
