// The causal graph (CausalGraph.hpp) and the kernel's recording of causes: a chain adds up to the time between its
// ends, a lead-in splits its step, and causes follow events, wake-ups and task actors' sleeps.
#include "simcore/engine/CausalGraph.hpp"
#include "simcore/engine/Scheduler.hpp"

#include <gtest/gtest.h>

using namespace nafsim;

namespace {
SimTime us(double v)
{
  return SimTime::ps(static_cast<std::int64_t>(v * 1e6));
}
SimTime total(const std::vector<CausalGraph::Segment>& p)
{
  SimTime t;
  for (auto const& s : p)
    t += s.end - s.begin;
  return t;
}
} // namespace

TEST(CausalGraph, PathIsContiguousCutAtItsStartAndSplitsLeadIns)
{
  const std::uint32_t a = cause_what("test", "a"), b = cause_what("test", "b"), lead = cause_what("test", "lead");
  EXPECT_EQ(cause_resource(a), "test");
  EXPECT_EQ(cause_detail(b), "b");
  EXPECT_EQ(cause_what("test", "a"), a) << "interned once";
  CausalGraph g;
  auto r1 = g.add(us(1), 0, CauseLabel{a});
  auto r2 = g.add(us(3), r1, CausalGraph::with_lead(CauseLabel::at_host(b, 7), lead, us(2)));
  auto r3 = g.add(us(3), r2, CauseLabel{a}); // zero-length step: left out
  auto r4 = g.add(us(6), r3, CauseLabel::at_switch(a, 12));
  auto p  = g.path(r4, us(0.5));
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0].begin, us(0.5)) << "cut at the start";
  EXPECT_EQ(p[0].end, us(1));
  EXPECT_EQ(p[1].label.what, lead);
  EXPECT_EQ(p[1].end, us(2));
  EXPECT_EQ(p[1].label.where, 7) << "the lead-in is spent at the same place";
  EXPECT_EQ(p[2].label.what, b);
  EXPECT_EQ(p[2].label.lead_what, 0u);
  EXPECT_TRUE(p[3].label.on_switch());
  EXPECT_EQ(p[3].label.switch_vertex(), 12u);
  for (std::size_t i = 1; i < p.size(); ++i)
    EXPECT_EQ(p[i].begin, p[i - 1].end);
  EXPECT_EQ(total(p), us(5.5));
  // A start past the lead-in: the lead-in is cut away with the rest.
  auto q = g.path(r4, us(2.5));
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q[0].label.what, b);
  EXPECT_EQ(total(q), us(3.5));
}

TEST(CausalGraph, ALeadInSpentElsewhereKeepsItsOwnPlace)
{
  // A packet's last cable, driven by a switch's port, before the receive pipeline of the host it reaches (one record
  // when the fabric hands the packet over ahead: net::Endpoint::deliver_ahead): two segments at their two places.
  const std::uint32_t wire = cause_what("wire", "switch link"), pipe = cause_what("test", "receive pipeline");
  CausalGraph g;
  auto tx = g.add(us(1), 0, CauseLabel{});
  auto rx = g.add(us(4), tx, CausalGraph::with_lead(CauseLabel::at_host(pipe, 3), CauseLabel::at_switch(wire, 9), us(3)));
  auto p  = g.path(rx, us(0));
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[1].label.what, wire);
  EXPECT_TRUE(p[1].label.on_switch());
  EXPECT_EQ(p[1].label.switch_vertex(), 9u);
  EXPECT_EQ(p[1].begin, us(1));
  EXPECT_EQ(p[1].end, us(3));
  EXPECT_EQ(p[2].label.what, pipe);
  EXPECT_EQ(p[2].label.where, 3);
  EXPECT_EQ(p[2].end, us(4));
}

namespace {
struct Ping final : EventHandler {
  Scheduler* s  = nullptr;
  ActorId wakes = 0;
  std::uint32_t what = cause_what("test", "ping");
  void on_event(std::uint32_t, std::uint64_t) override { s->wake(wakes); }
  CauseLabel cause(std::uint32_t, std::uint64_t) const override { return CauseLabel{what}; }
};
} // namespace

TEST(CausalGraph, KernelRecordsEventsWakeUpsAndTaskSleeps)
{
  Scheduler s;
  s.record_causes();
  Ping ping;
  ping.s = &s;
  const std::uint32_t nap = cause_what("test", "nap");
  std::uint32_t end       = 0;
  // Task A sleeps 2 us, then schedules the ping 3 us later; the ping wakes task B, which sleeps 1 us and ends.
  ActorId b = s.spawn_task("b", [&](TaskContext& ctx) -> Task<> {
    co_await ctx.block([] { return std::string("ping"); });
    co_await ctx.sleep_for(us(1), CauseLabel{nap});
    end = s.cause_mark();
  });
  ping.wakes = b;
  s.spawn_task("a", [&](TaskContext& ctx) -> Task<> {
    co_await ctx.sleep_for(us(2), CauseLabel{nap});
    s.after(us(3), &ping, 0);
  });
  s.run_standalone();
  ASSERT_NE(end, 0u);
  auto p = s.causes()->path(end, SimTime{});
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].label.what, nap);
  EXPECT_EQ(p[1].label.what, ping.what);
  EXPECT_EQ(p[1].begin, us(2));
  EXPECT_EQ(p[2].label.what, nap);
  EXPECT_EQ(total(p), us(6));
}

TEST(CausalGraph, TooManyEventsStopTheRunWithAClearError)
{
  Scheduler s;
  s.record_causes(50);
  s.spawn_task("ticker", [&](TaskContext& ctx) -> Task<> {
    for (int i = 0; i < 100; ++i)
      co_await ctx.sleep_for(us(1));
  });
  try {
    s.run_standalone();
    FAIL() << "the run should stop";
  } catch (const SimulationError& e) {
    EXPECT_NE(std::string(e.what()).find("more than 50 events recorded"), std::string::npos) << e.what();
  }
}
