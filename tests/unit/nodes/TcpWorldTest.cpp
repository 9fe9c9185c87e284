// ACCL's TCP path on the XRT platform, engine-free: a NodeWorld of two U55C nodes over the hardware TCP stack
// (shared/reference/accl/tcp_path.md). The CCLO's transmit handler writes one packet per request with one request
// outstanding, so a send is paced by the request's status; the stack takes a write only inside the send window;
// and a send completes when the stack has taken its last write, without waiting for the peer's ACK.
#include "tests/support/NodeWorld.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

using namespace nafsim;
using namespace nafsim::testing;
using coll::Collective;

namespace {

std::string platform(const std::string& tcp, const std::string& propagation = "10ns")
{
  return fmt::format(R"({{"preset": "accl-xrt-u55c", "topology": {{"kind": "star", "hosts": 2}},
                         "network": {{"link": {{"propagation": "{}"}}}},
                         "node": {{"fpga": {{"cclo": {{"rx_buffers": {{"count": 4, "size": "4MiB"}}, "tuning": {{"max_eager_size": "4MiB", "max_rendezvous_size": "8MiB"}}}}, "tcp": {{{}}}}}}}}})",
                     propagation, tcp);
}

struct Sent {
  SimTime sender, receiver; ///< each rank's CCLO cycle counter
  std::uint64_t requests = 0, refused = 0;
};

/// Rank 0 sends `bytes` to rank 1 (device data, eager), both calls issued at time 0; the payload is checked.
Sent send(const std::string& p, std::uint64_t bytes)
{
  NodeWorld w(p);
  const std::uint64_t n = bytes / 4;
  std::vector<nodes::CcloCall> calls{w.call(Collective::Send, 2, 0, n, 1), w.call(Collective::Recv, 2, 1, n, 0)};
  w.fill_inputs({calls[0]}, n);
  auto res = w.run(calls);
  EXPECT_EQ(res[0].error, "");
  EXPECT_EQ(res[1].error, "");
  auto out = w.read(1, calls[1].dst_addr, n);
  for (std::uint64_t i = 0; i < n; i += 1021)
    EXPECT_EQ(out[i], static_cast<float>(i % 1000)) << i;
  auto const& c = w.cluster().tcp(0)->counters();
  return {res[0].finished - res[0].started, res[1].finished - res[1].started, c.write_requests, c.refused_writes};
}

/// Fill the calls' inputs (`n` elements), run them and expect each to end without an error.
void run_clean(NodeWorld& w, const std::vector<nodes::CcloCall>& calls, std::uint64_t n)
{
  w.fill_inputs(calls, n);
  for (auto const& x : w.run(calls))
    EXPECT_EQ(x.error, "");
}

} // namespace

TEST(TcpWorld, OneWriteRequestOutstandingPacesTheSender)
{
  // 256 KiB + the CCLO's 64 B header = 171 requests of at most 1536 B. When the handshake is the slowest stage
  // (280 ns per 1536 B is 44 Gb/s, far below the wire and the window), doubling the request-to-status time adds
  // it once per request to the sender's time.
  const std::uint64_t bytes = 256 * 1024, requests = (bytes + 64 + 1535) / 1536;
  Sent slow   = send(platform(R"("tx_status_latency": "280ns")"), bytes);
  Sent slower = send(platform(R"("tx_status_latency": "560ns")"), bytes);
  EXPECT_EQ(slow.requests, requests);
  EXPECT_EQ(slower.requests, requests);
  const double per_request = (slower.sender - slow.sender).us() / static_cast<double>(requests);
  EXPECT_NEAR(per_request, 0.280, 0.280 * 0.05); // the first request overlaps the call's first read
  // The preset's 140 ns per 1536 B is 87.8 Gb/s, still below the wire: the requests are the floor of the sender's
  // time, and the rest (the call, the first read, slow start's first windows) is a few microseconds.
  Sent preset = send(platform(""), bytes);
  EXPECT_GE(preset.sender.us(), requests * 0.140);
  EXPECT_LT(preset.sender.us(), requests * 0.140 + 5.0);
}

TEST(TcpWorld, ASendCompletesWhenTheStackTookItsLastWriteNotAtItsAck)
{
  // 50 us of cable each way: an ACK is 100 us away. A 4 KiB send fits the first window and completes long before
  // any ACK; 256 KiB is four 64 KiB windows, so the stack refuses writes until ACKs open the window, and the
  // sender's time holds three round trips.
  const std::string far = platform("", "50us");
  Sent small = send(far, 4096);
  EXPECT_LT(small.sender, SimTime::us(5));
  EXPECT_EQ(small.refused, 0u);
  Sent big = send(far, 256 * 1024);
  EXPECT_GT(big.sender, SimTime::us(300));
  EXPECT_GT(big.refused, 0u);
  EXPECT_GT(big.receiver, big.sender); // the receiver still copies out of its Rx buffer after the last byte
}

TEST(TcpWorld, ASharedReceiveFifoThatFillsDropsSegmentsAndTheDataStillArrives)
{
  // The stack's one 64 KiB receive FIFO, shared by every session, takes a segment only while more than 24,000 B of it
  // is free (tcp_path.md section 2). Four ranks send 256 KiB to rank 0 at once with memory written at 20 Gb/s (each
  // sender's own transmit-buffer writes pace it to about that): rank 0 receives four times what it can write, the
  // FIFO fills, segments are dropped, answered by duplicate ACKs and sent again, and what rank 0 receives arrives
  // whole. Without the FIFO (rx_fifo 0, a buffer per session) nothing is dropped.
  auto run = [](const std::string& fifo) {
    NodeWorld w(fmt::format(R"({{"preset": "accl-xrt-u55c", "topology": {{"kind": "star", "hosts": 5}},
        "node": {{"fpga": {{"device_memory": {{"write_bandwidth": "20Gbps"}},
                  "cclo": {{"rx_buffers": {{"count": 8, "size": "4MiB"}}, "tuning": {{"max_eager_size": "4MiB", "max_rendezvous_size": "8MiB"}}}}, "tcp": {{"rx_fifo": "{}"}}}}}}}})",
                            fifo));
    const std::uint64_t n = 256 * 1024 / 4;
    std::vector<nodes::CcloCall> calls{w.call(Collective::Recv, 5, 0, n, 1)};
    for (int r = 1; r < 5; ++r)
      calls.push_back(w.call(Collective::Send, 5, r, n, 0));
    run_clean(w, calls, n);
    auto out = w.read(0, calls[0].dst_addr, n);
    for (std::uint64_t i = 0; i < n; i += 1021)
      EXPECT_EQ(out[i], static_cast<float>(1000 + i % 1000)) << i;
    std::uint64_t resent = 0;
    for (int r = 1; r < 5; ++r)
      resent += w.cluster().tcp(static_cast<std::size_t>(r))->counters().tcp.retransmitted;
    return std::pair{w.cluster().tcp(0)->counters().tcp.refused_full, resent};
  };
  auto [dropped, resent] = run("64KiB");
  EXPECT_GT(dropped, 0u);
  EXPECT_GT(resent, 0u);
  auto [none, again] = run("0B");
  EXPECT_EQ(none, 0u);
  EXPECT_EQ(again, 0u);
}

TEST(TcpWorld, ADelayedAckThatASegmentCarriedLeavesNoTimerBehind)
{
  // The stack's delayed ACK (44 us): the first of two in-order segments arms it, the second is answered at once and
  // its ACK covers both. The first one's timer then has nothing to do, and its event goes: the run ends when the ACK
  // is back, not 44 us after the first segment. A lone segment is still answered 44 us later.
  auto run = [](std::uint64_t bytes) {
    NodeWorld w(platform(""));
    const std::uint64_t n = bytes / 4;
    std::vector<nodes::CcloCall> calls{w.call(Collective::Send, 2, 0, n, 1), w.call(Collective::Recv, 2, 1, n, 0)};
    w.fill_inputs({calls[0]}, n);
    auto res = w.run(calls);
    EXPECT_EQ(res[1].error, "");
    return std::pair{res[1].finished, w.scheduler().now()};
  };
  // 2,048 B + the CCLO's 64 B header: two writes of at most 1536 B, one segment each.
  auto [received, end] = run(2048);
  EXPECT_LT(end - received, SimTime::us(10)) << "ended " << (end - received).us() << " us after the receive";
  auto [lone, lone_end] = run(1024);
  EXPECT_GT(lone_end - lone, SimTime::us(40)) << "a lone segment's ACK waits for the delay";
}

TEST(TcpWorld, EachRankSendsOnTheSessionItOpenedAndAcksOnItsPeers)
{
  // ACCL's openCon: every rank opens a session to every other and sends on it, receiving on the one its peer opened
  // (tcp_path.md section 1). In a 2-rank allreduce both ranks send to each other: each FPGA holds two sessions, one
  // carrying only its data out (nothing comes back on it to acknowledge), the other only its ACKs of the peer's data
  // (an ACK cannot ride the reverse data, which leaves on the other session).
  NodeWorld w(platform(""));
  const std::uint64_t n = 256;
  std::vector<nodes::CcloCall> calls{w.call(Collective::AllReduce, 2, 0, n), w.call(Collective::AllReduce, 2, 1, n)};
  w.fill_inputs(calls, n);
  for (auto const& r : w.run(calls))
    EXPECT_EQ(r.error, "");
  for (std::size_t node = 0; node < 2; ++node) {
    auto const& tcp = *w.cluster().tcp(node);
    ASSERT_EQ(tcp.session_count(), 2u) << "node " << node;
    unsigned data_only = 0, acks_only = 0;
    for (nodes::QpId s = 0; s < 2; ++s) {
      auto const& c = tcp.connection(s).counters();
      if (c.segments_sent > 0 && c.acks_sent == 0)
        ++data_only;
      if (c.acks_sent > 0 && c.segments_sent == 0) // segments_sent counts data segments
        ++acks_only;
    }
    EXPECT_EQ(data_only, 1u) << "node " << node;
    EXPECT_EQ(acks_only, 1u) << "node " << node;
  }
}

TEST(TcpWorld, AFirstTransmissionLeavesByTheBypassBesideItsBufferedCopy)
{
  // The stack with NODELAY sends a write's segment from the application's stream while a copy goes to its transmit
  // buffer for retransmissions (tcp_path.md section 2). Sent through the buffer instead, a lone segment (1 KiB + the
  // CCLO's 64 B header) waits for its write and read-back: 250 + 430 ns of latency plus 1,088 B at 98 and 115 Gb/s
  // (89 + 76 ns). The sender's time (until the stack took its write) is the same either way.
  auto bypass = send(platform(""), 1024);
  auto stored = send(platform(R"("tx_bypass": false)"), 1024);
  EXPECT_EQ(bypass.sender, stored.sender);
  const SimTime saved = stored.receiver - bypass.receiver;
  EXPECT_GE(saved, SimTime::ns(680)) << saved.us() << " us";
  EXPECT_LE(saved, SimTime::ns(846)) << saved.us() << " us";
}

TEST(TcpWorld, AWindowReopenedByAConsumerThatThenStallsIsAnnounced)
{
  // 256 KiB from rank 1 to rank 0 through Rx buffers of 256 B (the preset's count): the receiver's recv() takes the
  // stream a segment at a time between stalls, and the session's 64 KiB window closes. The window the consumer
  // reopens must be announced even when a stall comes in the middle of that consumption (an update lost there left
  // the sender, whose writes must fit the window, waiting for an ACK that never came: a deadlock with every Rx buffer
  // free). Every byte arrives. (This was a gather of 256 KiB blocks; the firmware's gather reads a block in one
  // data-mover move, which cannot hold 1,024 Rx buffers: refused now, as the hardware would hang.)
  // Without the shared receive FIFO (rx_fifo 0B): with it, a stalled stream's backlog holds the FIFO and segments
  // beyond its room are dropped (the next test), and the sender then waits for timers.
  NodeWorld w(R"({"preset": "accl-xrt-u55c", "topology": {"kind": "star", "hosts": 2},
                  "node": {"fpga": {"cclo": {"rx_buffers": {"size": "256B"}}, "tcp": {"rx_fifo": "0B"}}}})");
  const std::uint64_t n = 256 * 1024 / 4;
  std::vector<nodes::CcloCall> calls{w.call(Collective::Recv, 2, 0, n, 1), w.call(Collective::Send, 2, 1, n, 0)};
  run_clean(w, calls, n);
  auto out = w.read(0, calls[0].dst_addr, n);
  for (std::uint64_t i = 0; i < n; i += 1021)
    EXPECT_EQ(out[i], static_cast<float>(1000 + i % 1000)) << i;
  EXPECT_GT(w.cluster().tcp(0)->counters().consumer_stalls, 0u);
  EXPECT_EQ(w.cluster().tcp(1)->counters().tcp.timeouts, 0u); // no loss: nothing waited for a timer
}

TEST(TcpWorld, AStalledStreamsBacklogHoldsTheSharedReceiveFifo)
{
  // With RX_DDR_BYPASS the stack's only receive buffer is the shared 64 KiB FIFO (tcp_path.md section 2): a segment
  // stays in it until the application has read it, and the stack advertises a window of up to 65,535 B per session.
  // Rank 1 receives 1 MiB 2 ms after rank 0 sends it: its 16 x 32 KiB Rx buffers fill, its CCLO takes nothing more,
  // and the next window's segments wait in the FIFO, which takes one only while more than 24,000 B of it are free.
  // So segments are dropped while the stream is stalled, before rank 1 receives anything (the model counted the
  // backlog only once it was written out, and dropped nothing by then), and the message still arrives whole.
  const std::uint64_t n = 1024 * 1024 / 4;
  auto world = [](const std::string& fifo) {
    return std::make_unique<NodeWorld>(fmt::format(R"({{"preset": "accl-xrt-u55c", "topology": {{"kind": "star", "hosts": 2}},
                                                      "node": {{"fpga": {{"tcp": {{"rx_fifo": "{}"}}}}}}}})",
                                                   fifo));
  };
  auto calls = [n](NodeWorld& w) {
    std::vector<nodes::CcloCall> c{w.call(Collective::Send, 2, 0, n, 1), w.call(Collective::Recv, 2, 1, n, 0)};
    w.fill_inputs({c[0]}, n);
    return c;
  };
  const std::vector<SimTime> starts{SimTime::zero(), SimTime::us(2000)};
  // Stopped at 1.5 ms, the stream stalled and the receive not yet begun.
  auto dropped_while_stalled = [&](const std::string& fifo) {
    auto w = world(fifo);
    w->scheduler().set_time_limit(SimTime::us(1500));
    EXPECT_THROW(w->run(calls(*w), starts), SimulationError);
    EXPECT_GT(w->cluster().tcp(1)->counters().consumer_stalls, 0u);
    return w->cluster().tcp(1)->counters().tcp.refused_full;
  };
  EXPECT_GT(dropped_while_stalled("64KiB"), 0u);
  EXPECT_EQ(dropped_while_stalled("0B"), 0u); // a buffer per session: nothing dropped
  // Run to the end: the sender resends what was dropped, and the message arrives whole.
  auto w = world("64KiB");
  auto c = calls(*w);
  for (auto const& r : w->run(c, starts))
    EXPECT_EQ(r.error, "");
  auto out = w->read(1, c[1].dst_addr, n);
  for (std::uint64_t i = 0; i < n; i += 1021)
    EXPECT_EQ(out[i], static_cast<float>(i % 1000)) << i;
  EXPECT_GT(w->cluster().tcp(0)->counters().tcp.retransmitted, 0u);
}

TEST(TcpWorld, StreamsWhoseConsumerNeverDrainsAreReportedAsADeadlock)
{
  // A 4-rank all-to-all of 1 MiB per peer, eager through the preset's Rx buffers (16 x 32 KiB): every rank sends
  // before it receives, the buffers fill with other peers' segments, every stream stalls on its consumer and every
  // sender on a closed window. The hardware hangs; the streams would be offered again every consumer_poll until the
  // time limit (100 s of polls took 42 s of CPU). After consumer_stall (here 1 ms) of the same refusal, the run
  // stops with a deadlock that says so.
  NodeWorld w(R"({"preset": "accl-xrt-u55c", "topology": {"kind": "star", "hosts": 4},
                  "node": {"fpga": {"poe": {"consumer_stall": "1ms"}}}})");
  const std::uint64_t n = 1024 * 1024 / 4;
  std::vector<nodes::CcloCall> calls;
  for (int r = 0; r < 4; ++r) {
    calls.push_back(w.call(Collective::AllToAll, 4, r, n, 0));
    calls.back().algorithm = coll::Algorithm::Flat; // (the firmware's is rendezvous only: over TCP nafsim's, forced)
  }
  w.fill_inputs(calls, n);
  w.scheduler().set_time_limit(SimTime::us(50000)); // (without the bound: the time limit's SimulationError)
  try {
    w.run(calls);
    FAIL() << "the all-to-all ended";
  } catch (const DeadlockError& e) {
    const std::string why = e.what();
    EXPECT_NE(why.find("consumer_stall"), std::string::npos) << why;
    EXPECT_NE(why.find("rx_buffers.count"), std::string::npos) << why;
    EXPECT_NE(why.find("waits for its data movements"), std::string::npos) << why; // what every actor waits for
  }
  EXPECT_GE(w.scheduler().now(), SimTime::us(1000));
  EXPECT_LT(w.scheduler().now(), SimTime::us(3000)); // (the stalls begin within the first millisecond)
  // With room for every peer's message the same calls end (the advice works).
  NodeWorld roomy(R"({"preset": "accl-xrt-u55c", "topology": {"kind": "star", "hosts": 4},
                      "node": {"fpga": {"poe": {"consumer_stall": "1ms"}, "cclo": {"rx_buffers": {"count": 96}}}}})");
  run_clean(roomy, calls, n);
}

TEST(TcpWorld, AConsumerThatIsOnlyLateIsNotADeadlock)
{
  // Rank 1 receives 150 ms after rank 0 sends 1 MiB (a rank computing first): its 16 x 32 KiB Rx buffers fill and
  // the stream stalls far longer than consumer_stall (1 ms), but rank 1 sleeps meanwhile and takes the message when
  // it wakes. That is a slow consumer, not a deadlock (the bound counted the stall alone at first and reported one).
  NodeWorld w(R"({"preset": "accl-xrt-u55c", "topology": {"kind": "star", "hosts": 2},
                  "node": {"fpga": {"poe": {"consumer_stall": "1ms"}}}})");
  const std::uint64_t n = 1024 * 1024 / 4;
  std::vector<nodes::CcloCall> calls{w.call(Collective::Send, 2, 0, n, 1), w.call(Collective::Recv, 2, 1, n, 0)};
  w.fill_inputs({calls[0]}, n);
  auto res = w.run(calls, {SimTime::zero(), SimTime::us(150000)});
  EXPECT_EQ(res[0].error, "");
  EXPECT_EQ(res[1].error, "");
  EXPECT_GT(res[1].finished, SimTime::us(150000));
  auto out = w.read(1, calls[1].dst_addr, n);
  for (std::uint64_t i = 0; i < n; i += 1021)
    EXPECT_EQ(out[i], static_cast<float>(i % 1000)) << i;
  EXPECT_GT(w.cluster().tcp(1)->counters().consumer_stalls, 0u);
}
