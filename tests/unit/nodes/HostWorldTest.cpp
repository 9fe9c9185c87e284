// The hosts' MPI library engine-free: a HostWorld (tests/support/HostWorld.hpp) of CPU hosts with RDMA NICs on the
// kernel's clock, in-process, each rank a task actor with real bytes.
#include "protocols/mpi/MpiPlan.hpp"
#include "tests/support/HostWorld.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

using namespace nafsim;
using namespace nafsim::testing;

namespace {
constexpr const char* kStar8 = R"({"preset": "accl-cpu-cx5", "topology": {"kind": "star", "hosts": 8}})";

coll::CollectiveCall gather(int ranks, std::uint64_t count)
{
  coll::CollectiveCall c;
  c.collective = coll::Collective::Gather;
  c.size       = ranks;
  c.count      = count;
  return c;
}

coll::AlgorithmOptions ompi(const char* name)
{
  coll::AlgorithmOptions o;
  o.ompi.name = name;
  return o;
}

/// The root's output: every rank's input in rank order.
void expect_gathered(const std::vector<HostWorld::Rank>& ranks, std::uint64_t block)
{
  auto const& out = ranks[0].bufs.buf[static_cast<int>(coll::Buf::Output)];
  ASSERT_EQ(out.size(), block * ranks.size());
  for (std::size_t r = 0; r < ranks.size(); ++r)
    for (std::uint64_t i = 0; i < block; i += 97)
      ASSERT_EQ(out[r * block + i], static_cast<std::byte>((r * 31 + i) % 256)) << "rank " << r << " byte " << i;
}
} // namespace

// A collective of count 0: the library returns before its collective component (Open MPI 4.1's ompi/mpi/c
// `if (0 == count) return MPI_SUCCESS`, MPICH's intra_auto alike): the call's overhead, no message, and the tables
// say so; a barrier still synchronises.
TEST(HostWorld, ACollectiveOfCountZeroReturnsAtOnceButABarrierSynchronises)
{
  for (auto coll : {coll::Collective::AllReduce, coll::Collective::Gather, coll::Collective::AllToAll}) {
    coll::CollectiveCall c;
    c.collective = coll;
    c.size       = 8;
    c.count      = 0;
    auto plan    = mpi::plan_collective(mpi::Library::OpenMpi, c);
    EXPECT_EQ(plan.library_algorithm, "none: count 0 (the library returns at once)");
    EXPECT_EQ(mpi::schedule_name(plan), "none");
    HostWorld w(kStar8);
    auto ranks = w.run(c, plan.algorithm, plan.options);
    for (std::size_t r = 0; r < 8; ++r) {
      EXPECT_LT(ranks[r].end, SimTime::us(1)) << coll::collective_name(coll) << " rank " << r;
      EXPECT_EQ(w.mpi(r).counters().eager_sent + w.mpi(r).counters().rendezvous_sent, 0u);
      EXPECT_EQ(w.mpi(r).counters().calls, 1u);
    }
  }
  coll::CollectiveCall b;
  b.collective = coll::Collective::Barrier;
  b.size       = 8;
  auto plan    = mpi::plan_collective(mpi::Library::OpenMpi, b);
  HostWorld w(kStar8);
  auto ranks = w.run(b, plan.algorithm, plan.options);
  EXPECT_GT(w.mpi(0).counters().eager_sent, 0u) << "a barrier's messages";
  EXPECT_GT(ranks[0].end, SimTime::us(1));
}

// Open MPI's binomial gather of 64 KiB per rank on 8 hosts: the root takes its subtrees in order, so later ones
// arrive unexpected. With two receives posted, the arrivals beyond them are refused (RNR) and resent, the unexpected
// ones keep their buffers while fresh receives are posted, and every byte arrives. (When an unexpected arrival held
// its posted receive, the root waited for rank 1 behind two held by later ranks: a deadlock.) The hosts sit five to a
// leaf under a spine, so that the subtrees beyond it come late enough for later ones to arrive unexpected (on one
// switch the root's receives keep up with them).
TEST(HostWorld, AGatherWhoseRootPostsTwoReceivesDeliversEveryByte)
{
  HostWorld w(R"({"preset": "accl-cpu-cx5", "node": {"host": {"mpi": {"eager_buffers": 2}}},
                  "topology": {"leaf_spine": {"hosts_per_leaf": 5}}})");
  const std::uint64_t count = 16384; // 64 KiB of float32 per rank
  auto ranks                = w.run(gather(8, count), coll::Algorithm::OpenMpi, ompi("binomial"));
  expect_gathered(ranks, count * 4);
  auto const& root = w.mpi(0).counters();
  EXPECT_GT(root.bounce_refusals, 0u);
  EXPECT_EQ(root.bounce_max_used, 2u);
  EXPECT_GT(root.bounce_buffers_max, 2u) << "more buffers in use than receives posted";
  EXPECT_GT(root.unexpected, 0u);
  EXPECT_EQ(w.scheduler().actor_wakeups(), 0u) << "no SimGrid actor in a HostWorld";
}

// With the preset's 4,095 receives nothing is refused, and the same gather is much faster than with two (each
// refusal costs the sender the RNR timer, 0.96 ms on accl-cpu-cx5).
TEST(HostWorld, APresetsReceiveQueueRefusesNothing)
{
  HostWorld w(kStar8);
  const std::uint64_t count = 16384;
  auto ranks                = w.run(gather(8, count), coll::Algorithm::OpenMpi, ompi("binomial"));
  expect_gathered(ranks, count * 4);
  EXPECT_EQ(w.mpi(0).counters().bounce_refusals, 0u);
  HostWorld tight(R"({"preset": "accl-cpu-cx5", "topology": {"kind": "star", "hosts": 8},
                      "node": {"host": {"mpi": {"eager_buffers": 2}}}})");
  auto slow = tight.run(gather(8, count), coll::Algorithm::OpenMpi, ompi("binomial"));
  EXPECT_GT(slow[0].end, ranks[0].end + SimTime::us(960));
}

// At flow fidelity a message is one sequence number, acknowledged once it is all in, so the hosts' ConnectX-class
// adaptive retransmission (256 us first) re-requested every READ response longer than that, with nothing lost: a
// 4 MiB bcast on 8 hosts came out 82 % slower than packet by packet, with 25 timeouts. Now no timer fires, and the
// two fidelities agree as on the CCLO's runs.
TEST(HostWorld, AtFlowFidelityNoRetransmissionTimerFiresOnALosslessNetwork)
{
  coll::CollectiveCall c;
  c.collective = coll::Collective::Bcast;
  c.size       = 8;
  c.count      = 4 << 20;
  c.elem_bytes = 1;
  auto plan    = mpi::plan_collective(mpi::Library::OpenMpi, c);
  SimTime end[2];
  for (int flow = 0; flow < 2; ++flow) {
    HostWorld w(fmt::format(R"({{"preset": "accl-cpu-cx5", "topology": {{"kind": "star", "hosts": 8}},
                                 "network": {{"fidelity": "{}"}}}})",
                            flow ? "flow" : "packet"));
    auto ranks = w.run(c, plan.algorithm, plan.options);
    for (std::size_t r = 0; r < 8; ++r) {
      end[flow] = std::max(end[flow], ranks[r].end);
      EXPECT_EQ(w.cluster().poe(r).counters().timeouts, 0u) << (flow ? "flow" : "packet") << " rank " << r;
    }
  }
  EXPECT_NEAR(end[1].us(), end[0].us(), 0.01 * end[0].us());
}

// A rendezvous transfer larger than the NIC's largest message is read as several READs posted together (UCX's GET
// split by max_get_zcopy): a 3 GiB message was one READ above RoCE's 2 GiB and failed when posted. With max_read at
// 64 KiB the binomial gather of 1 MiB per rank reads every subtree's block in pieces, puts every byte in its place,
// and takes about as long as in one READ each (the pieces pipeline on the queue pair).
TEST(HostWorld, ARendezvousTransferAboveTheLargestReadIsReadInPieces)
{
  const std::uint64_t count = 1 << 18; // 1 MiB of float32 per rank
  HostWorld whole(kStar8);
  auto one = whole.run(gather(8, count), coll::Algorithm::OpenMpi, ompi("binomial"));
  expect_gathered(one, count * 4);
  HostWorld split(R"({"preset": "accl-cpu-cx5", "topology": {"kind": "star", "hosts": 8},
                      "node": {"host": {"mpi": {"max_read": "64KiB"}}}})");
  auto pieces = split.run(gather(8, count), coll::Algorithm::OpenMpi, ompi("binomial"));
  expect_gathered(pieces, count * 4);
  std::uint64_t reads_whole = 0, reads_split = 0;
  for (std::size_t r = 0; r < 8; ++r) {
    reads_whole += whole.mpi(r).counters().reads;
    reads_split += split.mpi(r).counters().reads;
  }
  // The binomial gather's 7 transfers carry 1 + 2 + 4 blocks into the root and 1 + 2 + 1 elsewhere: 12 MiB, 192
  // pieces of 64 KiB.
  EXPECT_EQ(reads_whole, 7u);
  EXPECT_EQ(reads_split, 192u);
  EXPECT_NEAR(pieces[0].end.us(), one[0].end.us(), 0.02 * one[0].end.us());
}

// A compute phase of every core holds the rank's MPI progress (MpiProcess::hold_progress: Open MPI and MPICH over
// UCX run no progress thread): a 1 MiB allreduce on 2 hosts whose rank 1 computes from 0 to 300 us ends only after
// the phase, with the same bytes; rank 1's library had CPU work held, rank 0's none (it only waits for rank 1).
TEST(HostWorld, AComputePhaseOfEveryCoreHoldsTheRanksMpiProgressUntilItEnds)
{
  constexpr const char* kStar2 = R"({"preset": "accl-cpu-cx5", "topology": {"kind": "star", "hosts": 2}})";
  coll::CollectiveCall c;
  c.collective = coll::Collective::AllReduce;
  c.size       = 2;
  c.count      = 1 << 18;
  auto plan    = mpi::plan_collective(mpi::Library::OpenMpi, c);
  HostWorld free_world(kStar2);
  auto unheld = free_world.run(c, plan.algorithm, plan.options);
  const SimTime phase = SimTime::us(300);
  ASSERT_LT(unheld[1].end, phase) << "the test needs a call shorter than the phase";

  HostWorld w(kStar2);
  w.mpi(1).hold_progress();
  w.scheduler().call_at(phase, [&w] { w.mpi(1).release_progress(); });
  auto held = w.run(c, plan.algorithm, plan.options);
  for (std::size_t r = 0; r < 2; ++r) {
    EXPECT_GT(held[r].end, phase) << "rank " << r << " ended during rank 1's phase";
    EXPECT_EQ(held[r].bufs.buf[static_cast<int>(coll::Buf::Output)],
              unheld[r].bufs.buf[static_cast<int>(coll::Buf::Output)])
        << "rank " << r;
  }
  EXPECT_GT(w.mpi(1).counters().progress_held, 0u);
  EXPECT_EQ(w.mpi(0).counters().progress_held, 0u);
  EXPECT_EQ(free_world.mpi(1).counters().progress_held, 0u);
}

// MPICH over TCP (CH3's nemesis tcp): a message whose receive is posted is read by the kernel straight into the user
// buffer past its first recv of 1,024 B, which the library copies out of a temporary buffer; an unexpected one waits
// whole in a temporary buffer and is copied when its receive comes. A 2-rank gather of 64 KiB (eager): the root
// copies 1,024 - 64 B (the header) of the expected message, and all 64 KiB of one that came before its receive.
TEST(HostWorld, MpichOverTcpCopiesAnExpectedMessagesFirstRecvOnlyAndAnUnexpectedOneWhole)
{
  constexpr const char* kTcp2 = R"({"preset": "accl-cpu-mpich-tcp", "topology": {"kind": "star", "hosts": 2}})";
  const std::uint64_t block = 64 * 1024;
  auto copied = [&](SimTime root_late) {
    HostWorld w(kTcp2);
    coll::CollectiveCall barrier;
    barrier.collective = coll::Collective::Barrier;
    barrier.size       = 2;
    w.run(barrier, coll::Algorithm::Flat); // both libraries up (their receive buffers posted)
    const std::uint64_t before = w.mpi(0).counters().bytes_copied;
    const SimTime now          = w.scheduler().now();
    auto ranks = w.run(gather(2, block / 4), coll::Algorithm::Flat, {}, {now + root_late, now});
    expect_gathered(ranks, block);
    EXPECT_EQ(w.mpi(0).counters().unexpected, root_late > SimTime::zero() ? 1u : 0u);
    return w.mpi(0).counters().bytes_copied - before;
  };
  const std::uint64_t expected = copied(SimTime::zero()), unexpected = copied(SimTime::us(500));
  EXPECT_EQ(unexpected - expected, block - (1024 - 64));
}
