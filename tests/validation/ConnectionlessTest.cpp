// Lant et al.'s connectionless transport, end to end (platforms/lant-zcu102.json, workload
// `connectionless`): the paper's stated latency points, exactly-once delivery under loss,
// duplication and reordering with every packet accounted for, the escape channel's timeout path,
// and the paper's claim that registration gains grow with distance and load.
#include "tests/support/RunScenario.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <set>

using namespace nafsim::testing;

namespace {

/// Mean receive latency per (bytes, notify) of a latency-mode run.
double mean_recv(const Csv& t, std::uint64_t bytes, const std::string& notify)
{
  double s = 0;
  int n    = 0;
  for (auto const& r : t.rows)
    if (std::stoull(r.at("bytes")) == bytes && r.at("notify") == notify) {
      s += std::stod(r.at("recv_us"));
      ++n;
    }
  EXPECT_GT(n, 0) << bytes << " " << notify;
  return n ? s / n : 0;
}

/// Every packet is accounted for: what the NIs sent, the fabric delivered or dropped (duplicates
/// add copies); every data packet a receiver took ended in exactly one way; every retransmission
/// entry was sent or cancelled by a late ACK.
void expect_accounting(const ScenarioRun& run)
{
  auto const& n = run.tables.at("connectionless_nodes");
  auto const& p = run.metadata.at("packets");
  double sent   = n.sum("data_packets_sent") + n.sum("control_packets_sent");
  double got    = n.sum("packets_received") + n.sum("acks_received") + n.sum("nacks_received") +
               n.sum("notifications_received");
  EXPECT_EQ(sent, p.at("injected").get<double>());
  EXPECT_EQ(got, p.at("delivered").get<double>());
  EXPECT_EQ(sent + p.at("duplicates").get<double>(),
            got + p.at("fault_drops").get<double>() + p.at("queue_drops").get<double>());
  EXPECT_EQ(n.sum("packets_received"),
            n.sum("packets_written") + n.sum("duplicates_dropped") + n.sum("late_duplicates") + n.sum("crc_nacks") +
                n.sum("registration_full_drops") + n.sum("not_ready_drops") + n.sum("escape_overflow_drops") +
                n.sum("escape_timeouts"));
  EXPECT_EQ(n.sum("crc_nacks"), p.at("corrupted_delivered").get<double>());
  EXPECT_EQ(n.sum("retransmit_requests"), n.sum("retransmitted") + n.sum("retransmissions_cancelled"));
  EXPECT_EQ(n.sum("retransmit_requests"), n.sum("retransmit_on_timeout") + n.sum("retransmit_on_nack"));
  EXPECT_EQ(n.sum("packets_sent") + n.sum("retransmitted"), n.sum("data_packets_sent") + n.sum("stale_staged"));
  EXPECT_EQ(n.sum("verification_failures"), 0);
}

} // namespace

// Paper section 4.1: 1 KB receive about 5.23 us unregistered, 4.21 us registered (both calibration
// points of the lant-zcu102 preset, see its sources); the gain "insignificant at around 32KB" is a
// prediction. Tolerance: 5 % on the two latencies; below 5 % gain at 32 KiB.
TEST(Connectionless, PaperLatencyPointsOnOneHop)
{
  auto run = run_scenario_isolated(R"({"platform": {"preset": "lant-zcu102"},
      "workload": {"kind": "connectionless", "sizes": ["1KiB", "32KiB"], "iterations": 4}})");
  ASSERT_TRUE(run.ok) << run.error;
  auto const& t = run.tables.at("connectionless");
  double u1 = mean_recv(t, 1024, "unregistered"), r1 = mean_recv(t, 1024, "registered");
  EXPECT_NEAR(u1, 5.23, 0.05 * 5.23);
  EXPECT_NEAR(r1, 4.21, 0.05 * 4.21);
  EXPECT_NEAR(100 * (u1 - r1) / u1, 19.5, 5.0) << "about 20 % less";
  double u32 = mean_recv(t, 32768, "unregistered"), r32 = mean_recv(t, 32768, "registered");
  EXPECT_LT(100 * (u32 - r32) / u32, 5.0) << "the gain vanishes near 32 KB";
  EXPECT_GT(u32, r32) << "registration never costs latency";
}

// Section 4.1: "As the distance ... increase[s], or the load of the network goes up, ... larger and
// larger message sizes [can] benefit": the absolute saving is the ACK's and the notification's
// trips, which grow with every switch and with queueing.
TEST(Connectionless, RegistrationGainGrowsWithHopsAndLoad)
{
  auto gain = [](unsigned switches, double load) {
    auto run = run_scenario_isolated(fmt::format(
        R"({{"platform": {{"preset": "lant-zcu102", "topology": {{"hosts": 4, "chain": {{"switches": {}}}}}}},
            "workload": {{"kind": "connectionless", "src": 0, "dst": 3, "sizes": ["4KiB"], "iterations": 20,
                          "background": {{"load": {}}}}}}})",
        switches, load));
    EXPECT_TRUE(run.ok) << run.error;
    if (!run.ok)
      return 0.0;
    auto const& t = run.tables.at("connectionless");
    double u = mean_recv(t, 4096, "unregistered"), r = mean_recv(t, 4096, "registered");
    return u - r;
  };
  double one = gain(1, 0), four = gain(4, 0), loaded = gain(1, 0.6);
  EXPECT_GT(four, one + 4 * 0.16) << "each extra switch adds its latency to both trips";
  EXPECT_GT(loaded, one) << "queueing behind the background lengthens the notification's trip";
}

// The background load is a share of dst's link in wire bytes (payload, header, framing: a 64 B operation is a
// 118-byte frame), and what the senders could not post is said: 1-byte commands at 60 % arrive faster than a
// command queue drains, and their arrivals were dropped unsaid while the table gave the offered 0.6.
TEST(Connectionless, TheBackgroundLoadIsCountedOnTheWireAndWhatIsNotPostedIsSaid)
{
  auto run = [](const char* size, double load) {
    auto r = run_scenario_isolated(fmt::format(
        R"({{"platform": {{"preset": "lant-zcu102", "topology": {{"hosts": 4, "chain": {{"switches": 1}}}}}},
            "workload": {{"kind": "connectionless", "src": 0, "dst": 3, "sizes": ["1KiB"], "iterations": 200,
                          "background": {{"load": {}, "size": "{}"}}}}}})",
        load, size));
    EXPECT_TRUE(r.ok) << r.error;
    return r;
  };
  auto small = run("64B", 0.3);
  ASSERT_TRUE(small.ok);
  // Counted on payload the same setting had posted 0.3 x 118 / 64 = 0.55 of the link.
  EXPECT_NEAR(small.tables.at("connectionless").num(0, "background_posted"), 0.3, 0.03);
  EXPECT_EQ(small.tables.at("connectionless").num(0, "background_load"), 0.3);
  auto tiny = run("1B", 0.6);
  ASSERT_TRUE(tiny.ok);
  EXPECT_LT(tiny.tables.at("connectionless").num(0, "background_posted"), 0.45);
  std::string all;
  for (auto const& l : tiny.summary)
    all += l + "\n";
  EXPECT_NE(all.find("were not posted"), std::string::npos) << all;
  EXPECT_NE(all.find("60 % offered"), std::string::npos) << all;
}

// Section 3.2-3.3: the first packet of a registered 4 KiB operation (8 packets) is lost once. The
// other 7 wait in the escape channel, time out (20 us < the 200 us packet timeout) and are dropped
// unacknowledged; all 8 are then retransmitted on timeout and the operation completes once.
TEST(Connectionless, LostFirstPacketSendsTheRestThroughTheEscapeChannel)
{
  auto run = run_scenario_isolated(R"({"platform": {"preset": "lant-zcu102",
        "network": {"faults": {"drops": [{"src": 0, "dst": 1, "seq": 0}]}}},
      "workload": {"kind": "connectionless", "sizes": ["4KiB"], "notify": ["receiver"], "iterations": 1}})");
  ASSERT_TRUE(run.ok) << run.error;
  auto const& n = run.tables.at("connectionless_nodes");
  EXPECT_EQ(n.num(1, "escaped"), 7);
  EXPECT_EQ(n.num(1, "escape_timeouts"), 7);
  EXPECT_EQ(n.num(1, "escape_drained"), 0);
  EXPECT_EQ(n.num(0, "timeouts"), 8);
  EXPECT_EQ(n.num(0, "retransmitted"), 8);
  EXPECT_EQ(n.num(1, "registrations"), 1);
  EXPECT_EQ(n.num(1, "deliveries"), 1);
  EXPECT_GT(run.tables.at("connectionless").num(0, "recv_us"), 50.0) << "recovered after the packet timeout";
  expect_accounting(run);
}

// 10,000 operations of 64 B - 48 KiB between random pairs of 8 nodes, under loss, duplication and
// reordering: each delivered exactly once with its own data (the workload fails the run
// otherwise), no table entry left (ditto), and every packet accounted for.
class ConnectionlessStress : public ::testing::TestWithParam<double> {};

TEST_P(ConnectionlessStress, TenThousandOperationsExactlyOnce)
{
  double loss = GetParam();
  auto run    = run_scenario_isolated(fmt::format(
      R"({{"seed": 5, "platform": {{"preset": "lant-zcu102", "topology": {{"hosts": 8, "chain": {{"switches": 1}}}},
          "network": {{"faults": {{"loss_rate": {}, "corruption_rate": 0.002, "duplicate_rate": 0.01,
                                  "reorder_rate": 0.02, "reorder_delay": "3us"}}}}}},
          "workload": {{"kind": "connectionless", "mode": "stream", "pattern": "random", "operations": 10000,
                        "min_size": "64B", "max_size": "48KiB", "window": 2, "poster": "accelerator"}}}})",
      loss));
  ASSERT_TRUE(run.ok) << run.error;
  auto const& t = run.tables.at("connectionless");
  EXPECT_EQ(t.num(0, "operations"), 10000);
  EXPECT_EQ(t.rows[0].at("verified"), "yes");
  auto const& n = run.tables.at("connectionless_nodes");
  auto const& p = run.metadata.at("packets");
  EXPECT_GT(p.at("fault_drops").get<double>(), 0);
  EXPECT_GT(p.at("duplicates").get<double>(), 0);
  EXPECT_GT(p.at("corrupted_delivered").get<double>(), 0);
  EXPECT_GT(n.sum("escaped"), 0) << "reordering sent packets ahead of their registration";
  EXPECT_GT(n.sum("duplicates_dropped") + n.sum("late_duplicates"), 0);
  EXPECT_GT(n.sum("retransmitted"), 0);
  EXPECT_EQ(n.sum("filter_evictions"), 0) << "the completed filter never forgot an operation early";
  expect_accounting(run);
}

INSTANTIATE_TEST_SUITE_P(Loss, ConnectionlessStress, ::testing::Values(0.001, 0.01, 0.05));

// Section 1 and 3: connectionless transport "enabling the use of fully adaptive routing at packet
// level granularity". On a leaf-spine with 4 spines, per-packet routing (spray, adaptive) reorders
// packets (no reorder fault here); registered operations still complete exactly once, packets ahead
// of their first go through the escape channel, and every packet is accounted for.
TEST(Connectionless, PerPacketRoutingReordersAndEveryOperationArrivesOnce)
{
  for (const char* routing : {"spray", "adaptive"}) {
    auto run = run_scenario_isolated(fmt::format(
        R"({{"platform": {{"preset": "lant-zcu102",
              "topology": {{"kind": "leaf-spine", "hosts": 8,
                            "leaf_spine": {{"hosts_per_leaf": 4, "spines": 4, "uplink_rate": "10Gbps"}}}},
              "network": {{"routing": "{}"}}}},
            "workload": {{"kind": "connectionless", "mode": "stream", "pattern": "random", "operations": 3000,
                          "min_size": "64B", "max_size": "32KiB", "window": 4, "poster": "accelerator"}}}})",
        routing));
    ASSERT_TRUE(run.ok) << routing << ": " << run.error;
    auto const& n = run.tables.at("connectionless_nodes");
    EXPECT_GT(n.sum("out_of_order"), 100) << routing << " reordered packets";
    EXPECT_GT(n.sum("escaped"), 0) << routing;
    EXPECT_EQ(n.sum("escape_overflow_drops"), 0) << routing;
    EXPECT_EQ(run.tables.at("connectionless").rows[0].at("verified"), "yes");
    expect_accounting(run);
  }
}

// The CCLO selects the connectionless transport instead of RoCEv2: eager messages and control
// notifications become placed messages (the receiver's Rx system picks the buffer when it registers
// the first packet), rendezvous data becomes one-sided writes. Every collective's output is checked
// against its definition, on a lossy, duplicating, reordering network.
TEST(Connectionless, CcloCollectivesRunOverTheConnectionlessTransport)
{
  std::set<std::string> protocols;
  for (const char* coll : {"allreduce", "bcast", "gather", "alltoall"}) {
    auto run = run_scenario_isolated(fmt::format(
        R"({{"platform": {{"preset": "lant-zcu102", "topology": {{"hosts": 8, "chain": {{"switches": 1}}}},
            "network": {{"faults": {{"loss_rate": 0.01, "duplicate_rate": 0.01, "reorder_rate": 0.05}}}}}},
            "workload": {{"kind": "collective", "collective": "{}", "ranks": 8, "sizes": ["1KiB", "16KiB", "64KiB"],
                          "verify": true}}}})",
        coll));
    ASSERT_TRUE(run.ok) << coll << ": " << run.error;
    auto const& t = run.tables.at("collective");
    ASSERT_EQ(t.rows.size(), 3u);
    for (std::size_t i = 0; i < 3; ++i)
      EXPECT_EQ(t.rows[i].at("verified"), "yes") << coll << " row " << i;
    for (auto const& r : t.rows)
      protocols.insert(r.at("protocol"));
    auto const& n = run.tables.at("connectionless_nodes");
    EXPECT_GT(n.sum("registrations"), 0);
    EXPECT_GT(n.sum("retransmitted"), 0) << "losses were recovered";
    expect_accounting(run);
  }
  EXPECT_TRUE(protocols.count("eager") && protocols.count("rendezvous")) << "both protocols exercised";
  // Streamed operands (the fuzzer's exit 1 once, then refused while the preset's 32 KiB Rx buffers made segments the
  // registration range could not hold): with the firmware-valid 16 KiB buffers every size runs and verifies (a send
  // from and a receive into kernel streams, ACCL's test_sendrcv_stream; send() cuts a stream into Rx-buffer segments).
  auto streamed = run_scenario_isolated(R"({"platform": {"preset": "lant-zcu102", "topology": {"hosts": 8,
      "chain": {"switches": 1}}}, "workload": {"kind": "collective", "collective": "sendrecv", "ranks": 2,
      "location": "stream", "sizes": ["1KiB", "64KiB", "256KiB"], "verify": true}})");
  ASSERT_TRUE(streamed.ok) << streamed.error;
  for (auto const& r : streamed.tables.at("collective").rows)
    EXPECT_EQ(r.at("verified"), "yes") << r.at("bytes");
  expect_accounting(streamed);
  auto big = run_scenario_isolated(R"({"platform": {"preset": "lant-zcu102", "topology": {"hosts": 4,
      "chain": {"switches": 1}}, "node": {"fpga": {"cclo": {"tuning": {"max_eager_size": "32KiB"}}}}},
      "workload": {"kind": "collective", "collective": "allreduce", "ranks": 4}})");
  ASSERT_FALSE(big.ok);
  EXPECT_EQ(big.error_kind, "config");
  EXPECT_NE(big.error.find("/platform/node/fpga/cclo/tuning/max_eager_size: over the connectionless transport an "
                           "eager message (max_eager_size 32KiB + the 64B header) must fit the registration range"),
            std::string::npos)
      << big.error;
}

TEST(Connectionless, WrongTransportIsAClearConfigError)
{
  auto run = run_scenario_isolated(R"({"platform": {"preset": "lant-zcu102"}, "workload": {"kind": "sendrecv"}})");
  ASSERT_FALSE(run.ok);
  EXPECT_EQ(run.error_kind, "config");
  EXPECT_NE(run.error.find("/platform/node/fpga/transport: the sendrecv workload runs over the RoCE POE"),
            std::string::npos)
      << run.error;
  auto back = run_scenario_isolated(R"({"platform": {"preset": "accl-coyote-u55c"},
      "workload": {"kind": "connectionless"}})");
  ASSERT_FALSE(back.ok);
  EXPECT_NE(back.error.find("needs the connectionless transport"), std::string::npos) << back.error;
  auto none = run_scenario_isolated(R"({"platform": {"preset": "lant-zcu102"},
      "workload": {"kind": "connectionless", "notify": ["receiver"], "sizes": ["64KiB"]}})");
  ASSERT_FALSE(none.ok);
  EXPECT_EQ(none.error_kind, "config");
  EXPECT_NE(none.error.find("/workload/notify: nothing to measure"), std::string::npos) << none.error;
  // A command cut into segments the receiver can register is measured as the sender posts it (the whole command's
  // size was checked, and the run refused with that advice).
  auto segmented = run_scenario_isolated(R"({"platform": {"preset": "lant-zcu102", "node": {"fpga": {"connectionless":
      {"transport": {"large_transfer": {"threshold": "64KiB", "segment": "32KiB"}}}}}},
      "workload": {"kind": "connectionless", "notify": ["receiver"], "sizes": ["128KiB"]}})");
  ASSERT_TRUE(segmented.ok) << segmented.error;
  auto const& t = segmented.tables.at("connectionless");
  ASSERT_FALSE(t.rows.empty());
  for (auto const& row : t.rows)
    EXPECT_EQ(row.at("notify"), "registered") << "every 32 KiB segment registered at the receiver";
}

// Failures and settings say what they are: a packet that every try finds corrupted is the CRC check failing (it
// asked whether the registration table was full); switch queues' drops are named with their fix; with registration
// off, receiver notification cannot be measured whatever the sizes, and the summary says registration is off.
// Stream mode with receiver notification over a range of sizes: a size drawn inside it whose tail segment is below
// register_min is refused before the run (the ends alone were checked: 18 and 34 KiB pass, 32.5 KiB's 512 B tail
// does not, and the run had failed at that command's post).
TEST(Connectionless, AStreamRangeIsCheckedInsideNotOnlyAtItsEnds)
{
  auto run = [](const char* max) {
    return run_scenario_isolated(fmt::format(R"({{"platform": {{"preset": "lant-zcu102", "topology": {{"hosts": 4,
          "chain": {{"switches": 1}}}}, "node": {{"fpga": {{"connectionless": {{"transport": {{"register_min": "1KiB",
          "large_transfer": {{"threshold": "16KiB", "segment": "16KiB"}}}}}}}}}}}},
        "workload": {{"kind": "connectionless", "mode": "stream", "pattern": "many-to-one", "operations": 20,
                     "stream_notify": "receiver", "min_size": "18KiB", "max_size": "{}"}}}})",
                                             max));
  };
  auto wide = run("34KiB");
  ASSERT_FALSE(wide.ok);
  EXPECT_EQ(wide.error_kind, "config") << wide.error;
  EXPECT_NE(wide.error.find("/workload/stream_notify"), std::string::npos) << wide.error;
  auto narrow = run("32KiB"); // every tail from 2 KiB to 16 KiB: registrable
  EXPECT_TRUE(narrow.ok) << narrow.error;
}

TEST(Connectionless, FailuresAndRegistrationOffAreNamedForWhatTheyAre)
{
  auto crc = run_scenario_isolated(R"({"platform": {"preset": "lant-zcu102",
        "network": {"faults": {"corruption_rate": 1}}},
      "workload": {"kind": "connectionless", "sizes": ["4KiB"], "notify": ["sender"], "iterations": 1}})");
  ASSERT_FALSE(crc.ok);
  EXPECT_NE(crc.error.find("the receiver keeps finding it corrupted"), std::string::npos) << crc.error;
  EXPECT_EQ(crc.error.find("registration table"), std::string::npos) << crc.error;
  auto drops = run_scenario_isolated(R"({"platform": {"preset": "lant-zcu102", "topology": {"hosts": 8,
        "chain": {"switches": 1}},
        "network": {"switch": {"flow_control": "drop", "port_buffer": "4KiB"}},
        "node": {"fpga": {"connectionless": {"transport": {"retry_limit": 1}}}}},
      "workload": {"kind": "connectionless", "mode": "stream", "pattern": "many-to-one", "operations": 400,
                   "window": 8, "sizes": ["512B", "16KiB", "40KiB"]}})");
  ASSERT_FALSE(drops.ok);
  EXPECT_NE(drops.error.find("switch queues dropped"), std::string::npos) << drops.error;
  EXPECT_NE(drops.error.find("flow_control lossless"), std::string::npos) << drops.error;
  const std::string off_platform = R"({"platform": {"preset": "lant-zcu102",
        "node": {"fpga": {"connectionless": {"transport": {"registration": false}}}}},)";
  auto off = run_scenario_isolated(off_platform + R"("workload": {"kind": "connectionless", "sizes": ["64B"],
                   "notify": ["receiver"], "iterations": 1}})");
  ASSERT_FALSE(off.ok);
  EXPECT_NE(off.error.find("registration is off"), std::string::npos) << off.error;
  EXPECT_EQ(off.error.find("smaller sizes"), std::string::npos) << off.error;
  auto sender = run_scenario_isolated(off_platform + R"("workload": {"kind": "connectionless", "sizes": ["64B"],
                   "notify": ["sender"], "iterations": 1}})");
  ASSERT_TRUE(sender.ok) << sender.error;
  // A stream with registration off builds no registration module: its size and area are '-' (they had been the
  // settings' and their area, which the settings read by nothing then changed).
  auto stream = run_scenario_isolated(off_platform + R"("workload": {"kind": "connectionless", "mode": "stream",
                   "operations": 10, "sizes": ["4KiB"]}})");
  ASSERT_TRUE(stream.ok) << stream.error;
  for (auto const* col : {"registration_entries", "bitmask_bits", "luts", "brams"})
    EXPECT_EQ(stream.tables.at("connectionless").rows.at(0).at(col), "-") << col;
  bool said = false;
  for (auto const& l : sender.summary)
    said = said || l.find("registration module: off") != std::string::npos;
  EXPECT_TRUE(said);
}

// More operations in flight into one node than its registration table holds: it drops first packets unacknowledged
// and the senders that retry first take the entries freed, so one sender exhausts its retries on a network that lost
// nothing. The note named the transport's timeouts (RoCE's and TCP's settings) as the fix; it names the receiver's
// refusals now and the settings that give room, each of which runs.
TEST(Connectionless, ARunEndedByAFullRegistrationTableSaysSo)
{
  const std::string many_to_one = R"({"platform": {"preset": "lant-zcu102", "topology": {"hosts": 68,
        "chain": {"switches": 1}}},
      "workload": {"kind": "connectionless", "mode": "stream", "pattern": "many-to-one", "operations": 680,
                   "sizes": ["16KiB"], "window": 2, "poster": "accelerator", "dst": 0}})";
  auto full = run_scenario_isolated(many_to_one);
  ASSERT_FALSE(full.ok);
  EXPECT_NE(full.error.find("the network lost no packet"), std::string::npos) << full.error;
  EXPECT_NE(full.error.find("with its registration table full (64 entries"), std::string::npos) << full.error;
  EXPECT_NE(full.error.find("transport.registration_entries"), std::string::npos) << full.error;
  EXPECT_EQ(full.error.find("Give the transport longer timeouts"), std::string::npos) << full.error;
  // Timeouts shorter than delivery on a network that lost nothing, no refusal: the transport's own settings.
  auto hasty = run_scenario_isolated(many_to_one, {"platform.topology.hosts=8",
                                                   "platform.node.fpga.connectionless.transport.packet_timeout=3us",
                                                   "platform.node.fpga.connectionless.transport.retry_limit=2"});
  ASSERT_FALSE(hasty.ok);
  EXPECT_NE(hasty.error.find("connectionless: platform.node.fpga.connectionless.transport.packet_timeout"),
            std::string::npos) << hasty.error;
  EXPECT_EQ(hasty.error.find("receiving engines refused"), std::string::npos) << hasty.error;
  // A lossy network: its losses are named, not the receiver's table (too small here too).
  auto lossy = run_scenario_isolated(many_to_one, {"platform.topology.hosts=8", "platform.network.faults.loss_rate=0.4",
                                                   "platform.node.fpga.connectionless.transport.registration_entries=8"});
  ASSERT_FALSE(lossy.ok);
  EXPECT_NE(lossy.error.find("packet(s) lost"), std::string::npos) << lossy.error;
  EXPECT_EQ(lossy.error.find("registration table full"), std::string::npos) << lossy.error;
  for (const char* room : {"platform.node.fpga.connectionless.transport.registration_entries=128",
                           "platform.node.fpga.connectionless.transport.registration=false",
                           "platform.node.fpga.connectionless.transport.register_min=32KiB"}) {
    auto fixed = run_scenario_isolated(many_to_one, {room});
    EXPECT_TRUE(fixed.ok) << room << ": " << fixed.error;
  }
}

// Escape-channel timeouts on a fault-free network (queues behind adaptive routes delay first packets past the 20 us
// the channel waits): every such packet is sent again, which the summary says with the setting.
TEST(Connectionless, EscapeTimeoutsOnAFaultFreeNetworkAreSaidWithTheSetting)
{
  const std::string stream = R"({"platform": {"preset": "lant-zcu102", "topology": {"kind": "leaf-spine", "hosts": 16,
        "leaf_spine": {"hosts_per_leaf": 4, "spines": 4, "uplink_rate": "10Gbps"}}, "network": {"routing": "adaptive"}},
      "workload": {"kind": "connectionless", "mode": "stream", "pattern": "random", "operations": 4000,
                   "min_size": "4KiB", "max_size": "32KiB", "window": 4, "poster": "accelerator"}})";
  auto said = [](const ScenarioRun& r) {
    for (auto const& l : r.summary)
      if (l.find("timed out in the escape channel") != std::string::npos)
        return l.find("transport.escape_timeout") != std::string::npos;
    return false;
  };
  auto short_wait = run_scenario_isolated(stream);
  ASSERT_TRUE(short_wait.ok) << short_wait.error;
  EXPECT_GT(short_wait.tables.at("connectionless").num(0, "escape_timeouts"), 0.0);
  EXPECT_TRUE(said(short_wait));
  auto long_wait = run_scenario_isolated(stream, {"platform.node.fpga.connectionless.transport.escape_timeout=150us"});
  ASSERT_TRUE(long_wait.ok) << long_wait.error;
  EXPECT_EQ(long_wait.tables.at("connectionless").num(0, "escape_timeouts"), 0.0);
  EXPECT_FALSE(said(long_wait));
  EXPECT_GT(long_wait.tables.at("connectionless").num(0, "throughput_gbps"),
            short_wait.tables.at("connectionless").num(0, "throughput_gbps"));
}

// A duplicate held back longer than the receiver's completed-operation filter registers its operation again: the run
// ends with a table entry held, or the operation delivered twice; the failure now names the two settings (it named
// the entries alone).
TEST(Connectionless, ALateDuplicateBeyondTheFilterNamesBothSettings)
{
  auto run = run_scenario_isolated(R"({"platform": {"preset": "lant-zcu102", "topology": {"hosts": 8,
        "chain": {"switches": 1}}, "network": {"faults": {"reorder_rate": 0.2, "reorder_delay": "3ms",
        "duplicate_rate": 0.2}}},
      "workload": {"kind": "connectionless", "mode": "stream", "pattern": "random", "operations": 300,
                   "min_size": "64B", "max_size": "40KiB"}})");
  ASSERT_FALSE(run.ok);
  EXPECT_TRUE(run.error.find("ends the run holding") != std::string::npos ||
              run.error.find("delivered again after it had finished") != std::string::npos)
      << run.error;
  EXPECT_NE(run.error.find("completed_filter_time 1ms"), std::string::npos) << run.error;
  EXPECT_NE(run.error.find("faults.reorder_delay (3ms)"), std::string::npos) << run.error;
  // (held back at the end of each of the path's 2 cables: the filter must outlast 6 ms; at 4 ms the run still failed)
  EXPECT_NE(run.error.find("completed_filter_time above 6ms"), std::string::npos) << run.error;
}
