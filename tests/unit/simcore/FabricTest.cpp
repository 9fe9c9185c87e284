// The packet fabric against closed forms: serialization, propagation, cut-through and
// store-and-forward forwarding, tail drop, routing modes, fault injection.
#include "simcore/engine/Simulation.hpp"
#include "simcore/net/Fabric.hpp"
#include "simcore/topo/SimgridPlatform.hpp"
#include "tests/support/FabricWorld.hpp"
#include "tests/support/Isolated.hpp"

#include <deque>
#include <functional>
#include <fmt/format.h>
#include <gtest/gtest.h>

using namespace nafsim;
using namespace nafsim::net;
using nafsim::testing::Probe;
using nafsim::testing::World;
using nafsim::testing::arrivals;
using nafsim::testing::star;

namespace {

NetworkConfig netcfg(Forwarding f)
{
  NetworkConfig n;
  n.link.rate            = BitsPerSecond{100e9};
  n.link.propagation     = SimTime::ns(10);
  n.switch_.forwarding   = f;
  n.switch_.latency      = SimTime::ns(300);
  n.switch_.cut_through_header = Bytes{64};
  return n;
}

/// A leaf-spine of `hosts`, `per_leaf` to a leaf, under `spines` spines (oversubscription: the leaf-spine section's).
topo::TopologyConfig leaf_spine(std::uint32_t hosts, std::uint32_t per_leaf, std::uint32_t spines,
                                double oversubscription = 1)
{
  topo::TopologyConfig t;
  t.kind                        = topo::Kind::LeafSpine;
  t.hosts                       = hosts;
  t.leaf_spine.hosts_per_leaf   = per_leaf;
  t.leaf_spine.spines           = spines;
  t.leaf_spine.oversubscription = oversubscription;
  return t;
}

/// Two leaves of one host each (100 Gb/s host cables) under one spine at 400 Gb/s.
topo::TopologyConfig two_leaves_under_a_faster_spine()
{
  topo::TopologyConfig t   = leaf_spine(2, 1, 1);
  t.leaf_spine.uplink_rate = BitsPerSecond{400e9};
  return t;
}

} // namespace

TEST(Fabric, StoreAndForwardClosedForm)
{
  auto r = nafsim::testing::run_isolated([] {
    World w(star(2), netcfg(Forwarding::StoreAndForward));
    w.run([&] {
      for (std::uint32_t i = 0; i < 3; ++i)
        w.probes[0]->send(1, 1000, i);
    });
    return arrivals(w, 1);
  });
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // S = 1000 B at 100 Gb/s = 80 ns; packet i ends at (i+1) S + S + 2P + L = (i+2) 80 + 20 + 300 ns.
  EXPECT_EQ(r.output, "0:480000 1:560000 2:640000 ");
}

TEST(Fabric, CutThroughClosedForm)
{
  auto r = nafsim::testing::run_isolated([] {
    World w(star(2), netcfg(Forwarding::CutThrough));
    w.run([&] {
      for (std::uint32_t i = 0; i < 3; ++i)
        w.probes[0]->send(1, 1000, i);
    });
    return arrivals(w, 1);
  });
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // Decision at t0 + P + 64 B/R + L = 10 + 5.12 + 300 ns; the tail arrives S + P later:
  // packet i ends at i S + (10 + 5.12 + 300) + 80 + 10 ns.
  EXPECT_EQ(r.output, "0:405120 1:485120 2:565120 ");
}

TEST(Fabric, CutThroughOntoAFasterPortStoresThePacketFirst)
{
  // Two leaves of one host each at 100 Gb/s, one spine at 400 Gb/s. The first leaf cannot cut a packet through onto
  // its faster uplink (its bytes would run out mid-frame): it sends it once its tail is in plus the latency. The
  // spine (400 -> 400) and the second leaf (400 -> 100) cut through.
  auto r = nafsim::testing::run_isolated([] {
    World w(two_leaves_under_a_faster_spine(), netcfg(Forwarding::CutThrough));
    w.run([&] {
      for (std::uint32_t i = 0; i < 3; ++i)
        w.probes[0]->send(1, 1000, i);
    });
    return arrivals(w, 1);
  });
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // 1000 B: 80 ns at 100 Gb/s, 20 ns at 400; P 10 ns, L 300 ns, 64 B: 5.12 / 1.28 ns. Packet 0: its tail at the
  // first leaf at 90, so it leaves at 90 + 300 = 390 (cut through, 370: the last bit leaving as it came in);
  // decided at the spine at 390 + 10 + 1.28 + 300 = 701.28, at the second leaf 311.28 later = 1012.56; in at
  // 1012.56 + 80 + 10 = 1102.56 ns. The next packets follow at the first cable's pace, 80 ns.
  EXPECT_EQ(r.output, "0:1102560 1:1182560 2:1262560 ");
}

TEST(Fabric, IdlePortsCostOneEventPerHop)
{
  // A port takes its next packet through an event only when one waits for it: a lone packet crossing three
  // switches costs its four arrivals, plus the script and the sending host's port asking its endpoint for more.
  auto r = nafsim::testing::run_isolated([] {
    topo::TopologyConfig t;
    t.kind           = topo::Kind::Chain;
    t.chain.switches = 3;
    World w(t, netcfg(Forwarding::StoreAndForward));
    w.run([&] { w.probes[0]->send(1, 1000, 0); });
    return fmt::format("{} hops, {} events, {}", w.fabric->totals().packet_hops, w.sim.scheduler().events_processed(),
                       arrivals(w, 1));
  });
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // Four hops of S + P + L each but the last (no switch latency into a host): 4 (80 + 10) + 3 x 300 ns.
  EXPECT_EQ(r.output, "4 hops, 6 events, 0:1260000 ");
}

namespace {
/// Host 0 of a two-host star posts 1000 B packets to host 1 at `posts_ns` (a packet i at each), its probe set by
/// `setup`; returns "E events, S skipped, " and host 1's arrivals (S: the questions its port did not ask).
std::string posted(std::vector<double> posts_ns, std::function<void(Probe&)> setup)
{
  auto r = nafsim::testing::run_isolated([posts_ns, setup] {
    World w(star(2), netcfg(Forwarding::StoreAndForward));
    setup(*w.probes[0]);
    w.run([&] {
      for (std::uint32_t i = 0; i < posts_ns.size(); ++i)
        w.sim.scheduler().call_at(SimTime::ns(posts_ns[i]), [&w, i] { w.probes[0]->send(1, 1000, i); });
    });
    return fmt::format("{} events, {} skipped, {}", w.sim.scheduler().events_processed(), w.probes[0]->skipped,
                       arrivals(w, 1));
  });
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return r.output;
}
} // namespace

TEST(Fabric, AnEndpointWithNothingLeftSparesItsPortTheQuestion)
{
  // An endpoint that says it has nothing left after a packet (Endpoint::may_have_more) calls tx_ready() for its
  // next one: the port asks it nothing when it is free. Two packets, the second posted while the first is on the
  // wire, leave back to back as before; the ports' "anything more?" events go (2 -> 1: the first packet's is still
  // needed, for the packet posted behind it; the second's was the one spared).
  // S = 80 ns, P = 10 ns, L = 300 ns: packet i leaves at i S and arrives (i+2) S + 2P + L later.
  // Events: the script, the two posts, 2 x 2 arrivals, and the port's wake-ups (after each packet / only the first).
  EXPECT_EQ(posted({0, 40}, [](Probe&) {}), "9 events, 0 skipped, 0:480000 1:560000 ");
  EXPECT_EQ(posted({0, 40}, [](Probe& p) { p.says_when_empty = true; }), "8 events, 0 skipped, 0:480000 1:560000 ");
}

// Recording causes changes neither what an endpoint with nothing left is asked nor when: the port records its busy span
// with an event that asks nothing, and a packet posted while the port is busy leaves when the port is free, its step
// caused by the port's busy span (the packet before it started at 0 ns), not by its post at 40 ns. (A kept question
// had pulled ahead of the free date's other events, and changed an ECMP traffic run; a question made at the post
// put a TCP transfer's port-bound wait on an ACK's round trip in its critical path.)
TEST(Fabric, RecordingCausesAsksAnEndpointWithNothingLeftNothingMoreAndBlamesThePortsWait)
{
  auto r = nafsim::testing::run_isolated([] {
    World w(star(2), netcfg(Forwarding::StoreAndForward));
    w.probes[0]->says_when_empty = true;
    w.sim.scheduler().record_causes();
    w.run([&] {
      w.sim.scheduler().call_at(SimTime::ns(0), [&w] { w.probes[0]->send(1, 1000, 0); });
      w.sim.scheduler().call_at(SimTime::ns(40), [&w] { w.probes[0]->send(1, 1000, 1); });
    });
    // The step at the free date, 80 ns, that starts the second packet: when its cause happened.
    const CausalGraph& g = *w.sim.scheduler().causes();
    std::string starts;
    for (std::uint32_t id = 1; id < g.size(); ++id)
      if (g.at(id).t == SimTime::ns(80).ps() && cause_detail(g.at(id).label.what).find("busy") != std::string_view::npos)
        starts += fmt::format("{} ", g.at(g.at(id).parent).t / 1000);
    return fmt::format("{}| {}", arrivals(w, 1), starts);
  });
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // As AnEndpointWithNothingLeftSparesItsPortTheQuestion's arrivals; two busy steps end at 80 ns (the record and the
  // second packet's pull), both from the first packet's start at 0 ns.
  EXPECT_EQ(r.output, "0:480000 1:560000 | 0 0 ");
}

TEST(Fabric, AnIdleEndpointsQuestionIsAskedInItsPlaceOnlyWhenItGetsMore)
{
  // An endpoint that may have more but is idle until it says so (Endpoint::idle_until_told): the port keeps the
  // place of its question at the free date and asks nothing; a packet posted before that date is asked for in that
  // place (same dates as always asking), one posted after it starts at once. Packets at 0, 40 ns (the first on the
  // wire until 80 ns) and 1 us: the questions after the second and third are spared.
  EXPECT_EQ(posted({0, 40, 1000}, [](Probe&) {}), "13 events, 0 skipped, 0:480000 1:560000 2:1480000 ");
  EXPECT_EQ(posted({0, 40, 1000}, [](Probe& p) { p.idle = true; }),
            "11 events, 3 skipped, 0:480000 1:560000 2:1480000 ");
}

TEST(Fabric, AHostThatTakesPacketsAheadSpendsNoEventOnTheirArrival)
{
  // An endpoint that does nothing at an arrival but pass the packet into a fixed-latency receive pipe (the NIC
  // engines' RxPipe) takes it when its last cable starts it, with the date its last bit arrives: the same dates as
  // the closed form, one event fewer per packet. A fabric with faults to apply still hands packets over at arrival
  // (the fault is decided there).
  auto run = [](bool ahead, bool faults) {
    return nafsim::testing::run_isolated([ahead, faults] {
      auto n = netcfg(Forwarding::StoreAndForward);
      if (faults)
        n.faults.drops.push_back(DropRule{0, 1, 7, 1}); // a packet never sent: faults on, nothing lost
      World w(star(2), n);
      w.probes[1]->ahead = ahead;
      w.fabric->attach(1, w.probes[1].get());
      w.run([&] {
        for (std::uint32_t i = 0; i < 3; ++i)
          w.probes[0]->send(1, 1000, i);
      });
      return fmt::format("{} events, {} ahead, {} delivered, {}", w.sim.scheduler().events_processed(),
                         w.probes[1]->taken_ahead, w.fabric->totals().delivered, arrivals(w, 1));
    });
  };
  auto at_arrival = run(false, false), ahead = run(true, false), faulty = run(true, true);
  ASSERT_EQ(at_arrival.exit_code, 0) << at_arrival.output;
  ASSERT_EQ(ahead.exit_code, 0) << ahead.output;
  ASSERT_EQ(faulty.exit_code, 0) << faulty.output;
  // As StoreAndForwardClosedForm; events: the script, 3 x 2 arrivals (at the switch, at the host) and the sending
  // port's question after each packet (the switch's port is free as each packet comes: no event of its own).
  EXPECT_EQ(at_arrival.output, "10 events, 0 ahead, 3 delivered, 0:480000 1:560000 2:640000 ");
  EXPECT_EQ(ahead.output, "7 events, 3 ahead, 3 delivered, 0:480000 1:560000 2:640000 ");
  EXPECT_EQ(faulty.output, at_arrival.output);
}

TEST(Fabric, TailDropCountsEveryLostPacket)
{
  auto r = nafsim::testing::run_isolated([] {
    auto n                 = netcfg(Forwarding::StoreAndForward);
    n.switch_.port_buffer  = Bytes{3000};
    World w(star(4), n);
    w.run([&] {
      for (HostId src = 0; src < 3; ++src)
        for (std::uint32_t i = 0; i < 10; ++i)
          w.probes[src]->send(3, 1000, i);
    });
    auto t = w.fabric->totals();
    std::uint64_t port_drops = 0, max_q = 0;
    for (auto const& p : w.fabric->ports()) {
      port_drops += p.counters.queue_drops;
      max_q = std::max(max_q, p.max_queue_bytes);
    }
    return fmt::format("{} {} {} {} {}", t.injected, w.probes[3]->got.size(), t.queue_drops, port_drops, max_q);
  });
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::istringstream in(r.output);
  std::uint64_t injected, got, drops, port_drops, max_q;
  in >> injected >> got >> drops >> port_drops >> max_q;
  EXPECT_EQ(injected, 30u);
  EXPECT_GT(drops, 0u) << "three senders into one port overflow a 3000 B queue";
  EXPECT_EQ(got + drops, injected) << "every packet is delivered or counted as dropped";
  EXPECT_EQ(port_drops, drops);
  EXPECT_LE(max_q, 3000u);
}

TEST(Fabric, DeterministicDropHitsOnlyTheNamedPacket)
{
  auto r = nafsim::testing::run_isolated([] {
    auto n = netcfg(Forwarding::CutThrough);
    n.faults.drops.push_back(DropRule{0, 1, 5, 1});
    World w(star(3), n);
    w.run([&] {
      for (std::uint32_t i = 0; i < 10; ++i) {
        w.probes[0]->send(1, 500, i);
        w.probes[0]->send(2, 500, i);
      }
      // The rule drops only the first copy: a resend of seq 5 gets through.
      w.sim.scheduler().call_at(SimTime::us(5), [&] { w.probes[0]->send(1, 500, 5); });
    });
    std::string s;
    for (auto& [t, p] : w.probes[1]->got)
      s += fmt::format("{} ", p.seq);
    return fmt::format("{}| {} {}", s, w.probes[2]->got.size(), w.fabric->totals().fault_drops);
  });
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "0 1 2 3 4 6 7 8 9 5 | 10 1");
}

TEST(Fabric, EcmpKeepsOrderSprayReorders)
{
  auto run_mode = [](RoutingMode mode) {
    return nafsim::testing::run_isolated([mode] {
      auto n    = netcfg(Forwarding::CutThrough);
      n.routing = mode;
      World w(leaf_spine(4, 2, 4, 0.5), n, 7);
      w.run([&] {
        // Mixed sizes so that paths of different load finish out of order.
        for (std::uint32_t i = 0; i < 200; ++i) {
          w.probes[0]->send(2, i % 3 == 0 ? 4000 : 200, i, 42);
          w.probes[1]->send(3, 4000, i, 43);
        }
      });
      std::uint32_t inversions = 0, prev = 0;
      for (auto& [tm, p] : w.probes[2]->got) {
        inversions += p.seq < prev ? 1 : 0;
        prev = std::max(prev, p.seq);
      }
      return fmt::format("{} {}", w.probes[2]->got.size(), inversions);
    });
  };
  auto ecmp  = run_mode(RoutingMode::Ecmp);
  auto spray = run_mode(RoutingMode::Spray);
  ASSERT_EQ(ecmp.exit_code, 0) << ecmp.output;
  ASSERT_EQ(spray.exit_code, 0) << spray.output;
  EXPECT_EQ(ecmp.output, "200 0") << "one flow, one path: in order";
  EXPECT_EQ(spray.output.substr(0, 4), "200 ");
  EXPECT_NE(spray.output, "200 0") << "per-packet spraying reorders";
}

// D-mod-k on a leaf-spine whose one spine takes four cables from each leaf: a shift by a leaf's width is
// contention-free, each host's stream over a cable of its own up and down. The tier rule picked the spine's down
// cable too (destination / 4 mod 4: the same cable for every host of a leaf), so four streams took four times as long.
TEST(Fabric, DModKSpreadsALeafsHostsOverParallelCablesBothWays)
{
  auto last_arrivals = [](std::uint32_t senders) {
    return nafsim::testing::run_isolated([senders] {
      auto n    = netcfg(Forwarding::CutThrough);
      n.routing = RoutingMode::DModK;
      World w(leaf_spine(8, 4, 1), n); // four cables between each leaf and the spine
      w.run([&] {
        for (std::uint32_t h = 0; h < senders; ++h)
          for (std::uint32_t i = 0; i < 50; ++i)
            w.probes[h]->send(h + 4, 4000, i, h);
      });
      std::string s;
      for (std::uint32_t h = 0; h < senders; ++h)
        s += fmt::format("{} ", w.probes[h + 4]->got.back().first);
      return s;
    });
  };
  const auto alone = last_arrivals(1), four = last_arrivals(4);
  ASSERT_EQ(alone.exit_code, 0) << alone.output;
  ASSERT_EQ(four.exit_code, 0) << four.output;
  const std::string one = alone.output;
  EXPECT_EQ(four.output, one + one + one + one) << "each stream as fast as alone";
}

TEST(Fabric, RandomFaultsAreCountedPerCable)
{
  auto r = nafsim::testing::run_isolated([] {
    auto n                   = netcfg(Forwarding::CutThrough);
    n.faults.loss_rate       = 0.2;
    n.faults.corruption_rate = 0.1;
    n.faults.duplicate_rate  = 0.1;
    World w(star(2), n, 3);
    w.run([&] {
      for (std::uint32_t i = 0; i < 2000; ++i)
        w.probes[0]->send(1, 100, i);
    });
    auto t = w.fabric->totals();
    std::uint64_t corrupted = 0;
    for (auto& [tm, p] : w.probes[1]->got)
      corrupted += p.corrupted ? 1 : 0;
    return fmt::format("{} {} {} {} {} {}", t.injected, w.probes[1]->got.size(), t.fault_drops, t.duplicates,
                       t.corrupted, corrupted);
  });
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::istringstream in(r.output);
  double injected, got, drops, dups, corrupt_marked, corrupt_seen;
  in >> injected >> got >> drops >> dups >> corrupt_marked >> corrupt_seen;
  // Two cables: a packet survives both with 0.8^2; duplicates multiply copies.
  EXPECT_NEAR(drops / injected, 1 - 0.64 + 0.64 * 0.1 * 0.2, 0.05) << r.output;
  EXPECT_GT(dups, 0);
  EXPECT_GT(corrupt_seen, 0);
  // Conservation: every copy that entered a cable was delivered, dropped or passed on.
  EXPECT_EQ(got, injected + dups - drops);
}

TEST(Fabric, AStoreAndForwardSwitchDropsACorruptedFrameWhereACutThroughOneForwardsIt)
{
  // Every cable corrupts every frame. A store-and-forward switch has the whole frame, checks its FCS and drops it
  // (lost on the cable that corrupted it: one hop each, nothing reaches host 1); a cut-through switch has sent the
  // head on before the tail came, and host 1 gets every frame, corrupted (its receiver drops it on the CRC check).
  // On lossless switches the dropped frame gives its reserved room back: the 50 frames do not stall behind it.
  auto run = [](Forwarding f, FlowControl fc) {
    auto r = nafsim::testing::run_isolated([f, fc] {
      auto n                   = netcfg(f);
      n.faults.corruption_rate = 1.0;
      n.switch_.flow_control   = fc;
      n.switch_.port_buffer    = Bytes{4000};
      World w(star(2), n, 3);
      w.run([&] {
        for (std::uint32_t i = 0; i < 50; ++i)
          w.probes[0]->send(1, 1000, i);
      });
      auto t = w.fabric->totals();
      std::uint64_t corrupted = 0;
      for (auto& [tm, p] : w.probes[1]->got)
        corrupted += p.corrupted ? 1 : 0;
      return fmt::format("{} injected, {} hops, {} fault drops, {} got, {} corrupted", t.injected, t.packet_hops,
                         t.fault_drops, w.probes[1]->got.size(), corrupted);
    });
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return r.output;
  };
  EXPECT_EQ(run(Forwarding::StoreAndForward, FlowControl::Drop), "50 injected, 50 hops, 50 fault drops, 0 got, 0 corrupted");
  EXPECT_EQ(run(Forwarding::StoreAndForward, FlowControl::Lossless),
            "50 injected, 50 hops, 50 fault drops, 0 got, 0 corrupted");
  EXPECT_EQ(run(Forwarding::CutThrough, FlowControl::Drop), "50 injected, 100 hops, 0 fault drops, 50 got, 50 corrupted");
}

TEST(Fabric, ACutThroughSwitchStoringAFrameForAFasterPortDropsItCorrupted)
{
  // Two leaves of one host each at 100 Gb/s under a 400 Gb/s spine, every cable corrupting every frame. The first
  // leaf cannot cut a frame through onto its faster uplink: it stores it whole, so it checks the FCS and drops it
  // (each frame crosses one cable), where a cut-through hop between equal speeds forwards it (the test above).
  auto r = nafsim::testing::run_isolated([] {
    auto n                   = netcfg(Forwarding::CutThrough);
    n.faults.corruption_rate = 1.0;
    World w(two_leaves_under_a_faster_spine(), n, 3);
    w.run([&] {
      for (std::uint32_t i = 0; i < 20; ++i)
        w.probes[0]->send(1, 1000, i);
    });
    auto t2 = w.fabric->totals();
    return fmt::format("{} hops, {} fault drops, {} got", t2.packet_hops, t2.fault_drops, w.probes[1]->got.size());
  });
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "20 hops, 20 fault drops, 0 got");
}

// Lossless link-level flow control: an incast like the one that tail-drops above loses nothing;
// the senders wait instead, the queue never exceeds its capacity. With `buffer` bytes of queue the
// output port can only be kept busy if the buffer covers the credit loop (a freed slot is refilled
// after S + P + L = 390 ns, ~5 packets): with 8 packets of buffer it sends back to back.
std::string lossless_incast(std::uint64_t buffer)
{
  auto r = nafsim::testing::run_isolated([buffer] {
    auto n                   = netcfg(Forwarding::StoreAndForward);
    n.switch_.port_buffer    = Bytes{buffer};
    n.switch_.flow_control   = FlowControl::Lossless;
    World w(star(4), n);
    w.run([&] {
      for (HostId src = 0; src < 3; ++src)
        for (std::uint32_t i = 0; i < 10; ++i)
          w.probes[src]->send(3, 1000, i);
    });
    auto t = w.fabric->totals();
    std::uint64_t max_q = 0, pauses = 0;
    for (auto const& p : w.fabric->ports()) {
      max_q = std::max(max_q, p.max_queue_bytes);
      pauses += p.counters.pauses;
    }
    // Per-sender order is kept.
    std::vector<std::uint32_t> next(3, 0);
    bool ordered = true;
    for (auto& [at, p] : w.probes[3]->got)
      ordered = ordered && p.seq == next[p.src]++;
    return fmt::format("{} {} {} {} {} {} {}", t.injected, w.probes[3]->got.size(), t.queue_drops, max_q, pauses,
                       w.probes[3]->got.back().first, ordered ? 1 : 0);
  });
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return r.output;
}

TEST(Fabric, LosslessFlowControlPausesInsteadOfDropping)
{
  for (std::uint64_t buffer : {3000u, 8000u}) {
    std::istringstream in(lossless_incast(buffer));
    std::uint64_t injected, got, drops, max_q, pauses, last_ps, ordered;
    in >> injected >> got >> drops >> max_q >> pauses >> last_ps >> ordered;
    EXPECT_EQ(injected, 30u);
    EXPECT_EQ(got, 30u);
    EXPECT_EQ(drops, 0u);
    EXPECT_LE(max_q, buffer);
    EXPECT_GT(pauses, 0u);
    EXPECT_EQ(ordered, 1u) << "each sender's packets stay in order";
    // Store-and-forward: the first packet is decided at S + P + L; with enough buffer the output
    // port then sends 30 packets of S = 80 ns back to back: last tail = S + P + L + 30 S + P.
    std::uint64_t back_to_back = (80 + 10 + 300 + 30 * 80 + 10) * 1000u;
    if (buffer == 8000)
      EXPECT_EQ(last_ps, back_to_back);
    else // 3 packets per 390 ns credit loop: 10 rounds
      EXPECT_EQ(last_ps, (9 * 390 + 80 + 10 + 300 + 3 * 80 + 10) * 1000u);
  }
}

// Shared switch buffers with dynamic thresholds (switch.shared_buffer, alpha): a queue takes a packet while it stays
// under alpha x the switch's free bytes, so one congested queue settles at alpha / (1 + alpha) of the buffer and two
// congested ones at alpha / (1 + 2 alpha) each (Choudhury and Hahne's fixed points), whatever port_buffer says. Runs
// 20 packets of 1000 B from each of `senders` hosts into `targets` receivers (sender i to receiver i % targets) on
// a star; returns each receiver port's largest queue, the drops and what the switch still holds at the end.
struct SharedRun {
  std::vector<std::uint64_t> max_q;
  std::uint64_t drops = 0, got = 0, held = 0;
};
SharedRun shared_incast(unsigned senders, unsigned targets, double alpha, FlowControl fc)
{
  auto r = nafsim::testing::run_isolated([=] {
    auto n                   = netcfg(Forwarding::StoreAndForward);
    n.switch_.port_buffer    = Bytes{64}; // unused with a shared buffer
    n.switch_.shared_buffer  = Bytes{12000};
    n.switch_.alpha          = alpha;
    n.switch_.flow_control   = fc;
    World w(star(senders + targets), n);
    w.run([&] {
      for (HostId src = 0; src < senders; ++src)
        for (std::uint32_t i = 0; i < 20; ++i)
          w.probes[src]->send(senders + src % targets, 1000, i);
    });
    std::string out;
    std::uint32_t sw = 0;
    for (auto const& p : w.fabric->ports())
      if (p.peer_is_host && p.peer >= senders && p.peer < senders + targets) { // the switch's ports to receivers
        out += fmt::format("{} ", p.max_queue_bytes);
        sw = p.vertex;
      }
    std::uint64_t got = 0;
    for (unsigned t = 0; t < targets; ++t)
      got += w.probes[senders + t]->got.size();
    return out + fmt::format("{} {} {}", w.fabric->totals().queue_drops, got, w.fabric->shared_held(sw));
  });
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::istringstream in(r.output);
  SharedRun s;
  s.max_q.resize(targets);
  for (auto& q : s.max_q)
    in >> q;
  in >> s.drops >> s.got >> s.held;
  return s;
}

TEST(Fabric, SharedBufferDynamicThresholdsSettleAtTheirFixedPoints)
{
  // Drop-tail, one congested queue (three senders into one receiver): 12,000 B x alpha / (1 + alpha).
  for (double alpha : {1.0, 0.5, 2.0}) {
    auto s            = shared_incast(3, 1, alpha, FlowControl::Drop);
    const double fill = alpha / (1 + alpha) * 12000;
    EXPECT_LE(s.max_q[0], fill) << alpha;
    EXPECT_GT(s.max_q[0], fill - 1000) << alpha << ": within a packet of the fixed point";
    EXPECT_GT(s.drops, 0u);
    EXPECT_EQ(s.got + s.drops, 60u);
    EXPECT_EQ(s.held, 0u) << "every byte taken from the shared buffer was given back";
  }
  // Two congested queues (four senders, two each): alpha / (1 + 2 alpha) each, 4,000 B at alpha 1, where one
  // alone had 6,000.
  auto two = shared_incast(4, 2, 1.0, FlowControl::Drop);
  for (auto q : two.max_q) {
    EXPECT_LE(q, 4000u);
    EXPECT_GT(q, 3000u);
  }
  EXPECT_EQ(two.held, 0u);
  // Lossless: the same limits pause the senders instead; nothing lost, the reservations given back too.
  auto lossless = shared_incast(3, 1, 1.0, FlowControl::Lossless);
  EXPECT_EQ(lossless.drops, 0u);
  EXPECT_EQ(lossless.got, 60u);
  EXPECT_LE(lossless.max_q[0], 6000u);
  EXPECT_EQ(lossless.held, 0u);
}

// A lossless fabric takes a packet's last switch hop in the event of the hop before when nothing can tell the two
// apart (Fabric::pass_last_hop): the port toward the host idle by the decision, nothing else reserved in it, the
// decision within the switch's lookahead and the queue roomy enough that no reservation meanwhile could fail. Random
// traffic on a k = 4 fat-tree (1,500 packets of a minimum to a standard frame in 15 us, a third of them to host 0),
// run as it is and with causes recorded (which keeps every arrival event): every delivery date, every port's counters
// and the totals are the same, and the run spares exactly one event per hop it passed; with roomy queues, with queues
// that pause the hot spot's senders, and with queues too small for any hop to pass.
namespace {
struct PassRun {
  std::string what; ///< deliveries, port counters, totals
  std::uint64_t events = 0, passed = 0, pauses = 0;
};
PassRun random_lossless(Forwarding f, std::uint64_t buffer, bool causes, bool frames = true)
{
  auto r = nafsim::testing::run_isolated([f, buffer, causes, frames] {
    auto n                 = netcfg(f);
    n.switch_.flow_control = FlowControl::Lossless;
    n.switch_.port_buffer  = Bytes{buffer};
    topo::TopologyConfig t;
    t.kind       = topo::Kind::FatTree;
    t.fat_tree.k = 4;
    t.hosts      = 16;
    World w(t, n);
    for (auto& p : w.probes) {
      p->ahead  = true;
      p->frames = frames || p->me != 5; // (host 5's packets are frames too, but it does not say so)
      w.fabric->attach(p->me, p.get());
    }
    if (causes)
      w.sim.scheduler().record_causes();
    Rng rng(7, 11);
    w.run([&] {
      for (std::uint32_t i = 0; i < 1500; ++i) {
        auto src = static_cast<HostId>(rng.below(16)), dst = static_cast<HostId>(rng.below(15));
        dst      = dst >= src ? dst + 1 : dst;
        if (src != 0 && rng.below(3) == 0)
          dst = 0; // a hot spot: host 0's queue fills
        auto at  = SimTime::ns(static_cast<double>(rng.below(15'000)));
        auto len = static_cast<std::uint32_t>(84 + rng.below(1455)); // minimum to largest frame
        w.sim.scheduler().call_at(at, [&w, src, dst, len, i] { w.probes[src]->send(dst, len, i); });
      }
    });
    std::string s;
    for (HostId h = 0; h < 16; ++h)
      s += arrivals(w, h) + "| ";
    std::uint64_t pauses = 0;
    for (auto const& p : w.fabric->ports()) {
      s += fmt::format("{}/{}/{}/{}/{} ", p.tx_packets, p.tx_bytes, p.max_queue_bytes, p.counters.pauses,
                       p.counters.paused.ps());
      pauses += p.counters.pauses;
    }
    auto tot = w.fabric->totals();
    s += fmt::format("| {} {} {}", tot.injected, tot.delivered, tot.packet_hops);
    return fmt::format("{} {} {} {}", w.sim.scheduler().events_processed(), tot.passed_hops, pauses, s);
  });
  EXPECT_EQ(r.exit_code, 0) << r.output;
  PassRun run;
  std::istringstream in(r.output);
  in >> run.events >> run.passed >> run.pauses;
  std::getline(in, run.what);
  return run;
}
} // namespace

TEST(Fabric, ALastHopNothingCanReachFirstIsTakenWithTheHopBefore)
{
  for (Forwarding f : {Forwarding::CutThrough, Forwarding::StoreAndForward})
    for (std::uint64_t buffer : {std::uint64_t{1} << 20, std::uint64_t{64} << 10, std::uint64_t{16} << 10}) {
      auto passed = random_lossless(f, buffer, false), kept = random_lossless(f, buffer, true);
      SCOPED_TRACE(fmt::format("forwarding {}, buffer {}", static_cast<int>(f), buffer));
      EXPECT_EQ(passed.what, kept.what) << "a passed hop changed what the fabric did";
      EXPECT_EQ(kept.passed, 0u) << "a run that records causes keeps every arrival event";
      EXPECT_EQ(passed.events + passed.passed, kept.events) << "one event spared per hop passed, no other";
      const bool cut = f == Forwarding::CutThrough;
      if (buffer == std::uint64_t{1} << 20) {
        EXPECT_EQ(passed.pauses, 0u);
        if (cut) {
          EXPECT_GT(passed.passed, 1500u / 3) << "the last hops of packets nothing contends with pass";
        }
      }
      if (buffer == std::uint64_t{64} << 10) {
        EXPECT_GT(passed.pauses, 0u) << "the hot spot's queue fills and pauses its senders";
        if (cut) {
          EXPECT_GT(passed.passed, 1500u / 3) << "the other hosts' last hops still pass";
        }
      }
      if (buffer == std::uint64_t{16} << 10) {
        EXPECT_GT(passed.pauses, 0u);
        // What the edge switch's four input cables can start within a window (315 ns at 4 x 100 Gb/s, and a
        // jumbo frame each) could fill 16 KiB: no hop passes.
        EXPECT_EQ(passed.passed, 0u);
      }
      if (!cut) { // store-and-forward decides on a packet's tail: only one no larger than the smallest frame may pass
        EXPECT_EQ(passed.passed, 0u);
      }
    }
  // One endpoint that does not promise Ethernet frames (whose packets could be smaller or larger than the lookahead
  // and the queue bound assume) and no hop passes.
  auto unframed = random_lossless(Forwarding::CutThrough, std::uint64_t{1} << 20, false, false);
  EXPECT_EQ(unframed.passed, 0u);
  EXPECT_EQ(unframed.what, random_lossless(Forwarding::CutThrough, std::uint64_t{1} << 20, true).what);
}

TEST(Fabric, APathIsClearOnlyOfTheFlowsOwnPackets)
{
  // Fast-forward's condition for a train (Fabric::path_clear): past the sender's own port, no switch port on the
  // path queues, parks or sends anything of another flow.
  auto r = nafsim::testing::run_isolated([] {
    NetworkConfig n              = netcfg(Forwarding::CutThrough);
    n.switch_.flow_control       = FlowControl::Lossless;
    n.fast_forward.train         = 16;
    World w(star(3), n);
    std::string seen;
    auto look = [&](const char* when) {
      seen += fmt::format("{}: 1->0 {}, 2->0 {}; ", when, w.fabric->path_clear(1, 0, 1), w.fabric->path_clear(2, 0, 2));
    };
    w.run([&] {
      look("idle");
      for (std::uint32_t i = 0; i < 10; ++i) // 320 ns each on the wire: 3.2 us of flow 1 toward host 0
        w.probes[1]->send(0, 4000, i, 1);
      w.sim.scheduler().call_at(SimTime::us(1), [&] {
        look("flow 1 on the wire");
        for (std::uint32_t i = 0; i < 10; ++i)
          w.probes[2]->send(0, 4000, i, 2);
      });
      w.sim.scheduler().call_at(SimTime::us(2), [&] { look("both queued"); });
      w.sim.scheduler().call_at(SimTime::us(100), [&] { look("done"); });
    });
    return seen;
  });
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "idle: 1->0 true, 2->0 true; flow 1 on the wire: 1->0 true, 2->0 false; "
                      "both queued: 1->0 false, 2->0 false; done: 1->0 true, 2->0 true; ");
}
