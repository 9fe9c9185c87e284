// The TCP session state machine with a fake clock and a scripted wire (no engine): the stream
// arrives exactly once and in order under loss, duplication and reordering; windows, fast
// retransmit, doubling timeouts, zero-window probes and giving up behave as specified.
#include "protocols/tcp/Connection.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <functional>
#include <gtest/gtest.h>
#include <map>
#include <random>

using namespace nafsim;
using namespace nafsim::tcp;

namespace {

/// Two connections joined by a wire with a one-way delay; `drop` / `dup` / `late` decide per segment.
struct Pair {
  TcpConfig cfg;
  Connection c[2];
  SimTime now;
  SimTime delay = SimTime::us(1);
  std::multimap<SimTime, std::pair<int, Segment>> wire;
  std::pair<SimTime, std::uint64_t> timer[2] = {{SimTime::max(), 0}, {SimTime::max(), 0}};
  std::uint64_t delivered[2] = {0, 0}; ///< contiguous bytes delivered to each side
  std::uint64_t acked[2]     = {0, 0};
  bool overlap               = false;  ///< a Deliver that did not continue where the last one ended
  bool failed[2]             = {false, false};
  bool consume[2]            = {true, true};
  std::vector<SimTime> timer_arms[2];
  std::pair<SimTime, std::uint64_t> ack_timer[2] = {{SimTime::max(), 0}, {SimTime::max(), 0}};
  std::function<bool(int from, const Segment&)> drop = [](int, auto const&) { return false; };
  std::function<bool(int from, const Segment&)> dup  = [](int, auto const&) { return false; };
  std::function<SimTime(int from, const Segment&)> late = [](int, auto const&) { return SimTime{}; };
  std::uint64_t sent_segments = 0;

  explicit Pair(TcpConfig k = {}) : cfg(k), c{Connection(k), Connection(k)} {}

  void apply(int who, Actions& acts)
  {
    Actions todo;
    todo.swap(acts);
    bool tx = false;
    for (auto& a : todo) {
      if (auto* t = std::get_if<ArmTimer>(&a)) {
        timer[who] = {t->at, t->token};
        timer_arms[who].push_back(t->at);
      } else if (auto* ad = std::get_if<ArmAckTimer>(&a)) {
        ack_timer[who] = {ad->at, ad->token};
      } else if (auto* d = std::get_if<Deliver>(&a)) {
        if (d->from != delivered[who])
          overlap = true;
        delivered[who] = d->to;
        if (consume[who]) {
          Actions more;
          c[who].consumed(d->to - d->from, more);
          apply(who, more);
        }
      } else if (auto* k = std::get_if<Acked>(&a)) {
        acked[who] = k->upto;
      } else if (std::holds_alternative<Failed>(a)) {
        failed[who] = true;
      } else {
        tx = true;
      }
    }
    if (tx)
      pump(who);
  }
  void send(int from, Segment s)
  {
    ++sent_segments;
    if (drop(from, s))
      return;
    SimTime at = now + delay + late(from, s);
    wire.emplace(at, std::pair{1 - from, s});
    if (dup(from, s))
      wire.emplace(at + SimTime::ns(100), std::pair{1 - from, s});
  }
  void pump(int who)
  {
    Actions acts;
    while (c[who].next()) {
      Segment s = c[who].commit(now, acts);
      c[who].stamp(s);
      send(who, s);
    }
    if (c[who].ack_pending())
      send(who, c[who].take_ack());
    if (!acts.empty())
      apply(who, acts);
  }
  void write(int who, std::uint64_t bytes)
  {
    Actions acts;
    c[who].write(bytes, acts);
    apply(who, acts);
  }
  /// Run until nothing is left to happen (or `limit`).
  void run(SimTime limit = SimTime::from_seconds(100))
  {
    while (now < limit) {
      SimTime next_wire = wire.empty() ? SimTime::max() : wire.begin()->first;
      int t             = timer[0].first <= timer[1].first ? 0 : 1;
      int d             = ack_timer[0].first <= ack_timer[1].first ? 0 : 1;
      if (std::min({next_wire, timer[t].first, ack_timer[d].first}) > limit)
        return;
      Actions acts;
      if (ack_timer[d].first < std::min(next_wire, timer[t].first)) { // a delayed ACK falls due
        now                = ack_timer[d].first;
        ack_timer[d].first = SimTime::max();
        c[d].on_ack_timer(ack_timer[d].second, acts);
        apply(d, acts);
      } else if (next_wire <= timer[t].first) {
        auto [to, s] = wire.begin()->second;
        now          = next_wire;
        wire.erase(wire.begin());
        c[to].on_segment(s, now, acts);
        apply(to, acts);
      } else {
        now            = timer[t].first;
        auto token     = timer[t].second;
        timer[t].first = SimTime::max();
        c[t].on_timer(token, now, acts);
        apply(t, acts);
      }
    }
  }
};

} // namespace

TEST(Tcp, LosslessStreamArrivesInOrderInFullSegments)
{
  Pair p;
  p.write(0, 100000);
  p.run();
  EXPECT_EQ(p.delivered[1], 100000u);
  EXPECT_EQ(p.acked[0], 100000u);
  EXPECT_FALSE(p.overlap);
  auto const& k = p.c[0].counters();
  EXPECT_EQ(k.segments_sent, (100000 + p.cfg.mss() - 1) / p.cfg.mss());
  EXPECT_EQ(k.retransmitted, 0u);
  EXPECT_EQ(k.timeouts, 0u);
  EXPECT_TRUE(p.c[0].idle());
}

TEST(Tcp, SlowStartLimitsTheFirstFlight)
{
  TcpConfig cfg;
  Pair p(cfg);
  p.delay = SimTime::us(50); // a long path: the first flight is the initial window, then it grows
  p.write(0, 1 << 20);
  // Before any ACK can come back only initial_window segments may be out.
  p.run(SimTime::us(99));
  EXPECT_EQ(p.c[0].counters().segments_sent, cfg.first_cwnd() / cfg.mss()); // RFC 6928's 10
  p.run();
  EXPECT_EQ(p.delivered[1], 1u << 20);
  EXPECT_GT(p.c[0].cwnd(), cfg.first_cwnd());
}

/// Node 0 writes `segments` full segments, the sixth lost once: recovered by one fast retransmit, no timeout.
static void lose_the_sixth_segment(Pair& p, std::uint64_t segments)
{
  bool once = true;
  p.drop    = [&p, once](int from, const Segment& s) mutable {
    if (from == 0 && s.len > 0 && s.seq == 5 * p.cfg.mss() && once) {
      once = false;
      return true;
    }
    return false;
  };
  p.write(0, segments * p.cfg.mss());
  p.run();
  EXPECT_EQ(p.delivered[1], segments * p.cfg.mss());
  EXPECT_FALSE(p.overlap);
  EXPECT_EQ(p.c[0].counters().fast_retransmits, 1u);
  EXPECT_EQ(p.c[0].counters().timeouts, 0u);
}

TEST(Tcp, OneLostSegmentIsFastRetransmittedWithoutTimeout)
{
  Pair p;
  lose_the_sixth_segment(p, 40);
  EXPECT_GE(p.c[1].counters().out_of_order_dropped, 1u); // without out-of-order holding, beyond the hole is dropped
}

TEST(Tcp, OutOfOrderHoldingKeepsSegmentsBeyondAHole)
{
  TcpConfig cfg;
  cfg.out_of_order = true;
  Pair p(cfg);
  bool once = true;
  p.drop    = [&](int from, const Segment& s) {
    if (from == 0 && s.len > 0 && s.seq == 5 * p.cfg.mss() && once) {
      once = false;
      return true;
    }
    return false;
  };
  p.write(0, 40 * cfg.mss());
  p.run();
  EXPECT_EQ(p.delivered[1], 40 * cfg.mss());
  EXPECT_FALSE(p.overlap);
  EXPECT_GE(p.c[1].counters().out_of_order_held, 3u);
  EXPECT_EQ(p.c[1].counters().out_of_order_dropped, 0u);
}

// Go-back-n with a receiver that holds segments beyond a hole (Linux's): one lost segment is one fast retransmit. The
// segments resent after the hole are duplicates at the receiver, and each draws an ACK the sender saw as a duplicate
// of its new first unacknowledged byte; every third of them went back again and halved the window (a 1 MiB host
// transfer with one drop: 87 fast retransmits, 821 segments resent for 729 sent). Those ACKs now say so (D-SACK).
TEST(Tcp, OneLostSegmentIsOneFastRetransmitWhenTheReceiverHoldsWhatFollows)
{
  TcpConfig cfg;
  cfg.out_of_order = true;
  Pair p(cfg);
  bool once = true;
  p.drop    = [&](int from, const Segment& s) {
    if (from == 0 && s.len > 0 && s.seq == 100 * p.cfg.mss() && once) {
      once = false;
      return true;
    }
    return false;
  };
  p.write(0, 400 * cfg.mss());
  p.run();
  EXPECT_EQ(p.delivered[1], 400 * cfg.mss());
  EXPECT_FALSE(p.overlap);
  EXPECT_EQ(p.c[0].counters().fast_retransmits, 1u);
  EXPECT_EQ(p.c[0].counters().timeouts, 0u);
  EXPECT_LT(p.c[0].counters().retransmitted, 200u) << "at most the flight at the loss is resent, once";
}

// A second loss right where the first recovery's resends end (the first new segment after them): its duplicate ACKs
// start a fast retransmit of their own, no timeout (a NewReno `recover` guard made it wait for the timeout: 200 ms on
// the host preset).
TEST(Tcp, ALossRightAfterARecoveryIsFastRetransmittedToo)
{
  TcpConfig cfg;
  cfg.out_of_order = true;
  Pair p(cfg);
  std::uint64_t top = 0;
  int phase         = 0;
  p.drop            = [&](int from, const Segment& s) {
    if (from != 0 || s.len == 0)
      return false;
    if (phase == 0 && s.seq == 100 * p.cfg.mss()) {
      phase = 1;
      return true;
    }
    if (phase == 1 && s.seq == 100 * p.cfg.mss())
      phase = 2; // the fast retransmit; `top` is the most sent before it
    else if (phase == 2 && s.seq >= top) {
      phase = 3;
      return true;
    }
    if (phase < 2)
      top = std::max(top, s.seq + s.len);
    return false;
  };
  p.write(0, 400 * cfg.mss());
  p.run();
  EXPECT_EQ(phase, 3);
  EXPECT_EQ(p.delivered[1], 400 * cfg.mss());
  EXPECT_FALSE(p.overlap);
  EXPECT_EQ(p.c[0].counters().fast_retransmits, 2u);
  EXPECT_EQ(p.c[0].counters().timeouts, 0u);
}

/// 5 % loss, 3 % duplication, 5 % late by 3 us on both directions, each side writing its bytes (ACKs ride on data
/// too); everything must arrive and be acknowledged exactly once, with retransmissions.
static void run_under_random_faults(Pair& p, std::uint64_t seed, std::uint64_t from0, std::uint64_t from1)
{
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  p.drop = [&](int, const Segment&) { return u(rng) < 0.05; };
  p.dup  = [&](int, const Segment&) { return u(rng) < 0.03; };
  p.late = [&](int, const Segment&) { return u(rng) < 0.05 ? SimTime::us(3) : SimTime{}; };
  p.write(0, from0);
  p.write(1, from1);
  p.run();
  EXPECT_EQ(p.delivered[1], from0);
  EXPECT_EQ(p.delivered[0], from1);
  EXPECT_EQ(p.acked[0], from0);
  EXPECT_EQ(p.acked[1], from1);
  EXPECT_FALSE(p.overlap);
  EXPECT_GT(p.c[0].counters().retransmitted, 0u);
}

// Also with window validation (cwnd_validation) beside the recovery: go-back-n moves the send point back, timeouts
// and fast retransmits cut the window.
TEST(Tcp, ExactlyOnceUnderRandomLossDuplicationAndReordering)
{
  for (bool validation : {false, true})
    for (bool ooo : {false, true}) {
      SCOPED_TRACE(fmt::format("{}, window validation {}", ooo ? "out-of-order holding" : "in-order only", validation));
      TcpConfig cfg;
      cfg.out_of_order    = ooo;
      cfg.retry_limit     = 100;
      cfg.cwnd_validation = validation;
      Pair p(cfg);
      run_under_random_faults(p, 7, 3'000'000, 1'000'000);
      EXPECT_GT(p.c[1].counters().duplicates, 0u);
      EXPECT_GT(p.c[0].counters().fast_retransmits + p.c[0].counters().timeouts, 0u);
    }
}

namespace {
/// The hardware stack's loss recovery (fpga-network-stack tx_engine.cpp RT, rx_engine.cpp): bursts of 4 x 4096 B.
TcpConfig toe_config()
{
  TcpConfig cfg;
  cfg.packet             = Bytes{1576}; // 1536 B segments
  cfg.loss_recovery      = LossRecovery::Toe;
  cfg.retransmit_segment = Bytes{4096};
  cfg.retransmit_burst   = 4;
  cfg.retransmit_window  = Bytes{14600};
  return cfg;
}
} // namespace

TEST(Tcp, TheHardwareStacksFastRetransmitResendsOneBurstAndKeepsItsWindow)
{
  // Twelve segments, the sixth lost: the stack resends one burst from the hole to where it had sent (10,752 B, in
  // 4096 B segments: three) and keeps its window; go-back-N resends the seven 1536 B segments from the hole and cuts
  // its window to retransmit_window.
  auto run = [](TcpConfig cfg) {
    Pair p(cfg);
    lose_the_sixth_segment(p, 12);
    return std::pair{p.c[0].counters().retransmitted, p.c[0].cwnd()};
  };
  TcpConfig gbn     = toe_config();
  gbn.loss_recovery = LossRecovery::GoBackN;
  auto [toe_resent, toe_cwnd] = run(toe_config());
  auto [gbn_resent, gbn_cwnd] = run(gbn);
  EXPECT_EQ(toe_resent, 3u);
  EXPECT_EQ(gbn_resent, 7u);
  EXPECT_GE(toe_cwnd, toe_config().first_cwnd()) << "never cut below where it started";
  EXPECT_GT(toe_cwnd, gbn_cwnd);
}

TEST(Tcp, TheHardwareStacksHolesBeyondABurstNeedMoreEvents)
{
  // Every third of the first 60 data segments lost: a burst covers 16 KiB from its hole, the stream goes on from
  // where it was, the data beyond the burst (dropped by the receiver, no out-of-order holding) waits for the next
  // event: another fast retransmit once a new ACK has cleared the last one, or a timeout. Everything arrives once.
  TcpConfig cfg   = toe_config();
  cfg.retry_limit = 100;
  cfg.rto_initial = SimTime::us(200);
  Pair p(cfg);
  unsigned sent = 0, lost = 0;
  p.drop = [&](int from, const Segment& s) {
    if (from != 0 || s.len == 0 || ++sent > 60 || sent % 3 != 2)
      return false;
    ++lost;
    return true;
  };
  p.write(0, 200 * p.cfg.mss());
  p.run();
  EXPECT_EQ(lost, 20u);
  EXPECT_EQ(p.delivered[1], 200 * p.cfg.mss());
  EXPECT_EQ(p.acked[0], 200 * p.cfg.mss());
  EXPECT_FALSE(p.overlap);
  EXPECT_GT(p.c[0].counters().fast_retransmits, 1u);
  EXPECT_GT(p.c[0].counters().retransmitted, 4u) << "more than one burst";
}

TEST(Tcp, TheHardwareStacksRecoveryIsExactlyOnceUnderRandomFaults)
{
  for (bool accept_overlap : {true, false}) {
    SCOPED_TRACE(accept_overlap ? "overlaps trimmed" : "overlaps dropped, as the stack's receiver does");
    TcpConfig cfg      = toe_config();
    cfg.retry_limit    = 1000;
    cfg.rto_initial    = SimTime::us(50);
    cfg.accept_overlap = accept_overlap;
    Pair p(cfg);
    run_under_random_faults(p, 11, 1'000'000, 300'000);
  }
}

TEST(Tcp, ARetransmissionOverlappingReceivedBytesIsDroppedWholeByTheHardwareStack)
{
  // Three 1536 B segments: the first arrives but its ACK is lost, the other two are lost. The timeout resends 4096 B
  // from the first unacknowledged byte, overlapping the 1536 B the receiver has. Linux's rule keeps its new bytes
  // (one timeout, then the last 512 B); the hardware stack's drops it whole and answers with a duplicate ACK, the
  // rest of the burst lands beyond the hole and is dropped too, and a second timeout resends from 1536 B.
  auto run = [](bool accept_overlap) {
    TcpConfig cfg      = toe_config();
    cfg.accept_overlap = accept_overlap;
    Pair p(cfg);
    bool ack_lost = false, first[3] = {true, true, true};
    p.drop = [&](int from, const Segment& s) {
      if (from == 1 && s.len == 0 && !ack_lost)
        return ack_lost = true;
      if (from == 0 && s.len == 1536 && s.seq / 1536 < 3 && first[s.seq / 1536]) {
        first[s.seq / 1536] = false;
        return s.seq > 0;
      }
      return false;
    };
    p.write(0, 3 * 1536);
    p.run();
    EXPECT_EQ(p.delivered[1], 3u * 1536);
    EXPECT_EQ(p.acked[0], 3u * 1536);
    EXPECT_FALSE(p.overlap);
    return std::tuple{p.c[0].counters().timeouts, p.c[1].counters().out_of_order_dropped, p.now};
  };
  auto [linux_timeouts, linux_dropped, linux_end] = run(true);
  auto [toe_timeouts, toe_dropped, toe_end]       = run(false);
  EXPECT_EQ(linux_timeouts, 1u);
  EXPECT_EQ(toe_timeouts, 2u);
  EXPECT_EQ(linux_dropped, 0u);
  EXPECT_EQ(toe_dropped, 2u) << "the overlapping segment and the one beyond the hole it left";
  EXPECT_GT(toe_end, linux_end);
}

// Node 0 writes 1000 B into a black hole until its session gives up after cfg.retry_limit (4) timeouts.
static void run_into_black_hole(Pair& p)
{
  p.drop = [](int from, const Segment&) { return from == 0; };
  p.write(0, 1000);
  p.run();
  EXPECT_TRUE(p.failed[0]);
  EXPECT_EQ(p.c[0].counters().timeouts, 4u);
  EXPECT_EQ(p.delivered[1], 0u);
}

TEST(Tcp, TimeoutsDoubleAndTheSessionGivesUpAfterTheRetryLimit)
{
  TcpConfig cfg;
  cfg.retry_limit = 4;
  Pair p(cfg);
  run_into_black_hole(p);
  // First arm at the send, then after each timeout: 1, 2, 4, 8, 16 ms.
  auto const& arms = p.timer_arms[0];
  ASSERT_GE(arms.size(), 5u);
  SimTime prev{};
  SimTime expect = cfg.rto_initial;
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(arms[i] - prev, expect) << "arm " << i;
    prev   = arms[i];
    expect = std::min(expect * 2, cfg.rto_max);
  }
}

TEST(Tcp, ATableOfTimeoutsIsFollowedInOrderItsLastRepeating)
{
  // The hardware stack's retransmit timer: 0.625, 3.125, 6.25, 9.375 s, ... (tcp_path.md, Timers), not doubling.
  TcpConfig cfg;
  cfg.retry_limit = 4;
  cfg.rto_steps   = {SimTime::us(625), SimTime::us(3125), SimTime::us(6250)};
  Pair p(cfg);
  run_into_black_hole(p);
  auto const& arms = p.timer_arms[0];
  ASSERT_GE(arms.size(), 5u);
  const std::vector<SimTime> expect{SimTime::us(625), SimTime::us(3125), SimTime::us(6250), SimTime::us(6250),
                                    SimTime::us(6250)};
  SimTime prev{};
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(arms[i] - prev, expect[i]) << "arm " << i;
    prev = arms[i];
  }
}

TEST(Tcp, AClosedWindowStopsTheSenderAndReopensItWithAnUpdateOrAProbe)
{
  TcpConfig cfg;
  cfg.rx_buffer = Bytes{64 * 1024};
  cfg.tx_buffer = Bytes{1 << 20};
  Pair p(cfg);
  p.consume[1] = false; // the consumer takes nothing: the window closes
  p.write(0, 200 * 1024);
  p.run(SimTime::us(50000));
  EXPECT_EQ(p.delivered[1], 64u * 1024);
  EXPECT_EQ(p.c[1].window(), 0u);
  EXPECT_LT(p.acked[0], 200u * 1024);
  EXPECT_GT(p.c[0].counters().probes, 0u); // the persist timer probed the closed window
  // The consumer now takes what it holds; the window update (or the next probe's answer) restarts it.
  p.consume[1] = true;
  Actions acts;
  p.c[1].consumed(p.delivered[1], acts);
  p.apply(1, acts);
  p.run();
  EXPECT_EQ(p.delivered[1], 200u * 1024);
  EXPECT_FALSE(p.overlap);
}

TEST(Tcp, WithoutWindowScalingTheWindowStopsAt64KiB)
{
  TcpConfig cfg;
  cfg.window_scaling = false;
  EXPECT_EQ(cfg.max_window(), 65535u);
  Connection c(cfg);
  EXPECT_EQ(c.window(), 65535u);
}

TEST(Tcp, SegmentPerWriteSendsEveryWriteAsItsOwnSegment)
{
  // Three writes of 1000 B before anything leaves: the hardware stack (NODELAY, a TX event per write) sends three
  // segments of 1000 B; a stream stack cuts full segments (1536 - 40 = 1496 B payload here): 1496, 1496 and 8.
  for (bool per_write : {true, false}) {
    TcpConfig cfg;
    cfg.segment_per_write = per_write;
    Connection c(cfg);
    Actions acts;
    for (int i = 0; i < 3; ++i)
      c.write(1000, acts);
    std::vector<std::uint32_t> lens;
    while (c.next())
      lens.push_back(c.commit(SimTime{}, acts).len);
    if (per_write)
      EXPECT_EQ(lens, (std::vector<std::uint32_t>{1000, 1000, 1000}));
    else
      EXPECT_EQ(lens, (std::vector<std::uint32_t>{1496, 1496, 8}));
  }
}

TEST(Tcp, WindowSpaceIsTheSendWindowLessTheBytesUnacknowledged)
{
  // The hardware stack takes a write only if it fits min(cwnd, peer window) less what is written and not yet
  // acknowledged; an ACK returns that room.
  TcpConfig cfg;
  cfg.window_scaling = false;
  cfg.rx_buffer      = Bytes{64 * 1024};
  Pair p(cfg);
  const std::uint64_t first = cfg.first_cwnd();
  EXPECT_EQ(p.c[0].window_space(), first);
  p.delay = SimTime::us(10);
  p.write(0, 5000);
  EXPECT_EQ(p.c[0].window_space(), first - 5000);
  p.run();
  EXPECT_EQ(p.acked[0], 5000u);
  EXPECT_GE(p.c[0].window_space(), first); // acknowledged: the room is back (and slow start grew it)
  EXPECT_LE(p.c[0].window_space(), 65535u);
}

TEST(Tcp, DelayedAckAnswersEverySecondSegmentAndALoneOneAfterTheDelay)
{
  // The hardware stack's ack_delay: an in-order segment arms the delay, the next one is answered at once with
  // both; a lone last segment is answered when the delay runs out.
  TcpConfig cfg;
  cfg.delayed_ack = SimTime::us(44);
  Pair p(cfg);
  p.write(0, 5 * cfg.mss()); // five segments: two ACKs at once, the fifth after 44 us
  p.run(SimTime::us(20));
  EXPECT_EQ(p.delivered[1], 5 * cfg.mss());
  EXPECT_EQ(p.acked[0], 4 * cfg.mss());
  EXPECT_EQ(p.c[1].counters().acks_sent, 2u);
  p.run();
  EXPECT_EQ(p.acked[0], 5 * cfg.mss());
  EXPECT_EQ(p.c[1].counters().acks_sent, 3u);
  EXPECT_GE(p.now, SimTime::us(44));
  // Without the delay every segment is answered.
  Pair q;
  q.write(0, 5 * q.cfg.mss());
  q.run();
  EXPECT_EQ(q.c[1].counters().acks_sent, 5u);
}

TEST(Tcp, SlowStartGrowsByTheConfiguredIncrementPerAck)
{
  // The hardware stack adds one 4096 B MSS per new ACK whatever it covers; RFC 5681 adds what it acknowledges, at
  // most one segment.
  for (std::uint64_t inc : {0ULL, 4096ULL}) {
    TcpConfig cfg;
    cfg.cwnd_increment = Bytes{inc};
    Pair p(cfg);
    const std::uint64_t first = p.c[0].cwnd();
    p.write(0, p.cfg.mss()); // one segment, one ACK
    p.run();
    EXPECT_EQ(p.c[0].cwnd(), first + (inc ? inc : p.cfg.mss()));
  }
}

TEST(Tcp, TheHardwareStacksWindowStopsGrowingAboveCongestionWindowMax)
{
  // fpga-network-stack (tcp_path.md section 2; rx_engine.cpp 1057-1064): from 14,600 B the window grows by 4,096 B
  // per new ACK while cwnd <= 0xFFFF - 4,096, so twelve ACKs take it to 63,752 B; beyond slow start it grows by 365 B
  // only while cwnd <= CONGESTION_WINDOW_MAX (63,488 B), which it already exceeds: it stays there, below the peer's
  // 65,535 B window. Without the maximum, congestion avoidance goes on adding 365 B per ACK.
  for (std::uint64_t max : {63488ULL, 0ULL}) {
    TcpConfig cfg;
    cfg.packet              = Bytes{1576};
    cfg.window_scaling      = false;
    cfg.tx_buffer           = Bytes{65536};
    cfg.rx_buffer           = Bytes{65536};
    cfg.initial_cwnd        = Bytes{14600};
    cfg.ssthresh            = Bytes{65535};
    cfg.cwnd_increment      = Bytes{4096};
    cfg.avoidance_increment = Bytes{365};
    cfg.cwnd_max            = Bytes{max};
    Pair p(cfg);
    EXPECT_EQ(p.c[0].cwnd(), 14600u);
    p.write(0, 1 << 20);
    p.run();
    EXPECT_EQ(p.delivered[1], 1u << 20);
    if (max)
      EXPECT_EQ(p.c[0].cwnd(), 14600u + 12 * 4096);
    else
      EXPECT_GT(p.c[0].cwnd(), 14600u + 12 * 4096 + 10 * 365);
  }
  TcpConfig both;
  both.initial_cwnd   = Bytes{14600};
  both.initial_window = 4;
  EXPECT_EQ(both.check().field, "initial_window") << "initial_cwnd replaces initial_window: setting both is refused";
}

// The hardware stack resets its congestion window to 14,600 B after any retransmission (tcp_path.md, Congestion
// control: tx_sar_table.cpp 95), where RFC 5681 goes to one segment after a timeout and to ssthresh after a fast
// retransmit.
TEST(Tcp, AConfiguredRetransmitWindowFollowsTimeoutsAndFastRetransmits)
{
  for (std::uint64_t window : {std::uint64_t{0}, std::uint64_t{14600}}) {
    TcpConfig cfg;
    cfg.retransmit_window = Bytes{window};
    { // a timeout: a lone segment lost once (no duplicate ACKs to repair it)
      Pair p(cfg);
      bool lost                   = false;
      std::uint64_t at_retransmit = 0; // the window as it goes again
      p.drop                      = [&](int from, const Segment& s) {
        if (from == 0 && s.len > 0) {
          if (!lost) {
            lost = true;
            return true;
          }
          if (at_retransmit == 0)
            at_retransmit = p.c[0].cwnd();
        }
        return false;
      };
      p.write(0, 1000);
      p.run();
      EXPECT_EQ(p.c[0].counters().timeouts, 1u);
      EXPECT_EQ(p.delivered[1], 1000u);
      EXPECT_EQ(at_retransmit, window ? window : cfg.mss()) << "after a timeout, window " << window;
    }
    { // a fast retransmit: one segment of 40 lost
      Pair p(cfg);
      bool once                   = true;
      std::uint64_t at_retransmit = 0; // the window as the hole's segment goes again
      p.drop                      = [&](int from, const Segment& s) {
        if (from == 0 && s.len > 0 && s.seq == 5 * cfg.mss()) {
          if (once) {
            once = false;
            return true;
          }
          if (at_retransmit == 0)
            at_retransmit = p.c[0].cwnd();
        }
        return false;
      };
      p.write(0, 40 * cfg.mss());
      p.run();
      EXPECT_EQ(p.c[0].counters().fast_retransmits, 1u);
      EXPECT_EQ(p.delivered[1], 40 * cfg.mss());
      if (window)
        EXPECT_EQ(at_retransmit, window);
      else
        EXPECT_GE(at_retransmit, 2 * cfg.mss()); // ssthresh: half the flight, at least two segments
    }
  }
}

// Linux grows the window only while it limits the sender (tcp_is_cwnd_limited, RFC 7661): forty messages of 1 KiB,
// each acknowledged before the next, leave it at its initial 10 segments (in slow start it grows while below twice
// the most in flight, 2 KiB), where RFC 5681 as written adds each ACK's 1 KiB; a message larger than the window fills
// it and grows it in both.
TEST(Tcp, WithCwndValidationSmallMessagesDoNotOpenTheWindow)
{
  for (bool validation : {false, true}) {
    TcpConfig cfg;
    cfg.cwnd_validation = validation;
    Pair p(cfg);
    const std::uint64_t first = p.c[0].cwnd();
    for (int i = 0; i < 40; ++i) {
      p.write(0, 1024);
      p.run();
    }
    EXPECT_EQ(p.c[0].cwnd(), validation ? first : first + 40 * 1024) << validation;
    p.write(0, 1 << 20); // a large message: the window limits it, and grows
    p.run();
    EXPECT_EQ(p.delivered[1], 40 * 1024u + (1u << 20));
    EXPECT_GT(p.c[0].cwnd(), first + 40 * 1024) << validation;
  }
}
