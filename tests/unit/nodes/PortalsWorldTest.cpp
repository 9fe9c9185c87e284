// Engine-free tests of Portals nodes (nodes/pac) in a small in-process world: two to eight PortalsNi on a
// fabric, on the engine's clock or on the PAC paper's virtual platform (untimed bus, time slices), driven by
// callbacks on a standalone scheduler (no SimGrid, no scenario).
#include "nodes/pac/PortalsNi.hpp"
#include "nodes/pac/TimeSlices.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

using namespace nafsim;
using namespace nafsim::nodes;

namespace {

struct PortalsWorld {
  Scheduler sched;
  PortalsConfig cfg;
  std::unique_ptr<TimeSlices> slices;
  std::unique_ptr<PortalsFabric> fabric;
  std::vector<std::unique_ptr<NodeClock>> clocks;
  std::vector<std::unique_ptr<PortalsNi>> nis;

  /// `n` nodes running `engine`; quantum 0: the engine's clock over the untimed bus; else time slices.
  PortalsWorld(int n, SimTime quantum, PortalsEngine engine = PortalsEngine::Pac, bool constant_copy = false,
               PortalsProtocol proto = PortalsProtocol::Eager, Bytes eager_limit = Bytes{0})
  {
    cfg.engine                = engine;
    cfg.max_msg_size          = Bytes{1 << 20}; // no message-buffer interrupts in these tests
    cfg.pac.constant_copy     = constant_copy;
    cfg.arm_a9.constant_copy  = false;
    cfg.fabric                = PortalsFabricKind::Untimed;
    cfg.quantum               = quantum;
    fabric                    = std::make_unique<UntimedPortalsFabric>(sched, static_cast<std::size_t>(n));
    if (quantum > SimTime{})
      slices = std::make_unique<TimeSlices>(static_cast<std::size_t>(n), quantum);
    for (int i = 0; i < n; ++i) {
      if (slices)
        clocks.push_back(std::make_unique<SlicedClock>(sched, *slices, static_cast<std::size_t>(i)));
      else
        clocks.push_back(std::make_unique<EngineClock>(sched));
      nis.push_back(std::make_unique<PortalsNi>(i, n, cfg, proto, eager_limit, *clocks.back(), *fabric));
    }
  }
  /// Node `from` sends `bytes` to `to` when its clock reads `t`.
  void send_at(int from, int to, SimTime t, std::uint64_t bytes)
  {
    clocks[static_cast<std::size_t>(from)]->at(
        t, [this, from, to, bytes] { nis[static_cast<std::size_t>(from)]->isend(to, 7, bytes, {}); });
  }
  /// Node `at` posts a receive from `from` when its clock reads `t`; `done` gets its clock's date at completion.
  void recv_at(int at, int from, SimTime t, std::uint64_t bytes, SimTime* done)
  {
    NodeClock& c = *clocks[static_cast<std::size_t>(at)];
    c.at(t, [this, at, from, bytes, done, &c] {
      nis[static_cast<std::size_t>(at)]->irecv(from, 7, bytes, [done, &c] { *done = c.now(); });
    });
  }
};

} // namespace

TEST(TimeSlices, NodesRunOneAfterAnotherInRounds)
{
  const TimeSlices ts(4, SimTime::us(10));
  // Round 0: node 0's clock 0-10 us at engine 0-10 us, node 2's at 20-30 us; round 1 of node 1 at 50-60 us.
  EXPECT_EQ(ts.engine_date(0, SimTime::us(3)), SimTime::us(3));
  EXPECT_EQ(ts.engine_date(2, SimTime::us(3)), SimTime::us(23));
  EXPECT_EQ(ts.engine_date(1, SimTime::us(13)), SimTime::us(53));
  EXPECT_EQ(ts.engine_date(3, SimTime::us(10)), SimTime::us(70)); // a slice's end is the next slice's start
  for (std::size_t n = 0; n < 4; ++n)
    for (double t : {0.0, 0.5, 9.999, 10.0, 17.25, 123.0})
      EXPECT_EQ(ts.local(n, ts.engine_date(n, SimTime::us(t))), SimTime::us(t)) << n << " " << t;
  // Outside its slice a node reads the start of its next one: node 2 at engine 5 us (node 0 running) reads 0,
  // node 0 at engine 25 us (node 2 running) reads 10 us (its round-1 slice).
  EXPECT_EQ(ts.local(2, SimTime::us(5)), SimTime{});
  EXPECT_EQ(ts.local(0, SimTime::us(25)), SimTime::us(10));
  EXPECT_EQ(ts.round_start(SimTime::us(1)), SimTime::us(40));
  EXPECT_EQ(ts.round_start(SimTime::us(40)), SimTime::us(40));
  EXPECT_THROW(TimeSlices(0, SimTime::us(1)), std::invalid_argument);
  EXPECT_THROW(TimeSlices(2, SimTime{}), std::invalid_argument);
}

TEST(PortalsWorld, AReceivePostedAfterItsMessageArrivedWithinASliceTakesTheUnexpectedPath)
{
  // Node 1 posts its receive at 2 us of its clock, node 0 sends at 5 us of its own. At once (a timed platform)
  // the receive comes first: expected. In slices of 10 us node 0's slice runs first and writes the message at 5
  // us; node 1's slice then starts and finds it there before its receive: unexpected (PAC paper 3.1).
  for (SimTime q : {SimTime{}, SimTime::us(10)}) {
    PortalsWorld w(2, q);
    SimTime got{SimTime::max()};
    w.send_at(0, 1, SimTime::us(5), 256);
    w.recv_at(1, 0, SimTime::us(2), 256, &got);
    w.sched.run_standalone();
    auto const& c = w.nis[1]->counters();
    EXPECT_EQ(c.expected + c.unexpected, 1u);
    if (q == SimTime{}) {
      EXPECT_EQ(c.expected, 1u);
      EXPECT_GE(got, SimTime::us(5)); // it waited for the message
    } else {
      EXPECT_EQ(c.unexpected, 1u);
      EXPECT_LT(got, SimTime::us(5)); // done at node 1's clock before node 0's clock sent it
      EXPECT_GT(got, SimTime::us(2));
    }
  }
}

TEST(PortalsWorld, AWriteToALowerNumberedNodeIsSeenFromItsNextSlice)
{
  // Node 1 sends at 5 us; node 0 posted its receive at 2 us of the same round, in a slice that has run: the
  // message is there for node 0's next slice (its clock at 10 us), expected, and done then.
  PortalsWorld w(2, SimTime::us(10));
  SimTime got{SimTime::max()};
  w.send_at(1, 0, SimTime::us(5), 256);
  w.recv_at(0, 1, SimTime::us(2), 256, &got);
  w.sched.run_standalone();
  EXPECT_EQ(w.nis[0]->counters().expected, 1u);
  EXPECT_GE(got, SimTime::us(10));
  EXPECT_LT(got, SimTime::us(20)); // within that slice: the command and the copy (a few us on the defaults)
}

TEST(PortalsWorld, ConstantLatencyModulesCostTheSameFor64BAnd64KiB)
{
  // PAC paper 5.3: "All our HW modules except the ListManager have a constant latency irrespective of the input
  // data". An expected receive of 64 B and one of 64 KiB complete at the same date on PAC with constant-latency
  // copies; software Portals on the A9 copies by the byte.
  auto done_for = [](std::uint64_t bytes, PortalsEngine e, bool constant) {
    PortalsWorld w(2, SimTime{}, e, constant);
    SimTime got;
    w.recv_at(1, 0, SimTime{}, bytes, &got);
    w.send_at(0, 1, SimTime::us(1), bytes);
    w.sched.run_standalone();
    EXPECT_EQ(w.nis[1]->counters().expected, 1u);
    return got;
  };
  EXPECT_EQ(done_for(64, PortalsEngine::Pac, true), done_for(65536, PortalsEngine::Pac, true));
  EXPECT_LT(done_for(64, PortalsEngine::Pac, false), done_for(65536, PortalsEngine::Pac, false));
  EXPECT_LT(done_for(64, PortalsEngine::ArmA9, false), done_for(65536, PortalsEngine::ArmA9, false));
}

TEST(PortalsWorld, UnexpectedMessagesGrowTheListsEveryReceiveWalks)
{
  // Eight nodes each send node 7 two messages at the start of their slices; node 7 receives them all from the
  // start of its own. In slices every message is there before its receive (they came from lower-numbered nodes
  // in the same round); at once, each receive was posted before the messages arrived and matched on arrival.
  auto run = [](SimTime q) {
    PortalsWorld w(8, q);
    std::vector<SimTime> got(14);
    for (int s = 0; s < 7; ++s)
      for (int k = 0; k < 2; ++k) {
        w.send_at(s, 7, SimTime::ns(100), 64);
        w.recv_at(7, s, SimTime{}, 64, &got[static_cast<std::size_t>(s * 2 + k)]);
      }
    w.sched.run_standalone();
    return w.nis[7]->counters();
  };
  const auto at_once = run(SimTime{}), sliced = run(SimTime::us(10));
  EXPECT_EQ(at_once.unexpected, 0u);
  EXPECT_EQ(at_once.expected, 14u);
  EXPECT_EQ(sliced.unexpected, 14u);
  EXPECT_EQ(sliced.expected, 0u);
}

TEST(PortalsWorld, AReceiveLargerThanItsMessageCompletesWithTheMessage)
{
  // Portals delivers min(message, entry) bytes and the receive completes with them; the receive waited for its own
  // length and never completed. On the triggered protocol a receive above the eager limit holds a counting event
  // with a Get hanging on it, which a message that came whole must free. Every protocol, the receive posted before
  // and after the message, a message under and over the 1 KiB eager limit, each into a 16 KiB receive.
  for (auto proto : {PortalsProtocol::Eager, PortalsProtocol::Rendezvous, PortalsProtocol::Triggered})
    for (bool receive_first : {true, false})
      for (std::uint64_t bytes : {512u, 4096u}) {
        PortalsWorld w(2, SimTime{}, PortalsEngine::Pac, false, proto, Bytes{1024});
        SimTime got{SimTime::max()};
        w.recv_at(1, 0, receive_first ? SimTime{} : SimTime::us(50), 16384, &got);
        w.send_at(0, 1, SimTime::us(1), bytes);
        w.sched.run_standalone();
        const std::string what = fmt::format("protocol {}, {} B, receive {}", static_cast<int>(proto), bytes,
                                             receive_first ? "first" : "after");
        EXPECT_LT(got, SimTime::max()) << what;
        EXPECT_EQ(w.nis[1]->outstanding(), 0u) << what;
        EXPECT_EQ(w.nis[0]->outstanding(), 0u) << what; // a rendezvous send: its buffer read out
        EXPECT_EQ(w.nis[1]->counting_events_in_use(), 0u) << what;
        const bool fetched = proto != PortalsProtocol::Eager && bytes > 1024;
        EXPECT_EQ(w.nis[1]->counters().gets, fetched ? 1u : 0u) << what; // only the rest of a long message
      }
}

TEST(PortalsWorld, AReceiveShorterThanItsMessageIsTheTruncationError)
{
  for (auto proto : {PortalsProtocol::Eager, PortalsProtocol::Rendezvous, PortalsProtocol::Triggered})
    for (bool receive_first : {true, false}) {
      PortalsWorld w(2, SimTime{}, PortalsEngine::Pac, false, proto, Bytes{1024});
      SimTime got{SimTime::max()};
      w.recv_at(1, 0, receive_first ? SimTime{} : SimTime::us(50), 2048, &got);
      w.send_at(0, 1, SimTime::us(1), 4096);
      try {
        w.sched.run_standalone();
        ADD_FAILURE() << "no error, protocol " << static_cast<int>(proto);
      } catch (const SimulationError& e) {
        EXPECT_NE(std::string(e.what()).find("4096 B message from node 0"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("2048 B receive"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("MPI_ERR_TRUNCATE"), std::string::npos) << e.what();
      }
    }
}
