// Open MPI 4.1's coll/base algorithms as schedules: the trees of coll_base_topo.c match the examples in
// its comments, every algorithm computes its collective on 1-16 ranks (any root, uneven counts, with and
// without segments, eager and rendezvous) under the symbolic executor, and the shapes the sources give
// (folds of recursive doubling, the segment pipeline, the synchronised linear gather) are there.
#include "protocols/collectives/Algorithms.hpp"
#include "protocols/collectives/MpiOrder.hpp"
#include "protocols/collectives/OmpiAlgorithms.hpp"
#include "protocols/collectives/OmpiTopology.hpp"
#include "protocols/collectives/SymbolicRun.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include <fmt/format.h>
#include <gtest/gtest.h>

using namespace nafsim::coll;

namespace {

bool rooted(Collective c)
{
  return c == Collective::Bcast || c == Collective::Scatter || c == Collective::Gather || c == Collective::Reduce;
}

AlgorithmOptions ompi_opt(const std::string& name, std::uint64_t segment_bytes = 0)
{
  AlgorithmOptions o;
  o.ompi.name          = name;
  o.ompi.segment_bytes = segment_bytes;
  return o;
}

std::vector<Schedule> all_ranks(const CollectiveCall& call, const AlgorithmOptions& opt)
{
  std::vector<Schedule> v;
  for (int r = 0; r < call.size; ++r)
    v.push_back(build_schedule(call, Algorithm::OpenMpi, Protocol::Eager, r, opt));
  return v;
}

std::vector<int> parents(int size, int root, ompi::Tree (*build)(int, int, int))
{
  std::vector<int> v;
  for (int r = 0; r < size; ++r)
    v.push_back(build(size, r, root).parent);
  return v;
}

/// Messages rank `r`'s schedule sends.
int sends_of(const Schedule& s)
{
  int k = 0;
  for (auto const& op : s.ops)
    k += op.kind == OpKind::Send ? 1 : 0;
  return k;
}

} // namespace

TEST(OmpiTopology, TreesMatchTheSourceExamples)
{
  // in-order bintree, rooted at size - 1 (coll_base_topo.c's pictures): size 3: 2 -> 1 0; size 4: 3 -> 2 1, 1 -> 0;
  // size 9: 8 -> 7 3; 7 -> 6 5; 3 -> 2 1; 5 -> 4; 1 -> 0.
  EXPECT_EQ(ompi::build_in_order_bintree(3, 2).children, (std::vector<int>{1, 0}));
  EXPECT_EQ(ompi::build_in_order_bintree(4, 3).children, (std::vector<int>{2, 1}));
  EXPECT_EQ(ompi::build_in_order_bintree(4, 1).children, (std::vector<int>{0}));
  EXPECT_EQ(ompi::build_in_order_bintree(4, 0).parent, 1);
  std::vector<int> up;
  for (int r = 0; r < 9; ++r)
    up.push_back(ompi::build_in_order_bintree(9, r).parent);
  EXPECT_EQ(up, (std::vector<int>{1, 3, 3, 8, 5, 7, 7, 8, -1}));
  EXPECT_EQ(ompi::build_in_order_bintree(9, 8).children, (std::vector<int>{7, 3}));
  EXPECT_EQ(ompi::build_in_order_bintree(9, 7).children, (std::vector<int>{6, 5}));
  EXPECT_EQ(ompi::build_in_order_bintree(9, 3).children, (std::vector<int>{2, 1}));
  // coll_base_topo.c: fanout 2, size 7: 0 -> 1 2; 1 -> 3 5; 2 -> 4 6.
  EXPECT_EQ(ompi::build_tree(2, 7, 0, 0).children, (std::vector<int>{1, 2}));
  EXPECT_EQ(ompi::build_tree(2, 7, 1, 0).children, (std::vector<int>{3, 5}));
  EXPECT_EQ(ompi::build_tree(2, 7, 2, 0).children, (std::vector<int>{4, 6}));
  EXPECT_EQ(ompi::build_tree(2, 7, 5, 0).parent, 1);
  EXPECT_EQ(ompi::build_tree(2, 7, 6, 0).parent, 2);
  // bmtree, size 8: 0 -> 1 2 4 (sent in that order); 1 -> 3 5; 2 -> 6; 3 -> 7.
  EXPECT_EQ(ompi::build_bmtree(8, 0, 0).children, (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(ompi::build_bmtree(8, 1, 0).children, (std::vector<int>{3, 5}));
  EXPECT_EQ(parents(8, 0, ompi::build_bmtree), (std::vector<int>{-1, 0, 0, 1, 0, 1, 2, 3}));
  // in-order bmtree, size 8: 0 -> 1 2 4; 2 -> 3; 4 -> 5 6; 6 -> 7.
  EXPECT_EQ(ompi::build_in_order_bmtree(8, 0, 0).children, (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(ompi::build_in_order_bmtree(8, 4, 0).children, (std::vector<int>{5, 6}));
  EXPECT_EQ(parents(8, 0, ompi::build_in_order_bmtree), (std::vector<int>{-1, 0, 0, 2, 0, 4, 4, 6}));
  // kmtree, size 10: radix 2: 0 -> 8 4 2 1, 4 -> 6 5; radix 3: 0 -> 9 3 6 1 2; radix 4: 0 -> 4 8 1 2 3.
  EXPECT_EQ(ompi::build_kmtree(10, 0, 0, 2).children, (std::vector<int>{8, 4, 2, 1}));
  EXPECT_EQ(ompi::build_kmtree(10, 4, 0, 2).children, (std::vector<int>{6, 5}));
  EXPECT_EQ(ompi::build_kmtree(10, 0, 0, 3).children, (std::vector<int>{9, 3, 6, 1, 2}));
  EXPECT_EQ(ompi::build_kmtree(10, 0, 0, 4).children, (std::vector<int>{4, 8, 1, 2, 3}));
  EXPECT_EQ(ompi::build_kmtree(10, 4, 0, 4).children, (std::vector<int>{5, 6, 7}));
  EXPECT_EQ(ompi::build_kmtree(10, 9, 0, 4).parent, 8);
  // A pipeline (chain of fanout 1, also what fanout 0 becomes) from root 3 of 5: 3 -> 4 -> 0 -> 1 -> 2.
  EXPECT_EQ(ompi::build_chain(0, 5, 3, 3).children, (std::vector<int>{4}));
  EXPECT_EQ(ompi::build_chain(1, 5, 0, 3).parent, 4);
  EXPECT_TRUE(ompi::build_chain(1, 5, 2, 3).children.empty());
  // Two chains over 7 ranks: 0 -> 1 2 3 and 0 -> 4 5 6.
  EXPECT_EQ(ompi::build_chain(2, 7, 0, 0).children, (std::vector<int>{1, 4}));
  EXPECT_EQ(ompi::build_chain(2, 7, 4, 0).parent, 0);
  EXPECT_EQ(ompi::build_chain(2, 7, 3, 0).parent, 2);
  EXPECT_TRUE(ompi::build_chain(2, 7, 3, 0).children.empty());
}

TEST(OmpiAlgorithms, EveryAlgorithmComputesItsCollective)
{
  const Collective all[] = {Collective::Bcast,     Collective::Reduce,        Collective::Gather,
                            Collective::Scatter,   Collective::AllReduce,     Collective::AllGather,
                            Collective::AllToAll,  Collective::ReduceScatter, Collective::Barrier};
  int checked = 0;
  for (Collective coll : all) {
    for (auto const& name : ompi_algorithms(coll)) {
      for (int p = 1; p <= 16; ++p) {
        if (name == "two_proc" && p != 2)
          continue;
        for (std::uint64_t count : {1ULL, 7ULL, 3ULL * static_cast<std::uint64_t>(p) + 1, 64ULL}) {
          for (int root : {0, p - 1, p / 2}) {
            if (!rooted(coll) && root != 0)
              continue;
            for (std::uint64_t seg : {0ULL, 8ULL, 12ULL}) {
              CollectiveCall call{coll, p, root, coll == Collective::Barrier ? 0 : count, 4, ReduceFunc::Sum};
              const auto scheds = all_ranks(call, ompi_opt(name, seg));
              for (bool rendezvous : {false, true}) {
                auto res = run_symbolic(scheds, rendezvous);
                const auto what = fmt::format("{} {} p={} count={} root={} seg={} {}", collective_name(coll), name, p,
                                              count, root, seg, rendezvous ? "rendezvous" : "eager");
                ASSERT_TRUE(res.completed) << what << ": " << res.problem;
                ASSERT_EQ(check_outputs(call, res), "") << what;
                ++checked;
              }
            }
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 10000);
}

// coll_base_allgather.c's neighbor exchange on 6 ranks (the source's example): one block with the first neighbour
// (even ranks: the right one), then p / 2 - 1 = 2 steps of two blocks, alternately with the other neighbour and the
// first: rank 0 sends to 1, 5, 1 and rank 3 to 2, 4, 2, three messages where the ring sends five; on 7 ranks it is the
// ring, as the source switches to it on an odd size.
TEST(OmpiAlgorithms, NeighborExchangeAllgatherTakesHalfTheRingsSteps)
{
  auto sends = [](int p, int r) {
    CollectiveCall call{Collective::AllGather, p, 0, 8, 4, ReduceFunc::Sum};
    std::vector<std::pair<int, std::uint64_t>> v;
    for (auto const& op : build_schedule(call, Algorithm::OpenMpi, Protocol::Eager, r, ompi_opt("neighbor")).ops)
      if (op.kind == OpKind::Send)
        v.emplace_back(op.peer, op.a.count);
    return v;
  };
  using V = std::vector<std::pair<int, std::uint64_t>>;
  EXPECT_EQ(sends(6, 0), (V{{1, 8}, {5, 16}, {1, 16}}));
  EXPECT_EQ(sends(6, 3), (V{{2, 8}, {4, 16}, {2, 16}}));
  EXPECT_EQ(sends(64, 10).size(), 32u);
  EXPECT_EQ(sends(7, 0).size(), 6u) << "the ring on an odd size";
  CollectiveCall seven{Collective::AllGather, 7, 0, 8, 4, ReduceFunc::Sum};
  OmpiOptions o;
  o.name = "neighbor";
  EXPECT_EQ(ompi_effective(seven, o), "ring");
}

// coll_base_allreduce.c's Rabenseifner hands fewer elements than p' (the largest power of two <= p) to the linear
// allreduce ("switching to basic linear allreduce": reduce to rank 0, broadcast from it), not to recursive doubling;
// the ring hands fewer than p to recursive doubling.
TEST(OmpiAlgorithms, RabenseifnerOnFewerElementsThanAPowerOfTwoOfRanksRunsTheLinearAllreduce)
{
  CollectiveCall four{Collective::AllReduce, 8, 0, 4, 4, ReduceFunc::Sum};
  EXPECT_EQ(ompi_effective(four, ompi_opt("rabenseifner").ompi), "basic_linear");
  EXPECT_EQ(ompi_effective(four, ompi_opt("ring").ompi), "recursive_doubling");
  auto peers = [&](int r) {
    std::vector<int> v;
    for (auto const& op : build_schedule(four, Algorithm::OpenMpi, Protocol::Eager, r, ompi_opt("rabenseifner")).ops)
      if (op.kind == OpKind::Send)
        v.push_back(op.peer);
    return v;
  };
  EXPECT_EQ(peers(3), (std::vector<int>{0})) << "its block to the root, then the root's result";
  EXPECT_EQ(peers(0), (std::vector<int>{1, 2, 3, 4, 5, 6, 7}));
  CollectiveCall eight{Collective::AllReduce, 8, 0, 8, 4, ReduceFunc::Sum};
  EXPECT_EQ(ompi_effective(eight, ompi_opt("rabenseifner").ompi), "rabenseifner");
}

// coll_base_allreduce.c's segmented ring reduces each ring block in count / (p x segcount) phases, one more only
// when the rest is at least p elements and more than half of p x segcount: 4 ranks of 1 MiB segments (262,144
// floats), 6 MiB is one phase (the rest, 2 MiB, is half), 7 MiB two. A phase is p - 1 sends, the allgather p - 1.
TEST(OmpiAlgorithms, TheSegmentedRingCountsItsPhasesAsTheSourceDoes)
{
  auto sends = [](std::uint64_t mib) {
    CollectiveCall call{Collective::AllReduce, 4, 0, mib * 262144, 4, ReduceFunc::Sum};
    std::size_t n = 0;
    for (auto const& op :
         build_schedule(call, Algorithm::OpenMpi, Protocol::Eager, 1, ompi_opt("segmented_ring", 1 << 20)).ops)
      n += op.kind == OpKind::Send;
    return n;
  };
  EXPECT_EQ(sends(3), 6u) << "below p x segcount: the plain ring";
  EXPECT_EQ(sends(4), 6u);
  EXPECT_EQ(sends(6), 6u) << "a rest of exactly half adds no phase";
  EXPECT_EQ(sends(7), 9u);
  EXPECT_EQ(sends(8), 9u);
}

// coll_base_bcast.c's split binary tree on 6 ranks, 16 elements, no segments: the root sends the first half down the
// left subtree (to 1) and the second down the right (to 2), then, the size being even, the second half to rank 5,
// whose pair would be the root; rank 1 forwards its half to its children 3 and 5 and swaps halves with its pair 2;
// rank 3, a leaf, swaps with 4. One element cannot be split: the pipeline carries it.
TEST(OmpiAlgorithms, SplitBinaryTreeBroadcastSendsHalvesDownTheSubtreesThenSwapsThem)
{
  auto sends = [](int p, int r, std::uint64_t count) {
    CollectiveCall call{Collective::Bcast, p, 0, count, 4, ReduceFunc::Sum};
    std::vector<std::pair<int, std::uint64_t>> v;
    for (auto const& op :
         build_schedule(call, Algorithm::OpenMpi, Protocol::Eager, r, ompi_opt("split_binary_tree")).ops)
      if (op.kind == OpKind::Send)
        v.emplace_back(op.peer, op.a.count);
    return v;
  };
  using V = std::vector<std::pair<int, std::uint64_t>>;
  EXPECT_EQ(sends(6, 0, 16), (V{{1, 8}, {2, 8}, {5, 8}}));
  EXPECT_EQ(sends(6, 1, 16), (V{{3, 8}, {5, 8}, {2, 8}}));
  EXPECT_EQ(sends(6, 3, 16), (V{{4, 8}}));
  EXPECT_EQ(sends(6, 5, 16), (V{})) << "the last rank only receives (its half, then the root's second half)";
  EXPECT_EQ(sends(5, 0, 15), (V{{1, 8}, {2, 7}})) << "an odd size: the root has no pair";
  EXPECT_EQ(sends(5, 0, 1), (V{{1, 1}})) << "one element: the pipeline";
}

/// Whether two ranks' schedules make the same calls (every op, its buffers, its order, the scratch they need).
static bool same_calls(const std::vector<Schedule>& a, const std::vector<Schedule>& b)
{
  auto same_slice = [](const Slice& x, const Slice& y) {
    return x.buf == y.buf && x.offset == y.offset && x.count == y.count;
  };
  if (a.size() != b.size())
    return false;
  for (std::size_t r = 0; r < a.size(); ++r) {
    if (a[r].ops.size() != b[r].ops.size() || !std::equal(std::begin(a[r].scratch), std::end(a[r].scratch),
                                                          std::begin(b[r].scratch)))
      return false;
    for (std::size_t i = 0; i < a[r].ops.size(); ++i) {
      const Op &x = a[r].ops[i], &y = b[r].ops[i];
      if (x.kind != y.kind || x.peer != y.peer || x.peer2 != y.peer2 || !same_slice(x.a, y.a) ||
          !same_slice(x.b, y.b) || !same_slice(x.dst, y.dst) || x.deps != y.deps || x.addr_group != y.addr_group ||
          x.remote_offset != y.remote_offset)
        return false;
    }
  }
  return true;
}

// ompi_reads says which of coll/tuned's parameters an algorithm reads, for the unread-settings warning: where it says
// one is not read, every rank's schedule is the same call for call with another value of it; and where it says read,
// some case of the algorithm changes with it (else the claim would be too timid to mean anything). A composite's
// parts (allreduce nonoverlapping, reduce_scatter non-overlapping) are the library's own decisions, run with their
// segment size and faninout 0 whatever the composite's own parameters.
TEST(OmpiAlgorithms, TheParametersAnAlgorithmIsSaidNotToReadChangeNothing)
{
  const Collective all[] = {Collective::Bcast,     Collective::Reduce,        Collective::Gather,
                            Collective::Scatter,   Collective::AllReduce,     Collective::AllGather,
                            Collective::AllToAll,  Collective::ReduceScatter, Collective::Barrier};
  enum Param { Segment, Fanout, Radix };
  auto with = [](OmpiOptions o, Param what, bool other) {
    if (what == Segment)
      o.segment_bytes = other ? 36 : 0;
    if (what == Fanout)
      o.chain_fanout = other ? 3 : 0;
    if (what == Radix)
      o.knomial_radix = other ? 2 : 4;
    return o;
  };
  std::map<std::string, int> moved; // algorithm and parameter said read -> cases where a change moved the schedule
  int checked = 0;
  for (Collective coll : all) {
    for (auto const& name : ompi_algorithms(coll)) {
      for (auto const& [reduce_part, bcast_part] :
           {std::pair<std::string, std::string>{"chain", "knomial"}, {"binomial", "chain"}}) {
        for (int p : {2, 5, 8, 11}) {
          if (name == "two_proc" && p != 2)
            continue;
          for (std::uint64_t count : {1ULL, 7ULL, 64ULL}) {
            for (int root : {0, p - 1}) {
              if (!rooted(coll) && root != 0)
                continue;
              CollectiveCall call{coll, p, root, coll == Collective::Barrier ? 0 : count, 4, ReduceFunc::Sum};
              OmpiOptions o;
              o.name        = name;
              o.reduce_part = reduce_part;
              o.bcast_part  = bcast_part;
              const OmpiReads reads = ompi_reads(call, o);
              for (Param what : {Segment, Fanout, Radix}) {
                const bool read = what == Segment ? reads.segment_size
                                  : what == Fanout ? reads.chain_fanout
                                                   : reads.knomial_radix;
                AlgorithmOptions a, b;
                a.ompi = with(o, what, false);
                b.ompi = with(o, what, true);
                // As the workloads run a forced name: its hand-over for the segment size in force.
                a.ompi.name = ompi_effective(call, a.ompi);
                b.ompi.name = ompi_effective(call, b.ompi);
                const bool same = same_calls(all_ranks(call, a), all_ranks(call, b));
                const auto what_s = fmt::format("{} {} ({} / {}) p={} count={} root={} parameter {}",
                                                collective_name(coll), name, reduce_part, bcast_part, p, count, root,
                                                static_cast<int>(what));
                if (!read)
                  ASSERT_TRUE(same) << what_s << " is said not to be read, and changes the schedule";
                else
                  moved[fmt::format("{} {} {}", collective_name(coll), name, static_cast<int>(what))] += same ? 0 : 1;
                ++checked;
              }
            }
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 1000);
  for (auto const& [what, n] : moved)
    EXPECT_GT(n, 0) << what << " is said to be read, and no case moved with it";

  // The parts' own segment sizes reach them.
  CollectiveCall call{Collective::AllReduce, 5, 0, 64, 4, ReduceFunc::Sum};
  AlgorithmOptions whole, reduce_cut, bcast_cut;
  whole.ompi.name        = "nonoverlapping";
  whole.ompi.reduce_part = "chain";
  whole.ompi.bcast_part  = "binomial";
  reduce_cut = bcast_cut = whole;
  reduce_cut.ompi.reduce_part_segment_bytes = 36;
  bcast_cut.ompi.bcast_part_segment_bytes   = 36;
  EXPECT_FALSE(same_calls(all_ranks(call, whole), all_ranks(call, reduce_cut)));
  EXPECT_FALSE(same_calls(all_ranks(call, whole), all_ranks(call, bcast_cut)));
  EXPECT_FALSE(same_calls(all_ranks(call, reduce_cut), all_ranks(call, bcast_cut)));
}

TEST(OmpiAlgorithms, RecursiveDoublingFoldsTheRanksBeyondAPowerOfTwo)
{
  // ompi_coll_base_allreduce_intra_recursivedoubling on 6 ranks: p' = 4; ranks 0 and 2 hand their data
  // to 1 and 3 and wait; 1, 3, 4, 5 exchange twice (distances 1, 2); 1 and 3 return the result.
  CollectiveCall call{Collective::AllReduce, 6, 0, 64, 4, ReduceFunc::Sum};
  auto s = all_ranks(call, ompi_opt("recursive_doubling"));
  EXPECT_EQ(sends_of(s[0]), 1);
  EXPECT_EQ(sends_of(s[2]), 1);
  EXPECT_EQ(sends_of(s[1]), 3); // 2 exchanges + the result to rank 0
  EXPECT_EQ(sends_of(s[3]), 3);
  EXPECT_EQ(sends_of(s[4]), 2);
  EXPECT_EQ(sends_of(s[5]), 2);
  for (auto const& sc : s)
    EXPECT_TRUE(sc.program_order);
  // Rank 0 receives only the result, after its send: 2 ops.
  EXPECT_EQ(s[0].ops.size(), 3u); // copy into the temporary buffer, send, receive the result
  EXPECT_EQ(s[0].ops[2].kind, OpKind::Recv);
  EXPECT_EQ(s[0].ops[2].peer, 1);
  // On a power of two no rank folds: 3 exchanges on 8 ranks.
  CollectiveCall c8{Collective::AllReduce, 8, 0, 64, 4, ReduceFunc::Sum};
  for (auto const& sc : all_ranks(c8, ompi_opt("recursive_doubling")))
    EXPECT_EQ(sends_of(sc), 3);
}

TEST(OmpiAlgorithms, SegmentsPipelineTheTreeAlgorithms)
{
  // A pipeline reduce of 1,024 floats on 4 ranks in 1 KiB segments: 4 segments climb the chain 3 -> 2 -> 1 -> 0,
  // each rank sending each segment once it has combined it; the root receives 4 segments.
  CollectiveCall call{Collective::Reduce, 4, 0, 1024, 4, ReduceFunc::Sum};
  auto s = all_ranks(call, ompi_opt("pipeline", 1024));
  for (int r = 1; r < 4; ++r)
    EXPECT_EQ(sends_of(s[static_cast<std::size_t>(r)]), 4) << r;
  EXPECT_EQ(sends_of(s[0]), 0);
  // The inner rank 2 receives segment 1 before it sends segment 0 upward (the receive of the next
  // segment is posted before the previous one is reduced and sent): overlap.
  const auto& ops = s[2].ops;
  int first_send = -1, second_recv = -1, recvs = 0;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].kind == OpKind::Recv && ++recvs == 2 && second_recv < 0)
      second_recv = static_cast<int>(i);
    if (ops[i].kind == OpKind::Send && first_send < 0)
      first_send = static_cast<int>(i);
  }
  EXPECT_LT(second_recv, first_send);
  // Unsegmented (the 4.1 fixed rules): one message per rank.
  for (int r = 1; r < 4; ++r)
    EXPECT_EQ(sends_of(all_ranks(call, ompi_opt("pipeline"))[static_cast<std::size_t>(r)]), 1);
  // COLL_BASE_COMPUTED_SEGCOUNT: segments round to whole elements, the residual rounding up past half.
  EXPECT_EQ(ompi_segment_count(1024, 4, 1024), 256u);
  EXPECT_EQ(ompi_segment_count(0, 4, 1024), 1024u);
  EXPECT_EQ(ompi_segment_count(4096, 4, 1024), 1024u);
  EXPECT_EQ(ompi_segment_count(7, 4, 1024), 2u);
  EXPECT_EQ(ompi_segment_count(5, 4, 1024), 1u);
}

TEST(OmpiAlgorithms, SegmentedSchedulesStayLinearInSegments)
{
  // 4,096 segments of 16 B (64 KiB) on 8 ranks: each op depends on the requests outstanding when it is posted, not on
  // every earlier segment (the root's schedule had 8.4 M dependencies, 2.7 GB for one run). Every algorithm that
  // segments, and the results still computed.
  for (auto [coll, name] : {std::pair{Collective::Bcast, "pipeline"}, std::pair{Collective::Bcast, "binary_tree"},
                            std::pair{Collective::Bcast, "chain"}, std::pair{Collective::Reduce, "pipeline"},
                            std::pair{Collective::Reduce, "binomial"}}) {
    CollectiveCall call{coll, 8, 0, 16384, 4, ReduceFunc::Sum};
    auto s = all_ranks(call, ompi_opt(name, 16));
    for (auto const& rank : s) {
      std::size_t widest = 0;
      for (auto const& op : rank.ops)
        widest = std::max(widest, op.deps.size());
      EXPECT_LE(widest, 8u) << name << ": " << rank.ops.size() << " ops";
    }
    auto res = run_symbolic(s, false);
    ASSERT_TRUE(res.completed) << name << ": " << res.problem;
    EXPECT_EQ(check_outputs(call, res), "") << name;
  }
}

TEST(OmpiAlgorithms, LinearSyncGatherAsksEachRankInTurn)
{
  // The root sends a zero-byte request to rank i only after rank i-1's block has arrived.
  CollectiveCall call{Collective::Gather, 4, 0, 16, 4, ReduceFunc::Sum};
  auto s = all_ranks(call, ompi_opt("linear_sync"));
  std::vector<std::uint32_t> requests, firsts;
  for (std::uint32_t i = 0; i < s[0].ops.size(); ++i) {
    auto const& op = s[0].ops[i];
    if (op.kind == OpKind::Send)
      requests.push_back(i);
    if (op.kind == OpKind::Recv && op.dst.count == 16)
      firsts.push_back(i);
  }
  ASSERT_EQ(requests.size(), 3u);
  ASSERT_EQ(firsts.size(), 3u);
  for (std::size_t k = 1; k < 3; ++k) {
    auto const& deps = s[0].ops[requests[k]].deps;
    EXPECT_NE(std::find(deps.begin(), deps.end(), firsts[k - 1]), deps.end()) << k;
  }
}

TEST(OmpiAlgorithms, ProgramOrderWaitsForSendsToComplete)
{
  // In a program-order schedule a receive that follows a blocking send starts only when the send is
  // complete (a rendezvous send completes once the receiver has the data); in the schedules written as
  // irecv / isend / waitall it starts as soon as the send is posted.
  CollectiveCall call{Collective::Barrier, 4, 0, 0, 4, ReduceFunc::Sum};
  auto s = build_schedule(call, Algorithm::OpenMpi, Protocol::Eager, 1, ompi_opt("linear"));
  ASSERT_EQ(s.ops.size(), 2u);
  std::map<int, std::uint64_t> out, in;
  MpiOrder order(s, [](int r) { return r; }, out, in);
  std::vector<std::uint32_t> started;
  order.start([&](std::uint32_t i) { started.push_back(i); });
  EXPECT_EQ(started, (std::vector<std::uint32_t>{0}));
  order.posted(0, [&](std::uint32_t i) { started.push_back(i); });
  EXPECT_EQ(started.size(), 1u);
  order.done(0, [&](std::uint32_t i) { started.push_back(i); });
  EXPECT_EQ(started, (std::vector<std::uint32_t>{0, 1}));
}

TEST(OmpiAlgorithms, UnknownNamesAndSizesAreErrors)
{
  CollectiveCall call{Collective::Bcast, 4, 0, 16, 4, ReduceFunc::Sum};
  EXPECT_THROW(build_schedule(call, Algorithm::OpenMpi, Protocol::Eager, 0, ompi_opt("no_such_tree")),
               std::invalid_argument);
  CollectiveCall ag{Collective::AllGather, 3, 0, 16, 4, ReduceFunc::Sum};
  EXPECT_THROW(build_schedule(ag, Algorithm::OpenMpi, Protocol::Eager, 0, ompi_opt("two_proc")), std::invalid_argument);
  EXPECT_FALSE(ompi_has(Collective::Copy, "linear"));
}

TEST(OmpiAlgorithms, TheBarriersSynchronousSendWaitsForItsAcknowledgement)
{
  // ompi_coll_base_barrier_intra_recursivedoubling on 3 ranks: rank 2 (beyond p' = 2) signals rank 0 and waits;
  // 0 and 1 exchange; 0 releases 2 with a synchronous send (MCA_PML_BASE_SEND_SYNCHRONOUS), complete when 2 has
  // matched it: 2 acknowledges, and 0 leaves the barrier last, after the acknowledgement.
  CollectiveCall call{Collective::Barrier, 3, 0, 0, 4, ReduceFunc::Sum};
  auto s = all_ranks(call, ompi_opt("recursive_doubling"));
  ASSERT_EQ(s.size(), 3u);
  auto const& r0 = s[0].ops;
  ASSERT_FALSE(r0.empty());
  EXPECT_EQ(r0.back().kind, OpKind::Recv); // the acknowledgement
  EXPECT_EQ(r0.back().peer, 2);
  EXPECT_EQ(sends_of(s[0]), 2);             // to 1, then the release to 2
  EXPECT_EQ(s[2].ops.back().kind, OpKind::Send); // 2's acknowledgement, after its release arrived
  EXPECT_EQ(sends_of(s[2]), 2);
  EXPECT_EQ(sends_of(s[1]), 1);
  EXPECT_TRUE(run_symbolic(s, false).completed);
}
