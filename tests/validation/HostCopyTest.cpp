// Host-driver copies (FpgaNode::driver_copy, workload `hostcopy`) against their closed form: the
// call's fixed cost, plus the memory and PCIe latencies, plus bytes at the driver's rate (below the
// link's), in each direction. Coyote's MMU is off here (its cycles: tests/unit/nodes/CoyoteMmuTest.cpp).
#include "tests/support/RunScenario.hpp"

#include <gtest/gtest.h>

using namespace nafsim::testing;

TEST(HostCopy, ClosedFormPerDirection)
{
  auto run = run_scenario_isolated(R"({"platform": {"preset": "accl-coyote-u55c",
      "node": {"fpga": {
        "device_memory": {"read_bandwidth": "1000Gbps", "write_bandwidth": "1000Gbps", "read_latency": "100ns",
                          "write_latency": "200ns"},
        "pcie": {"bandwidth": "100Gbps", "read_latency": "1us", "write_latency": "300ns"},
        "mmu": {"enabled": false},
        "host_driver": {"to_host_overhead": "10us", "to_device_overhead": "12us",
                        "to_host_rate": "80Gbps", "to_device_rate": "50Gbps"}}}},
      "workload": {"kind": "hostcopy", "sizes": ["0B", "1000000B"]}})");
  ASSERT_TRUE(run.ok) << run.error;
  auto const& t = run.tables.at("hostcopy");
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_DOUBLE_EQ(t.num(0, "to_host_us"), 10.0) << "an empty copy costs the call only";
  EXPECT_DOUBLE_EQ(t.num(0, "to_device_us"), 12.0);
  // 1 MB: 8e6 bits at 80 Gb/s = 100 us, after the device read (0.1 us), before the PCIe write (0.3 us).
  EXPECT_NEAR(t.num(1, "to_host_us"), 10 + 0.1 + 100 + 0.3, 1e-3);
  // 1 MB at 50 Gb/s = 160 us, after the PCIe read (1 us), before the device write (0.2 us).
  EXPECT_NEAR(t.num(1, "to_device_us"), 12 + 1 + 160 + 0.2, 1e-3);
}
