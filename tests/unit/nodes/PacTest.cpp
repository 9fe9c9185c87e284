// Who runs Portals and what its list walks cost (nodes/pac), and the worst-case unexpected-queue benchmark
// (workloads/portals): closed forms, the cache knee, and the calibration statements of the PAC paper (5.2).
#include "nodes/pac/PortalsProcessor.hpp"
#include "tests/support/RunScenario.hpp"

#include <fmt/format.h>
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

// ---- MPI and Global Arrays over Portals (nodes/pac/PortalsNi, workloads/portals/PortalsMpiBench) ----

namespace {

std::string mpi_over_portals(const std::string& preset, unsigned hosts, const std::string& engine, bool hashing,
                             const std::string& pattern, const std::string& protocols, const std::string& extra = "",
                             const std::string& fabric = "ideal")
{
  return R"({"name": "pm", "platform": {"preset": ")" + preset + R"(", "topology": {"kind": "star", "hosts": )" +
         std::to_string(hosts) + R"(}, "node": {"portals": {"engine": ")" + engine + R"(", "hashing": )" +
         (hashing ? "true" : "false") + R"(, "fabric": ")" + fabric + R"(")" + extra + R"(}}},
    "workload": {"kind": "portals_mpi", "pattern": ")" + pattern + R"(", "protocols": [)" + protocols + "]}}";
}

const char* kStudy = R"("eager", "triggered:4KiB", "triggered:0B")";

} // namespace

TEST(PortalsMpi, TriggeredRendezvousGetsWithoutTheHostPlainRendezvousInterruptsIt)
{
  auto r = run_scenario_isolated(mpi_over_portals("pac-32", 8, "pac", false, "alltoall",
                                                  R"("triggered:4KiB", "rendezvous:4KiB", "eager", "triggered:8KiB")"));
  ASSERT_TRUE(r.ok) << r.error;
  auto const& t = r.tables.at("portals_mpi");
  const double msgs = 8 * 7; // 8 KiB to each other rank
  for (std::size_t i = 0; i < 4; ++i)
    EXPECT_EQ(t.num(i, "puts"), msgs);
  // Triggered: every message is larger than the eager limit; its receive's counting event fires the Get.
  EXPECT_EQ(t.num(0, "triggered_gets"), msgs);
  EXPECT_EQ(t.num(0, "host_gets"), 0);
  EXPECT_EQ(t.num(0, "interrupts"), 0);
  // Plain rendezvous: the host issues every Get, interrupted for each header that found its receive posted.
  EXPECT_EQ(t.num(1, "host_gets"), msgs);
  EXPECT_EQ(t.num(1, "triggered_gets"), 0);
  EXPECT_EQ(t.num(1, "interrupts"), t.num(1, "expected"));
  // Eager and a limit the message fits in: no Get at all, the whole message in the Put.
  EXPECT_EQ(t.num(2, "gets"), 0);
  EXPECT_EQ(t.num(3, "gets"), 0);
  // Copies: the eager part of each message, once when expected (message buffer to user), twice when not
  // (into the unexpected store, then out of it).
  for (std::size_t i = 0; i < 4; ++i) {
    const double carried = i == 0 || i == 1 ? 4096 : 8192;
    EXPECT_EQ(t.num(i, "bytes_copied"), carried * (t.num(i, "expected") + 2 * t.num(i, "unexpected"))) << i;
    EXPECT_EQ(t.num(i, "expected") + t.num(i, "unexpected"), msgs) << i;
  }
}

namespace {
/// The portals_mpi tables of `pattern` on 4 ranks of pac-32 (PAC, eager): one iteration's, and `more` iterations'.
std::pair<Csv, Csv> one_and_more_iterations(const std::string& pattern, unsigned more)
{
  auto one  = run_scenario_isolated(mpi_over_portals("pac-32", 4, "pac", false, pattern, R"("eager")"));
  auto many = run_scenario_isolated(mpi_over_portals("pac-32", 4, "pac", false, pattern, R"("eager")"),
                                    {fmt::format("workload.iterations={}", more)});
  EXPECT_TRUE(one.ok) << one.error;
  EXPECT_TRUE(many.ok) << many.error;
  if (!one.ok || !many.ok)
    return {};
  return {one.tables.at("portals_mpi"), many.tables.at("portals_mpi")};
}
} // namespace

// Several iterations: the time is their mean, and so are the counts and engine times (they were the sums, so the
// busiest engine was busy 19 us in a run of 8.2 us): the same per iteration as one iteration's, and the busiest engine
// busy no longer than the time.
TEST(PortalsMpi, CountsAreMeansPerIterationAsTheTimeIs)
{
  auto [a, b] = one_and_more_iterations("alltoall", 3);
  ASSERT_FALSE(a.rows.empty() || b.rows.empty());
  EXPECT_EQ(b.num(0, "puts"), a.num(0, "puts"));
  EXPECT_EQ(a.num(0, "puts"), 4 * 3);
  EXPECT_NEAR(b.num(0, "engine_busy_us"), a.num(0, "engine_busy_us"), 0.01 * a.num(0, "engine_busy_us"));
  EXPECT_LE(b.num(0, "busiest_engine_us"), b.num(0, "time_us"));
}

// ga_md's GA_Create (the windows announced by an allgather) comes before the timed steps: its Puts and engine time
// are reported apart, not counted into the steps' means (which made them depend on the number of iterations: 1,760
// Puts with one, 1,680 with two, on 32 ranks).
TEST(PortalsMpi, TheSetUpBeforeTheTimedIterationsIsCountedApart)
{
  auto [a, b] = one_and_more_iterations("ga_md", 2);
  ASSERT_FALSE(a.rows.empty() || b.rows.empty());
  EXPECT_EQ(b.num(0, "puts"), a.num(0, "puts")) << "a step's Puts, whatever the number of steps timed";
  EXPECT_NEAR(b.num(0, "engine_busy_us"), a.num(0, "engine_busy_us"), 1e-3);
  EXPECT_NEAR(b.num(0, "bus_us"), a.num(0, "bus_us"), 1e-3);
  // The set-up: an allgather of one 8 B element on 4 ranks (Open MPI 4.1: recursive doubling, 2 rounds of a Put
  // per rank): counted once, whatever the iterations.
  EXPECT_EQ(a.num(0, "setup_puts"), 8);
  EXPECT_EQ(b.num(0, "setup_puts"), 8);
  EXPECT_GT(a.num(0, "setup_portals_us"), 0.0);
  EXPECT_NEAR(b.num(0, "setup_portals_us"), a.num(0, "setup_portals_us"), 1e-3);
  auto other = run_scenario_isolated(mpi_over_portals("pac-32", 4, "pac", false, "alltoall", R"("eager")"));
  ASSERT_TRUE(other.ok) << other.error;
  EXPECT_EQ(other.tables.at("portals_mpi").num(0, "setup_puts"), 0) << "no set-up outside ga_md";
  // On the virtual platform the set-up starts at a round's start, as the steps do: the same for every variant of a
  // run (it began where the variant before left the slices: 3.946 then 4.374 us on 32 ranks).
  auto ovp = run_scenario_isolated(
      mpi_over_portals("pac-32-ovp", 4, "pac", false, "ga_md", R"("eager", "eager")", "", "untimed"));
  ASSERT_TRUE(ovp.ok) << ovp.error;
  auto const& o = ovp.tables.at("portals_mpi");
  ASSERT_EQ(o.rows.size(), 2u);
  EXPECT_EQ(o.rows[0].at("setup_portals_us"), o.rows[1].at("setup_portals_us"));
  EXPECT_EQ(o.rows[0].at("time_us"), o.rows[1].at("time_us"));
}

TEST(PortalsMpi, UnexpectedPayloadsWaitInTheStoreAndAFullStoreIsReported)
{
  // DT's black-hole graph (class S): four sources each send the sink a length (4 B) and a 55,296 B array; the sink
  // receives them source by source, so the later sources' Puts arrive before their receives; then one checksum
  // (8 B) to rank 0. Unexpected payloads are copied twice (into the store, out of it), expected ones once.
  const double array = 1728 * 4 * 8, total = 4 * (4 + array) + 8;
  auto r = run_scenario_isolated(mpi_over_portals("pac-32", 8, "pac", false, "nas_dt", R"("eager")"));
  ASSERT_TRUE(r.ok) << r.error;
  auto const& t = r.tables.at("portals_mpi");
  EXPECT_EQ(t.num(0, "puts"), 9);
  EXPECT_GT(t.num(0, "unexpected"), 0);
  EXPECT_EQ(t.num(0, "expected") + t.num(0, "unexpected"), 9);
  const double extra = t.num(0, "bytes_copied") - total; // the unexpected payloads' second copies
  bool explained = false;
  for (int arrays = 0; arrays <= 4; ++arrays)
    for (int lengths = 0; lengths <= 4; ++lengths)
      for (int sums = 0; sums <= 1; ++sums)
        explained |= arrays + lengths + sums == t.num(0, "unexpected") &&
                     arrays * array + lengths * 4 + sums * 8 == extra;
  EXPECT_TRUE(explained) << extra;
  EXPECT_GE(t.num(0, "store_peak"), 65536); // a 55,296 B array takes a 64 KiB buddy block
  // A store of two such blocks, fragmented by the lengths' 64 B blocks: an array waiting has nowhere to go.
  auto full = run_scenario_isolated(
      mpi_over_portals("pac-32", 8, "pac", false, "nas_dt", R"("eager")", R"(, "unexpected_store": "128KiB")"));
  ASSERT_FALSE(full.ok);
  EXPECT_NE(full.error.find("the unexpected store (131072 B) is full"), std::string::npos) << full.error;
  // With eager acks the sender keeps its buffer until acknowledged: what the store cannot take is dropped, its
  // header kept, and the receive Gets the whole message (PAC Fig. 3b); the others are acknowledged.
  auto ack = run_scenario_isolated(mpi_over_portals("pac-32", 8, "pac", false, "nas_dt", R"("eager")",
                                                    R"(, "unexpected_store": "128KiB", "eager_ack": true)"));
  ASSERT_TRUE(ack.ok) << ack.error;
  auto const& k = ack.tables.at("portals_mpi");
  EXPECT_GT(k.num(0, "payload_dropped"), 0);
  EXPECT_EQ(k.num(0, "host_gets"), k.num(0, "payload_dropped"));
  EXPECT_EQ(k.num(0, "gets"), k.num(0, "payload_dropped"));
  EXPECT_EQ(k.num(0, "acks"), 9 - k.num(0, "payload_dropped"));
  // A dropped payload is read by its Get straight into the user buffer: neither copy.
  EXPECT_LE(k.num(0, "bytes_copied"), t.num(0, "bytes_copied") - k.num(0, "payload_dropped") * 2 * array);
  EXPECT_LE(k.num(0, "store_peak"), 131072);
  // With the triggered rendezvous and eager limit 0 nothing waits in the store.
  auto rv = run_scenario_isolated(
      mpi_over_portals("pac-32", 8, "pac", false, "nas_dt", R"("triggered:0B")", R"(, "unexpected_store": "16KiB")"));
  ASSERT_TRUE(rv.ok) << rv.error;
  EXPECT_EQ(rv.tables.at("portals_mpi").num(0, "store_peak"), 0);
  EXPECT_EQ(rv.tables.at("portals_mpi").num(0, "bytes_copied"), 0);
  // dt.c refuses fewer processes than the graph has nodes.
  auto few = run_scenario_isolated(mpi_over_portals("pac-32", 4, "pac", false, "nas_dt", R"("eager")"));
  ASSERT_FALSE(few.ok);
  EXPECT_NE(few.error.find("black-hole graph of class S has 5 nodes"), std::string::npos) << few.error;
}

TEST(PortalsMpi, AFullMessageBufferInterruptsTheHost)
{
  // PAC's message buffer holds nodes x MAX_MSG_SIZE bytes (3.2.2): 8 x 8 KiB takes the eager all-to-all's seven
  // 8 KiB Puts without an interrupt; 8 x 64 B does not, and every Put past the first waits for the host.
  auto roomy = run_scenario_isolated(mpi_over_portals("pac-32", 8, "pac", false, "alltoall", R"("eager")"));
  auto tight = run_scenario_isolated(
      mpi_over_portals("pac-32", 8, "pac", false, "alltoall", R"("eager")", R"(, "max_msg_size": "64B")"));
  ASSERT_TRUE(roomy.ok && tight.ok) << roomy.error << tight.error;
  auto const& a = roomy.tables.at("portals_mpi");
  auto const& b = tight.tables.at("portals_mpi");
  EXPECT_EQ(a.num(0, "interrupts"), 0);
  EXPECT_GE(b.num(0, "interrupts"), 8 * 6);
  // A Put waits for the host's handler (1 us each, one after the other on the host), not the list manager: the
  // walks are what the lists cost, alike in both runs, and the waits overlap the Put subsystem's 8 KiB copies but for
  // the first. (The wait was booked as list-walk time, holding the shared list manager, counted twice with the
  // interrupts: 56.6 us of walks, 23.6 us in all.)
  EXPECT_NEAR(b.num(0, "walks_us"), a.num(0, "walks_us"), 1e-3);
  EXPECT_NEAR(b.num(0, "interrupts_us"), b.num(0, "interrupts"), 1e-3);
  EXPECT_GE(b.num(0, "time_us"), a.num(0, "time_us") + 1.0 - 1e-3);
  // Software Portals has no such buffer.
  auto sw = run_scenario_isolated(
      mpi_over_portals("pac-32", 8, "arm_a9", false, "alltoall", R"("eager")", R"(, "max_msg_size": "64B")"));
  ASSERT_TRUE(sw.ok) << sw.error;
  EXPECT_EQ(sw.tables.at("portals_mpi").num(0, "interrupts"), 0);
}

TEST(PortalsMpi, AllToAllStudyGoldenRun)
{
  // The PAC paper's protocol study (5.5, Fig. 15) on pac-32 over PAC, without hashing: the time of each
  // variant as the model gives it now (a change of these numbers must be a deliberate one), and the
  // paper's order: triggered rendezvous with eager limit 0 fastest, 4 KB next, eager slowest.
  auto r = run_scenario_isolated(mpi_over_portals("pac-32", 32, "pac", false, "alltoall", kStudy));
  ASSERT_TRUE(r.ok) << r.error;
  auto const& t = r.tables.at("portals_mpi");
  EXPECT_EQ(t.rows.at(0).at("protocol"), "eager");
  EXPECT_NEAR(t.num(0, "time_us"), 66.761, 1e-3); // 98.138 before Open MPI's linear all-to-all (sends in reverse rank order)
  EXPECT_NEAR(t.num(1, "time_us"), 49.839, 1e-3); // 65.964
  EXPECT_NEAR(t.num(2, "time_us"), 34.163, 1e-3); // 38.076
  EXPECT_LT(t.num(2, "time_us"), t.num(1, "time_us"));
  EXPECT_LT(t.num(1, "time_us"), t.num(0, "time_us"));
  // Over the nafsim network (RoCE SENDs between host nodes) the order holds too.
  auto n = run_scenario_isolated(mpi_over_portals("pac-32", 32, "pac", false, "alltoall", kStudy, "", "network"));
  ASSERT_TRUE(n.ok) << n.error;
  auto const& u = n.tables.at("portals_mpi");
  EXPECT_LT(u.num(2, "time_us"), u.num(1, "time_us"));
  EXPECT_LT(u.num(1, "time_us"), u.num(0, "time_us"));
  EXPECT_GT(u.num(0, "time_us"), t.num(0, "time_us")); // the network is slower than the ideal bus
}

TEST(PortalsMpi, HashingDoesNotNarrowOneSidedSearches)
{
  // GA's window entries accept any source: with hashing they sit with the wildcards, walked every time.
  auto a = run_scenario_isolated(mpi_over_portals("pac-32", 16, "arm_a9", false, "ga_md", R"("triggered:4KiB")"));
  auto b = run_scenario_isolated(mpi_over_portals("pac-32", 16, "arm_a9", true, "ga_md", R"("triggered:4KiB")"));
  ASSERT_TRUE(a.ok && b.ok) << a.error << b.error;
  const double ta = a.tables.at("portals_mpi").num(0, "time_us"), tb = b.tables.at("portals_mpi").num(0, "time_us");
  EXPECT_GT(tb, 0.95 * ta); // no gain from hashing (it only adds the hash)
  // Two-sided FT with hashing walks far fewer entries.
  auto f = run_scenario_isolated(mpi_over_portals("pac-32", 32, "arm_a9", false, "nas_ft", R"("triggered:4KiB")"));
  auto g = run_scenario_isolated(mpi_over_portals("pac-32", 32, "arm_a9", true, "nas_ft", R"("triggered:4KiB")"));
  ASSERT_TRUE(f.ok && g.ok) << f.error << g.error;
  EXPECT_LT(g.tables.at("portals_mpi").num(0, "visited"), 0.5 * f.tables.at("portals_mpi").num(0, "visited"));
  EXPECT_LT(g.tables.at("portals_mpi").num(0, "time_us"), f.tables.at("portals_mpi").num(0, "time_us"));
}

TEST(PortalsMpi, GaMdGetsEachBlockAsGaCreateDividesTheArray)
{
  // GA_Create gives each rank ceil(n / p) particles, the last ranks fewer or none (Fig. 9b; protocols/portals
  // ga_distribution): a rank holding none is asked for nothing. The block had been n * 24 / p bytes rounded down
  // for every rank, and 1 particle on 5 ranks ran as 0-byte GA_Gets (a review of 2026-12-07).
  auto gets = [](unsigned particles) {
    auto r = run_scenario_isolated(
        R"({"name": "ga", "platform": {"preset": "pac-32", "topology": {"kind": "star", "hosts": 5},
            "node": {"portals": {"engine": "pac", "fabric": "ideal"}}},
          "workload": {"kind": "portals_mpi", "pattern": "ga_md", "protocols": ["eager"], "md_steps": 2,
                       "md_particles": )" + std::to_string(particles) + "}}");
    EXPECT_TRUE(r.ok) << r.error;
    return r.ok ? r.tables.at("portals_mpi").num(0, "gets") : -1.0;
  };
  const double even = gets(10); // 2 each: every rank asks the 4 others
  EXPECT_GT(even, 0);
  EXPECT_DOUBLE_EQ(gets(7) / even, 16.0 / 20.0);  // 2, 2, 2, 1, 0: nobody asks rank 4
  EXPECT_DOUBLE_EQ(gets(1) / even, 4.0 / 20.0);   // rank 0 holds it all
}

TEST(PortalsMpi, BadProtocolIsExplained)
{
  auto r = run_scenario_isolated(mpi_over_portals("pac-32", 4, "pac", false, "alltoall", R"("eager", "fast:4KiB")"));
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("/workload/protocols/1"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("'fast:4KiB' is not a protocol"), std::string::npos) << r.error;
  auto n = run_scenario_isolated(mpi_over_portals("pac-32", 4, "pac", false, "alltoall", R"("triggered:lots")"));
  ASSERT_FALSE(n.ok);
  EXPECT_NE(n.error.find("the eager limit is not a size"), std::string::npos) << n.error;
  // FT's layouts: up to 64 ranks in one dimension, beyond in 64 x ranks/64.
  auto ft = run_scenario_isolated(mpi_over_portals("pac-32", 96, "pac", false, "nas_ft", R"("eager")"));
  ASSERT_FALSE(ft.ok);
  EXPECT_NE(ft.error.find("/platform/topology/hosts"), std::string::npos) << ft.error;
  EXPECT_NE(ft.error.find("or a multiple of 64"), std::string::npos) << ft.error;
}

TEST(PortalsMpi, FaultsOnAFabricThatLosesNothingAreRefused)
{
  // The ideal bus and the untimed fabric carry no packets: faults there changed nothing and the run exited 0.
  auto with_faults = [](const std::string& fabric) {
    std::string s = mpi_over_portals("pac-32", 4, "pac", false, "alltoall", R"("eager")", "", fabric);
    return s.replace(s.find(R"("topology")"), 0, R"("network": {"faults": {"loss_rate": 0.05}}, )");
  };
  for (const char* fabric : {"ideal", "untimed"}) {
    auto r = run_scenario_isolated(with_faults(fabric));
    ASSERT_FALSE(r.ok) << fabric;
    EXPECT_NE(r.error.find("/platform/network/faults"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find(std::string("over the ") + fabric + " fabric"), std::string::npos) << r.error;
  }
  // On the packet network the faults apply: 5 % loss costs retransmissions, or exhausts a retry limit.
  auto clean = run_scenario_isolated(mpi_over_portals("pac-32", 4, "pac", false, "alltoall", R"("eager")", "", "network"));
  auto lossy = run_scenario_isolated(with_faults("network"));
  ASSERT_TRUE(clean.ok) << clean.error;
  if (lossy.ok)
    EXPECT_GT(lossy.tables.at("portals_mpi").num(0, "time_us"), clean.tables.at("portals_mpi").num(0, "time_us"));
  else
    EXPECT_NE(lossy.error.find("retransmission"), std::string::npos) << lossy.error;
}

TEST(PortalsMpi, TheCollectivesOfThe2016OpenMpiTheNasSkeletonsFollow)
{
  // workload.library picks whose collective selection the ranks' MPI follows: Open MPI 4.1's tables or the classic
  // rules of the 2016 releases the PAC paper's MPI is based on. FT's all-to-all under the classic rules posts every
  // exchange at once (its linear algorithm), so far more messages arrive before their receives than under 4.1's.
  auto run = [](const std::string& library) {
    return run_scenario_isolated(R"({"name": "pm", "platform": "pac-32", "workload": {"kind": "portals_mpi",
        "pattern": "nas_ft", "protocols": ["triggered:4KiB"], "library": ")" + library + R"("}})");
  };
  auto now = run("openmpi"), then = run("openmpi-2.0");
  ASSERT_TRUE(now.ok) << now.error;
  ASSERT_TRUE(then.ok) << then.error;
  auto const& a = now.tables.at("portals_mpi");
  auto const& b = then.tables.at("portals_mpi");
  EXPECT_EQ(a.num(0, "puts"), b.num(0, "puts")); // the same messages
  EXPECT_GT(b.num(0, "unexpected"), 10 * std::max(1.0, a.num(0, "unexpected")));
  EXPECT_GT(b.num(0, "visited"), a.num(0, "visited"));
}

TEST(PortalsMpi, OnTheVirtualPlatformNodesRunAheadAndPacsCopiesCostNoMoreForMoreBytes)
{
  // pac-32-ovp: the paper's virtual platform (time slices, untimed bus, PAC's modules at a constant latency but the
  // list manager). The same FT skeleton leaves far more Puts unexpected than on pac-32, where all nodes run at
  // once, and PAC's copies take the same time per copy whatever their size.
  auto run = [](const std::string& preset) {
    return run_scenario_isolated(R"({"name": "pm", "platform": ")" + preset + R"(", "workload": {"kind":
        "portals_mpi", "pattern": "nas_ft", "protocols": ["triggered:4KiB"]}})");
  };
  auto timed = run("pac-32"), ovp = run("pac-32-ovp");
  ASSERT_TRUE(timed.ok) << timed.error;
  ASSERT_TRUE(ovp.ok) << ovp.error;
  auto const& t = timed.tables.at("portals_mpi");
  auto const& o = ovp.tables.at("portals_mpi");
  EXPECT_EQ(t.num(0, "puts"), o.num(0, "puts"));
  EXPECT_LT(t.num(0, "unexpected"), 0.01 * t.num(0, "puts"));
  EXPECT_GT(o.num(0, "unexpected"), 0.3 * o.num(0, "puts"));
  EXPECT_EQ(o.num(0, "bus_us"), 0.0); // untimed writes
  EXPECT_GT(t.num(0, "bus_us"), 0.0);
  EXPECT_EQ(o.num(0, "quantum_us"), 1000.0);
  // Timed copies are bytes over copy_rate; constant ones 10 cycles at 500 MHz each, fewer than the bytes' time.
  EXPECT_LT(o.num(0, "copies_us"), t.num(0, "copies_us") / 10);
  // The elapsed time is the slices' (a node waits a whole round for a lower-numbered one), the Portals time is not.
  EXPECT_GT(o.num(0, "time_us"), 10 * t.num(0, "time_us"));
}

TEST(PortalsMpi, TimeSlicesNeedTheUntimedFabric)
{
  auto r = run_scenario_isolated(mpi_over_portals("pac-32", 4, "pac", false, "alltoall", R"("eager")",
                                                  R"(, "quantum": "1ms")"));
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("/platform/node/portals/quantum"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("set node.portals.fabric to 'untimed'"), std::string::npos) << r.error;
  // A quantum whose rounds the clock cannot hold is a configuration error, not an internal one.
  auto big = run_scenario_isolated(mpi_over_portals("pac-32", 4, "pac", false, "alltoall", R"("eager")",
                                                    R"(, "quantum": "1e6s")", "untimed"));
  ASSERT_FALSE(big.ok);
  EXPECT_NE(big.error.find("/platform/node/portals/quantum"), std::string::npos) << big.error;
  EXPECT_NE(big.error.find("take a shorter quantum"), std::string::npos) << big.error;
}

TEST(PortalsUq, AnEngineWithoutCostsOfItsOwnIsRefused)
{
  // Every engine's defaults are the same placeholders: on a platform that gives none (single-switch), PAC, the A9
  // and the E8400 timed alike (12,707.5 us for 1,024 messages each, a 1.0x "speed-up"), unsaid.
  for (const char* engine : {"pac", "arm_a9", "e8400"}) {
    auto r = run_scenario_isolated(R"({"name": "uq", "platform": "single-switch",
        "workload": {"kind": "portals_uq", "messages": [16]}})",
                                   {std::string("platform.node.portals.engine=") + engine});
    ASSERT_FALSE(r.ok) << engine;
    EXPECT_NE(r.error.find(std::string("node.portals.") + engine + " has no costs of its own"), std::string::npos)
        << r.error;
  }
  EXPECT_TRUE(run_scenario_isolated(uq("arm_a9", false, "16")).ok) << "the pac presets give every engine its costs";
}
