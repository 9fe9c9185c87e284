// EventProfile: the kernel counts its events by the handler's type and kind, a callback by its function's type.
#include "simcore/engine/Scheduler.hpp"

#include <gtest/gtest.h>

using namespace nafsim;

namespace {
struct Port final : EventHandler {
  void on_event(std::uint32_t, std::uint64_t) override {}
};
struct Engine final : EventHandler {
  void on_event(std::uint32_t, std::uint64_t) override {}
};
SimTime us(double x) { return SimTime::ps(static_cast<std::int64_t>(x * 1e6)); }
} // namespace

TEST(EventProfile, CountsEventsByHandlerTypeAndKindAndCallbacksByTheirFunction)
{
  Scheduler s;
  Port port;
  Engine engine;
  s.after(us(1), &port, 0); // before profiling: not counted
  s.run_standalone();
  s.profile_events();
  for (int i = 0; i < 3; ++i)
    s.after(us(1 + i), &port, 1);
  s.after(us(2), &engine, 7);
  s.after(us(3), &engine, 7);
  s.call_at(us(5), [] {});
  const EventId cancelled = s.after(us(4), &engine, 2);
  s.cancel(cancelled); // never handled: not counted
  s.run_standalone();
  auto rows = s.profile()->rows();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].handler, "(anonymous namespace)::Port");
  EXPECT_EQ(rows[0].kind, 1u);
  EXPECT_EQ(rows[0].events, 3u);
  EXPECT_EQ(rows[1].handler, "(anonymous namespace)::Engine");
  EXPECT_EQ(rows[1].kind, 7u);
  EXPECT_EQ(rows[1].events, 2u);
  // The callback is named after the function it was written in, its argument lists shortened.
  EXPECT_EQ(rows[2].handler,
            "EventProfile_CountsEventsByHandlerTypeAndKindAndCallbacksByTheirFunction_Test::TestBody()::{lambda()#1}");
  EXPECT_EQ(rows[2].events, 1u);
}
