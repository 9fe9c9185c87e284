// Validation against closed forms (DESIGN.md section 5; tolerance 1 %). With every per-block
// overhead zeroed (POE latencies 0, memory latency 0 and bandwidth 1000 Tb/s), one RDMA WRITE of
// n bytes in k packets of wire sizes S_0 >= S_1 >= ... (the first carries the RETH) over h cables
// of propagation P through switches of latency L must take
//   store-and-forward: sum S_i + (h-1) (S_0 + L) + h P
//   cut-through:       sum S_i + (h-1) (H/R + L) + h P    (H = bytes before the decision)
// where S_i = (payload_i + 44 (IP/UDP/BTH/ICRC) + 16 if first (RETH) + 38 (Ethernet)) * 8 / R.
#include "tests/support/RunScenario.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

using namespace nafsim::testing;

namespace {

const char* kZeroOverheadNode = R"("node": {"fpga": {
    "device_memory": {"read_bandwidth": "1000Tbps", "write_bandwidth": "1000Tbps", "read_latency": "0ns",
                      "write_latency": "0ns"},
    "poe": {"tx_latency": "0ns", "rx_latency": "0ns"}}})";

std::string topology(int cables)
{
  switch (cables) {
    case 2: return R"({"kind": "star", "hosts": 2})";
    case 4: return R"({"kind": "leaf-spine", "hosts": 2, "leaf_spine": {"hosts_per_leaf": 1, "spines": 1}})";
    default: return R"({"kind": "fat-tree", "hosts": 16, "fat_tree": {"k": 4}})";
  }
}

std::string scenario(int cables, const std::string& forwarding, const std::string& sizes)
{
  unsigned dst = cables == 6 ? 15 : 1;
  return fmt::format(R"({{"name": "closed-form",
      "platform": {{"topology": {},
                    "network": {{"link": {{"rate": "100Gbps", "propagation": "25ns"}},
                                "switch": {{"forwarding": "{}", "latency": "300ns", "cut_through_header": "64B"}}}},
                    {}}},
      "workload": {{"kind": "sendrecv", "src": 0, "dst": {}, "sizes": [{}]}}}})",
                     topology(cables), forwarding, kZeroOverheadNode, dst, sizes);
}

double closed_form_us(std::uint64_t n, int h, bool cut_through)
{
  const double R = 100e9, P = 25e-9, L = 300e-9, H = 64;
  std::uint64_t k = n == 0 ? 1 : (n + 4095) / 4096;
  double sum = 0, s0 = 0;
  for (std::uint64_t i = 0; i < k; ++i) {
    std::uint64_t payload = std::min<std::uint64_t>(4096, n - i * 4096);
    double s              = (payload + 44 + (i == 0 ? 16 : 0) + 38) * 8 / R;
    sum += s;
    if (i == 0)
      s0 = s;
  }
  double t = cut_through ? sum + (h - 1) * (H * 8 / R + L) + h * P : sum + (h - 1) * (s0 + L) + h * P;
  return t * 1e6;
}

void check(int cables, bool cut_through)
{
  const std::vector<std::uint64_t> sizes{64, 512, 4096, 40960, 100000, 1048576};
  std::string list;
  for (auto s : sizes)
    list += (list.empty() ? "" : ", ") + std::to_string(s);
  auto run = run_scenario_isolated(scenario(cables, cut_through ? "cut-through" : "store-and-forward", list));
  ASSERT_TRUE(run.ok) << run.error;
  auto const& t = run.tables.at("sendrecv");
  ASSERT_EQ(t.rows.size(), sizes.size());
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    EXPECT_EQ(t.num(i, "hops"), cables);
    double expected = closed_form_us(sizes[i], cables, cut_through);
    double got      = t.num(i, "latency_us");
    EXPECT_NEAR(got, expected, 0.01 * expected)
        << sizes[i] << " B over " << cables << " cables, " << (cut_through ? "cut-through" : "store-and-forward");
  }
}

} // namespace

TEST(ClosedForm, StoreAndForwardTwoCables) { check(2, false); }
TEST(ClosedForm, StoreAndForwardFourCables) { check(4, false); }
TEST(ClosedForm, StoreAndForwardSixCables) { check(6, false); }
TEST(ClosedForm, CutThroughTwoCables) { check(2, true); }
TEST(ClosedForm, CutThroughFourCables) { check(4, true); }
TEST(ClosedForm, CutThroughSixCables) { check(6, true); }

TEST(ClosedForm, LongMessageApproachesLineRateTimesPayloadFraction)
{
  // The calibrated preset, not zeroed: a 64 MiB WRITE must run within 1 % of
  // 100 Gb/s x 4096 / (4096 + 44 + 38).
  auto run = run_scenario_isolated(R"({"platform": "accl-coyote-u55c",
      "workload": {"kind": "sendrecv", "sizes": ["64MiB"]}})");
  ASSERT_TRUE(run.ok) << run.error;
  double bound = 100.0 * 4096 / (4096 + 44 + 38);
  double got   = run.tables.at("sendrecv").num(0, "throughput_gbps");
  EXPECT_NEAR(got, bound, 0.01 * bound);
  EXPECT_LE(got, bound);
}
