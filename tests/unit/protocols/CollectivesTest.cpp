// Collective schedules: every algorithm delivers what its collective defines (checked element by
// element by the symbolic executor), sends the closed-form data volume, and the firmware's
// selection rules pick what ACCL+ picks.
#include "protocols/collectives/Algorithms.hpp"
#include "protocols/collectives/MpiOrder.hpp"
#include "protocols/collectives/Selection.hpp"
#include "protocols/collectives/SymbolicRun.hpp"

#include <fmt/format.h>
#include <functional>
#include <map>
#include <gtest/gtest.h>
#include <numeric>

using namespace nafsim::coll;

namespace {

struct Case {
  Collective c;
  Algorithm a;
  Protocol p;
};

std::vector<Schedule> all_ranks(const CollectiveCall& call, Algorithm a, Protocol p, const AlgorithmOptions& opt = {})
{
  std::vector<Schedule> v;
  for (int r = 0; r < call.size; ++r)
    v.push_back(build_schedule(call, a, p, r, opt));
  return v;
}

SymbolicResult run(const CollectiveCall& call, Algorithm a, Protocol p, const AlgorithmOptions& opt = {})
{
  return run_symbolic(all_ranks(call, a, p, opt), p == Protocol::Rendezvous);
}

bool rooted(Collective c)
{
  return c == Collective::Bcast || c == Collective::Scatter || c == Collective::Gather || c == Collective::Reduce;
}

const std::vector<Case> kCases = {
    {Collective::Bcast, Algorithm::Flat, Protocol::Eager},
    {Collective::Bcast, Algorithm::Flat, Protocol::Rendezvous},
    {Collective::Bcast, Algorithm::Binomial, Protocol::Rendezvous},
    {Collective::Scatter, Algorithm::Flat, Protocol::Eager},
    {Collective::Scatter, Algorithm::Flat, Protocol::Rendezvous},
    {Collective::Gather, Algorithm::Ring, Protocol::Eager},
    {Collective::Gather, Algorithm::Flat, Protocol::Rendezvous},
    {Collective::Gather, Algorithm::Binomial, Protocol::Rendezvous},
    {Collective::AllGather, Algorithm::Ring, Protocol::Eager},
    {Collective::AllGather, Algorithm::Ring, Protocol::Rendezvous},
    {Collective::AllGather, Algorithm::RecursiveDoubling, Protocol::Rendezvous},
    {Collective::Reduce, Algorithm::Ring, Protocol::Eager},
    {Collective::Reduce, Algorithm::Flat, Protocol::Rendezvous},
    {Collective::Reduce, Algorithm::Binomial, Protocol::Rendezvous},
    {Collective::AllReduce, Algorithm::Ring, Protocol::Eager},
    {Collective::AllReduce, Algorithm::ReduceBcast, Protocol::Rendezvous},
    {Collective::AllReduce, Algorithm::RecursiveDoubling, Protocol::Rendezvous},
    {Collective::AllReduce, Algorithm::Rabenseifner, Protocol::Rendezvous},
    {Collective::ReduceScatter, Algorithm::Ring, Protocol::Eager},
    {Collective::ReduceScatter, Algorithm::ReduceScatterComposite, Protocol::Rendezvous},
    {Collective::AllToAll, Algorithm::Flat, Protocol::Rendezvous},
    {Collective::AllToAll, Algorithm::Pairwise, Protocol::Rendezvous},
    {Collective::Barrier, Algorithm::Flat, Protocol::Rendezvous},
};

} // namespace

TEST(Collectives, EveryAlgorithmComputesItsCollective)
{
  int checked = 0;
  for (auto const& k : kCases) {
    for (int p : {1, 2, 3, 4, 5, 7, 8, 16}) {
      for (std::uint64_t count : {1ULL, 7ULL, 3ULL * p + 1, 64ULL}) {
        for (int root : {0, p - 1, p / 2}) {
          if (!rooted(k.c) && root != 0)
            continue;
          CollectiveCall call{k.c, p, root, count, 4, ReduceFunc::Sum};
          if (!check_applicable(call, k.a).empty())
            continue;
          // Eager runs also with a small Rx-buffer segment, and composites with both sub-algorithms.
          for (std::uint64_t seg : {0ULL, 5ULL}) {
            for (Algorithm sub : {Algorithm::Flat, Algorithm::Binomial}) {
              AlgorithmOptions opt;
              opt.segment_elems = seg;
              opt.gather_fanin  = 2;
              opt.reduce_sub    = sub;
              opt.bcast_sub     = sub;
              auto res          = run(call, k.a, k.p, opt);
              std::string what  = check_outputs(call, res);
              ASSERT_EQ(what, "") << collective_name(k.c) << " " << algorithm_name(k.a) << " " << protocol_name(k.p)
                                  << " p=" << p << " root=" << root << " count=" << count << " seg=" << seg
                                  << " sub=" << algorithm_name(sub);
              ++checked;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 1500);
}

TEST(Collectives, DataVolumesMatchClosedForms)
{
  const int p           = 8;
  const std::uint64_t n = 64;
  auto sent             = [&](Collective c, Algorithm a, Protocol pr, int root = 0) {
    return run(CollectiveCall{c, p, root, n, 4, ReduceFunc::Sum}, a, pr).elements_sent;
  };
  auto total = [](const std::vector<std::uint64_t>& v) { return std::accumulate(v.begin(), v.end(), 0ULL); };

  // Ring allreduce: every rank sends 2 (p-1)/p n.
  for (auto s : sent(Collective::AllReduce, Algorithm::Ring, Protocol::Eager))
    EXPECT_EQ(s, 2 * (p - 1) * n / p);
  // Rabenseifner: the same volume; recursive doubling: log2(p) n.
  for (auto s : sent(Collective::AllReduce, Algorithm::Rabenseifner, Protocol::Rendezvous))
    EXPECT_EQ(s, 2 * (p - 1) * n / p);
  for (auto s : sent(Collective::AllReduce, Algorithm::RecursiveDoubling, Protocol::Rendezvous))
    EXPECT_EQ(s, 3 * n);
  // Flat bcast: the root sends (p-1) n, nobody else sends.
  auto fb = sent(Collective::Bcast, Algorithm::Flat, Protocol::Rendezvous, 3);
  EXPECT_EQ(fb[3], (p - 1) * n);
  EXPECT_EQ(total(fb), (p - 1) * n);
  // Binomial bcast: (p-1) n in all, the root sends ceil(log2 p) messages.
  CollectiveCall bb{Collective::Bcast, p, 3, n, 4, ReduceFunc::Sum};
  auto bres = run(bb, Algorithm::Binomial, Protocol::Rendezvous);
  EXPECT_EQ(total(bres.elements_sent), (p - 1) * n);
  EXPECT_EQ(bres.messages_sent[3], 3u);
  // Ring gather: the rank at distance k from the root sends k blocks: p(p-1)/2 n in all.
  auto rg = sent(Collective::Gather, Algorithm::Ring, Protocol::Eager, 2);
  EXPECT_EQ(total(rg), p * (p - 1) / 2 * n);
  EXPECT_EQ(rg[1], (p - 1) * n) << "the rank before the root relays everything";
  EXPECT_EQ(rg[3], n) << "the rank after the root sends only its own";
  // Flat gather and reduce: every non-root sends n.
  for (auto [c, a] : {std::pair{Collective::Gather, Algorithm::Flat}, std::pair{Collective::Reduce, Algorithm::Flat},
                      std::pair{Collective::Reduce, Algorithm::Ring}}) {
    auto v = sent(c, a, a == Algorithm::Ring ? Protocol::Eager : Protocol::Rendezvous, 5);
    for (int r = 0; r < p; ++r)
      EXPECT_EQ(v[r], r == 5 ? 0 : n) << algorithm_name(a) << " rank " << r;
  }
  // Binomial reduce: every non-root sends n once.
  auto br = sent(Collective::Reduce, Algorithm::Binomial, Protocol::Rendezvous, 5);
  EXPECT_EQ(total(br), (p - 1) * n);
  // Allgather (ring and recursive doubling), all-to-all (flat and pairwise): (p-1) n per rank.
  for (auto [c, a] : {std::pair{Collective::AllGather, Algorithm::Ring},
                      std::pair{Collective::AllGather, Algorithm::RecursiveDoubling},
                      std::pair{Collective::AllToAll, Algorithm::Flat},
                      std::pair{Collective::AllToAll, Algorithm::Pairwise}})
    for (auto s : sent(c, a, Protocol::Rendezvous))
      EXPECT_EQ(s, (p - 1) * n) << algorithm_name(a);
  // Ring reduce-scatter: (p-1) chunks of n per rank.
  for (auto s : sent(Collective::ReduceScatter, Algorithm::Ring, Protocol::Eager))
    EXPECT_EQ(s, (p - 1) * n);
}

TEST(Collectives, EagerSegmentationFollowsTheFirmware)
{
  // Flat eager bcast of 12 elements with 5-element Rx buffers: 3 segments, each sent to every rank
  // before the next (the firmware's segment loop), up to 9 moves in flight.
  CollectiveCall c{Collective::Bcast, 4, 1, 12, 4, ReduceFunc::Sum};
  AlgorithmOptions o;
  o.segment_elems = 5;
  auto root       = build_schedule(c, Algorithm::Flat, Protocol::Eager, 1, o);
  ASSERT_EQ(root.ops.size(), 9u);
  EXPECT_EQ(root.ops[0].peer, 0);
  EXPECT_EQ(root.ops[1].peer, 2);
  EXPECT_EQ(root.ops[3].a.offset, 5u);
  EXPECT_EQ(root.ops[8].a.count, 2u);
  EXPECT_EQ(root.max_inflight, 9u);
  // Ring allreduce segments are rounded down to a multiple of the rank count.
  CollectiveCall ar{Collective::AllReduce, 4, 0, 20, 4, ReduceFunc::Sum};
  o.segment_elems = 10; // -> 8
  auto s          = build_schedule(ar, Algorithm::Ring, Protocol::Eager, 0, o);
  EXPECT_EQ(s.ops[0].a.count, 2u) << "first segment of 8 elements, 4 chunks of 2";
}

TEST(Collectives, FirmwareSelectionRules)
{
  CcloTuning t;
  auto pick = [&](Collective c, int p, std::uint64_t bytes) {
    auto s = cclo_select(CollectiveCall{c, p, 0, bytes / 4, 4, ReduceFunc::Sum}, t, false, false);
    return std::string(protocol_name(s.protocol)) + "/" + algorithm_name(s.algorithm);
  };
  EXPECT_EQ(pick(Collective::Bcast, 8, 1024), "eager/flat");
  EXPECT_EQ(pick(Collective::Bcast, 3, 1 << 20), "rendezvous/flat") << "BCAST_FLAT_TREE_MAX_RANKS = 3";
  EXPECT_EQ(pick(Collective::Bcast, 4, 1 << 20), "rendezvous/binomial");
  EXPECT_EQ(pick(Collective::Gather, 8, 1024), "eager/ring");
  EXPECT_EQ(pick(Collective::Gather, 8, 1 << 20), "rendezvous/flat");
  EXPECT_EQ(pick(Collective::Reduce, 8, 1024), "eager/ring");
  EXPECT_EQ(pick(Collective::Reduce, 4, 1 << 20), "rendezvous/flat") << "REDUCE_FLAT_TREE_MAX_RANKS = 4";
  EXPECT_EQ(pick(Collective::Reduce, 8, 1 << 20), "rendezvous/binomial");
  EXPECT_EQ(pick(Collective::AllReduce, 8, 1024), "eager/ring");
  EXPECT_EQ(pick(Collective::AllReduce, 8, 1 << 20), "rendezvous/reduce-bcast");
  EXPECT_EQ(pick(Collective::ReduceScatter, 8, 1 << 20), "rendezvous/reduce-scatter-composite");
  EXPECT_EQ(pick(Collective::AllToAll, 8, 64), "rendezvous/flat") << "all-to-all is always rendezvous";
  EXPECT_EQ(pick(Collective::Barrier, 8, 0), "rendezvous/flat");

  // With 128 KiB > REDUCE_FLAT_TREE_MAX_COUNT the reduce switches to the tree above 4 ranks only; 8 KiB, above a
  // 4 KiB max_eager_size but within REDUCE_FLAT_TREE_MAX_COUNT (32 KiB), is the rendezvous flat tree.
  t.max_eager_size = 4 * 1024;
  EXPECT_EQ(pick(Collective::Reduce, 8, 8 * 1024), "rendezvous/flat");
  EXPECT_EQ(pick(Collective::Reduce, 5, 128 * 1024), "rendezvous/binomial");
  // Gather fan-in is limited above GATHER_FLAT_TREE_MAX_COUNT.
  auto g = cclo_select(CollectiveCall{Collective::Gather, 8, 0, 16384, 4, ReduceFunc::Sum}, t, false, false);
  EXPECT_EQ(g.options.gather_fanin, 2u);
  // Compression or streams keep everything eager; forcing is possible, impossible forcing throws.
  auto e = cclo_select(CollectiveCall{Collective::Bcast, 8, 0, 1 << 20, 4, ReduceFunc::Sum}, t, true, false);
  EXPECT_EQ(e.protocol, Protocol::Eager);
  auto f = cclo_select(CollectiveCall{Collective::AllReduce, 8, 0, 1024, 4, ReduceFunc::Sum}, t, false, false,
                       Protocol::Rendezvous, Algorithm::Rabenseifner);
  EXPECT_EQ(f.algorithm, Algorithm::Rabenseifner);
  EXPECT_THROW(cclo_select(CollectiveCall{Collective::AllReduce, 6, 0, 1024, 4, ReduceFunc::Sum}, t, false, false,
                           std::nullopt, Algorithm::RecursiveDoubling),
               std::invalid_argument);
}

// The rendezvous flat reduce writes rank i's block at n x i of the root's first spare buffer (the firmware's reduce():
// non-roots only): p blocks of room, or p - 1 when the root is the last rank, whose slot nobody writes.
TEST(Collectives, TheFlatReducesSpareBufferHoldsTheNonRootsBlocksOnly)
{
  auto scratch = [](int root) {
    CollectiveCall c{Collective::Reduce, 4, root, 1024, 4, ReduceFunc::Sum};
    return build_schedule(c, Algorithm::Flat, Protocol::Rendezvous, root, {}).scratch[0];
  };
  EXPECT_EQ(scratch(0), 4u * 1024);
  EXPECT_EQ(scratch(1), 4u * 1024);
  EXPECT_EQ(scratch(3), 3u * 1024);
}

TEST(Collectives, SymbolicRunFindsDeadlocksAndMistakes)
{
  // Both ranks wait to receive before sending: a deadlock under rendezvous and eager alike.
  CollectiveCall c{Collective::AllGather, 2, 0, 4, 4, ReduceFunc::Sum};
  std::vector<Schedule> s(2);
  for (int r = 0; r < 2; ++r) {
    s[r].call = c;
    s[r].rank = r;
    Op rv;
    rv.kind = OpKind::Recv;
    rv.peer = 1 - r;
    rv.dst  = {Buf::Output, 0, 4};
    Op sd;
    sd.kind = OpKind::Send;
    sd.peer = 1 - r;
    sd.a    = {Buf::Input, 0, 4};
    sd.deps = {0};
    s[r].ops = {rv, sd};
  }
  auto res = run_symbolic(s, false);
  EXPECT_FALSE(res.completed);
  EXPECT_NE(res.problem.find("deadlock"), std::string::npos) << res.problem;
  // Send before receive works when eager buffers hold the message, not under rendezvous.
  for (int r = 0; r < 2; ++r) {
    std::swap(s[r].ops[0], s[r].ops[1]);
    s[r].ops[0].deps = {};
    s[r].ops[1].deps = {0};
  }
  EXPECT_TRUE(run_symbolic(s, false).completed);
  EXPECT_FALSE(run_symbolic(s, true).completed);
  // A reduction that counts a rank twice is caught.
  CollectiveCall ar{Collective::AllReduce, 2, 0, 2, 4, ReduceFunc::Sum};
  auto bad                = all_ranks(ar, Algorithm::RecursiveDoubling, Protocol::Rendezvous);
  bad[0].ops.back().b = {Buf::Input, 0, 2}; // add the own input a second time instead of the partner's
  auto r2                 = run_symbolic(bad, true);
  EXPECT_NE(check_outputs(ar, r2), "");
}

TEST(MpiOrder, StartsEachOpOnceAndReceivesAfterTheirSendIsPosted)
{
  // op 0 sends, op 1 receives after it (posted with the send), op 2 waits for op 1 to be done, op 3 sends to
  // another peer with no dependency.
  Schedule s;
  s.ops.resize(4);
  s.ops[0].kind = OpKind::Send, s.ops[0].peer = 1;
  s.ops[1].kind = OpKind::Recv, s.ops[1].peer = 1, s.ops[1].deps = {0};
  s.ops[2].kind = OpKind::Send, s.ops[2].peer = 1, s.ops[2].deps = {1};
  s.ops[3].kind = OpKind::Send, s.ops[3].peer = 2;
  std::map<int, std::uint64_t> out{{1, 5}}, in;
  MpiOrder order(s, [](int r) { return r; }, out, in);
  std::vector<std::uint32_t> started;
  std::function<void(std::uint32_t)> issue = [&](std::uint32_t i) {
    started.push_back(i);
    if (op_sends(s.ops[i].kind))
      order.posted(i, issue); // the executor reports a send posted as it starts it
  };
  order.start(issue);
  EXPECT_EQ(started, (std::vector<std::uint32_t>{0, 1, 3})); // op 1 once, though it became ready during the start
  order.done(0, issue);
  order.done(1, issue);
  EXPECT_EQ(started, (std::vector<std::uint32_t>{0, 1, 3, 2}));
  // Matching numbers continue the caller's counters, per peer.
  EXPECT_EQ(order.send_seq(0), 6u);
  EXPECT_EQ(order.send_seq(2), 7u);
  EXPECT_EQ(order.send_seq(3), 1u);
  EXPECT_EQ(order.recv_seq(1), 1u);
  EXPECT_EQ(out.at(1), 7u);
}

TEST(Segments, CutATransferAsTheFirmwareDoes)
{
  // Every piece in order, their counts summing to the transfer, all but the last of the segment's size; one piece
  // when the segment is 0 or at least the transfer; one empty piece for an empty transfer.
  for (std::uint64_t count : {0ULL, 1ULL, 7ULL, 8ULL, 9ULL, 1000ULL, 1ULL << 40})
    for (std::uint64_t seg : {0ULL, 1ULL, 3ULL, 8ULL, 1000ULL, 1ULL << 41}) {
      if (seg > 0 && count / seg > 1000)
        continue; // (billions of pieces)
      std::vector<std::pair<std::uint64_t, std::uint64_t>> want;
      if (seg == 0 || count <= seg)
        want.emplace_back(0, count);
      else
        for (std::uint64_t off = 0; off < count; off += seg)
          want.emplace_back(off, std::min(seg, count - off));
      const Segments s = segments(count, seg);
      std::vector<std::pair<std::uint64_t, std::uint64_t>> got(s.begin(), s.end());
      EXPECT_EQ(got, want) << count << " in " << seg;
      ASSERT_EQ(s.size(), want.size());
      EXPECT_EQ(s[s.size() - 1], want.back());
    }
}
