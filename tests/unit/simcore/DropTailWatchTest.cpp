// The drop-tail watch of the flow fabric (simcore/net/DropTailWatch.hpp): its queue estimate worked by hand, and a
// star's incast at both fidelities (the port is flagged at flow fidelity exactly when the packet fabric drops).
#include "simcore/net/DropTailWatch.hpp"
#include "tests/support/FabricWorld.hpp"
#include "tests/support/Isolated.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

using namespace nafsim;
using namespace nafsim::net;

namespace {

// Ports 0-3: hosts' NIC ports at 100 Gb/s (no buffer: not watched); port 4: a switch's output at 100 Gb/s with a
// 100 kB buffer; port 5: one at 25 Gb/s with the same buffer.
DropTailWatch watch()
{
  return DropTailWatch({100'000'000'000, 100'000'000'000, 100'000'000'000, 100'000'000'000, 100'000'000'000,
                        25'000'000'000},
                       {0, 0, 0, 0, 100'000, 100'000});
}
constexpr double kLine = 100e9;
const std::vector<std::uint32_t> from0{0, 4}, from1{1, 4}, from2{2, 4}, slow{0, 5};

} // namespace

TEST(DropTailWatch, InputsSendingAtOnceQueueWhatTheOutputCannotTake)
{
  auto w = watch();
  // Two inputs of 40 kB each at line rate into one output of the same rate: while both send (3.2 us), 12.5 B/ns
  // arrive beyond what leaves: the queue peaks at 40 kB.
  w.enter(from0, 40'000, kLine, SimTime::zero());
  EXPECT_DOUBLE_EQ(w.queue(4), 0.0); // one input at the output's rate: it keeps up
  w.enter(from1, 40'000, kLine, SimTime::ns(1));
  EXPECT_NEAR(w.queue(4), 40'000, 1e-6);
  EXPECT_EQ(w.summary().ports, 0u);
  // A third: 80 kB queued by the time all three finish (120 kB in, 40 kB out): still within the 100 kB buffer.
  w.enter(from2, 40'000, kLine, SimTime::ns(2));
  EXPECT_NEAR(w.queue(4), 80'000, 1e-6);
  EXPECT_EQ(w.summary().ports, 0u);
  // A packet waiting behind input 0's flow: that input now sends 70 kB. At 3.2 us the others are done (80 kB in
  // from them, 40 kB from input 0, 40 kB out: 80 kB queued), then input 0 alone keeps up: the peak stays 80 kB.
  w.grow(from0, 30'000, SimTime::ns(3));
  EXPECT_NEAR(w.queue(4), 80'000, 1e-6);
  // Another 30 kB on input 1 too: both send until 5.6 us, input 2 stops at 3.2 us: 40 + 70 + 70 - 70 = 110 kB.
  w.grow(from1, 30'000, SimTime::ns(4));
  EXPECT_NEAR(w.queue(4), 110'000, 1e-6);
  EXPECT_EQ(w.summary().ports, 1u);
  EXPECT_EQ(w.summary().first, SimTime::ns(4));
  EXPECT_EQ(w.summary().worst_port, 4u);
  EXPECT_NEAR(w.summary().worst, 1.1, 1e-9);
  // The flows end: nothing comes in; the flag stays (the run is reported once per port).
  w.leave(from0, 70'000, kLine);
  w.leave(from1, 70'000, kLine);
  w.leave(from2, 40'000, kLine);
  EXPECT_DOUBLE_EQ(w.queue(4), 0.0);
  w.enter(from0, 40'000, kLine, SimTime::ns(5));
  w.enter(from1, 40'000, kLine, SimTime::ns(6));
  EXPECT_NEAR(w.queue(4), 40'000, 1e-6); // as at the start: the inputs' bytes and paces left with their flows
  EXPECT_EQ(w.summary().ports, 1u);
}

TEST(DropTailWatch, APacedInputBringsLessAndASlowerOutputQueuesOneInput)
{
  auto w = watch();
  // Input 0's bytes are ready at half the line rate: 40 kB over 6.4 us. Input 1's 40 kB at line rate end at 3.2
  // us: by then 20 + 40 kB came in and 40 kB left: 20 kB; then input 0 alone (6.25 B/ns) cannot keep the queue.
  w.enter(from0, 40'000, w.pace(from0, 40'000, SimTime::zero(), SimTime::ns(6400)), SimTime::zero());
  w.enter(from1, 40'000, kLine, SimTime::zero());
  EXPECT_NEAR(w.queue(4), 20'000, 1e-6);
  // A pace never exceeds the sender's line rate.
  EXPECT_DOUBLE_EQ(w.pace(from0, 40'000, SimTime::zero(), SimTime::ns(1)), kLine);
  EXPECT_DOUBLE_EQ(w.pace(from0, 40'000, SimTime::ns(5), SimTime::zero()), kLine);
  // One input at 100 Gb/s into a 25 Gb/s output: three quarters of its bytes wait.
  w.enter(slow, 200'000, kLine, SimTime::zero());
  EXPECT_NEAR(w.queue(5), 150'000, 1e-6);
  EXPECT_EQ(w.summary().ports, 1u);
  EXPECT_EQ(w.summary().worst_port, 5u);
}

// A buffer of fewer than eight of the segments crossing it is noted (once per port), whatever the queue estimate: the
// 100 kB buffers hold eight segments of 12.5 kB, not eight of 12.5 kB and one byte.
TEST(DropTailWatch, ABufferOfFewSegmentsIsNotedApart)
{
  auto w = watch();
  w.segments(from0, 12'500);
  EXPECT_EQ(w.summary().small_buffer_ports, 0u);
  w.segments(from0, 12'501);
  w.segments(from1, 12'600); // the same port from another input: counted once
  w.segments(slow, 20'000);
  EXPECT_EQ(w.summary().small_buffer_ports, 2u);
  EXPECT_EQ(w.summary().segment, 20'000u);
  EXPECT_EQ(w.summary().buffer, 100'000u);
  EXPECT_EQ(w.summary().ports, 0u); // nothing queued: the estimate flags nothing
}

namespace {

// k hosts send 40 segments of 1,000 wire bytes each to host 0 at once, through a star's switch whose output queues
// hold 100 kB. Packet fidelity: 40 packets per sender; flow fidelity: one flow of 40 kB in 1,000-byte segments.
// Returns "packet drops, ports flagged at flow fidelity".
std::string incast(unsigned k)
{
  std::string out;
  for (auto fidelity : {Fidelity::Packet, Fidelity::Flow}) {
    auto r = nafsim::testing::run_isolated([k, fidelity] {
      NetworkConfig n;
      n.fidelity                = fidelity;
      n.link.rate               = BitsPerSecond{100e9};
      n.link.propagation        = SimTime::ns(10);
      n.switch_.latency         = SimTime::ns(300);
      n.switch_.port_buffer     = Bytes{100'000};
      n.switch_.flow_control    = FlowControl::Drop;
      nafsim::testing::World w(nafsim::testing::star(k + 1), n);
      w.run([&] {
        for (HostId h = 1; h <= k; ++h) {
          if (fidelity == Fidelity::Packet)
            for (std::uint32_t s = 0; s < 40; ++s)
              w.probes[h]->send(0, 1000, s, h);
          else
            w.probes[h]->send(0, 40'000, 0, h, 1000);
        }
      });
      return fidelity == Fidelity::Packet ? fmt::format("{}", w.fabric->totals().queue_drops)
                                          : fmt::format("{}", w.fabric->flow_work().over_buffer.ports);
    });
    EXPECT_EQ(r.exit_code, 0) << r.output;
    out += (out.empty() ? "" : ", ") + r.output;
  }
  return out;
}

} // namespace

// The packet fabric's queue at host 0's port grows by 40 kB per sender beyond the first (80 kB with three: no drop;
// 120 kB with four: drops); the watch flags the port from four senders too.
TEST(DropTailWatch, AStarsIncastIsFlaggedAtFlowFidelityExactlyWhenThePacketFabricDrops)
{
  for (unsigned k : {2u, 3u}) {
    const std::string r = incast(k);
    EXPECT_EQ(r, "0, 0") << k << " senders";
  }
  for (unsigned k : {4u, 6u}) {
    const std::string r = incast(k);
    EXPECT_NE(r.substr(0, 2), "0,") << k << " senders: " << r;
    EXPECT_EQ(r.substr(r.find(", ")), ", 1") << k << " senders: " << r;
  }
}
