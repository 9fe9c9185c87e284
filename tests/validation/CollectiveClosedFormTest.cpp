// Validation of whole CCLO collectives against closed forms (tolerance 1 %). With every CCLO and
// node overhead zeroed (firmware cycles, data-mover issue/pipeline, Tx/Rx systems, memory, POE;
// the datapath made effectively infinite; ACKs coalesced to one per message), the only costs left
// are those of moving an eager message of m = n + 64 bytes (payload + CCLO signature) through one
// cut-through switch:
//   T(m) = a + sum_i S_i,   a = H/R + L + 2P
// where S_i = (len_i + 44 + 38) * 8/R are the wire times of its RoCE SEND packets, H/R + L the switch's
// cut-through decision and latency, P the propagation. (The data mover, infinitely fast here, hands the
// POE each packet's payload at once: it is paced by its memory and datapath, not by the wire; the POE's
// transmit buffer holds what the wire has not taken yet.) A rank that forwards (ring, tree) has its next
// message ready the instant the previous one arrived, together with that message's acknowledgement,
// which the POE sends first: each forwarding step adds one ACK's wire time A = (44 + 4 + 38) * 8/R. Then
//   ring allreduce (p ranks, n bytes):  2 (p-1) T(n/p + 64) + (2 (p-1) - 1) A
//   binomial bcast:                     ceil(log2 p) T(n + 64) + (ceil(log2 p) - 1) A
//   flat gather (n bytes per rank):     a + (p-1) sum_i S_i    (the root's downlink carries p-1 messages)
//   flat bcast:                         a + (p-1) sum_i S_i    (the root's uplink carries p-1 messages)
#include "tests/support/RunScenario.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <fmt/format.h>
#include <gtest/gtest.h>

using namespace nafsim::testing;

namespace {

constexpr double R = 100e9, P = 25e-9, L = 300e-9, H = 64, kMtu = 4096;
constexpr double A = (44 + 4 + 38) * 8 / R; // an ACK on the wire (IPv4, UDP, BTH, ICRC, AETH; Ethernet framing)

std::string scenario(const std::string& collective, const std::string& algorithm, int ranks)
{
  return fmt::format(R"({{"name": "collective-closed-form",
      "platform": {{"topology": {{"kind": "star", "hosts": 8}},
        "network": {{"link": {{"rate": "100Gbps", "propagation": "25ns"}},
                    "switch": {{"forwarding": "cut-through", "latency": "300ns", "cut_through_header": "64B",
                               "port_buffer": "16MiB"}}}},
        "node": {{"fpga": {{
          "clock": "1000GHz",
          "device_memory": {{"read_bandwidth": "1000Tbps", "write_bandwidth": "1000Tbps",
                            "read_latency": "0ns", "write_latency": "0ns"}},
          "poe": {{"tx_latency": "0ns", "rx_latency": "0ns"}},
          "rdma": {{"ack_every": 65536}},
          "cclo": {{"firmware": {{"call": 0, "finalize": 0, "move": 0, "notify": 0, "poll": 0, "step": 0}},
                   "dmp": {{"issue_cycles": 0, "pipeline_cycles": 0, "width_bytes": 1024}},
                   "txrx": {{"tx_cycles": 0, "rx_cycles": 0}},
                   "rx_buffers": {{"count": 16, "size": "1MiB", "seek_cycles": 0}},
                   "tuning": {{"max_eager_size": "1MiB"}}}}}}}}}},
      "workload": {{"kind": "collective", "collective": "{}", "algorithm": "{}", "protocol": "eager",
                    "ranks": {}, "sizes": ["8KiB", "64KiB", "256KiB", "1MiB"]}}}})",
                     collective, algorithm, ranks);
}

struct Message {
  double a;    ///< fixed part
  double wire; ///< sum of the packets' wire times
  double total() const { return a + wire; }
};

Message eager_message(double n)
{
  const double m = n + 64;
  Message msg{H * 8 / R + L + 2 * P, 0};
  for (double off = 0; off < m; off += kMtu)
    msg.wire += (std::min(kMtu, m - off) + 44 + 38) * 8 / R;
  return msg;
}

void check(const std::string& collective, const std::string& algorithm, int p,
           const std::function<double(double n)>& closed_form_s)
{
  auto run = run_scenario_isolated(scenario(collective, algorithm, p));
  ASSERT_TRUE(run.ok) << run.error;
  auto const& t = run.tables.at("collective");
  ASSERT_EQ(t.rows.size(), 4u);
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    double n    = t.num(i, "bytes");
    double got  = t.num(i, "latency_us");
    double want = closed_form_s(n) * 1e6;
    EXPECT_NEAR(got, want, 0.01 * want) << collective << " " << algorithm << " p=" << p << " n=" << n;
    EXPECT_EQ(t.rows[i].at("algorithm"), algorithm);
  }
}

} // namespace

TEST(CollectiveClosedForm, RingAllreduce)
{
  for (int p : {4, 8})
    check("allreduce", "ring", p, [p](double n) { return 2.0 * (p - 1) * eager_message(n / p).total() + (2.0 * (p - 1) - 1) * A; });
}

TEST(CollectiveClosedForm, BinomialBcast)
{
  for (int p : {4, 8})
    check("bcast", "binomial", p, [p](double n) { return std::ceil(std::log2(p)) * eager_message(n).total() + (std::ceil(std::log2(p)) - 1) * A; });
}

TEST(CollectiveClosedForm, FlatGather)
{
  for (int p : {4, 8})
    check("gather", "flat", p, [p](double n) {
      auto m = eager_message(n);
      return m.a + (p - 1) * m.wire;
    });
}

TEST(CollectiveClosedForm, FlatBcast)
{
  // The root's uplink carries the p-1 copies back to back: the Tx path must not let a message whose
  // data the data mover has not produced yet hold up one whose data is ready.
  for (int p : {4, 8})
    check("bcast", "flat", p, [p](double n) {
      auto m = eager_message(n);
      return m.a + (p - 1) * m.wire;
    });
}

TEST(Builds, EagerVsRendezvousAsTheBuildsRanAndAForcedProtocolSaysWhatItRan)
{
  // The 8-rank 1 MiB allreduce: the eager build runs it eager whole (ring), the rendezvous build rendezvous, and
  // eager forced on the default Rx buffers (32 KiB) cuts every message into segments: the slowest of the three, and
  // its summary says so and names the build that runs it whole.
  auto run = [](const std::vector<std::string>& sets) {
    return nafsim::testing::run_scenario_isolated(
        R"({"name": "b", "platform": "accl-coyote-u55c", "workload": {"kind": "collective", "collective": "allreduce",
            "ranks": 8, "sizes": ["1MiB"], "verify": false}})",
        sets);
  };
  auto eager  = run({"platform.node.fpga.cclo.build=eager"});
  auto rndzv  = run({"platform.node.fpga.cclo.build=rendezvous"});
  auto forced = run({"workload.protocol=eager"});
  ASSERT_TRUE(eager.ok && rndzv.ok && forced.ok) << eager.error << rndzv.error << forced.error;
  auto const& e = eager.tables.at("collective");
  auto const& r = rndzv.tables.at("collective");
  auto const& f = forced.tables.at("collective");
  EXPECT_EQ(e.rows[0].at("protocol"), "eager");
  EXPECT_EQ(r.rows[0].at("protocol"), "rendezvous");
  EXPECT_LT(e.num(0, "latency_us"), r.num(0, "latency_us"));
  EXPECT_LT(r.num(0, "latency_us"), f.num(0, "latency_us"));
  auto said = [](const nafsim::testing::ScenarioRun& s, const std::string& what) {
    for (auto const& l : s.summary)
      if (l.find(what) != std::string::npos)
        return true;
    return false;
  };
  EXPECT_TRUE(said(forced, "up to 32 segments each"));
  EXPECT_TRUE(said(forced, "platform.node.fpga.cclo.build: eager"));
  EXPECT_TRUE(said(eager, "CCLO build eager (as the ACCL+ benchmark built it): 10 Rx buffers of 4MiB"));
  EXPECT_FALSE(said(eager, "segments each"));
  EXPECT_FALSE(said(eager, "did not build"));
  // The other way round, rendezvous forced on the eager build, is a system the benchmark did not build either; and
  // it built both builds over RDMA only: over TCP the rendezvous build sends every message eager through its 64 B
  // Rx buffers, and the run says so (a broadcast, which the firmware cuts itself; a gather's blocks, read in one
  // data-mover move each, would need 64 of its 3 buffers at once and are refused before the run).
  auto forced_rndzv = run({"platform.node.fpga.cclo.build=eager", "workload.protocol=rendezvous"});
  ASSERT_TRUE(forced_rndzv.ok) << forced_rndzv.error;
  EXPECT_EQ(forced_rndzv.tables.at("collective").rows[0].at("protocol"), "rendezvous");
  EXPECT_TRUE(said(forced_rndzv, "the rendezvous protocol forced on build eager: a system the benchmark did not build"));
  auto tcp = nafsim::testing::run_scenario_isolated(
      R"({"name": "b", "platform": "accl-xrt-u55c", "workload": {"kind": "collective", "collective": "bcast",
          "ranks": 3, "sizes": ["4KiB"], "verify": false}})",
      {"platform.node.fpga.cclo.build=rendezvous"});
  ASSERT_TRUE(tcp.ok) << tcp.error;
  EXPECT_EQ(tcp.tables.at("collective").rows[0].at("protocol"), "eager");
  EXPECT_TRUE(said(tcp, "not over tcp: a system it did not build, and tcp has no rendezvous"));
}
