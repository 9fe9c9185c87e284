// OpenMPI 4.1 coll/tuned fixed decisions (protocols/mpi/TunedSelection): the algorithm per
// (collective, message size, communicator size), checked at band and step edges and against what
// the ACCL+ paper states of its OpenMPI 4.1.3 baseline (section 5, Fig. 12).
#include "protocols/collectives/SymbolicRun.hpp"
#include "protocols/mpi/MpiPlan.hpp"
#include "protocols/mpi/ClassicSelection.hpp"
#include "protocols/mpi/MpichSelection.hpp"
#include "protocols/mpi/TunedSelection.hpp"

#include <gtest/gtest.h>

using namespace nafsim;
using coll::Collective;
using mpi::ompi_tuned_select;

namespace {
std::string alg(Collective c, unsigned ranks, std::uint64_t bytes, bool commutative = true)
{
  return ompi_tuned_select(c, ranks, bytes, commutative).name;
}
} // namespace

// ACCL+ section 5: "for an 8 KB message ... an all-to-one algorithm for fewer than four nodes, a
// ring protocol for four to eight nodes, and an optimized binomial algorithm for 8 nodes ... for
// larger messages, ... an all-to-one algorithm below three nodes and a binomial tree algorithm
// between four and eight nodes" (reduce; 'ring' is OpenMPI's chain, 128 KB for the larger case).
TEST(MpiTuned, ReduceMatchesWhatTheAcclPaperObserved)
{
  for (unsigned p : {2u, 3u})
    EXPECT_EQ(alg(Collective::Reduce, p, 8192), "linear") << p;
  for (unsigned p : {4u, 5u, 6u, 7u})
    EXPECT_EQ(alg(Collective::Reduce, p, 8192), "chain") << p;
  EXPECT_EQ(alg(Collective::Reduce, 8, 8192), "binomial");
  for (unsigned p : {2u, 3u})
    EXPECT_EQ(alg(Collective::Reduce, p, 131072), "linear") << p;
  for (unsigned p : {4u, 5u, 6u, 7u, 8u})
    EXPECT_EQ(alg(Collective::Reduce, p, 131072), "binomial") << p;
}

TEST(MpiTuned, BandAndStepEdges)
{
  // allreduce, 8 ranks: recursive doubling below 8 KiB, Rabenseifner from 8 KiB.
  EXPECT_EQ(alg(Collective::AllReduce, 8, 8191), "recursive_doubling");
  EXPECT_EQ(alg(Collective::AllReduce, 8, 8192), "rabenseifner");
  EXPECT_EQ(alg(Collective::AllReduce, 7, 15), "ring");
  EXPECT_EQ(alg(Collective::AllReduce, 3, 200000), "segmented_ring");
  EXPECT_EQ(alg(Collective::AllReduce, 8, 1 << 20, false), "nonoverlapping");
  EXPECT_EQ(alg(Collective::AllReduce, 4, 1 << 20, false), "recursive_doubling");
  // bcast, 8-15 ranks: knomial, binary tree, binomial, then linear from 32 KiB; 4-7 ranks: binary
  // tree, binomial, linear up to 1 MiB, chain beyond.
  EXPECT_EQ(alg(Collective::Bcast, 8, 1024), "knomial");
  EXPECT_EQ(alg(Collective::Bcast, 8, 4096), "binary_tree");
  EXPECT_EQ(alg(Collective::Bcast, 8, 20000), "binomial");
  EXPECT_EQ(alg(Collective::Bcast, 8, 32768), "basic_linear");
  EXPECT_EQ(alg(Collective::Bcast, 5, 1024), "binary_tree");
  EXPECT_EQ(alg(Collective::Bcast, 5, 4096), "binomial");
  EXPECT_EQ(alg(Collective::Bcast, 5, 65536), "basic_linear");
  EXPECT_EQ(alg(Collective::Bcast, 5, 1 << 20), "chain");
  EXPECT_EQ(alg(Collective::Bcast, 64, 100), "knomial");
  // gather / scatter, 8 ranks: binomial; 4-7 ranks alternate with linear.
  EXPECT_EQ(alg(Collective::Gather, 8, 1 << 20), "binomial");
  EXPECT_EQ(alg(Collective::Gather, 4, 4096), "basic_linear");
  EXPECT_EQ(alg(Collective::Gather, 4, 1 << 20), "linear_sync");
  EXPECT_EQ(alg(Collective::Scatter, 8, 16383), "binomial");
  EXPECT_EQ(alg(Collective::Scatter, 8, 16384), "linear_nb");
  // allgather: two processes, then recursive doubling up to 31 ranks.
  EXPECT_EQ(alg(Collective::AllGather, 2, 1 << 20), "two_proc");
  EXPECT_EQ(alg(Collective::AllGather, 8, 1 << 20), "recursive_doubling");
  EXPECT_EQ(alg(Collective::AllGather, 40, 1 << 20), "ring");
  EXPECT_EQ(alg(Collective::AllGather, 1, 100), "recursive_doubling");
  // alltoall, 8 ranks: linear_sync below 256 KiB, linear from there.
  EXPECT_EQ(alg(Collective::AllToAll, 8, 1024), "linear_sync");
  EXPECT_EQ(alg(Collective::AllToAll, 8, 262144), "linear");
  EXPECT_EQ(alg(Collective::AllToAll, 2, 4096), "pairwise");
  EXPECT_EQ(alg(Collective::AllToAll, 20, 100), "modified_bruck");
  // reduce_scatter, 8 ranks: recursive halving below 256 KiB, ring above; non-commutative: non-overlapping.
  EXPECT_EQ(alg(Collective::ReduceScatter, 8, 262143), "recursive_halving");
  EXPECT_EQ(alg(Collective::ReduceScatter, 8, 262144), "ring");
  EXPECT_EQ(alg(Collective::ReduceScatter, 8, 1024, false), "non-overlapping");
  // barrier by communicator size only.
  EXPECT_EQ(alg(Collective::Barrier, 2, 0), "recursive_doubling");
  EXPECT_EQ(alg(Collective::Barrier, 4, 0), "linear");
  EXPECT_EQ(alg(Collective::Barrier, 8, 0), "recursive_doubling");
  EXPECT_EQ(alg(Collective::Barrier, 100, 0), "bruck");
  // the largest communicators.
  EXPECT_EQ(alg(Collective::Reduce, 5000, 1500), "in-order_binary");
  EXPECT_EQ(alg(Collective::AllReduce, 5000, 20000), "recursive_doubling");
}

// Every (collective, ranks, size) on a grid has a decision with a valid OpenMPI id; collectives
// OpenMPI's tuned component does not decide are errors.
TEST(MpiTuned, EveryPointHasADecisionAndBadInputIsAnError)
{
  for (auto c : {Collective::Bcast, Collective::Scatter, Collective::Gather, Collective::AllGather, Collective::Reduce,
                 Collective::AllReduce, Collective::ReduceScatter, Collective::AllToAll, Collective::Barrier})
    for (unsigned p : {1u, 2u, 3u, 4u, 7u, 8u, 9u, 16u, 33u, 100u, 300u, 1000u, 3000u, 10000u})
      for (std::uint64_t b = 1; b <= (std::uint64_t{1} << 26); b *= 2) {
        auto t = ompi_tuned_select(c, p, b);
        EXPECT_EQ(mpi::ompi_algorithm_name(c, t.id), t.name);
      }
  EXPECT_THROW(ompi_tuned_select(Collective::Send, 2, 1), std::invalid_argument);
  EXPECT_THROW(ompi_tuned_select(Collective::Bcast, 0, 1), std::invalid_argument);
  EXPECT_THROW(mpi::ompi_algorithm_name(Collective::Reduce, 8), std::invalid_argument);
}

// MPICH 4's default selection tree (protocols/mpi/MpichSelection), at its thresholds.
TEST(MpichSelection, ThresholdsOfTheDefaultTree)
{
  using mpi::MpichCall;
  using mpi::mpich_select;
  auto sel = [](Collective c, unsigned p, std::uint64_t bytes, std::uint64_t elements = 1 << 20) {
    return mpich_select(MpichCall{c, p, bytes, elements, true, true});
  };
  EXPECT_EQ(sel(Collective::Bcast, 4, 1 << 20), "MPIR_Bcast_intra_binomial"); // fewer than 8 processes
  EXPECT_EQ(sel(Collective::Bcast, 8, 12288), "MPIR_Bcast_intra_binomial");
  EXPECT_EQ(sel(Collective::Bcast, 8, 12289), "MPIR_Bcast_intra_scatter_recursive_doubling_allgather");
  EXPECT_EQ(sel(Collective::Bcast, 8, 524289), "MPIR_Bcast_intra_scatter_ring_allgather");
  EXPECT_EQ(sel(Collective::Bcast, 9, 65536), "MPIR_Bcast_intra_scatter_ring_allgather");
  EXPECT_EQ(sel(Collective::AllReduce, 8, 8), "MPIR_Allreduce_intra_recursive_doubling");
  EXPECT_EQ(sel(Collective::AllReduce, 8, 4096, 1024), "MPIR_Allreduce_intra_reduce_scatter_allgather");
  EXPECT_EQ(sel(Collective::AllReduce, 8, 28, 7), "MPIR_Allreduce_intra_recursive_doubling"); // count < pof2
  EXPECT_EQ(sel(Collective::Reduce, 8, 2048, 512), "MPIR_Reduce_intra_binomial");
  EXPECT_EQ(sel(Collective::Reduce, 8, 2052, 513), "MPIR_Reduce_intra_reduce_scatter_gather");
  EXPECT_EQ(sel(Collective::AllGather, 8, 524287), "MPIR_Allgather_intra_recursive_doubling");
  EXPECT_EQ(sel(Collective::AllGather, 8, 524288), "MPIR_Allgather_intra_ring");
  EXPECT_EQ(sel(Collective::AllGather, 6, 81919), "MPIR_Allgather_intra_brucks");
  EXPECT_EQ(sel(Collective::AllToAll, 8, 256), "MPIR_Alltoall_intra_brucks");
  EXPECT_EQ(sel(Collective::AllToAll, 4, 256), "MPIR_Alltoall_intra_scattered");
  EXPECT_EQ(sel(Collective::AllToAll, 8, 32769), "MPIR_Alltoall_intra_pairwise");
  EXPECT_EQ(sel(Collective::ReduceScatter, 8, 524288), "MPIR_Reduce_scatter_intra_pairwise");
  EXPECT_EQ(sel(Collective::Gather, 8, 1 << 20), "MPIR_Gather_intra_binomial");
  EXPECT_EQ(sel(Collective::Barrier, 8, 0), "MPIR_Barrier_intra_k_dissemination");
  EXPECT_EQ(mpich_select(MpichCall{Collective::AllReduce, 8, 1 << 20, 1 << 18, false, true}),
            "MPIR_Allreduce_intra_recursive_doubling"); // user-defined op
  EXPECT_THROW(sel(Collective::Copy, 2, 1), std::invalid_argument);
}

// From the library's choice to the schedule nafsim runs (protocols/mpi/MpiPlan): OpenMPI's reduce
// at 8 ranks (the paper's Fig. 12 observation), substitutions named, non-powers of two handled.
TEST(MpiPlan, LibraryChoiceToSchedule)
{
  using nafsim::coll::Algorithm;
  using nafsim::coll::Collective;
  using nafsim::mpi::Library;
  auto plan = [](Library lib, Collective c, int ranks, std::uint64_t bytes) {
    nafsim::coll::CollectiveCall call;
    call.collective = c;
    call.size       = ranks;
    call.count      = bytes / 4;
    return nafsim::mpi::plan_collective(lib, call);
  };
  // OpenMPI's choices run as Open MPI's own algorithms (Algorithm::OpenMpi), named as coll/tuned names them.
  auto r = plan(Library::OpenMpi, Collective::Reduce, 3, 8192);
  EXPECT_EQ(r.library_algorithm, "linear");
  EXPECT_EQ(r.algorithm, Algorithm::OpenMpi);
  EXPECT_EQ(r.options.ompi.name, "linear");
  EXPECT_TRUE(r.substitution.empty());
  r = plan(Library::OpenMpi, Collective::Reduce, 5, 8192);
  EXPECT_EQ(r.library_algorithm, "chain");
  EXPECT_EQ(r.options.ompi.name, "chain");
  EXPECT_EQ(r.options.ompi.chain_fanout, 0) << "the fixed rules pass faninout 0: one chain";
  EXPECT_EQ(r.options.ompi.segment_bytes, 0u) << "the 4.1 fixed rules pass segment size 0";
  r = plan(Library::OpenMpi, Collective::Bcast, 8, 512);
  EXPECT_EQ(r.library_algorithm, "knomial");
  EXPECT_EQ(nafsim::mpi::schedule_name(r), "openmpi:knomial");
  EXPECT_TRUE(r.substitution.empty());
  // Recursive doubling on 6 ranks folds the extra ranks in, as OpenMPI does: no ring in its place.
  r = plan(Library::OpenMpi, Collective::AllReduce, 6, 4096);
  EXPECT_EQ(r.library_algorithm, "recursive_doubling");
  EXPECT_EQ(r.options.ompi.name, "recursive_doubling");
  EXPECT_TRUE(r.substitution.empty());
  // Where the source hands over to another function, the schedule's name says which: the ring with fewer
  // elements than ranks runs recursive doubling; recursive-doubling allgather on 6 ranks runs Bruck.
  r = plan(Library::OpenMpi, Collective::AllReduce, 3, 4);
  EXPECT_EQ(r.library_algorithm, "ring");
  EXPECT_EQ(r.options.ompi.name, "recursive_doubling");
  r = plan(Library::OpenMpi, Collective::AllGather, 6, 4096);
  EXPECT_EQ(r.library_algorithm, "recursive_doubling");
  EXPECT_EQ(r.options.ompi.name, "bruck");
  // Beyond 16 ranks 4.1 picks the neighbor exchange (1 KiB blocks, 64 ranks; on 65 the ring it hands over to), the
  // in-order binary reduce (8 KiB, 256 ranks; rooted at rank 255, which sends the result to the root) and the split
  // binary tree broadcast (16 KiB, 256 ranks) (coll_tuned_decision_fixed.c): each runs as itself, not a substitution.
  struct Pick {
    Collective c;
    int ranks;
    std::uint64_t bytes;
    const char* library;
    const char* runs;
  };
  for (auto k : {Pick{Collective::AllGather, 64, 1024, "neighbor", "neighbor"},
                 Pick{Collective::AllGather, 65, 1024, "neighbor", "ring"},
                 Pick{Collective::Reduce, 256, 8192, "in-order_binary", "in-order_binary"},
                 Pick{Collective::Bcast, 256, 16384, "split_binary_tree", "split_binary_tree"}}) {
    r = plan(Library::OpenMpi, k.c, k.ranks, k.bytes);
    EXPECT_EQ(r.library_algorithm, k.library) << k.ranks;
    EXPECT_EQ(r.options.ompi.name, k.runs) << k.ranks;
    EXPECT_TRUE(r.substitution.empty()) << r.substitution;
  }
  // Composites take the library's own decisions for their parts (reached by forcing the composite: with
  // commutative operations the fixed rules pick it for no size nafsim's types can make).
  nafsim::coll::CollectiveCall rs;
  rs.collective = Collective::ReduceScatter;
  rs.size       = 5;
  rs.count      = 1;
  auto forced   = nafsim::mpi::plan_openmpi(rs, "non-overlapping");
  ASSERT_TRUE(forced.has_value());
  EXPECT_EQ(forced->options.ompi.reduce_part, "binary") << "the tuned reduce of 20 B on 5 ranks";
  EXPECT_EQ(forced->library_algorithm, "non-overlapping");
  EXPECT_FALSE(nafsim::mpi::plan_openmpi(rs, "split_binary_tree").has_value());
  r = plan(Library::Mpich, Collective::Gather, 8, 4096);
  EXPECT_EQ(r.library_algorithm, "MPIR_Gather_intra_binomial");
  EXPECT_EQ(r.algorithm, Algorithm::Binomial);
  r = plan(Library::Mpich, Collective::AllReduce, 8, 1 << 20);
  EXPECT_EQ(r.library_algorithm, "MPIR_Allreduce_intra_reduce_scatter_allgather");
  EXPECT_EQ(r.algorithm, Algorithm::Rabenseifner);
  EXPECT_THROW(plan(Library::OpenMpi, Collective::Copy, 2, 64), std::invalid_argument);
  // Every collective, every size band, 1-16 ranks: a runnable schedule.
  for (auto lib : {Library::OpenMpi, Library::Mpich})
    for (auto c : {Collective::Bcast, Collective::Scatter, Collective::Gather, Collective::AllGather,
                   Collective::Reduce, Collective::AllReduce, Collective::ReduceScatter, Collective::AllToAll,
                   Collective::Barrier})
      for (int p : {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 24, 48, 100, 200, 300, 700, 1500, 3000, 5000})
        for (std::uint64_t b : {4ull, 64ull, 1024ull, 4096ull, 12288ull, 65536ull, 1ull << 19, 1ull << 22}) {
          auto pl = plan(lib, c, p, b);
          nafsim::coll::CollectiveCall call;
          call.collective = c;
          call.size       = p;
          call.count      = b / 4;
          EXPECT_TRUE(nafsim::coll::check_applicable(call, pl.algorithm).empty());
        }
}

// The composites' parts are the library's own decisions for them, with the segment sizes those decisions pass: Open
// MPI 2.0's rules pick nonoverlapping for an allreduce with no more elements than ranks (50,000 ranks, 50,000 doubles),
// and its reduce part is their binomial tree in 1 KiB segments, its bcast part their pipeline in 8 KiB ones (they
// ran unsegmented, said as a substitution); 4.1's rules pass no segment size (a forced nonoverlapping's reduce part at
// 4 ranks and 8 KiB: their chain, unsegmented).
TEST(MpiPlan, TheCompositesPartsRunAsTheLibrarysDecisionsCallThem)
{
  coll::CollectiveCall call;
  call.collective = Collective::AllReduce;
  call.size       = 50000;
  call.count      = 50000;
  call.elem_bytes = 8;
  const auto classic = mpi::plan_collective(mpi::Library::OpenMpi20, call);
  EXPECT_EQ(classic.algorithm, coll::Algorithm::OpenMpi);
  EXPECT_EQ(classic.options.ompi.name, "nonoverlapping");
  EXPECT_EQ(classic.substitution, "");
  EXPECT_EQ(classic.options.ompi.reduce_part, "binomial");
  EXPECT_EQ(classic.options.ompi.reduce_part_segment_bytes, 1024U);
  EXPECT_EQ(classic.options.ompi.bcast_part, "pipeline");
  EXPECT_EQ(classic.options.ompi.bcast_part_segment_bytes, 8192U);

  call.size       = 4;
  call.count      = 2048;
  call.elem_bytes = 4;
  const auto forced = mpi::plan_openmpi(call, "nonoverlapping");
  ASSERT_TRUE(forced.has_value());
  EXPECT_EQ(forced->options.ompi.reduce_part, "chain");
  EXPECT_EQ(forced->options.ompi.reduce_part_segment_bytes, 0U);
  EXPECT_EQ(forced->options.ompi.bcast_part_segment_bytes, 0U);
  // Forced under Open MPI 2.0, its parts are 2.0's decisions: the binomial reduce (p < 8, under 20,480 B) and the
  // split binary tree broadcast in 1 KiB segments (2,048 B to 370,728 B), each run as itself.
  const auto classic_forced = mpi::plan_openmpi(call, "nonoverlapping", mpi::Library::OpenMpi20);
  ASSERT_TRUE(classic_forced.has_value());
  EXPECT_EQ(classic_forced->algorithm, coll::Algorithm::OpenMpi);
  EXPECT_EQ(classic_forced->substitution, "");
  EXPECT_EQ(classic_forced->options.ompi.reduce_part, "binomial");
  EXPECT_EQ(classic_forced->options.ompi.bcast_part, "split_binary_tree");
  EXPECT_EQ(classic_forced->options.ompi.bcast_part_segment_bytes, 1024U);
  call.count = 100; // 400 B: 2.0's linear reduce and binomial bcast, both modeled
  const auto classic_small = mpi::plan_openmpi(call, "nonoverlapping", mpi::Library::OpenMpi20);
  ASSERT_TRUE(classic_small.has_value());
  EXPECT_EQ(classic_small->options.ompi.reduce_part, "linear");
  EXPECT_EQ(classic_small->options.ompi.bcast_part, "binomial");
}

// A segmented ring forced with its segment size (coll_tuned_allreduce_algorithm_segmentsize) runs segmented where the
// source does (count >= p x segcount = 4,096 floats on 4 ranks of 1,024-float segments); unsegmented, or on fewer
// elements, it is the ring.
// The segment size was given after the plan had already handed the call to the ring, so a forced one never ran.
TEST(MpiPlan, AForcedSegmentedRingKeepsItsSegmentSize)
{
  coll::CollectiveCall call{Collective::AllReduce, 4, 0, 16384, 4, coll::ReduceFunc::Sum};
  auto segmented = mpi::plan_openmpi(call, "segmented_ring", mpi::Library::OpenMpi, 4096);
  ASSERT_TRUE(segmented.has_value());
  EXPECT_EQ(segmented->options.ompi.name, "segmented_ring");
  EXPECT_EQ(mpi::plan_openmpi(call, "segmented_ring")->options.ompi.name, "ring");
  call.count = 4096;
  EXPECT_EQ(mpi::plan_openmpi(call, "segmented_ring", mpi::Library::OpenMpi, 4096)->options.ompi.name, "segmented_ring");
  call.count = 4095;
  EXPECT_EQ(mpi::plan_openmpi(call, "segmented_ring", mpi::Library::OpenMpi, 4096)->options.ompi.name, "ring");
}

TEST(MpiPlan, OpenMpiRunsEveryFixedRuleChoiceOnTwoToSixteenRanks)
{
  // Issue 27: every algorithm OpenMPI 4.1's fixed rules pick for communicators of 2-16 ranks runs as itself,
  // for every collective and message sizes from one element to 4 MiB (each power of two, one element below
  // and above it). The one exception: the Rabenseifner reduce (picked below 8 B on 2-3 ranks) on at least p'
  // elements, which only a 2-byte type reaches (float16, 4-6 B): it runs as a substitution, said so.
  using nafsim::coll::Algorithm;
  using nafsim::coll::Collective;
  const Collective all[] = {Collective::Bcast,     Collective::Scatter,   Collective::Gather,
                            Collective::AllGather, Collective::Reduce,    Collective::AllReduce,
                            Collective::ReduceScatter, Collective::AllToAll, Collective::Barrier};
  int points = 0, verified = 0, substituted = 0;
  for (unsigned eb : {4u, 2u})
    for (auto c : all)
      for (int p = 2; p <= 16; ++p)
        for (std::uint64_t pow = eb; pow <= (4u << 20); pow *= 2)
          for (std::uint64_t bytes : {pow - eb, pow, pow + eb}) {
            if (bytes == 0)
              continue;
            nafsim::coll::CollectiveCall call;
            call.collective = c;
            call.size       = p;
            call.count      = c == Collective::Barrier ? 0 : bytes / eb;
            call.elem_bytes = eb;
            auto pl         = nafsim::mpi::plan_collective(nafsim::mpi::Library::OpenMpi, call);
            ++points;
            if (pl.algorithm != Algorithm::OpenMpi) {
              EXPECT_EQ(eb, 2u);
              EXPECT_EQ(c, Collective::Reduce);
              EXPECT_EQ(pl.library_algorithm, "rabenseifner");
              EXPECT_FALSE(pl.substitution.empty());
              ++substituted;
              continue;
            }
            EXPECT_TRUE(pl.substitution.empty()) << pl.substitution;
            if (call.count > 2048)
              continue;
            std::vector<nafsim::coll::Schedule> scheds;
            for (int r = 0; r < p; ++r)
              scheds.push_back(nafsim::coll::build_schedule(call, pl.algorithm, nafsim::coll::Protocol::Eager, r,
                                                            pl.options));
            auto res = nafsim::coll::run_symbolic(scheds, true);
            ASSERT_TRUE(res.completed) << pl.library_algorithm << " p=" << p << " bytes=" << bytes << ": "
                                       << res.problem;
            ASSERT_EQ(nafsim::coll::check_outputs(call, res), "") << pl.library_algorithm << " p=" << p;
            ++verified;
          }
  EXPECT_GT(points, 10000);
  EXPECT_GT(verified, 3000);
  EXPECT_GT(substituted, 0);
  EXPECT_LT(substituted, 10);
}

// Open MPI's classic tuned rules (ClassicSelection: coll_tuned_decision_fixed.c before 4.1, the 2016 releases the
// PAC paper's MPI follows): each rule's thresholds, checked on either side.
TEST(MpiClassic, EachRuleOnEitherSideOfItsThresholds)
{
  using mpi::ompi_classic_select;
  auto alg = [](Collective c, unsigned p, std::uint64_t bytes, std::uint64_t count = 1000000) {
    auto ch = ompi_classic_select(c, p, bytes, count);
    return ch.segment_bytes ? ch.name + "/" + std::to_string(ch.segment_bytes) : ch.name;
  };
  // allreduce: recursive doubling below 10,000 B; ring up to p x 1 MiB, then the 1 MiB segmented ring.
  EXPECT_EQ(alg(Collective::AllReduce, 8, 9999), "recursive_doubling");
  EXPECT_EQ(alg(Collective::AllReduce, 8, 10000), "ring");
  EXPECT_EQ(alg(Collective::AllReduce, 8, 8 << 20), "ring");
  EXPECT_EQ(alg(Collective::AllReduce, 8, (8 << 20) + 4), "segmented_ring/1048576");
  EXPECT_EQ(alg(Collective::AllReduce, 8, 40000, 5), "nonoverlapping"); // fewer elements than ranks
  // alltoall: two processes; Bruck below 200 B on more than 12; linear below 3,000 B; pairwise.
  EXPECT_EQ(alg(Collective::AllToAll, 2, 8), "two_proc");
  EXPECT_EQ(alg(Collective::AllToAll, 13, 199), "modified_bruck");
  EXPECT_EQ(alg(Collective::AllToAll, 12, 199), "linear");
  EXPECT_EQ(alg(Collective::AllToAll, 32, 2999), "linear");
  EXPECT_EQ(alg(Collective::AllToAll, 32, 3000), "pairwise");
  // barrier: two processes; recursive doubling on powers of two; Bruck otherwise.
  EXPECT_EQ(alg(Collective::Barrier, 2, 0), "two_proc");
  EXPECT_EQ(alg(Collective::Barrier, 16, 0), "recursive_doubling");
  EXPECT_EQ(alg(Collective::Barrier, 12, 0), "bruck");
  // bcast: binomial below 2 KiB, split binary tree (1 KiB segments) below 370,728 B, then the fitted lines.
  EXPECT_EQ(alg(Collective::Bcast, 32, 2047), "binomial");
  EXPECT_EQ(alg(Collective::Bcast, 32, 4096, 1), "binomial"); // one element
  EXPECT_EQ(alg(Collective::Bcast, 32, 2048), "split_binary_tree/1024");
  EXPECT_EQ(alg(Collective::Bcast, 32, 370727), "split_binary_tree/1024");
  EXPECT_EQ(alg(Collective::Bcast, 2, 370728), "pipeline/131072");  // 2 < 1.6134e-6 x 370728 + 2.1102 = 2.71
  EXPECT_EQ(alg(Collective::Bcast, 8, 370728), "split_binary_tree/8192"); // fewer than 13 ranks
  EXPECT_EQ(alg(Collective::Bcast, 16, 16 << 20), "pipeline/131072"); // 16 < a_p128 m + b_p128 = 29.18
  EXPECT_EQ(alg(Collective::Bcast, 16, 8 << 20), "pipeline/65536");   // 16 >= 15.64; < a_p64 m + b_p64 = 21.04
  EXPECT_EQ(alg(Collective::Bcast, 16, 4 << 20), "pipeline/16384");   // 16 >= 11.11; < a_p16 m + b_p16 = 22.27
  EXPECT_EQ(alg(Collective::Bcast, 16, 1 << 20), "pipeline/8192");    // 16 >= 12.16
  // reduce: linear, binomial, then the four fitted lines (a1 b1 ... a4 b4).
  EXPECT_EQ(alg(Collective::Reduce, 4, 511), "linear");
  EXPECT_EQ(alg(Collective::Reduce, 4, 20479), "binomial");
  EXPECT_EQ(alg(Collective::Reduce, 16, 2047), "binomial");
  EXPECT_EQ(alg(Collective::Reduce, 16, 2048), "binomial/1024");    // 16 > 0.6016/1024 x 2048 + 1.3496 = 2.55
  EXPECT_EQ(alg(Collective::Reduce, 16, 64 << 10), "pipeline/1024"); // 16 <= 39.85, > 12.34
  EXPECT_EQ(alg(Collective::Reduce, 8, 64 << 10), "binary/32768");   // 8 <= 12.34, > 3.86
  EXPECT_EQ(alg(Collective::Reduce, 8, 1 << 20), "pipeline/32768");  // 8 <= a3 m + b3 = 44.4, > a4 m + b4 = 5.06
  EXPECT_EQ(alg(Collective::Reduce, 4, 1 << 20), "pipeline/65536");  // 4 <= 5.06
  EXPECT_EQ(ompi_classic_select(Collective::Reduce, 4, 1024, 256, false).name, "linear");
  EXPECT_EQ(ompi_classic_select(Collective::Reduce, 16, 1024, 256, false).name, "in-order_binary");
  // reduce_scatter (total bytes): recursive halving for small, power-of-two medium, or many ranks; else ring.
  EXPECT_EQ(alg(Collective::ReduceScatter, 12, 12 * 1024), "recursive_halving");
  EXPECT_EQ(alg(Collective::ReduceScatter, 16, 256 * 1024), "recursive_halving");
  EXPECT_EQ(alg(Collective::ReduceScatter, 12, 256 * 1024), "ring");
  EXPECT_EQ(alg(Collective::ReduceScatter, 500, 256 * 1024), "recursive_halving"); // 500 >= 0.0012 x 262144 + 8
  // allgather (total bytes): recursive doubling / Bruck below 50,000 B; ring for odd, neighbor exchange for even.
  EXPECT_EQ(alg(Collective::AllGather, 2, 1 << 20), "two_proc");
  EXPECT_EQ(alg(Collective::AllGather, 8, 49999), "recursive_doubling");
  EXPECT_EQ(alg(Collective::AllGather, 6, 49999), "bruck");
  EXPECT_EQ(alg(Collective::AllGather, 7, 50000), "ring");
  EXPECT_EQ(alg(Collective::AllGather, 6, 50000), "neighbor");
  // gather (one block): linear with synchronisation (32 KiB / 1 KiB first segments), binomial, linear.
  EXPECT_EQ(alg(Collective::Gather, 4, 92161), "linear_sync/32768");
  EXPECT_EQ(alg(Collective::Gather, 4, 6001), "linear_sync/1024");
  EXPECT_EQ(alg(Collective::Gather, 61, 6000), "binomial");
  EXPECT_EQ(alg(Collective::Gather, 11, 1023), "binomial");
  EXPECT_EQ(alg(Collective::Gather, 11, 1024), "basic_linear");
  // scatter (one block): binomial on more than 10 ranks below 300 B.
  EXPECT_EQ(alg(Collective::Scatter, 11, 299), "binomial");
  EXPECT_EQ(alg(Collective::Scatter, 10, 299), "basic_linear");
  EXPECT_THROW(ompi_classic_select(Collective::Send, 4, 8, 2), std::invalid_argument);
  EXPECT_THROW(ompi_classic_select(Collective::Bcast, 0, 8, 2), std::invalid_argument);
}

TEST(MpiClassic, EveryChoiceOnTwoToSixteenRanksRunsAndIsCorrect)
{
  // Every classic choice on 2-16 ranks, one element to 4 MiB, as a schedule: modeled ones as Open MPI runs them
  // (with the rule's segment size), the others substituted and said so; the small ones run symbolically and give
  // the collective's result.
  using nafsim::coll::Algorithm;
  const Collective all[] = {Collective::Bcast,     Collective::Scatter,   Collective::Gather,
                            Collective::AllGather, Collective::Reduce,    Collective::AllReduce,
                            Collective::ReduceScatter, Collective::AllToAll, Collective::Barrier};
  int points = 0, own = 0;
  for (auto c : all)
    for (int p = 2; p <= 16; ++p)
      for (std::uint64_t bytes = 4; bytes <= (4u << 20); bytes *= 2) {
        nafsim::coll::CollectiveCall call;
        call.collective = c;
        call.size       = p;
        call.count      = c == Collective::Barrier ? 0 : bytes / 4;
        call.elem_bytes = 4;
        auto pl         = nafsim::mpi::plan_collective(nafsim::mpi::Library::OpenMpi20, call);
        ++points;
        if (pl.algorithm == Algorithm::OpenMpi)
          ++own;
        else
          EXPECT_FALSE(pl.substitution.empty()) << pl.library_algorithm;
        if (call.count > 1024)
          continue;
        std::vector<nafsim::coll::Schedule> scheds;
        for (int r = 0; r < p; ++r)
          scheds.push_back(
              nafsim::coll::build_schedule(call, pl.algorithm, nafsim::coll::Protocol::Eager, r, pl.options));
        auto res = nafsim::coll::run_symbolic(scheds, true);
        ASSERT_TRUE(res.completed) << pl.library_algorithm << " p=" << p << " bytes=" << bytes << ": " << res.problem;
        ASSERT_EQ(nafsim::coll::check_outputs(call, res), "") << pl.library_algorithm << " p=" << p;
      }
  EXPECT_GT(points, 2000);
  EXPECT_GT(own, points / 2); // most run as Open MPI's own algorithm
}
