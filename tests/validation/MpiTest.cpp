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

// A blocking MPI_Send goes eager below UCX's 256 KiB (UCX_RNDV_SEND_NBR_THRESH: rendezvous at length >= it), as
// 8 KiB fragments above one segment; 256 KiB itself goes rendezvous: the receiver READs it.
TEST(Mpi, EagerCopiesRendezvousReads)
{
  auto run = run_scenario_isolated(mpi_scenario(R"("collective": "sendrecv", "sizes": ["262140B", "256KiB"])"));
  ASSERT_TRUE(run.ok) << run.error;
  auto const& r = run.tables.at("mpi_counters");
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.num(0, "eager_sent"), 1);
  EXPECT_EQ(r.num(0, "rendezvous_sent"), 1);
  EXPECT_EQ(r.num(1, "eager_received"), 1);
  EXPECT_EQ(r.num(1, "reads"), 1);
  EXPECT_EQ(r.num(0, "fragments_sent"), 32); // 256 KiB - 4 B in 8 KiB fragments
  // The eager message is copied twice (into the sender's bounce buffers, out of the receiver's).
  EXPECT_EQ(r.num(0, "bytes_copied") + r.num(1, "bytes_copied"), 2.0 * 262140);
}

// MPICH's CH3 sends eager while the message and its packet header fit its 128 KiB threshold (mpid_send.c): 128 KiB
// itself goes rendezvous on the MPICH-over-TCP preset, the largest eager message is 128 KiB less the header.
TEST(Mpi, MpichSendsEagerWhileMessageAndHeaderFitItsThreshold)
{
  auto run = run_scenario_isolated(
      R"({"platform": {"preset": "accl-cpu-mpich-tcp"},
          "workload": {"kind": "mpi", "collective": "sendrecv", "sizes": ["131008B", "128KiB"]}})");
  ASSERT_TRUE(run.ok) << run.error;
  auto const& r = run.tables.at("mpi_counters");
  EXPECT_EQ(r.num(0, "eager_sent"), 1);
  EXPECT_EQ(r.num(0, "rendezvous_sent"), 1);
}

// The fragments of an eager message are copied out as they arrive, so the copies overlap the wire: 64 KiB in
// fragments arrives sooner than as one SEND copied whole at both ends, and each fragment needs one bounce buffer.
TEST(Mpi, EagerFragmentsPipelineTheCopiesWithTheWire)
{
  auto time = [](const std::string& mpi) {
    auto run = run_scenario_isolated(mpi_scenario(R"("collective": "sendrecv", "sizes": ["64KiB"], "verify": true)",
                                                  R"(, "node": {"host": {"mpi": )" + mpi + "}}"));
    EXPECT_TRUE(run.ok) << run.error;
    return run.ok ? run.tables.at("mpi").num(0, "latency_us") : 0.0;
  };
  const double fragmented = time(R"({"fragment": "8KiB", "eager_buffer": "8256B"})");
  const double whole      = time(R"({"fragment": "0B", "eager_buffer": "65600B", "eager_threshold": "64KiB"})");
  // Whole: both 64 KiB copies (2 x 2.6 us at 200 Gb/s) are on the path; fragmented: about one fragment's.
  EXPECT_LT(fragmented, whole - 1.0);
}

// Too few bounce buffers: arrivals are refused (RNR) and retried; the data still arrives intact.
TEST(Mpi, BounceBufferExhaustionBackPressuresButDelivers)
{
  auto run = run_scenario_isolated(
      mpi_scenario(R"("collective": "gather", "algorithm": "flat", "ranks": 8, "sizes": ["2KiB"], "verify": true)",
                   R"(, "node": {"host": {"mpi": {"eager_buffers": 2}}})"));
  ASSERT_TRUE(run.ok) << run.error;
  EXPECT_GT(run.tables.at("mpi_counters").sum("bounce_refusals"), 0);
  EXPECT_EQ(run.tables.at("mpi_counters").num(0, "bounce_max_used"), 2) << "the root refused with its queue full";
}

// Unexpected arrivals keep their bounce buffers, not their posted receives (UCX posts a fresh buffer in their place,
// nodes/host/ReceiveQueue.hpp): a gather of 64 KiB in fragments on 8 ranks with 2 receives posted is refused (RNR)
// while the root's CPU is behind, but completes with more buffers held than receives posted. When each unexpected
// fragment held a posted receive, the root waited for rank 1's fragments behind two held by later ranks, and the run
// failed after 6,031 RNR NAKs. Five hosts to a leaf under a spine: the subtrees beyond it come late enough for later
// ones to arrive unexpected (on the preset's one switch the root's receives keep up).
TEST(Mpi, UnexpectedArrivalsHoldBuffersNotTheReceiveQueue)
{
  auto run = run_scenario_isolated(
      mpi_scenario(R"("collective": "gather", "ranks": 8, "sizes": ["64KiB"], "verify": true)",
                   R"(, "node": {"host": {"mpi": {"eager_buffers": 2}}}, "topology": {"leaf_spine": {"hosts_per_leaf": 5}})"));
  ASSERT_TRUE(run.ok) << run.error;
  auto const& k = run.tables.at("mpi_counters");
  EXPECT_GT(k.sum("bounce_refusals"), 0);
  EXPECT_EQ(k.num(0, "bounce_max_used"), 2) << "the root's whole queue in use when it refused";
  EXPECT_GT(k.num(0, "bounce_buffers_max"), 2) << "more buffers in use than receives posted";
  // The summary says the latencies carry RNR waits, and how long each was.
  bool noted = false;
  for (auto const& line : run.summary)
    noted = noted || (line.find("refused with an RNR NAK") != std::string::npos && line.find("960 us") != std::string::npos);
  EXPECT_TRUE(noted);
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
  // The copy-out phase is a copy's own duration (that of the rank whose copy ended last): the hostcopy workload's
  // host -> FPGA copy of the same size through the same Coyote driver model. Measured from the last rank out of MPI
  // (the root), it had come out shorter than the copy it names (2.5 us at 256 KiB and up on 8 ranks).
  auto eight = run_scenario_isolated(
      mpi_scenario(R"("collective": "bcast", "ranks": 8, "data": "fpga", "sizes": ["1KiB", "1MiB"])"));
  ASSERT_TRUE(eight.ok) << eight.error;
  auto copy = run_scenario_isolated(R"({"platform": "accl-coyote-u55c",
      "workload": {"kind": "hostcopy", "sizes": ["1KiB", "1MiB"]}})");
  ASSERT_TRUE(copy.ok) << copy.error;
  for (std::size_t i = 0; i < 2; ++i)
    EXPECT_NEAR(eight.tables.at("mpi").num(i, "to_device_us"), copy.tables.at("hostcopy").num(i, "to_device_us"), 0.01)
        << i;
}

TEST(Mpi, MixedClusterRunsMpiOnHostsAndTheCcloOnFpgas)
{
  const char* mixed = R"(, "topology": {"kind": "star", "hosts": 6},
      "node": {"kinds": ["fpga", "host", "fpga", "host", "fpga", "host"]})";
  auto mpi = run_scenario_isolated(mpi_scenario(R"("collective": "allreduce", "ranks": 3, "sizes": ["4KiB"], "verify": true)", mixed));
  ASSERT_TRUE(mpi.ok) << mpi.error;
  auto const& ranks = mpi.tables.at("mpi_counters");
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

// Issue 27: Open MPI's algorithms forced by name (as coll_tuned_<collective>_algorithm does) deliver the right
// bytes on a communicator that is not a power of two, unsegmented and in segments.
TEST(Mpi, ForcedOpenMpiAlgorithmsDeliverTheRightData)
{
  const std::vector<std::pair<const char*, std::vector<const char*>>> all = {
      {"bcast", {"basic_linear", "chain", "pipeline", "binary_tree", "binomial", "knomial", "scatter_allgather",
                 "scatter_allgather_ring"}},
      {"reduce", {"linear", "chain", "pipeline", "binary", "binomial"}},
      {"allreduce", {"basic_linear", "nonoverlapping", "recursive_doubling", "ring", "segmented_ring", "rabenseifner"}},
      {"gather", {"basic_linear", "binomial", "linear_sync"}},
      {"scatter", {"basic_linear", "binomial", "linear_nb"}},
      {"allgather", {"bruck", "recursive_doubling", "ring"}},
      {"alltoall", {"linear", "pairwise", "modified_bruck", "linear_sync"}},
      {"reduce-scatter", {"non-overlapping", "recursive_halving", "ring", "butterfly"}},
      {"barrier", {"linear", "double_ring", "recursive_doubling", "bruck", "tree"}}};
  for (auto const& [coll, names] : all)
    for (const char* name : names)
      for (const char* seg : {"0B", "16KiB"}) {
        SCOPED_TRACE(fmt::format("{} {} segments {}", coll, name, seg));
        auto run = run_scenario_isolated(mpi_scenario(fmt::format(
            R"("collective": "{}", "library_algorithm": "{}", "segment_size": "{}", "ranks": 6, "root": 2,
               "sizes": ["1KiB", "96KiB"], "verify": true)",
            coll, name, seg)));
        ASSERT_TRUE(run.ok) << run.error;
        auto const& t = run.tables.at("mpi");
        EXPECT_EQ(t.rows.at(0).at("library_algorithm"), fmt::format("forced {}", name));
        EXPECT_EQ(t.rows.at(0).at("algorithm").rfind("openmpi:", 0), 0u) << t.rows.at(0).at("algorithm");
        if (std::string(coll) != "barrier") {
          EXPECT_EQ(t.rows.at(1).at("verified"), "yes");
        }
      }
}

// Segments let a pipeline overlap the transfer of one segment with the reduction of the previous one: a 1 MiB
// reduce down a 4-rank chain in 64 KiB segments takes well under the unsegmented time (three transfers and
// three reductions of the whole buffer one after another).
TEST(Mpi, SegmentsOverlapTransferAndReduction)
{
  auto time_of = [](const char* seg) {
    auto run = run_scenario_isolated(mpi_scenario(fmt::format(
        R"("collective": "reduce", "library_algorithm": "pipeline", "segment_size": "{}", "ranks": 4, "sizes": ["1MiB"])",
        seg)));
    EXPECT_TRUE(run.ok) << run.error;
    return run.ok ? run.tables.at("mpi").num(0, "latency_us") : 0.0;
  };
  const double whole = time_of("0B"), pipelined = time_of("64KiB");
  EXPECT_GT(whole, 0.0);
  EXPECT_LT(pipelined, 0.6 * whole) << "unsegmented " << whole << " us, 64 KiB segments " << pipelined << " us";
}

// The benchmark's harness: MPI_Barrier before each call, each rank timing its own call from when it leaves the
// barrier. Open MPI's barrier on 6 ranks is linear (coll/tuned, 4-7 ranks): rank 0 collects and then releases
// the others one send after another (a send overhead apart on its CPU), so the ranks leave in release order,
// rank 1 first and rank 5 last.
TEST(Mpi, PreCallBarrierSkewsTheStartsAndEachRankTimesItself)
{
  auto run = run_scenario_isolated(mpi_scenario(
      R"("collective": "allreduce", "ranks": 6, "sizes": ["4KiB"], "iterations": 2, "pre_barrier": "mpi")"));
  ASSERT_TRUE(run.ok) << run.error;
  auto const& ranks = run.tables.at("mpi_ranks");
  ASSERT_EQ(ranks.rows.size(), 12u);
  double latest_start = 0, slowest = 0;
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(ranks.rows[i].at("iteration"), "0");
    EXPECT_NEAR(ranks.num(i, "end_us") - ranks.num(i, "start_us"), ranks.num(i, "latency_us"), 1e-3);
    latest_start = std::max(latest_start, ranks.num(i, "start_us"));
    slowest      = std::max(slowest, ranks.num(i, "latency_us"));
  }
  // Open MPI's linear barrier (6 ranks): the root releases ranks 1..5 in rank order with zero-byte sends, which UCX
  // posts inline (no request, no copy: inline_send_overhead, 0.4 us); its sends complete as posted, so it leaves
  // first. Ranks 1-4 share its leaf: each leaves one inline post after the one before.
  EXPECT_EQ(ranks.num(0, "start_us"), 0.0) << "the root leaves the barrier first";
  for (std::size_t i = 2; i < 5; ++i)
    EXPECT_NEAR(ranks.num(i, "start_us") - ranks.num(i - 1, "start_us"), 0.4, 1e-3) << "one inline post apart: " << i;
  EXPECT_GT(ranks.num(5, "start_us"), ranks.num(4, "start_us")) << "released in rank order";
  EXPECT_GT(latest_start, 1.6);
  auto const& t = run.tables.at("mpi");
  EXPECT_NEAR(t.num(0, "latency_us"), slowest, 1e-3);
  EXPECT_LE(t.num(0, "latency_min_us"), t.num(0, "latency_mean_us"));
  EXPECT_LE(t.num(0, "latency_mean_us"), t.num(0, "latency_us"));
  bool said = false;
  for (auto const& line : run.summary)
    said = said || line.find("MPI_Barrier (openmpi:linear) before each call") != std::string::npos;
  EXPECT_TRUE(said) << "the summary names the barrier";
  // Without inline sends every release pays the full send path (send_overhead, 1 us): ranks leave 1 us apart.
  auto full = run_scenario_isolated(
      mpi_scenario(R"("collective": "allreduce", "ranks": 6, "sizes": ["4KiB"], "pre_barrier": "mpi")",
                   R"(, "node": {"host": {"inline_max": "0B"}})"));
  ASSERT_TRUE(full.ok) << full.error;
  for (std::size_t i = 2; i < 5; ++i)
    EXPECT_NEAR(full.tables.at("mpi_ranks").num(i, "start_us") - full.tables.at("mpi_ranks").num(i - 1, "start_us"),
                1.0, 1e-3)
        << i;
  // Without the barrier every rank starts together.
  auto flat = run_scenario_isolated(mpi_scenario(R"("collective": "allreduce", "ranks": 6, "sizes": ["4KiB"])"));
  ASSERT_TRUE(flat.ok) << flat.error;
  for (std::size_t i = 0; i < 6; ++i)
    EXPECT_EQ(flat.tables.at("mpi_ranks").num(i, "start_us"), 0.0);
}

// UCX 1.13 sends a tagged message inline while its payload is at most tag.max_eager_short, 226 B on rc_mlx5 (236 B of
// AM short less 2 B of AM and 8 B of tag header): on accl-cpu-cx5, 224 B (the largest whole float32 count under it)
// takes the inline post (0.4 us) where 228 B takes the full send path (1 us) and its bounce copy; a 124 B message and a
// 224 B one differ by their bytes only. (Until 2026-12-06 the preset inlined 124 B of payload at most.)
TEST(Mpi, UcxsShortSendsGoInlineUpToTheirPayloadLimit)
{
  auto run = run_scenario_isolated(
      mpi_scenario(R"("collective": "sendrecv", "ranks": 2, "sizes": ["124B", "224B", "228B"])"));
  ASSERT_TRUE(run.ok) << run.error;
  auto const& t = run.tables.at("mpi");
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_LT(t.num(1, "latency_us") - t.num(0, "latency_us"), 0.1) << "124 B and 224 B both inline";
  EXPECT_GT(t.num(2, "latency_us") - t.num(1, "latency_us"), 0.6) << "228 B through the full send path";
}

TEST(Mpi, ForcingErrorsNameTheOption)
{
  auto unknown = run_scenario_isolated(mpi_scenario(R"("collective": "allgather", "ranks": 4, "library_algorithm": "linear")"));
  EXPECT_FALSE(unknown.ok);
  EXPECT_NE(unknown.error.find("/workload/library_algorithm"), std::string::npos) << unknown.error;
  EXPECT_NE(unknown.error.find("neighbor"), std::string::npos) << "lists the modeled ones: " << unknown.error;
  auto seg = run_scenario_isolated(mpi_scenario(R"("collective": "bcast", "ranks": 4, "segment_size": "8KiB")"));
  EXPECT_FALSE(seg.ok);
  EXPECT_NE(seg.error.find("/workload/segment_size"), std::string::npos) << seg.error;
  auto both = run_scenario_isolated(
      mpi_scenario(R"("collective": "bcast", "ranks": 4, "algorithm": "flat", "library_algorithm": "knomial")"));
  EXPECT_FALSE(both.ok);
  auto mpich = run_scenario_isolated(mpi_scenario(R"("collective": "bcast", "ranks": 4, "library_algorithm": "knomial")",
                                                  R"(, "node": {"host": {"mpi": {"library": "mpich"}}})"));
  EXPECT_FALSE(mpich.ok);
  EXPECT_NE(mpich.error.find("Open MPI only"), std::string::npos) << mpich.error;
  // Open MPI 2.0's coll/tuned has no k-nomial broadcast (added in 2018): forcing it there runs a library nobody built.
  auto classic = run_scenario_isolated(mpi_scenario(R"("collective": "bcast", "ranks": 4, "library_algorithm": "knomial")",
                                                    R"(, "node": {"host": {"mpi": {"library": "openmpi-2.0"}}})"));
  EXPECT_FALSE(classic.ok);
  EXPECT_NE(classic.error.find("/workload/library_algorithm"), std::string::npos) << classic.error;
  EXPECT_NE(classic.error.find("Open MPI 2.0 (platform.node.host.mpi.library openmpi-2.0) has no bcast algorithm "
                               "'knomial'"),
            std::string::npos)
      << classic.error;
  // A forced composite under 2.0 takes its parts from 2.0's rules (4 ranks, 8 KiB: a binomial reduce and the split
  // binary tree broadcast, each run as itself), not 4.1's (a one-chain reduce: 30.247 us).
  auto composite = run_scenario_isolated(
      mpi_scenario(R"("collective": "allreduce", "ranks": 4, "sizes": ["8KiB"], "library_algorithm": "nonoverlapping")",
                   R"(, "node": {"host": {"mpi": {"library": "openmpi-2.0"}}})"));
  ASSERT_TRUE(composite.ok) << composite.error;
  EXPECT_EQ(composite.tables.at("mpi").rows.at(0).at("substitution"), "-");
  EXPECT_EQ(composite.tables.at("mpi").rows.at(0).at("algorithm"), "openmpi:nonoverlapping");
}

// Issue 28: the hosts' RoCE recovers from reordering as an RC NIC does (one sequence-error NAK per gap, go-back-N,
// a repeated READ request restarting the responses rather than adding a second stream). Before, a broadcast at 1 %
// reordering exhausted its retries with nothing lost, and a gather at 0.5 % sent 67 times the packets.
TEST(Mpi, HostRoceRecoversFromReorderingWithoutAStorm)
{
  auto bcast = run_scenario_isolated(
      mpi_scenario(R"("collective": "bcast", "ranks": 8, "data": "fpga", "sizes": ["4MiB"], "verify": true)"),
      {"platform.network.faults.reorder_rate=0.01", "seed=7"});
  ASSERT_TRUE(bcast.ok) << bcast.error;
  EXPECT_EQ(bcast.tables.at("mpi").rows.at(0).at("verified"), "yes");
  auto packets = [](const std::string& reorder) {
    auto run = run_scenario_isolated(
        mpi_scenario(R"("collective": "gather", "ranks": 16, "sizes": ["1MiB"], "verify": true)",
                     R"(, "topology": {"hosts": 16})"),
        {"platform.network.faults.reorder_rate=" + reorder});
    EXPECT_TRUE(run.ok) << run.error;
    return run.ok ? run.metadata.at("packets").at("injected").get<double>() : 0.0;
  };
  const double clean = packets("0"), reordered = packets("0.005");
  EXPECT_GT(clean, 0.0);
  EXPECT_LT(reordered, 2.0 * clean) << "0.5 % reordering on every cable: " << reordered << " packets against "
                                    << clean << " clean";
}

TEST(Mpi, ReadResponsesAndTheRequestersPacketsShareAQueuePairUnderReordering)
{
  // Rendezvous allgather: both ranks of a pair READ each other over one queue pair, so each queue pair is a READ
  // responder and a requester at once. Under reordering (nothing lost) a READ response gap restarts the response
  // stream; the requester's own re-request must still leave (the two engines take turns), and an ACK held back
  // behind READ responses that a restart made stale must leave when they are dropped. Before, both waited for
  // retransmission timeouts (37.9 ms instead of ~1.2 ms here) and the 16-rank allgather exhausted its retries.
  auto run = [](const std::string& reorder) {
    return run_scenario_isolated(
        mpi_scenario(R"("collective": "allgather", "ranks": 4, "sizes": ["1MiB"], "verify": true)",
                     R"(, "topology": {"hosts": 4})"),
        {"platform.network.faults.reorder_rate=" + reorder, "seed=3"});
  };
  auto clean = run("0"), reordered = run("0.01");
  ASSERT_TRUE(clean.ok) << clean.error;
  ASSERT_TRUE(reordered.ok) << reordered.error;
  EXPECT_EQ(reordered.tables.at("mpi").rows.at(0).at("verified"), "yes");
  EXPECT_EQ(reordered.tables.at("nodes").sum("timeouts"), 0.0) << "no retransmission timeout: nothing was lost";
  const double c = clean.metadata.at("packets").at("injected").get<double>();
  const double r = reordered.metadata.at("packets").at("injected").get<double>();
  EXPECT_LT(r, 4.0 * c) << r << " packets against " << c << " clean (go-back-N per READ gap)";
}
