// The FPGA node: memory pipelining and how the RDMA POE composes its latencies.
#include "nodes/memory/MemoryPort.hpp"
#include "nodes/transport/NoticeQueue.hpp"
#include "nodes/transport/PayloadWrites.hpp"
#include "nodes/transport/RunStart.hpp"
#include "nodes/transport/RxPipe.hpp"
#include "tests/support/RunScenario.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <vector>

using namespace nafsim;
using namespace nafsim::testing;

TEST(MemoryPort, StreamsAtBandwidthAndPaysLatencyOnce)
{
  nodes::MemoryPort m(BitsPerSecond{128e9}, SimTime::ns(250));
  // 4096 B at 128 Gb/s = 256 ns on the bus; data 250 ns later.
  EXPECT_EQ(m.access(SimTime::zero(), Bytes{4096}), SimTime::ns(506));
  // Back to back: the second waits for the bus, not for the first's latency.
  EXPECT_EQ(m.access(SimTime::zero(), Bytes{4096}), SimTime::ns(762));
  // After an idle period the bus starts at once.
  EXPECT_EQ(m.access(SimTime::us(10), Bytes{64}), SimTime::us(10) + SimTime::ns(4) + SimTime::ns(250));
  EXPECT_EQ(m.bytes(), 8256u);
}

// The NIC engines' receive pipe: each event takes its own packet, so packets handed over ahead out of the order of
// their arrivals (flows over paths of different lengths) leave in the order of their dates, as do packets that
// enter at their arrival.
TEST(RxPipe, EachEventTakesItsOwnPacketWhateverTheOrderTheyCameIn)
{
  struct Owner final : EventHandler {
    Scheduler* s       = nullptr;
    nodes::RxPipe* pipe = nullptr;
    std::string got;
    void on_event(std::uint32_t, std::uint64_t place) override
    {
      got += fmt::format("{}@{} ", pipe->take(place).seq, s->now().ps() / 1000);
    }
  };
  Scheduler sched;
  Owner owner;
  nodes::RxPipe pipe(sched, &owner, 0);
  owner.s    = &sched;
  owner.pipe = &pipe;
  auto packet = [](std::uint32_t seq) {
    net::Packet p;
    p.seq = seq;
    return p;
  };
  const SimTime latency = SimTime::ns(200);
  pipe.push_ahead(packet(1), SimTime::ns(900), latency, {}); // a long path, handed over first
  pipe.push_ahead(packet(2), SimTime::ns(300), latency, {}); // a short one, arriving first
  pipe.push(packet(3), latency);                            // in at 0
  sched.run_standalone();
  EXPECT_EQ(owner.got, "3@200 2@500 1@1100 ");
}

// The pipes of one run keep their packets in one store (Scheduler::shared): a packet read in place stays put while
// a thousand enter other pipes (the store grows in blocks that never move), and the place freed last is taken first,
// so the few places a run keeps busy stay warm. Another run has a store of its own.
TEST(RxPipe, ThePipesOfARunShareOneStoreWhosePacketsNeverMove)
{
  struct Owner final : EventHandler {
    void on_event(std::uint32_t, std::uint64_t) override {}
  };
  Scheduler sched;
  Owner a, b;
  nodes::RxPipe one(sched, &a, 0), two(sched, &b, 0);
  auto& store = sched.shared<nodes::RxPipe::Store>();
  EXPECT_EQ(&store, &sched.shared<nodes::RxPipe::Store>());
  net::Packet p;
  p.seq = 7;
  const std::uint32_t first = store.put(std::move(p));
  const net::Packet& held   = one.at(first);
  for (std::uint32_t i = 0; i < 1000; ++i) {
    net::Packet q;
    q.seq = 100 + i;
    store.put(std::move(q));
  }
  EXPECT_EQ(&held, &one.at(first)) << "a packet read in place does not move";
  EXPECT_EQ(held.seq, 7u);
  EXPECT_EQ(two.at(first + 500).seq, 599u) << "one store for both pipes";
  one.release(first + 3);
  two.release(first + 9);
  net::Packet r;
  r.seq = 1;
  EXPECT_EQ(store.put(std::move(r)), first + 9) << "the place freed last is taken first";
  Scheduler other;
  EXPECT_NE(&other.shared<nodes::RxPipe::Store>(), &store);
}

// The NIC engines' completion queue: a notice its consumer takes a fixed delay after it falls due (the CCLO's Rx
// parse) is handed over once, at that later date, and still holds back the notices pushed after it; without the
// delay each notice is an event, and the consumer's delay another. A notice falling due at the end of the owner's
// running event is not taken late: it goes there, as push() hands it.
TEST(NoticeQueue, ANoticeItsConsumerTakesLaterGoesOnceAndHoldsTheNextBehindIt)
{
  enum : std::uint32_t { kNotify, kLate, kInside };
  struct Owner final : EventHandler {
    Scheduler* s                  = nullptr;
    nodes::NoticeQueue<int>* q    = nullptr;
    std::string got;
    bool inside_taken_late = true;
    void on_event(std::uint32_t kind, std::uint64_t arg) override
    {
      q->begin_event();
      if (kind == kNotify) {
        got += fmt::format("{}@{} ", q->pop(), s->now().ps() / 1000);
      } else if (kind == kLate) {
        auto [n, due] = q->take_late(arg);
        got += fmt::format("{}@{}(due {}) ", n, s->now().ps() / 1000, due.ps() / 1000);
      } else {
        int n             = 3;
        inside_taken_late = q->push_late(n, s->now(), SimTime::ns(50), kLate, CauseLabel{}, [] { return CauseLabel{}; });
        if (!inside_taken_late)
          q->push(n, s->now());
      }
      q->end_event([&](int& n) { got += fmt::format("{}@{}(at the event's end) ", n, s->now().ps() / 1000); });
    }
  };
  Scheduler sched;
  Owner owner;
  nodes::NoticeQueue<int> q(sched, &owner, kNotify);
  owner.s = &sched;
  owner.q = &q;
  int first = 1;
  ASSERT_TRUE(q.push_late(first, SimTime::ns(300), SimTime::ns(100), kLate, CauseLabel{}, [] { return CauseLabel{}; }));
  q.push(2, SimTime::ns(100)); // written by 100 ns, but behind the first, due at 300 ns
  sched.at(SimTime::ns(1000), &owner, kInside);
  sched.run_standalone();
  EXPECT_EQ(owner.got, "2@300 1@400(due 300) 3@1000(at the event's end) ");
  EXPECT_FALSE(owner.inside_taken_late);
  EXPECT_EQ(sched.events_processed(), 3u); // the notice taken late: one event, not its own and its consumer's
}

// The NIC engines' payload writes (RdmaPoe, TcpPoe, UdpPoe): a completion waits for the write that ends last, which
// need not be the last issued (a write into device memory after one into host memory over PCIe), and a waiting
// notice is labelled with that write's rate, asked only when it ends last.
TEST(PayloadWrites, TheWriteThatEndsLastSetsTheDateAndItsRateTheLabel)
{
  Scheduler clock;
  nodes::PayloadWrites w(clock, "RoCE POE", 3);
  int asked = 0;
  w.wrote(SimTime::ns(100), SimTime::ns(500), [&] { ++asked; return BitsPerSecond{104e9}; }); // host memory over PCIe
  w.wrote(SimTime::ns(300), SimTime::ns(400), [&] { ++asked; return BitsPerSecond{98e9}; }); // device memory, ends sooner
  EXPECT_EQ(w.done(), SimTime::ns(500));
  EXPECT_EQ(asked, 1) << "a write ending before the last asks no rate";
  CauseLabel l = w.why();
  EXPECT_EQ(l.where, 3);
  EXPECT_EQ(cause_resource(l.what), "RoCE POE");
  EXPECT_EQ(cause_detail(l.what), "payload written to memory at 104.0 Gb/s before the completion");
  w.wrote(SimTime::ns(400), SimTime::ns(500), [&] { ++asked; return BitsPerSecond{98e9}; }); // ends with it: it names it
  EXPECT_EQ(cause_detail(w.why().what), "payload written to memory at 98.0 Gb/s before the completion");

  // A notice pushed behind them is due at their date and carries their label when the run records causes.
  struct Owner final : EventHandler {
    Scheduler* s = nullptr;
    nodes::NoticeQueue<int>* q = nullptr;
    std::string got;
    void on_event(std::uint32_t, std::uint64_t) override { got += fmt::format("{}@{} ", q->pop(), s->now().ps() / 1000); }
  };
  Scheduler sched;
  Owner owner;
  nodes::NoticeQueue<int> q(sched, &owner, 0);
  owner.s = &sched;
  owner.q = &q;
  q.push(7, w);
  sched.run_standalone();
  EXPECT_EQ(owner.got, "7@500 ");
}

// Memory slower than the link: each packet's payload write waits behind the one before, so a message's completion
// waits for the run of writes that began with its first packet. Its critical path walks back through those writes
// to the first arrival (all of it the memory's), not through the last packet's arrival, which blamed the wire for
// a receive bound by memory (issue 53's audit: RoCE sendrecv with writes at 80 Gb/s, "80 % wire", where twice the
// links moved nothing and twice the memory 18 %).
TEST(PayloadWrites, ACompletionBehindARunOfWritesWalksBackToItsBeginning)
{
  struct Engine final : EventHandler {
    Scheduler* s = nullptr;
    nodes::PayloadWrites* w = nullptr;
    nodes::NoticeQueue<int>* q = nullptr;
    SimTime port_free, dur, latency; ///< the memory port: each write's time on it, then its latency
    std::uint32_t done = 0;
    std::uint32_t arrival = cause_what("test", "packet arrival");
    void on_event(std::uint32_t kind, std::uint64_t last) override
    {
      if (kind == 1) { // the notice
        q->pop();
        done = s->cause_mark();
        return;
      }
      const SimTime start = std::max(port_free, s->now());
      port_free           = start + dur;
      w->wrote(start + latency, port_free + latency, [] { return BitsPerSecond{80e9}; });
      if (last)
        q->push(1, *w);
    }
    CauseLabel cause(std::uint32_t, std::uint64_t) const override { return CauseLabel{arrival}; }
  };
  Scheduler sched;
  sched.record_causes();
  Engine e;
  nodes::PayloadWrites w(sched, "RoCE POE", 0);
  nodes::NoticeQueue<int> q(sched, &e, 1);
  e.s = &sched;
  e.w = &w;
  e.q = &q;
  // A packet arrives every 10 ns and is written in 15 after the memory's latency (5 ns): each write waits for the
  // one before.
  e.dur     = SimTime::ns(15);
  e.latency = SimTime::ns(5);
  for (int i = 1; i <= 3; ++i)
    sched.at(SimTime::ns(10 * i), &e, 0, i == 3);
  sched.run_standalone();
  ASSERT_NE(e.done, 0u);
  auto p = sched.causes()->path(e.done, SimTime{});
  ASSERT_FALSE(p.empty());
  EXPECT_EQ(p.back().end, SimTime::ns(60));
  EXPECT_EQ(p.back().begin, SimTime::ns(10)) << "the writes began with the first packet";
  EXPECT_EQ(cause_detail(p.back().label.what), "payload written to memory at 80.0 Gb/s before the completion");
  // A write after the run has ended begins a run of its own: its completion walks back to its own packet.
  sched.at(SimTime::ns(100), &e, 0, 1);
  sched.run_standalone();
  p = sched.causes()->path(e.done, SimTime{});
  EXPECT_EQ(p.back().begin, SimTime::ns(100));
  EXPECT_EQ(p.back().end, SimTime::ns(120));
  // Writes that keep up with the packets but take a long latency (5 ns on the port, 30 after it) overlap without
  // queueing: latency is no queue, and the completion walks back to the last packet (the wire brought it).
  e.dur     = SimTime::ns(5);
  e.latency = SimTime::ns(30);
  sched.at(SimTime::ns(200), &e, 0, 0);
  sched.at(SimTime::ns(210), &e, 0, 1);
  sched.run_standalone();
  p = sched.causes()->path(e.done, SimTime{});
  EXPECT_EQ(p.back().begin, SimTime::ns(210));
  EXPECT_EQ(p.back().end, SimTime::ns(245));
}

// The step that began a run of work is a parent like any other, the run's origin (cause mark 0: where a run's first
// work request is posted) among them; Scheduler::kRunningStep stands for the step running now. (0 stood for "none",
// so reads begun by the first post had their wake-ups caused by the pull that asked: RoCE with reads slower than the
// link still said 79 % wire.)
TEST(RunStart, ARunBegunAtTheOriginIsCausedByIt)
{
  struct Owner final : EventHandler {
    Scheduler* s = nullptr;
    std::vector<std::uint32_t> marks;
    void on_event(std::uint32_t kind, std::uint64_t) override
    {
      marks.push_back(s->cause_mark());
      if (kind == 1) // a pull: the next wake-up from the step running now
        s->at_caused_by(Scheduler::kRunningStep, SimTime::ns(30), this, 2, 0);
    }
  };
  Scheduler sched;
  sched.record_causes();
  Owner o;
  o.s = &sched;
  nodes::RunStart reads(sched);
  EXPECT_EQ(reads.began(), Scheduler::kRunningStep) << "no run yet";
  reads.issued(SimTime::ns(5), SimTime::ns(20)); // posted at the origin
  EXPECT_EQ(reads.began(), 0u);
  sched.at(SimTime::ns(10), &o, 1);
  sched.at_caused_by(reads.began(), SimTime::ns(20), &o, 0, 0);
  sched.run_standalone();
  ASSERT_EQ(o.marks.size(), 3u);
  auto from = [&](std::uint32_t mark) { return sched.causes()->path(mark, SimTime{}).back().begin; };
  EXPECT_EQ(from(o.marks[1]), SimTime{}) << "the reads' end walks back to the origin";
  EXPECT_EQ(from(o.marks[2]), SimTime::ns(10)) << "kRunningStep: the pull";
}

namespace {
std::string star_scenario(const std::string& op, const std::string& sizes)
{
  return fmt::format(R"({{"platform": {{"topology": {{"kind": "star", "hosts": 2}},
      "network": {{"link": {{"rate": "100Gbps", "propagation": "10ns"}},
                  "switch": {{"forwarding": "store-and-forward", "latency": "500ns"}}}},
      "node": {{"fpga": {{"device_memory": {{"read_bandwidth": "128Gbps", "write_bandwidth": "64Gbps",
                                          "read_latency": "250ns", "write_latency": "100ns"}},
                        "poe": {{"tx_latency": "200ns", "rx_latency": "150ns"}}}}}}}},
      "workload": {{"kind": "sendrecv", "op": "{}", "sizes": [{}]}}}})",
                     op, sizes);
}
} // namespace

TEST(RdmaPoe, OnePacketWriteComposesEveryStage)
{
  auto run = run_scenario_isolated(star_scenario("write", "512"));
  ASSERT_TRUE(run.ok) << run.error;
  // 512 B WRITE_ONLY: IP datagram 44 + 16 (RETH) + 512 = 572 B; wire 572 + 38 = 610 B = 48.8 ns at 100 Gb/s.
  // ready  = max(tx 200, memory read 512 B / 128 Gb/s (32 ns) + 250 ns) = 282 ns
  // switch = 282 + 48.8 + 10 + 500 (store-and-forward)            = 840.8 ns
  // tail at host1 = 840.8 + 48.8 + 10                              = 899.6 ns
  // landed = + rx 150 + memory write 512 B / 64 Gb/s (64 ns) + 100 = 1213.6 ns
  EXPECT_DOUBLE_EQ(run.tables.at("sendrecv").num(0, "latency_us"), 1.2136);
  // ACK: 48 + 38 = 86 B = 6.88 ns per cable, generated at 1049.6 ns (rx), sent at once (ACKs skip tx_latency):
  // 1049.6 + 6.88 + 10 + 500 + 6.88 + 10 = 1583.36 ns at host0, + rx 150 ns = 1733.36 ns.
  EXPECT_DOUBLE_EQ(run.tables.at("sendrecv").num(0, "completion_us"), 1.7334);
}

TEST(RdmaPoe, SendConsumesPostedReceivesAndReadReturnsData)
{
  auto send = run_scenario_isolated(star_scenario("send", "0, 100, 5000, 1048576"));
  ASSERT_TRUE(send.ok) << send.error;
  EXPECT_EQ(send.tables.at("sendrecv").rows.size(), 4u);
  auto read = run_scenario_isolated(star_scenario("read", "64, 4096, 100000"));
  ASSERT_TRUE(read.ok) << read.error;
  auto const& t = read.tables.at("sendrecv");
  ASSERT_EQ(t.rows.size(), 3u);
  // READ data flows from node 1 back to node 0: the responder sends the data packets.
  auto const& nodes = read.tables.at("nodes");
  EXPECT_EQ(nodes.num(1, "responses_sent"), 1 + 1 + 25);
  EXPECT_EQ(nodes.num(0, "device_write_bytes"), 64 + 4096 + 100000);
  EXPECT_GT(t.num(2, "latency_us"), t.num(1, "latency_us"));
}

TEST(Trace, RecordsEveryWorkRequestAndPacket)
{
  auto run = run_scenario_isolated(star_scenario("write", "512, 100000"), {}, "packets");
  ASSERT_TRUE(run.ok) << run.error;
  std::size_t work = 0, packets = 0, inbound = 0;
  for (auto const& e : run.trace.at("traceEvents")) {
    if (e.at("ph") == "X" && e.at("tid") == 1)
      ++work;
    else if (e.at("ph") == "X" && e.at("tid").get<int>() >= 100)
      ++packets;
    else if (e.at("ph") == "i" && e.at("tid") == 2)
      ++inbound;
  }
  EXPECT_EQ(work, 2u);
  EXPECT_EQ(inbound, 2u);
  EXPECT_EQ(packets, run.metadata.at("packets").at("packet_hops").get<std::size_t>());
  EXPECT_FALSE(run.metadata.at("trace").at("truncated").get<bool>());
  auto quiet = run_scenario_isolated(star_scenario("write", "512"));
  EXPECT_TRUE(quiet.trace.is_null()) << "no trace unless asked";
}

TEST(RdmaPoe, WorkloadMessagesAboveRocesLargestAreRefusedWithTheirPath)
{
  auto send = run_scenario_isolated(star_scenario("write", "1024, 3221225472"));
  ASSERT_FALSE(send.ok);
  EXPECT_EQ(send.error_kind, "config");
  EXPECT_NE(send.error.find("/workload/sizes/1"), std::string::npos) << send.error;
  EXPECT_NE(send.error.find("at most 2GiB"), std::string::npos) << send.error;
  auto traffic = run_scenario_isolated(R"({"platform": {"topology": {"kind": "star", "hosts": 2}},
      "workload": {"kind": "traffic", "message": "33GiB"}})");
  ASSERT_FALSE(traffic.ok);
  EXPECT_EQ(traffic.error_kind, "config");
  EXPECT_NE(traffic.error.find("/workload/message"), std::string::npos) << traffic.error;
}

// A traffic window wider than the queue pair's max_outstanding: the engine holds the rest posted, so the window's
// width beyond it changes nothing (16, 32 and 64 ran at the same rate while the summary named 64); the summary says so.
// And --critical-path on a workload that records no critical path says none was written (it was silent), while
// metadata.json records the request, so that rerunning it asks again.
TEST(RdmaPoe, ATrafficWindowBeyondTheOutstandingLimitIsNamed)
{
  const std::string s = R"({"platform": {"topology": {"kind": "star", "hosts": 2}},
      "workload": {"kind": "traffic", "message": "4KiB", "messages": 64, "window": 32}})";
  auto has = [](const ScenarioRun& r, const std::string& text) {
    for (auto const& l : r.summary)
      if (l.find(text) != std::string::npos)
        return true;
    return false;
  };
  auto wide = run_scenario_isolated(s, {}, "off", true);
  ASSERT_TRUE(wide.ok) << wide.error;
  EXPECT_TRUE(has(wide, "window 32 is wider than the 16 messages a queue pair keeps in flight")) << wide.summary.size();
  EXPECT_TRUE(has(wide, "asked for critical paths, but the traffic workload records none"));
  EXPECT_EQ(wide.metadata.at("scenario").value("critical_path", false), true);
  auto deep = run_scenario_isolated(s, {"platform.node.fpga.rdma.max_outstanding=32"});
  ASSERT_TRUE(deep.ok) << deep.error;
  EXPECT_FALSE(has(deep, "is wider than"));
  EXPECT_FALSE(has(deep, "critical paths"));
}

// A cable's duplicate arrives at a lossless switch without the room its original reserved: it was queued into the
// room reserved for packets on their way, and the queue toward the incast's receiver reached 66,848 B of a 64 KiB
// port_buffer with nothing dropped. It now fits beside the reservations or is dropped; every message still arrives.
TEST(RdmaPoe, ADuplicateNeverGrowsALosslessQueuePastItsBuffer)
{
  auto r = run_scenario_isolated(R"({"platform": {"preset": "single-switch", "topology": {"hosts": 8},
      "network": {"switch": {"flow_control": "lossless", "port_buffer": "64KiB"},
                  "faults": {"duplicate_rate": 0.05}}},
      "workload": {"kind": "traffic", "pattern": "incast", "message": "64KiB", "messages": 16}})");
  ASSERT_TRUE(r.ok) << r.error;
  auto const& ports = r.tables.at("ports");
  double duplicated = 0;
  for (std::size_t i = 0; i < ports.rows.size(); ++i) {
    duplicated += ports.num(i, "duplicated");
    if (ports.rows[i].at("element").rfind("switch", 0) == 0) {
      EXPECT_LE(ports.num(i, "max_queue_bytes"), 65536) << ports.rows[i].at("element") << " port "
                                                         << ports.rows[i].at("port");
    }
  }
  EXPECT_GT(duplicated, 0);
  auto const& t = r.tables.at("traffic");
  for (std::size_t i = 0; i < t.rows.size(); ++i)
    EXPECT_EQ(t.num(i, "bytes_sent"), 16.0 * 65536) << "node " << i;
}
