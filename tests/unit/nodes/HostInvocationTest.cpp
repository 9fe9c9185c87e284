// The host side of CCLO calls (nodes/cclo/HostInvocation), engine-free: invocation latencies drawn from the
// measured NOP spread, XRT's buffer syncs collective by collective as ACCL's driver makes them, the driver's
// safety warning.
#include "nodes/cclo/HostInvocation.hpp"

#include <algorithm>
#include <gtest/gtest.h>
#include <numeric>

using namespace nafsim;
using namespace nafsim::nodes;

namespace {

InvocationConfig measured()
{
  // The preset values (accl-coyote-u55c): request / response calibrated on the mean NOPs, the spread on
  // shared/reference/accl/invocation_latency_us.csv.
  InvocationConfig c;
  c.coyote_request  = SimTime::ns(1732);
  c.coyote_response = SimTime::ns(1732);
  c.xrt_request     = SimTime::from_seconds(22504.5e-9);
  c.xrt_response    = SimTime::from_seconds(22504.5e-9);
  c.jitter          = true;
  return c;
}

constexpr std::uint64_t kNopCycles = 77; // call 67 + finalize 10 at 250 MHz: 308 ns

coll::CollectiveCall allreduce(std::uint64_t count)
{
  coll::CollectiveCall c;
  c.collective = coll::Collective::AllReduce;
  c.size       = 8;
  c.count      = count;
  return c;
}

std::vector<double> draws(InvocationConfig c, InvocationPath path, std::uint64_t seed, int n)
{
  HostInvocation inv(c, RxBufferConfig{}, kNopCycles, Hertz{250e6}, Rng(seed, 7));
  std::vector<double> v;
  for (int i = 0; i < n; ++i) {
    auto [req, rsp] = inv.latencies(path, allreduce(1024));
    v.push_back((req + rsp).us() + 0.308);
  }
  return v;
}

double median(std::vector<double> v)
{
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double mean(const std::vector<double>& v)
{
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

} // namespace

TEST(HostInvocation, JitterFollowsTheMeasuredNopSpread)
{
  // Coyote: measured min 3.617, median 3.717, mean 3.772, max 5.391 us; XRT: 30.237 / 44.294 / 45.317 / 63.341.
  for (auto [path, lo, med, avg, hi] : {std::tuple{InvocationPath::Coyote, 3.617, 3.717, 3.772, 5.391},
                                        std::tuple{InvocationPath::Xrt, 30.237, 44.294, 45.317, 63.341}}) {
    const auto v = draws(measured(), path, 1, 20000);
    EXPECT_GE(*std::min_element(v.begin(), v.end()), lo - 1e-6);
    EXPECT_LE(*std::max_element(v.begin(), v.end()), hi + 1e-6);
    EXPECT_NEAR(median(v), med, 0.01 * med) << "the median is the distribution's own";
    EXPECT_NEAR(mean(v), avg, 0.01 * avg) << "the mean is the calibrated one (less what the cut at the maximum takes)";
    EXPECT_GT(*std::max_element(v.begin(), v.end()) - *std::min_element(v.begin(), v.end()), 0.2 * (hi - lo));
  }
}

TEST(HostInvocation, DrawsAreSeededAndOffMeansTheMean)
{
  EXPECT_EQ(draws(measured(), InvocationPath::Xrt, 3, 50), draws(measured(), InvocationPath::Xrt, 3, 50));
  EXPECT_NE(draws(measured(), InvocationPath::Xrt, 3, 50), draws(measured(), InvocationPath::Xrt, 4, 50));
  auto steady = measured();
  steady.jitter = false;
  for (double t : draws(steady, InvocationPath::Coyote, 1, 10))
    EXPECT_NEAR(t, 3.772, 1e-9);
  // The kernel path never varies.
  for (double t : draws(measured(), InvocationPath::Kernel, 1, 10))
    EXPECT_NEAR(t, 0.324, 1e-9);
}

TEST(HostInvocation, InconsistentSpreadIsAConfigProblem)
{
  auto c       = measured();
  c.xrt_median = SimTime::us(50); // above the calibrated mean
  EXPECT_NE(HostInvocation::check(c, kNopCycles, Hertz{250e6}).find("xrt_median"), std::string::npos);
  EXPECT_EQ(HostInvocation::check(measured(), kNopCycles, Hertz{250e6}), "");
}

TEST(HostInvocation, XrtSyncsTheBuffersTheDriverSyncs)
{
  // driver/xrt/src/accl.cpp: bcast syncs the root's buffer in and every rank's buffer out; gather every
  // operand in and the root's result out; reduce likewise; combine both operands in.
  coll::CollectiveCall c{coll::Collective::Bcast, 8, 2, 256, 4, coll::ReduceFunc::Sum};
  auto root = HostInvocation::xrt_syncs(c, 2), other = HostInvocation::xrt_syncs(c, 5);
  EXPECT_EQ(root.to_device, (std::vector<std::uint64_t>{1024}));
  EXPECT_EQ(root.to_host, (std::vector<std::uint64_t>{1024}));
  EXPECT_TRUE(other.to_device.empty());
  EXPECT_EQ(other.to_host, (std::vector<std::uint64_t>{1024}));
  c.collective = coll::Collective::Gather;
  EXPECT_EQ(HostInvocation::xrt_syncs(c, 2).to_host, (std::vector<std::uint64_t>{8192}));
  EXPECT_TRUE(HostInvocation::xrt_syncs(c, 5).to_host.empty());
  EXPECT_EQ(HostInvocation::xrt_syncs(c, 5).to_device, (std::vector<std::uint64_t>{1024}));
  c.collective = coll::Collective::Combine;
  EXPECT_EQ(HostInvocation::xrt_syncs(c, 0).to_device.size(), 2u);
  c.collective = coll::Collective::Barrier;
  EXPECT_TRUE(HostInvocation::xrt_syncs(c, 0).to_device.empty());
}

TEST(HostInvocation, SafetyWarningAsTheExternalDmaDriverTestsIt)
{
  // The benchmark's rendezvous build: 64 B Rx buffers, as many as ranks (8). ceil(count / 64) x 8 > 8 from 65
  // elements on; only host-invoked (Coyote driver) gathers and all-to-alls.
  auto c                   = measured();
  c.safety_warning         = SimTime::us(2);
  RxBufferConfig rx;
  rx.count = 8;
  rx.size  = Bytes{64};
  HostInvocation inv(c, rx, kNopCycles, Hertz{250e6}, Rng(1, 1));
  coll::CollectiveCall g{coll::Collective::Gather, 8, 0, 65, 4, coll::ReduceFunc::Sum};
  EXPECT_EQ(inv.safety_warning(InvocationPath::Coyote, g), SimTime::us(2));
  EXPECT_EQ(inv.safety_warning(InvocationPath::Kernel, g), SimTime{});
  g.count = 64;
  EXPECT_EQ(inv.safety_warning(InvocationPath::Coyote, g), SimTime{});
  g.count      = 4096;
  g.collective = coll::Collective::AllToAll;
  EXPECT_EQ(inv.safety_warning(InvocationPath::Coyote, g), SimTime::us(2));
  g.collective = coll::Collective::Bcast;
  EXPECT_EQ(inv.safety_warning(InvocationPath::Coyote, g), SimTime{});
}

// A call's draw is its own: the k-th call of a signature draws the same whatever other calls the node made before it
// (one stream per node drawn in call order made a size's row of a benchmark move when another size joined the list,
// and iteration 0 of a size differ between a run of one iteration and of three).
TEST(HostInvocation, ACallsDrawDoesNotDependOnTheCallsBeforeIt)
{
  auto nop = [](std::pair<SimTime, SimTime> p) { return (p.first + p.second).ps(); };
  HostInvocation alone(measured(), RxBufferConfig{}, kNopCycles, Hertz{250e6}, Rng(1, 7));
  HostInvocation after(measured(), RxBufferConfig{}, kNopCycles, Hertz{250e6}, Rng(1, 7));
  for (std::uint64_t count : {16, 256, 4096}) // other sizes first
    (void)after.latencies(InvocationPath::Coyote, allreduce(count));
  (void)after.latencies(InvocationPath::Xrt, allreduce(1024)); // the same call on another path
  const auto first  = nop(alone.latencies(InvocationPath::Coyote, allreduce(1024)));
  const auto second = nop(alone.latencies(InvocationPath::Coyote, allreduce(1024)));
  EXPECT_EQ(nop(after.latencies(InvocationPath::Coyote, allreduce(1024))), first);
  EXPECT_EQ(nop(after.latencies(InvocationPath::Coyote, allreduce(1024))), second);
  EXPECT_NE(first, second) << "the iterations of one call still draw apart";
  EXPECT_NE(nop(alone.latencies(InvocationPath::Coyote, allreduce(2048))), first) << "another size, another stream";
}
