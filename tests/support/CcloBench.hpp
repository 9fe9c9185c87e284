// The CCLO tests' scenario: whole collectives with real data on ACCL+ nodes, checked (tests/unit/nodes/Cclo*Test.cpp).
#pragma once

#include "tests/support/RunScenario.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <string>

namespace nafsim::testing::cclo {

/// An 8-host cluster of ACCL+ nodes; `extra` adds workload fields. Sizes from one small message to three Rx buffers'
/// worth; an allreduce's are ones the firmware's eager ring can cut on 5 to 8 ranks in every type (8 B leaves its last
/// rank a chunk below 0 on 4 ranks and more, 96 KiB on 5: CallPlan.cpp ring_chunks).
inline std::string bench(const std::string& collective, int ranks, const std::string& extra, const std::string& platform = "")
{
  const char* sizes = collective == "allreduce" ? R"(["512B", "1KiB", "40KiB", "80KiB"])"
                                                : R"(["8B", "1KiB", "40KiB", "96KiB"])";
  return fmt::format(R"({{"name": "cclo-test",
      "platform": {{"preset": "accl-coyote-u55c", "topology": {{"kind": "star", "hosts": 8}} {}}},
      "workload": {{"kind": "collective", "collective": "{}", "ranks": {}, "verify": true,
                    "sizes": {} {}}}}})",
                     platform, collective, ranks, sizes, extra);
}

inline void expect_verified(const ScenarioRun& run, const std::string& what)
{
  ASSERT_TRUE(run.ok) << what << ": " << run.error;
  auto const& t = run.tables.at("collective");
  ASSERT_FALSE(t.rows.empty()) << what;
  for (auto const& r : t.rows)
    EXPECT_EQ(r.at("verified"), "yes") << what;
}


} // namespace nafsim::testing::cclo
