// Who runs Portals and what its list walks cost (nodes/pac), and the worst-case unexpected-queue benchmark
// (workloads/portals): closed forms, the cache knee, and the calibration statements of the PAC paper (5.2).
#include "nodes/pac/PortalsProcessor.hpp"
#include "tests/support/RunScenario.hpp"

#include <gtest/gtest.h>

using namespace nafsim;
using namespace nafsim::nodes;
using namespace nafsim::testing;

namespace {

std::string uq(const std::string& engine, bool hashing, const std::string& messages, unsigned hosts = 32)
{
  return R"({"name": "uq", "platform": {"preset": "pac-32", "topology": {"kind": "star", "hosts": )" +
         std::to_string(hosts) + R"(}, "node": {"portals": {"engine": ")" + engine + R"(", "hashing": )" +
         (hashing ? "true" : "false") + R"(}}}, "max_sim_time": "1000s",
    "workload": {"kind": "portals_uq", "messages": [)" + messages + "]}}";
}

} // namespace

TEST(PortalsProcessor, CommandsCostCyclesPerEntryAndMissesPastTheCache)
{
  PortalsProcessorConfig c;
  c.clock          = Hertz{1e9};
  c.command_cycles = 100;
  c.entry_cycles   = 10;
  c.hash_cycles    = 5;
  c.entry_bytes    = Bytes{64};
  c.cache          = Bytes{64 * 1000};
  c.miss_latency   = SimTime::ns(50);
  PortalsProcessor p(c);
  p.touch("um", 500);
  EXPECT_EQ(p.command("um", 500, 500, false), SimTime::ns(100 + 10 * 500)); // 32 KB of list: cached
  EXPECT_EQ(p.command("um", 20, 500, true), SimTime::ns(105 + 10 * 20));
  EXPECT_EQ(p.missed(), 0u);
  p.touch("um", 2000); // 128 KB: more than the cache, every entry walked misses
  EXPECT_EQ(p.command("um", 2000, 2000, false), SimTime::ns(100 + 10 * 2000 + 50 * 2000));
  EXPECT_EQ(p.missed(), 2000u);
  EXPECT_EQ(p.command("pr", 3, 3, false), SimTime::ns(100 + 30 + 150)); // never touched: cold
  EXPECT_EQ(p.command("pr", 3, 3, false), SimTime::ns(130));            // now cached
}

TEST(PortalsUq, EntriesVisitedFollowTheClosedForms)
{
  // 3 senders, 64 messages. Without hashing: arrival i walks the overflow list to its sender's buffer
  // (1 + i mod 3 entries), and the receives find each message at the tail: 64 + 63 + ... + 1.
  // With hashing: one overflow entry per bucket, and each receive walks its sender's bucket only.
  auto plain = run_scenario_isolated(uq("pac", false, "64", 4));
  auto hash  = run_scenario_isolated(uq("pac", true, "64", 4));
  ASSERT_TRUE(plain.ok && hash.ok) << plain.error << hash.error;
  std::uint64_t of = 0;
  for (unsigned i = 0; i < 64; ++i)
    of += 1 + i % 3;
  EXPECT_EQ(plain.tables.at("portals_uq").num(0, "visited"), of + 64 * 65 / 2);
  // Senders 1, 2, 3 sent 22, 21, 21 messages.
  const double um = 22 * 23 / 2 + 2 * (21 * 22 / 2);
  EXPECT_EQ(hash.tables.at("portals_uq").num(0, "visited"), 64 + um);
  // PAC at 500 MHz, 10 cycles a command and 1 per entry, plus one 60 ns miss: the first walk of the overflow
  // list, never touched before.
  const double pac_us = (2 * 64 * 10 + of + 64 * 65 / 2) * 2e-3 + 0.060;
  EXPECT_NEAR(plain.tables.at("portals_uq").num(0, "total_us"), pac_us, 1e-6);
}

TEST(PortalsUq, CalibrationStatements)
{
  // PAC paper 5.2, what pac-32 is calibrated on: PAC without hashing at least 10x the E8400 (lists in
  // cache); the E8400 degrading past 16,384 messages; PAC with hashing ~100x the ARM A9 with hashing.
  auto pac  = run_scenario_isolated(uq("pac", false, "1024, 16384, 32768"));
  auto e84  = run_scenario_isolated(uq("e8400", false, "1024, 16384, 32768"));
  auto pach = run_scenario_isolated(uq("pac", true, "16384"));
  auto armh = run_scenario_isolated(uq("arm_a9", true, "16384"));
  ASSERT_TRUE(pac.ok && e84.ok && pach.ok && armh.ok) << pac.error << e84.error << pach.error << armh.error;
  auto t = [](const ScenarioRun& r, std::size_t i) { return r.tables.at("portals_uq").num(i, "total_us"); };
  EXPECT_NEAR(t(e84, 0) / t(pac, 0), 10.0, 0.5);
  EXPECT_GE(t(e84, 0) / t(pac, 0), 10.0);
  EXPECT_GE(t(e84, 1) / t(pac, 1), 10.0);
  // Doubling the queue quadruples the walks. Past 16,384 messages the E8400's list no longer fits its L2:
  // every entry walked misses until the list has shrunk back (three quarters of the walks at 32,768), so
  // the time grows by 4 x (0.75 x 5 + 0.25) = 16 instead of 4; PAC's 32-byte entries still fit its cache.
  EXPECT_LT(t(e84, 1) / t(e84, 0), 16 * 16 * 1.01);
  EXPECT_GT(t(e84, 2) / t(e84, 1), 4 * 3.5);
  EXPECT_LT(t(pac, 2) / t(pac, 1), 4 * 1.05);
  EXPECT_NEAR(t(armh, 0) / t(pach, 0), 100.0, 5.0);
}
