// Software MPI on host nodes (workload `mpi`): every collective delivers the right bytes (real
// payloads checked against the collective's definition) for both libraries' algorithm choices,
// eager and rendezvous, power-of-two and other rank counts; the point-to-point protocol's
// mechanisms show in the counters; F2F staging adds up; bad set-ups get clear errors.
#include "tests/support/RunScenario.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

using namespace nafsim::testing;

namespace {

std::string mpi_scenario(const std::string& workload, const std::string& platform_extra = "")
{
  return fmt::format(R"({{"platform": {{"preset": "accl-cpu-cx5"{}}}, "workload": {{"kind": "mpi", {}}}}})",
                     platform_extra, workload);
}

class MpiCollective : public ::testing::TestWithParam<const char*> {};

} // namespace

// 1 KiB per rank travels eager, 96 KiB rendezvous (the preset's threshold is 64 KiB); 8 ranks meet
// OpenMPI's 8-rank decisions, 5 the non-power-of-two paths, 2 the smallest communicator.
TEST_P(MpiCollective, DeliversTheRightDataWithEveryLibraryChoice)
{
  for (const char* library : {"openmpi", "mpich"})
    for (int ranks : {2, 5, 8}) {
      SCOPED_TRACE(fmt::format("{} on {} ranks, {}", GetParam(), ranks, library));
      auto run = run_scenario_isolated(
          mpi_scenario(fmt::format(R"("collective": "{}", "ranks": {}, "root": {}, "sizes": ["1KiB", "96KiB"],
                                     "verify": true)",
                                   GetParam(), ranks, ranks - 1),
                       fmt::format(R"(, "node": {{"host": {{"mpi": {{"library": "{}"}}}}}})", library)));
      ASSERT_TRUE(run.ok) << run.error;
      auto const& t = run.tables.at("mpi");
      ASSERT_EQ(t.rows.size(), 2u);
      for (std::size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(t.rows[i].at("verified"), "yes");
        EXPECT_GT(t.num(i, "latency_us"), 0.0);
      }
    }
}

INSTANTIATE_TEST_SUITE_P(All, MpiCollective,
                         ::testing::Values("bcast", "scatter", "gather", "allgather", "reduce", "allreduce",
                                           "reduce-scatter", "alltoall"),
                         [](const auto& param_info) {
                           std::string n = param_info.param;
                           for (auto& ch : n)
                             if (ch == '-')
                               ch = '_';
                           return n;
                         });

TEST(Mpi, ForcedSchedulesAndOtherTypesAreCorrectToo)
{
  for (auto [coll, alg] : {std::pair{"allreduce", "ring"}, std::pair{"allreduce", "reduce-bcast"},
                           std::pair{"reduce", "flat"}, std::pair{"reduce", "ring"}, std::pair{"bcast", "flat"},
                           std::pair{"gather", "flat"}, std::pair{"alltoall", "pairwise"},
                           std::pair{"reduce-scatter", "reduce-scatter-composite"}}) {
    SCOPED_TRACE(fmt::format("{} forced {}", coll, alg));
    auto run = run_scenario_isolated(mpi_scenario(fmt::format(
        R"("collective": "{}", "algorithm": "{}", "ranks": 6, "root": 2, "sizes": ["4KiB", "128KiB"], "dtype": "float64",
           "func": "max", "verify": true)",
        coll, alg)));
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(run.tables.at("mpi").rows.at(0).at("algorithm"), alg);
  }
  auto bar = run_scenario_isolated(mpi_scenario(R"("collective": "barrier", "ranks": 7, "iterations": 3)"));
  ASSERT_TRUE(bar.ok) << bar.error;
  EXPECT_EQ(bar.tables.at("mpi").rows.size(), 3u);
}

// Eager messages are copied through bounce buffers; rendezvous ones are READ by the receiver.
TEST(Mpi, EagerCopiesRendezvousReads)
{
  auto run = run_scenario_isolated(mpi_scenario(R"("collective": "sendrecv", "sizes": ["64KiB", "65540B"])"));
  ASSERT_TRUE(run.ok) << run.error;
  auto const& r = run.tables.at("mpi_ranks");
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.num(0, "eager_sent"), 1);
  EXPECT_EQ(r.num(0, "rendezvous_sent"), 1);
  EXPECT_EQ(r.num(1, "eager_received"), 1);
  EXPECT_EQ(r.num(1, "reads"), 1);
  // The eager message is copied twice (into the sender's bounce buffer, out of the receiver's).
  EXPECT_EQ(r.num(0, "bytes_copied") + r.num(1, "bytes_copied"), 2.0 * 65536);
}

// Too few bounce buffers: arrivals are refused (RNR) and retried; the data still arrives intact.
TEST(Mpi, BounceBufferExhaustionBackPressuresButDelivers)
{
  auto run = run_scenario_isolated(
      mpi_scenario(R"("collective": "gather", "algorithm": "flat", "ranks": 8, "sizes": ["2KiB"], "verify": true)",
                   R"(, "node": {"host": {"mpi": {"eager_buffers": 2}}})"));
  ASSERT_TRUE(run.ok) << run.error;
  EXPECT_GT(run.tables.at("mpi_ranks").sum("bounce_refusals"), 0);
  EXPECT_LE(run.tables.at("mpi_ranks").num(0, "bounce_max_used"), 2);
}

// F2F: FPGA -> host copy, MPI, host -> FPGA copy, next-kernel invocation; the invocation is the
// CCLO's Coyote NOP (ACCL+ section 5's approximation) and the phases add up to the total.
TEST(Mpi, FpgaDataStagingPhasesAddUp)
{
  auto run = run_scenario_isolated(
      mpi_scenario(R"("collective": "bcast", "ranks": 4, "data": "fpga", "sizes": ["1KiB", "1MiB"], "verify": true)"));
  ASSERT_TRUE(run.ok) << run.error;
  auto const& t = run.tables.at("mpi");
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    EXPECT_NEAR(t.num(i, "invocation_us"), 1.732 * 2 + 77 * 0.004, 1e-6);
    double phases = t.num(i, "to_host_us") + t.num(i, "collective_us") + t.num(i, "to_device_us") +
                    t.num(i, "invocation_us");
    EXPECT_NEAR(t.num(i, "latency_us"), phases, 1e-3);
    EXPECT_GT(t.num(i, "to_host_us"), 10.0) << "the driver call's fixed cost";
  }
  EXPECT_GT(t.num(1, "to_device_us"), t.num(0, "to_device_us"));
}

TEST(Mpi, MixedClusterRunsMpiOnHostsAndTheCcloOnFpgas)
{
  const char* mixed = R"(, "topology": {"kind": "star", "hosts": 6},
      "node": {"kinds": ["fpga", "host", "fpga", "host", "fpga", "host"]})";
  auto mpi = run_scenario_isolated(mpi_scenario(R"("collective": "allreduce", "ranks": 3, "sizes": ["4KiB"], "verify": true)", mixed));
  ASSERT_TRUE(mpi.ok) << mpi.error;
  auto const& ranks = mpi.tables.at("mpi_ranks");
  ASSERT_EQ(ranks.rows.size(), 3u);
  EXPECT_EQ(ranks.rows[0].at("node"), "1");
  EXPECT_EQ(ranks.rows[2].at("node"), "5");
  auto cclo = run_scenario_isolated(fmt::format(
      R"({{"platform": {{"preset": "accl-cpu-cx5"{}}}, "workload": {{"kind": "collective", "collective": "allreduce",
          "ranks": 3, "sizes": ["4KiB"], "verify": true}}}})",
      mixed));
  ASSERT_TRUE(cclo.ok) << cclo.error;
  EXPECT_EQ(cclo.tables.at("cclo").rows.size(), 3u);
  EXPECT_EQ(cclo.tables.at("cclo").rows[1].at("node"), "2");
}

TEST(Mpi, ClearErrors)
{
  auto no_hosts = run_scenario_isolated(
      R"({"platform": {"preset": "accl-coyote-u55c"}, "workload": {"kind": "mpi", "ranks": 2}})");
  EXPECT_FALSE(no_hosts.ok);
  EXPECT_NE(no_hosts.error.find("/workload/ranks"), std::string::npos) << no_hosts.error;
  EXPECT_NE(no_hosts.error.find("host (CPU) node"), std::string::npos) << no_hosts.error;

  auto kinds = run_scenario_isolated(mpi_scenario(R"("ranks": 2)", R"(, "node": {"kinds": ["host", "host"]})"));
  EXPECT_FALSE(kinds.ok);
  EXPECT_NE(kinds.error.find("/platform/node/kinds: 2 node kinds for 10 host positions"), std::string::npos)
      << kinds.error;

  auto cclo_on_host = run_scenario_isolated(
      R"({"platform": {"preset": "accl-cpu-cx5"}, "workload": {"kind": "collective", "ranks": 2}})");
  EXPECT_FALSE(cclo_on_host.ok);
  EXPECT_NE(cclo_on_host.error.find("FPGA node"), std::string::npos) << cclo_on_host.error;

  auto nop = run_scenario_isolated(mpi_scenario(R"("collective": "nop")"));
  EXPECT_FALSE(nop.ok);
  EXPECT_NE(nop.error.find("/workload/collective: nop is a CCLO operation"), std::string::npos) << nop.error;

  auto bounce = run_scenario_isolated(mpi_scenario(R"("ranks": 2)", R"(, "node": {"host": {"mpi": {"eager_buffer": "4KiB"}}})"));
  EXPECT_FALSE(bounce.ok);
  EXPECT_NE(bounce.error.find("/platform/node/host/mpi/eager_buffer"), std::string::npos) << bounce.error;
}
