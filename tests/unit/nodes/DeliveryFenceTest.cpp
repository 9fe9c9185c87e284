// DeliveryFence (nodes/transport/DeliveryFence.hpp): a wait covers every message posted to its peer before it,
// whatever order their acknowledgements come in, and not those posted later; other peers' acknowledgements and a
// failure wake no one waiting.
#include "nodes/transport/DeliveryFence.hpp"
#include "simcore/engine/Simulation.hpp"
#include "tests/support/Isolated.hpp"
#include "tests/support/OneHost.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

using namespace nafsim;
using nafsim::testing::run_isolated;

using nafsim::testing::one_host;

TEST(DeliveryFence, AWaitEndsWhenEveryMessagePostedBeforeItIsAcknowledged)
{
  auto r = run_isolated([] {
    Simulation sim;
    auto* h = one_host();
    nodes::DeliveryFence fence;
    SimTime woke;
    // Messages 1 and 3 to peer 7, 2 to peer 8; 4 to peer 7 after the wait began.
    fence.posted(7, 1);
    fence.posted(8, 2);
    fence.posted(7, 3);
    sim.scheduler().spawn("sender", h, [&](ActorContext& ctx) {
      fence.wait(ctx, 7, "test");
      woke = ctx.now();
    });
    sim.scheduler().spawn("network", h, [&](ActorContext& ctx) {
      auto& s = ctx.scheduler();
      ctx.sleep_for(SimTime::us(1));
      fence.posted(7, 4);                 // later: does not hold the wait
      fence.completed(s, 3, true);        // out of order: 1 is still out
      ctx.sleep_for(SimTime::us(1));
      fence.completed(s, 2, true);        // another peer's
      fence.completed(s, 99, true);       // not one of ours
      ctx.sleep_for(SimTime::us(1));
      fence.completed(s, 1, true);        // the last one before the wait: it ends at 3 us
    });
    sim.run(h);
    return fmt::format("{:.3f}", woke.us());
  });
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "3.000");
}

TEST(DeliveryFence, AFailureWakesNoOneAndAPeerWithNothingPostedDoesNotWait)
{
  auto r = run_isolated([] {
    Simulation sim;
    auto* h = one_host();
    nodes::DeliveryFence fence;
    fence.posted(7, 1);
    std::string seen;
    sim.scheduler().spawn("idle", h, [&](ActorContext& ctx) {
      fence.wait(ctx, 8, "test"); // nothing posted to 8
      seen += fmt::format("peer 8 at {:.0f}; ", ctx.now().us());
    });
    sim.scheduler().spawn("sender", h, [&](ActorContext& ctx) { fence.wait(ctx, 7, "test"); });
    sim.scheduler().spawn("network", h, [&](ActorContext& ctx) {
      ctx.sleep_for(SimTime::us(1));
      fence.completed(ctx.scheduler(), 1, false);
    });
    try {
      sim.run(h);
    } catch (const DeadlockError& e) {
      seen += std::string(e.what()).find("a send waits for its delivery") != std::string::npos ? "deadlock named"
                                                                                                : e.what();
    }
    return seen;
  });
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "peer 8 at 0; deadlock named");
}
