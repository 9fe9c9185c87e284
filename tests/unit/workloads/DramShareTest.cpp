// DramShare (workloads/program/DramShare.hpp) in a world of one host and the phases' actors, against the closed forms
// of water-filling on one socket: each phase ends when its bytes are streamed (at its share, re-shared at every start
// and end) and its arithmetic done, plus its fork and join.
#include "simcore/engine/Simulation.hpp"
#include "tests/support/Isolated.hpp"
#include "tests/support/OneHost.hpp"
#include "workloads/program/DramShare.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

using namespace nafsim;
using nafsim::testing::run_isolated;
using workloads::DramShare;

namespace {

constexpr double kSocket = 204.8e9; // bytes per second
constexpr double kBytes  = 100e6;

struct Start {
  double at_us;
  double cap = 100e9;          ///< the phase's cores' DRAM rate
  double compute_us = 10;      ///< its arithmetic
};

/// The end of each phase, in microseconds, one per line: phases started at their `at_us` on `slots` slots.
std::vector<double> ends(const std::vector<Start>& starts, unsigned slots)
{
  auto r = run_isolated([&] {
    Simulation sim;
    auto* h = nafsim::testing::one_host();
    DramShare share(sim.scheduler(), kSocket, slots);
    std::vector<double> end(starts.size());
    for (std::size_t i = 0; i < starts.size(); ++i)
      sim.scheduler().spawn(fmt::format("phase{}", i), h, [&, i](ActorContext& ctx) {
        DramShare::Phase p;
        p.compute = SimTime::ps(static_cast<std::int64_t>(starts[i].compute_us * 1e6));
        p.bytes   = kBytes;
        p.cap     = starts[i].cap;
        p.extra   = SimTime::us(2);
        share.run(ctx, SimTime::ps(static_cast<std::int64_t>(starts[i].at_us * 1e6)), p, CauseLabel{});
        end[i] = ctx.now().seconds() * 1e6;
      });
    sim.run(h);
    std::string out;
    for (double e : end)
      out += fmt::format("{:.6f}\n", e);
    return out;
  });
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::vector<double> v;
  for (const char* p = r.output.c_str(); *p;) {
    char* next = nullptr;
    v.push_back(std::strtod(p, &next));
    p = *next ? next + 1 : next;
  }
  return v;
}

} // namespace

TEST(DramShare, APhaseAloneStreamsAtItsCoresRate)
{
  auto e = ends({{0}}, 3);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NEAR(e[0], kBytes / 100e9 * 1e6 + 2, 1e-3); // 1,002 us
}

TEST(DramShare, PhasesAtOnceShareTheSocket)
{
  auto e = ends({{0}, {0}, {0}}, 3);
  ASSERT_EQ(e.size(), 3u);
  for (double x : e) // 300 MB at 204.8 GB/s, not 100 GB/s each
    EXPECT_NEAR(x, 3 * kBytes / kSocket * 1e6 + 2, 1e-3);
}

// Two phases stream at their cores' 100 GB/s (200 of the socket's 204.8); a third 500 us later splits the socket three
// ways until the first two end, then streams its rest alone at its cores' rate.
TEST(DramShare, AStartReSharesWhatIsLeft)
{
  auto e = ends({{0}, {0}, {500}}, 3);
  ASSERT_EQ(e.size(), 3u);
  const double left  = kBytes - 100e9 * 500e-6;    // each first phase's bytes at 500 us
  const double third = kSocket / 3;                // each one's share then
  const double t1    = 500 + left / third * 1e6;   // the first two end
  const double t3    = t1 + (kBytes - third * (t1 - 500) * 1e-6) / 100e9 * 1e6;
  EXPECT_NEAR(e[0], t1 + 2, 1e-3);
  EXPECT_NEAR(e[1], t1 + 2, 1e-3);
  EXPECT_NEAR(e[2], t3 + 2, 1e-3);
}

// Water-filling: a phase whose cores stream less than an equal share keeps its own rate; the other takes the rest.
TEST(DramShare, APhaseBelowItsShareKeepsItsRateAndTheOtherTakesTheRest)
{
  auto e = ends({{0, 20e9}, {0, 200e9}}, 2);
  ASSERT_EQ(e.size(), 2u);
  const double fast = kBytes / (kSocket - 20e9) * 1e6; // the fast one ends first
  const double slow = fast + (kBytes - 20e9 * fast * 1e-6) / 20e9 * 1e6;
  EXPECT_NEAR(e[1], fast + 2, 1e-3);
  EXPECT_NEAR(e[0], slow + 2, 1e-3);
}

// One slot: the second phase waits for the first's end (its fork and join included), then runs alone.
TEST(DramShare, APhaseWaitsForASlotInTheOrderItCame)
{
  auto e = ends({{0}, {0}}, 1);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_NEAR(e[0], 1002, 1e-3);
  EXPECT_NEAR(e[1], 2004, 1e-3);
}

// Arithmetic longer than the stream: the phase ends with its arithmetic, whatever its bytes.
TEST(DramShare, APhaseEndsWithItsArithmeticWhenThatIsLonger)
{
  auto e = ends({{0, 100e9, 3000}}, 2);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NEAR(e[0], 3002, 1e-3);
}
