// RoCEv2 RC state machines with a fake clock and a scripted wire (no engine).
#include "protocols/roce/Requester.hpp"
#include "protocols/roce/Responder.hpp"

#include <gtest/gtest.h>
#include <map>
#include <set>

using namespace nafsim;
using namespace nafsim::roce;

namespace {

/// Shuttles packets between one requester and one responder. Each direction delivers in order
/// after `delay`; `drop_request` / `drop_response` decide per transmission.
struct Wire2 {
  RoceConfig cfg;
  Requester req;
  Responder rsp;
  SimTime now;
  SimTime delay = SimTime::ns(500);
  std::multimap<SimTime, std::uint64_t> timers;
  std::vector<Completion> completions;
  std::vector<InboundMessage> inbound;
  std::map<std::uint64_t, std::uint64_t> placed_bytes; // addr -> bytes placed (counts duplicates)
  std::vector<bool> placed_commands;                   // PlaceData::command, in order
  std::vector<RequestPacket> sent_requests;
  std::function<bool(const RequestPacket&)> drop_request = [](auto const&) { return false; };
  std::function<bool(const Wire&)> drop_response          = [](auto const&) { return false; };
  std::function<bool(const RequestPacket&)> dup_request   = [](auto const&) { return false; };

  explicit Wire2(RoceConfig c = {}, Psn psn = 0) : cfg(c), req(cfg, 2, psn), rsp(cfg, 1, psn) {}

  void apply(Actions& acts)
  {
    for (auto& a : acts) {
      if (auto* t = std::get_if<ArmTimer>(&a))
        timers.emplace(t->at, t->token);
      else if (auto* c = std::get_if<Completion>(&a))
        completions.push_back(*c);
      else if (auto* p = std::get_if<PlaceData>(&a)) {
        placed_bytes[p->addr] += p->seg.length;
        placed_commands.push_back(p->command);
      }
      else if (auto* m = std::get_if<InboundMessage>(&a))
        inbound.push_back(*m);
    }
    acts.clear();
  }

  /// Run until nothing is left to do (or `limit` is reached).
  void run(SimTime limit = SimTime::us(1e6))
  {
    Actions acts;
    for (int guard = 0; guard < 1000000; ++guard) {
      bool progressed = false;
      // Requester -> responder, one packet at a time, interleaved with the responses (full duplex).
      if (auto p = req.peek(now)) {
        req.commit(now, acts);
        apply(acts);
        sent_requests.push_back(*p);
        progressed = true;
        now += delay;
        if (!drop_request(*p)) {
          rsp.on_request(*p, now, acts);
          apply(acts);
          if (dup_request(*p)) {
            rsp.on_request(*p, now, acts);
            apply(acts);
          }
        }
      }
      // Responder -> requester, in order.
      if (rsp.has_output()) {
        progressed = true;
        now += delay;
        if (auto a = rsp.front_ack()) {
          rsp.pop_front();
          if (!drop_response(Wire{*a}))
            req.on_ack(*a, now, acts);
        } else if (auto r = rsp.front_response()) {
          rsp.pop_front();
          if (!drop_response(Wire{r->packet}))
            req.on_read_response(r->packet, now, acts);
        }
        apply(acts);
      }
      if (progressed)
        continue;
      if (timers.empty() || timers.begin()->first > limit)
        return;
      auto [t, token] = *timers.begin();
      timers.erase(timers.begin());
      now = std::max(now, t);
      if (token & Responder::kAckTimerToken)
        rsp.on_ack_timer(token, now, acts);
      else
        req.on_timer(token, now, acts);
      apply(acts);
    }
    FAIL() << "wire did not settle";
  }

  void post(Verb v, std::uint64_t len, std::uint64_t id, std::uint64_t laddr = 0x1000, std::uint64_t raddr = 0x8000)
  {
    Actions acts;
    req.post(WorkRequest{id, v, laddr, raddr, len, 100 + id}, now, acts);
    apply(acts);
  }
};

/// A queue pair under ConnectX adaptive retransmission: its own timeout, retry budget and first timeout.
RoceConfig adaptive(SimTime qp_timeout, unsigned retry_limit, SimTime initial)
{
  RoceConfig c;
  c.timeouts                 = {qp_timeout};
  c.retry_limit              = retry_limit;
  c.adaptive_retransmission  = true;
  c.adaptive_timeout_initial = initial;
  return c;
}

} // namespace

TEST(RocePsn, ModularArithmetic)
{
  EXPECT_EQ(psn_add(0xFFFFFF, 1), 0u);
  EXPECT_EQ(psn_add(0, -1), 0xFFFFFFu);
  EXPECT_EQ(psn_diff(1, 0xFFFFFF), 2);
  EXPECT_EQ(psn_diff(0xFFFFFF, 1), -2);
  EXPECT_TRUE(psn_lt(0xFFFFF0, 0x10));
  EXPECT_FALSE(psn_lt(0x10, 0xFFFFF0));
}

TEST(RoceChecksum, IndependentOfSegmentation)
{
  std::uint64_t whole = range_checksum(7, 0, 10000);
  std::uint64_t parts = range_checksum(7, 0, 4096) + range_checksum(7, 4096, 8192) + range_checksum(7, 8192, 10000);
  EXPECT_EQ(whole, parts);
  EXPECT_NE(whole, parts + range_checksum(7, 4096, 8192)) << "a duplicated segment must change the sum";
  EXPECT_NE(range_checksum(7, 0, 10000), range_checksum(8, 0, 10000));
}

TEST(RoceWrite, SegmentsAtMtuAndCompletesOnAck)
{
  Wire2 w;
  w.post(Verb::Write, 10240, 1);
  w.run();
  ASSERT_EQ(w.sent_requests.size(), 3u);
  EXPECT_EQ(w.sent_requests[0].op, Opcode::WriteFirst);
  EXPECT_EQ(w.sent_requests[1].op, Opcode::WriteMiddle);
  EXPECT_EQ(w.sent_requests[2].op, Opcode::WriteLast);
  EXPECT_EQ(w.sent_requests[0].data.length, 4096u);
  EXPECT_EQ(w.sent_requests[2].data.length, 2048u);
  EXPECT_EQ(w.sent_requests[0].length, 10240u) << "RETH carries the DMA length";
  ASSERT_EQ(w.completions.size(), 1u);
  EXPECT_EQ(w.completions[0].status, Status::Success);
  ASSERT_EQ(w.inbound.size(), 1u);
  EXPECT_EQ(w.inbound[0].bytes, 10240u);
  EXPECT_EQ(w.inbound[0].checksum, range_checksum(101, 0, 10240));
  EXPECT_EQ(w.req.counters().timeouts, 0u);
}

TEST(RoceWrite, WireSizesFollowHeaders)
{
  RoceConfig c;
  RequestPacket first{0, 0, Opcode::WriteFirst, false, 0, 8192, make_segment(1, 0, 4096)};
  RequestPacket mid{0, 1, Opcode::WriteMiddle, false, 0, 0, make_segment(1, 4096, 4096)};
  EXPECT_EQ(l3_bytes(Wire{first}, c), 44u + 16u + 4096u);
  EXPECT_EQ(l3_bytes(Wire{mid}, c), 44u + 4096u);
  EXPECT_EQ(l3_bytes(Wire{AckPacket{}}, c), 48u);
}

TEST(RoceWrite, LostMiddlePacketIsNakedAndResentGoBackN)
{
  Wire2 w;
  bool dropped = false;
  w.drop_request = [&](const RequestPacket& p) {
    if (p.psn == 1 && !dropped)
      return dropped = true;
    return false;
  };
  w.post(Verb::Write, 4 * 4096, 1);
  w.run();
  ASSERT_EQ(w.completions.size(), 1u);
  EXPECT_EQ(w.completions[0].status, Status::Success);
  EXPECT_EQ(w.rsp.counters().naks_sent, 1u) << "one NAK until a valid packet arrives";
  EXPECT_EQ(w.rsp.counters().out_of_sequence, 1u) << "PSN 2 arrives after the gap";
  EXPECT_EQ(w.req.counters().naks_received, 1u);
  // Go-back-N: the NAK for PSN 1 comes back before PSN 3 leaves; everything from PSN 1 is resent.
  std::vector<Psn> order;
  for (auto const& p : w.sent_requests)
    order.push_back(p.psn);
  EXPECT_EQ(order, (std::vector<Psn>{0, 1, 2, 1, 2, 3}));
  ASSERT_EQ(w.inbound.size(), 1u);
  EXPECT_EQ(w.inbound[0].checksum, range_checksum(101, 0, 4 * 4096));
  EXPECT_EQ(w.req.counters().timeouts, 0u);
}

TEST(RoceWrite, LostLastPacketRecoversByTimeout)
{
  Wire2 w;
  int drops = 0;
  w.drop_request = [&](const RequestPacket& p) { return p.psn == 2 && drops++ == 0; };
  w.post(Verb::Write, 3 * 4096, 1);
  w.run();
  ASSERT_EQ(w.completions.size(), 1u);
  EXPECT_EQ(w.completions[0].status, Status::Success);
  EXPECT_EQ(w.req.counters().timeouts, 1u);
  EXPECT_GE(w.now, SimTime::us(1000)) << "Coyote's first timeout is 1 ms";
  EXPECT_EQ(w.inbound.size(), 1u);
}

// A timeout with only SENDs outstanding is counted apart: Coyote's stack arms its timer for WRITEs and READ requests
// only, so there a lost last SEND packet is never resent (the run's summary says so); the model resends it.
TEST(RoceSend, ATimeoutWithOnlySendsOutstandingIsCountedApart)
{
  for (Verb v : {Verb::Send, Verb::Write}) {
    Wire2 w;
    int drops      = 0;
    w.drop_request = [&](const RequestPacket& p) { return p.psn == 2 && drops++ == 0; };
    Actions posted;
    w.rsp.post_recv(RecvRequest{77, 0x2000, 3 * 4096}, w.now, posted);
    w.apply(posted);
    w.post(v, 3 * 4096, 1);
    w.run();
    ASSERT_EQ(w.completions.size(), 1u);
    EXPECT_EQ(w.completions[0].status, Status::Success);
    EXPECT_EQ(w.req.counters().timeouts, 1u);
    EXPECT_EQ(w.req.counters().send_timeouts, v == Verb::Send ? 1u : 0u);
  }
}

TEST(RoceWrite, RetryLimitFailsTheQueuePairWithAnError)
{
  RoceConfig c;
  c.retry_limit = 3;
  Wire2 w(c);
  w.drop_request = [](auto const&) { return true; };
  w.post(Verb::Write, 4096, 1);
  w.post(Verb::Write, 4096, 2);
  w.run();
  ASSERT_EQ(w.completions.size(), 2u);
  EXPECT_EQ(w.completions[0].status, Status::RetryExceeded);
  EXPECT_NE(describe_failure(w.completions[0]).find("retry limit"), std::string::npos);
  EXPECT_EQ(w.completions[0].attempts, 4u);
  EXPECT_EQ(w.completions[1].status, Status::Flushed);
  EXPECT_EQ(w.req.counters().timeouts, 4u);
  EXPECT_EQ(w.req.state(), Requester::State::Error);
  // Timeouts escalate 1 ms, 5 ms, 10 ms, 10 ms.
  EXPECT_GE(w.now, SimTime::us(26000));
  Actions acts;
  w.req.post(WorkRequest{3, Verb::Write, 0, 0, 8, 3}, w.now, acts);
  ASSERT_EQ(acts.size(), 1u);
  EXPECT_EQ(std::get<Completion>(acts[0]).status, Status::Flushed);
}

TEST(RoceWrite, AdaptiveRetransmissionStartsShortDoublesAndFailsOnTheQueuePairsBudget)
{
  // ConnectX adaptive retransmission (NVIDIA, "Adaptive Retransmission: Parameters Control"): the first timeout is
  // short, consecutive ones double it up to the queue pair's timeout, and the queue pair fails once nothing has
  // progressed for retry_count x its timeout (here 3 x 1 ms), not after retry_count timeouts.
  Wire2 w(adaptive(SimTime::us(1000), 3, SimTime::us(64)));
  w.drop_request = [](auto const&) { return true; };
  w.now          = SimTime::us(5000); // an idle queue pair: its budget starts with the first packet, not at 0
  w.post(Verb::Write, 4096, 1);
  w.run(SimTime::us(100000));
  ASSERT_EQ(w.completions.size(), 1u);
  EXPECT_EQ(w.completions[0].status, Status::RetryExceeded);
  // Timeouts at 64, 192, 448, 960 us (doubling), then 1,960, 2,960 (capped at 1 ms) and 3,960 us after the first
  // packet, the first past the 3 ms budget: 7 timeouts where the list semantics would fail after 3 + 1.
  EXPECT_EQ(w.req.counters().timeouts, 7u);
  EXPECT_EQ(w.now, SimTime::us(5000 + 3960));
  EXPECT_EQ(w.req.state(), Requester::State::Error);
}

TEST(RoceWrite, AdaptiveRetransmissionResetsItsTimeoutOnProgress)
{
  Wire2 w(adaptive(SimTime::us(1000), 7, SimTime::us(64)));
  int sends = 0;
  w.drop_request = [&](auto const&) { return sends++ < 2; }; // the first two transmissions are lost
  w.post(Verb::Write, 4096, 1);
  w.run(SimTime::us(300)); // (stops before the disarmed timer's stale date, so w.now is the completion's)
  ASSERT_EQ(w.completions.size(), 1u);
  EXPECT_EQ(w.completions[0].status, Status::Success);
  EXPECT_EQ(w.req.counters().timeouts, 2u);
  EXPECT_GE(w.now, SimTime::us(192)); // resent at 64 and at 64 + 128 us
  EXPECT_LT(w.now, SimTime::us(200));
  // The acknowledgement reset the timeout: the next loss costs the initial 64 us again, not 256.
  const SimTime t = w.now;
  sends           = 0;
  w.drop_request  = [&](auto const&) { return sends++ < 1; };
  w.post(Verb::Write, 4096, 2);
  w.run(t + SimTime::us(100));
  ASSERT_EQ(w.completions.size(), 2u);
  EXPECT_EQ(w.completions[1].status, Status::Success);
  EXPECT_EQ(w.req.counters().timeouts, 3u);
  EXPECT_GE(w.now - t, SimTime::us(64));
  EXPECT_LT(w.now - t, SimTime::us(70));
}

TEST(RoceWrite, LostAcksAreCoveredByLaterCumulativeAck)
{
  Wire2 w;
  int acks = 0;
  w.drop_response = [&](const Wire& x) { return std::holds_alternative<AckPacket>(x) && acks++ < 3; };
  w.post(Verb::Write, 8 * 4096, 1);
  w.run();
  ASSERT_EQ(w.completions.size(), 1u);
  EXPECT_EQ(w.completions[0].status, Status::Success);
  EXPECT_EQ(w.req.counters().timeouts, 0u);
  EXPECT_EQ(w.sent_requests.size(), 8u);
}

TEST(RoceWrite, DuplicatesAreDroppedAndReacknowledged)
{
  Wire2 w;
  w.dup_request = [](auto const&) { return true; };
  w.post(Verb::Write, 3 * 4096, 1);
  w.run();
  EXPECT_EQ(w.rsp.counters().duplicates, 3u);
  ASSERT_EQ(w.inbound.size(), 1u);
  EXPECT_EQ(w.inbound[0].bytes, 3u * 4096);
  EXPECT_EQ(w.placed_bytes.size(), 3u);
  for (auto const& [addr, bytes] : w.placed_bytes)
    EXPECT_LE(bytes, 4096u) << "data placed once at " << addr;
  EXPECT_EQ(w.completions.size(), 1u);
}

TEST(RoceWrite, PsnWrapsAround)
{
  Wire2 w({}, 0xFFFFFE);
  w.post(Verb::Write, 5 * 4096, 1);
  w.post(Verb::Send, 100, 2);
  Actions acts;
  w.rsp.post_recv(RecvRequest{9, 0x2000, 4096}, w.now, acts);
  w.run();
  ASSERT_EQ(w.completions.size(), 2u);
  EXPECT_EQ(w.sent_requests.back().psn, 3u) << "0xFFFFFE + 5 WRITE packets ends at 2; the SEND is 3";
  EXPECT_EQ(w.inbound.size(), 2u);
  EXPECT_EQ(w.inbound[1].recv_wr_id, 9u);
}

TEST(RoceWindow, OutstandingWorkRequestsAreBounded)
{
  RoceConfig c;
  c.max_outstanding = 2;
  Wire2 w(c);
  for (int i = 0; i < 5; ++i)
    w.post(Verb::Write, 4096, static_cast<std::uint64_t>(i));
  Actions acts;
  int sent = 0;
  while (auto p = w.req.peek(w.now)) {
    w.req.commit(w.now, acts);
    w.apply(acts);
    w.rsp.on_request(*p, w.now, acts);
    w.apply(acts);
    ++sent;
  }
  EXPECT_EQ(sent, 2) << "the third work request waits for the first to complete";
  w.run();
  EXPECT_EQ(w.completions.size(), 5u);
}

TEST(RoceRead, ReturnsDataAndCompletes)
{
  Wire2 w;
  w.post(Verb::Read, 10240, 1, 0x4000, 0x9000);
  w.run();
  ASSERT_EQ(w.completions.size(), 1u);
  EXPECT_EQ(w.completions[0].verb, Verb::Read);
  EXPECT_EQ(w.completions[0].status, Status::Success);
  std::uint64_t total = 0;
  for (auto const& [addr, bytes] : w.placed_bytes)
    total += bytes;
  EXPECT_EQ(total, 10240u);
  EXPECT_EQ(w.placed_bytes.count(0x4000 + 8192), 1u);
}

TEST(RoceRead, LostResponseIsRequestedAgain)
{
  Wire2 w;
  int n = 0;
  w.drop_response = [&](const Wire& x) {
    auto const* r = std::get_if<ReadResponsePacket>(&x);
    return r && r->psn == 1 && n++ == 0;
  };
  w.post(Verb::Read, 4 * 4096, 1);
  w.post(Verb::Write, 4096, 2);
  w.run();
  ASSERT_EQ(w.completions.size(), 2u);
  EXPECT_EQ(w.completions[0].status, Status::Success);
  EXPECT_EQ(w.completions[0].verb, Verb::Read);
  EXPECT_GE(w.req.counters().read_gaps, 1u);
  std::uint64_t total = 0;
  for (auto const& [addr, bytes] : w.placed_bytes)
    total += bytes;
  EXPECT_EQ(total, 4u * 4096 + 4096) << "every READ byte placed exactly once, plus the WRITE";
}

namespace {
/// A requester that has sent one READ of `n` MTU-sized responses at time 0 (PSN 0 on).
struct ReadScript {
  RoceConfig cfg;
  Requester req;
  Actions out;
  std::map<std::uint64_t, int> placed; // offset -> times placed
  int completions = 0;
  explicit ReadScript(RoceConfig c, std::uint32_t n) : cfg(c), req(cfg, 2, 0)
  {
    req.post(WorkRequest{1, Verb::Read, 0x1000, 0x8000, n * cfg.mtu.count, 7}, SimTime{}, out);
    EXPECT_TRUE(req.peek(SimTime{}).has_value());
    req.commit(SimTime{}, out);
    take();
  }
  void take()
  {
    for (auto& a : out) {
      if (auto* p = std::get_if<PlaceData>(&a))
        ++placed[p->seg.offset];
      else if (auto* c = std::get_if<Completion>(&a))
        completions += c->status == Status::Success ? 1 : 0;
    }
    out.clear();
  }
  void response(Psn psn, SimTime at)
  {
    ReadResponsePacket r;
    r.psn  = psn;
    r.data = make_segment(7, psn * cfg.mtu.count, static_cast<std::uint32_t>(cfg.mtu.count));
    req.on_read_response(r, at, out);
    take();
  }
  /// The re-request the requester would send now (nullopt: none).
  std::optional<Psn> rerequest(SimTime at)
  {
    auto p = req.peek(at);
    if (!p)
      return std::nullopt;
    req.commit(at, out);
    take();
    return p->psn;
  }
};
} // namespace

TEST(RoceRead, AnOvertakenResponseIsPlacedWhereItBelongsWithOutOfOrderPlacement)
{
  // ooo_read_responses (ConnectX-5's out-of-order data placement): response 1 overtaken by 2 and 3 costs nothing.
  RoceConfig cfg;
  cfg.ooo_read_responses = true;
  ReadScript s(cfg, 4);
  s.response(0, SimTime::us(1));
  s.response(2, SimTime::ns(1100));
  s.response(3, SimTime::ns(1200)); // the last: 1 is still missing, so it is asked for again ...
  EXPECT_EQ(s.rerequest(SimTime::ns(1200)), std::optional<Psn>(1));
  s.response(1, SimTime::ns(1300)); // ... but the overtaken one arrives first and completes the READ
  EXPECT_EQ(s.completions, 1);
  s.response(1, SimTime::ns(2300)); // the re-request's responses are duplicates, placed nowhere
  s.response(2, SimTime::ns(2400));
  s.response(3, SimTime::ns(2500));
  for (auto const& [offset, times] : s.placed)
    EXPECT_EQ(times, 1) << "offset " << offset;
  EXPECT_EQ(s.placed.size(), 4u);
  EXPECT_EQ(s.req.counters().read_gaps, 1u);
  // Overtaken before the last response: no re-request at all.
  ReadScript t(cfg, 4);
  t.response(0, SimTime::us(1));
  t.response(2, SimTime::ns(1100));
  t.response(1, SimTime::ns(1150));
  t.response(3, SimTime::ns(1200));
  EXPECT_EQ(t.completions, 1);
  EXPECT_FALSE(t.rerequest(SimTime::ns(1200)).has_value());
  EXPECT_EQ(t.req.counters().read_gaps, 0u);
}

TEST(RoceRead, AReRequestCoversTheGapsOfTheOldStreamForARoundTrip)
{
  // Go-back-N: 2 overtakes 1, so the rest is asked for again from 1. The late 1 then arrives in order, and 3 from the
  // old stream opens a gap at 2, which the re-request (sent a round trip ago at most) already covers: asked for again,
  // it restarted the stream a second time (issue 55's storm). After a round trip a gap is real again.
  ReadScript s(RoceConfig{}, 8);
  s.response(0, SimTime::us(1)); // the READ's round trip: 1 us
  s.response(2, SimTime::ns(1100));
  EXPECT_EQ(s.rerequest(SimTime::ns(1100)), std::optional<Psn>(1));
  s.response(1, SimTime::ns(1200));
  s.response(3, SimTime::ns(1300));
  EXPECT_FALSE(s.rerequest(SimTime::ns(1300)).has_value());
  EXPECT_EQ(s.req.counters().read_gaps, 1u);
  EXPECT_EQ(s.req.counters().read_gaps_covered, 1u);
  // The new stream from 1: 1 is a duplicate, 2 and 3 in order; then 5 overtakes 4 after the round trip: re-requested.
  s.response(1, SimTime::ns(2200));
  s.response(2, SimTime::ns(2300));
  s.response(3, SimTime::ns(2400));
  s.response(5, SimTime::ns(2500));
  EXPECT_EQ(s.rerequest(SimTime::ns(2500)), std::optional<Psn>(4));
  EXPECT_EQ(s.req.counters().read_gaps, 2u);
}

TEST(RoceRead, RepeatedRequestRestartsTheResponseInsteadOfAddingOne)
{
  // A responder streaming a 10-packet READ response gets the request again from PSN 5 (the requester saw a gap
  // there, or timed out): it restarts at PSN 5. What it had queued from 5 on is dropped, not sent twice, and
  // responses already taken for transmission are marked stale (the epoch).
  RoceConfig cfg;
  Responder rsp(cfg, 1, 0);
  Actions out;
  RequestPacket read;
  read.op          = Opcode::ReadRequest;
  read.psn         = 0;
  read.length      = 10 * cfg.mtu.count;
  read.remote_addr = 0x1000;
  read.data        = Segment{7, 0, 0, 0};
  rsp.on_request(read, SimTime{}, out);
  std::vector<Psn> sent;
  for (int i = 0; i < 3; ++i) {
    sent.push_back(rsp.front_response()->packet.psn);
    rsp.pop_front();
  }
  const auto epoch = rsp.epoch();
  RequestPacket again = read;
  again.psn           = 5;
  again.length        = 5 * cfg.mtu.count;
  again.remote_addr   = 0x1000 + 5 * cfg.mtu.count;
  again.data.offset   = 5 * cfg.mtu.count;
  rsp.on_request(again, SimTime{}, out);
  EXPECT_EQ(rsp.epoch(), epoch + 1);
  // Responses taken for transmission before the restart: stale from PSN 5 on, not before (a go-back repeats the
  // requests of later READs too, whose restart must not cancel an earlier READ's responses).
  EXPECT_TRUE(rsp.stale(5, epoch));
  EXPECT_TRUE(rsp.stale(9, epoch));
  EXPECT_FALSE(rsp.stale(4, epoch));
  EXPECT_FALSE(rsp.stale(9, rsp.epoch())) << "taken after the restart: current";
  while (auto r = rsp.front_response()) {
    sent.push_back(r->packet.psn);
    rsp.pop_front();
  }
  EXPECT_EQ(sent, (std::vector<Psn>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})) << "each PSN once: the old stream stops at 5";
  EXPECT_EQ(rsp.counters().responses_aborted, 5u);
  // A repeated request from before everything queued drops all of it.
  RequestPacket first = read;
  rsp.on_request(read, SimTime{}, out);
  rsp.pop_front();
  rsp.on_request(first, SimTime{}, out);
  int left = 0;
  while (rsp.front_response()) {
    ++left;
    rsp.pop_front();
  }
  EXPECT_EQ(left, 10);
}

TEST(RoceSend, ReceiverNotReadyThenPosted)
{
  Wire2 w;
  w.post(Verb::Send, 6000, 1);
  // Deliver the first attempt without a posted receive.
  Actions acts;
  while (auto p = w.req.peek(w.now)) {
    w.req.commit(w.now, acts);
    w.rsp.on_request(*p, w.now, acts);
  }
  w.apply(acts);
  EXPECT_EQ(w.rsp.counters().rnr_naks_sent, 1u);
  w.rsp.post_recv(RecvRequest{77, 0x2000, 8192}, w.now, acts);
  w.run();
  ASSERT_EQ(w.completions.size(), 1u);
  EXPECT_EQ(w.completions[0].status, Status::Success);
  ASSERT_EQ(w.inbound.size(), 1u);
  EXPECT_EQ(w.inbound[0].recv_wr_id, 77u);
  EXPECT_EQ(w.inbound[0].bytes, 6000u);
}

TEST(RoceSend, AMessageIsOneMemoryCommandAWritePacketIsOneEach)
{
  // The RDMA stack writes each WRITE packet's payload as its own memory command; a SEND is the receiver's one
  // command for the message (its Rx system writes it into the buffer it chose), or none if the receiver takes the
  // message from the stream (a control message).
  RoceConfig c;
  c.mtu = Bytes{1024};
  Wire2 w(c);
  w.post(Verb::Write, 3000, 1);
  w.run();
  EXPECT_EQ(w.placed_commands, (std::vector<bool>{true, true, true}));
  w.placed_commands.clear();
  Actions acts;
  w.rsp.post_recv(RecvRequest{7, 0x2000, 4096}, w.now, acts);
  w.apply(acts);
  w.post(Verb::Send, 3000, 2);
  w.run();
  EXPECT_EQ(w.placed_commands, (std::vector<bool>{true, false, false}));
  w.placed_commands.clear();
  w.rsp.set_recv_provider([](const AppHeader&) {
    return RecvOffer{RecvOffer::Status::Ready, RecvRequest{~0ULL, 0x9000, 64}, true};
  });
  w.post(Verb::Send, 64, 3);
  w.run();
  EXPECT_EQ(w.placed_commands, (std::vector<bool>{false}));
}

TEST(RoceSend, RnrRetryLimitFails)
{
  RoceConfig c;
  c.rnr_retry_limit = 2;
  Wire2 w(c);
  w.post(Verb::Send, 100, 1);
  w.run();
  ASSERT_EQ(w.completions.size(), 1u);
  EXPECT_EQ(w.completions[0].status, Status::RnrRetryExceeded);
  EXPECT_EQ(w.completions[0].stalled, SimTime{}); // the limit ran out, not rnr_stall
  EXPECT_NE(describe_failure(w.completions[0]).find("rnr_retry_limit is exhausted"), std::string::npos);
}

TEST(RoceSend, RnrRetryCountSevenRetriesForever)
{
  // InfiniBand's 3-bit RNR retry count: 7 means retry without limit (back-pressure, not failure).
  RoceConfig c;
  c.rnr_retry_limit = 7;
  Wire2 w(c);
  w.post(Verb::Send, 100, 1);
  w.run(SimTime::us(5000)); // 5 ms of 10 us RNR waits: hundreds of retries
  EXPECT_TRUE(w.completions.empty());
  EXPECT_GT(w.rsp.counters().rnr_naks_sent, 100u);
  // Each RNR NAK is a response: the transport timer restarts from the resend, so back-pressure never runs it out
  // (it used to fire every 1 ms here, rewinding and counting towards the retry limit).
  EXPECT_EQ(w.req.counters().timeouts, 0u);
  Actions acts;
  w.rsp.post_recv(RecvRequest{5, 0x1000, 4096}, w.now, acts);
  w.apply(acts);
  w.run();
  ASSERT_EQ(w.completions.size(), 1u);
  EXPECT_EQ(w.completions[0].status, Status::Success);
}

TEST(RoceSend, ARefusalThatNeverEndsIsReportedAsADeadlockWithItsRemedy)
{
  // Retrying for ever on a receive that is never posted: after rnr_stall the queue pair fails, and the report says
  // how long, that it is a deadlock, and what to change (not only "receiver not ready").
  RoceConfig c;
  c.rnr_retry_limit = 7;
  c.rnr_stall       = SimTime::us(1000);
  Wire2 w(c);
  w.post(Verb::Send, 100, 1);
  w.run(SimTime::us(5000));
  ASSERT_EQ(w.completions.size(), 1u);
  EXPECT_EQ(w.completions[0].status, Status::RnrRetryExceeded);
  EXPECT_GE(w.completions[0].stalled, SimTime::us(1000));
  const std::string why = describe_failure(w.completions[0]);
  EXPECT_NE(why.find("deadlock"), std::string::npos) << why;
  EXPECT_NE(why.find("rnr_stall"), std::string::npos) << why;
  EXPECT_NE(why.find("more receive buffers"), std::string::npos) << why;
}

TEST(RoceSend, RnrBackPressureDoesNotSpendTheAdaptiveBudget)
{
  // An RNR NAK is a response (IBA): long back-pressure counts against rnr_retry_limit alone, so a loss right after it
  // costs one adaptive timeout, not the queue pair.
  RoceConfig c      = adaptive(SimTime::us(100), 3, SimTime::us(50)); // a 300 us budget
  c.rnr_retry_limit = 7;
  c.rnr_stall       = SimTime::zero();
  Wire2 w(c);
  w.post(Verb::Send, 100, 1);
  w.run(SimTime::us(5000)); // 5 ms of receiver-not-ready NAKs
  EXPECT_TRUE(w.completions.empty());
  EXPECT_EQ(w.req.counters().timeouts, 0u);
  Actions acts;
  w.rsp.post_recv(RecvRequest{5, 0x1000, 4096}, w.now, acts);
  w.apply(acts);
  int lost       = 0;
  w.drop_request = [&](auto const&) { return lost++ < 1; }; // the first send after the receive is posted is lost
  w.run(SimTime::us(6000));
  ASSERT_EQ(w.completions.size(), 1u);
  EXPECT_EQ(w.completions[0].status, Status::Success);
  EXPECT_EQ(w.req.counters().timeouts, 1u);
}

TEST(RoceAck, CoalescedAcksGoOnRequestOrTimeout)
{
  // ERNIC-style: no ACK per packet (ack_every past the message), the last packet (AckReq) acknowledged at once,
  // and packets left unacknowledged acknowledged ack_timeout after the first of them.
  RoceConfig cfg;
  cfg.ack_every   = 65536;
  cfg.ack_timeout = SimTime::us(2);
  Responder rsp(cfg, 1, 0);
  Actions acts;
  auto packet = [](Psn psn, Opcode op) {
    RequestPacket r;
    r.psn         = psn;
    r.op          = op;
    r.ack_req     = is_last(op);
    r.remote_addr = 0x8000;
    r.length      = 3 * 4096;
    r.data        = make_segment(7, 4096ULL * psn, 4096);
    return r;
  };
  rsp.on_request(packet(0, Opcode::WriteFirst), SimTime::us(10), acts);
  ASSERT_EQ(acts.size(), 2u); // the data to place, the timer
  auto const* t = std::get_if<ArmTimer>(&acts[1]);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->at, SimTime::us(12));
  EXPECT_TRUE(t->token & Responder::kAckTimerToken);
  const std::uint64_t first = t->token;
  acts.clear();
  rsp.on_request(packet(1, Opcode::WriteMiddle), SimTime::us(11), acts);
  EXPECT_FALSE(rsp.has_output()); // no ACK yet, and no second timer
  for (auto const& a : acts)
    EXPECT_FALSE(std::holds_alternative<ArmTimer>(a));
  acts.clear();
  rsp.on_ack_timer(first, SimTime::us(12), acts);
  auto ack = rsp.front_ack();
  ASSERT_TRUE(ack.has_value());
  EXPECT_EQ(ack->psn, 1u); // both packets, one ACK
  rsp.pop_front();
  EXPECT_EQ(rsp.counters().ack_events, 1u);
  // The last packet is acknowledged on request; a timer armed before that ACK finds nothing to do.
  acts.clear();
  rsp.on_request(packet(2, Opcode::WriteLast), SimTime::us(13), acts);
  ack = rsp.front_ack();
  ASSERT_TRUE(ack.has_value());
  EXPECT_EQ(ack->psn, 2u);
  rsp.pop_front();
  rsp.on_ack_timer(first, SimTime::us(14), acts);
  EXPECT_FALSE(rsp.has_output());
  EXPECT_EQ(rsp.counters().ack_events, 2u);
}

TEST(RoceAck, TimeoutCoalescingStillDeliversExactlyOnceUnderLoss)
{
  // A 40-packet WRITE with one ACK per 16 packets at most and a 3 us coalescing timer, every 7th request
  // packet lost once: it completes once, all data placed, fewer ACKs than packets.
  RoceConfig cfg;
  cfg.ack_every   = 16;
  cfg.ack_timeout = SimTime::us(3);
  Wire2 w(cfg);
  std::set<Psn> dropped;
  w.drop_request = [&](const RequestPacket& p) { return p.psn % 7 == 3 && dropped.insert(p.psn).second; };
  w.post(Verb::Write, 40 * 4096, 1);
  w.run();
  ASSERT_EQ(w.completions.size(), 1u);
  EXPECT_EQ(w.completions[0].status, Status::Success);
  ASSERT_EQ(w.inbound.size(), 1u);
  EXPECT_EQ(w.inbound[0].bytes, 40u * 4096);
  EXPECT_EQ(w.inbound[0].checksum, range_checksum(101, 0, 40 * 4096));
  EXPECT_LT(w.rsp.counters().ack_events, 40u);
}

TEST(RoceWrite, ARetransmissionOvertakenAgainWaitsForTheTimeoutUnderGoBackN)
{
  // IBA go-back-N under reordering alone (what the hosts' 5 % reordering runs show, protocols/roce/README.md): PSN 0
  // is overtaken, so PSN 1 draws the one NAK for PSN 0 and PSNs 1-2 are dropped; the retransmitted PSN 0 is overtaken
  // again, so the retransmitted 1-2 are dropped silently (that NAK is already sent); the late PSN 0 fills the gap and
  // is acknowledged. Nothing is lost, yet nothing asks for PSNs 1-2 again: only the transport timer does.
  RoceConfig cfg;
  Requester req(cfg, 2, 0);
  Responder rsp(cfg, 1, 0);
  SimTime now;
  Actions acts;
  std::vector<std::uint64_t> timer_tokens;
  std::vector<SimTime> timer_dates;
  auto keep_timers = [&] {
    for (auto& a : acts)
      if (auto* t = std::get_if<ArmTimer>(&a)) {
        timer_tokens.push_back(t->token);
        timer_dates.push_back(t->at);
      }
    acts.clear();
  };
  auto send_all = [&] {
    std::vector<RequestPacket> sent;
    while (auto p = req.peek(now)) {
      req.commit(now, acts);
      sent.push_back(*p);
    }
    keep_timers();
    return sent;
  };
  auto answer = [&] { // the responder's ACKs and NAKs, in order, to the requester
    while (rsp.has_output()) {
      auto a = rsp.front_ack();
      ASSERT_TRUE(a.has_value());
      rsp.pop_front();
      req.on_ack(*a, now, acts);
    }
    keep_timers();
  };
  req.post(WorkRequest{1, Verb::Write, 0x1000, 0x8000, 3 * 4096, 101}, now, acts);
  keep_timers();
  auto first = send_all();
  ASSERT_EQ(first.size(), 3u);
  rsp.on_request(first[1], now, acts); // PSN 0 overtaken: NAK for 0
  rsp.on_request(first[2], now, acts);
  acts.clear();
  EXPECT_EQ(rsp.counters().naks_sent, 1u);
  answer(); // the requester goes back to PSN 0
  auto again = send_all();
  ASSERT_EQ(again.size(), 3u);
  EXPECT_EQ(again[0].psn, 0u);
  rsp.on_request(again[1], now, acts); // the retransmitted PSN 0 overtaken again: dropped without a NAK
  rsp.on_request(again[2], now, acts);
  EXPECT_EQ(rsp.counters().naks_sent, 1u);
  rsp.on_request(first[0], now, acts); // the late original fills the gap
  rsp.on_request(again[0], now, acts); // its copy is a duplicate
  acts.clear();
  answer();
  EXPECT_FALSE(req.peek(now).has_value()) << "everything was sent; PSNs 1-2 wait for the timer";
  ASSERT_FALSE(timer_tokens.empty());
  now = timer_dates.back();
  req.on_timer(timer_tokens.back(), now, acts);
  keep_timers();
  EXPECT_EQ(req.counters().timeouts, 1u);
  auto resent = send_all();
  ASSERT_EQ(resent.size(), 2u);
  EXPECT_EQ(resent[0].psn, 1u);
}
