// The event kernel and its protocol with SimGrid actors (each test runs its own engine).
#include "simcore/engine/Simulation.hpp"
#include "simcore/topo/SimgridPlatform.hpp"
#include "tests/support/Isolated.hpp"
#include "tests/support/OneHost.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simgrid/s4u.hpp>

using namespace nafsim;
using nafsim::testing::run_isolated;

using nafsim::testing::one_host;

namespace {
/// A background DMA ("dma") on `h`: descriptors of 20 ns until `done`, then `drain` for the last one.
void background_dma(Simulation& sim, simgrid::s4u::Host* h, const bool& done, SimTime drain = SimTime::zero())
{
  sim.scheduler().spawn(
      "dma", h,
      [&done, drain](ActorContext& ctx) {
        while (!done)
          ctx.sleep_for(SimTime::ns(20));
        if (drain > SimTime::zero())
          ctx.sleep_for(drain);
      },
      ActorRole::Background);
}
} // namespace

TEST(Scheduler, ActorsSleepAndSeeExactTimes)
{
  auto r = run_isolated([] {
    Simulation sim;
    auto* h = one_host();
    std::string log;
    sim.scheduler().spawn("a", h, [&](ActorContext& ctx) {
      ctx.sleep_for(SimTime::ps(1500));
      log += fmt::format("a@{} ", ctx.now().ps());
      ctx.sleep_for(SimTime::ps(1500));
      log += fmt::format("a@{} ", ctx.now().ps());
    });
    sim.scheduler().spawn("b", h, [&](ActorContext& ctx) {
      ctx.sleep_for(SimTime::ps(2000));
      log += fmt::format("b@{} ", ctx.now().ps());
    });
    sim.run(h);
    return log + fmt::format("end@{} sg={:.0f}ps", sim.scheduler().now().ps(), simgrid::s4u::Engine::get_clock() * 1e12);
  });
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "a@1500 b@2000 a@3000 end@3000 sg=3000ps") << "SimGrid's clock follows the kernel's";
}

TEST(Scheduler, HandlersWakeBlockedActors)
{
  auto r = run_isolated([] {
    Simulation sim;
    auto* h = one_host();
    bool ready = false;
    std::string log;
    ActorId waiter = sim.scheduler().spawn("waiter", h, [&](ActorContext& ctx) {
      ctx.wait_until([&] { return ready; }, "the flag");
      log += fmt::format("woke@{}", ctx.now().ps());
    });
    sim.scheduler().call_at(SimTime::ps(700), [&] {
      ready = true;
      sim.scheduler().wake(waiter);
    });
    sim.run(h);
    return log;
  });
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "woke@700");
}

TEST(Scheduler, DeadlockIsDetectedAndNamesTheWaiters)
{
  auto r = run_isolated([] {
    Simulation sim;
    auto* h = one_host();
    sim.scheduler().spawn("rank-3", h, [&](ActorContext& ctx) {
      ctx.sleep_for(SimTime::ns(5));
      ctx.block("RNDZV_INIT from rank 2");
    });
    sim.scheduler().spawn("rank-4", h, [&](ActorContext&) {});
    try {
      sim.run(h);
    } catch (const DeadlockError& e) {
      return std::string("deadlock: ") + e.what();
    }
    return std::string("no deadlock reported");
  });
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("deadlock: simulated deadlock at t=5ns"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("rank-3: RNDZV_INIT from rank 2"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("rank-4"), std::string::npos) << "finished actors are not listed";
}

TEST(Scheduler, ABackgroundActorDoesNotHideADeadlock)
{
  // A background DMA sleeps in steps until the client is done; the client waits for something that never comes.
  // The clock would run on to the time limit; the kernel reports the deadlock when the client starts waiting.
  auto r = run_isolated([] {
    Simulation sim;
    auto* h = one_host();
    bool done = false;
    sim.scheduler().set_time_limit(SimTime::us(1000));
    sim.scheduler().spawn("client", h, [&](ActorContext& ctx) {
      ctx.sleep_for(SimTime::ns(50));
      ctx.block("its completion");
      done = true;
    });
    background_dma(sim, h, done);
    try {
      sim.run(h);
    } catch (const DeadlockError& e) {
      return std::string("deadlock: ") + e.what();
    } catch (const SimulationError& e) {
      return std::string("other error: ") + e.what();
    }
    return std::string("no deadlock reported");
  });
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("deadlock: simulated deadlock at t=50ns: only background"), std::string::npos)
      << "reported when the client blocks:\n"
      << r.output;
  EXPECT_NE(r.output.find("client: its completion"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("dma (background): sleeping"), std::string::npos) << r.output;
}

TEST(Scheduler, ABackgroundActorRunsOnAfterTheOthersFinish)
{
  // Background actors may outlive the normal ones (until they see their stop flag): that is not a deadlock.
  auto r = run_isolated([] {
    Simulation sim;
    auto* h = one_host();
    bool done = false;
    sim.scheduler().spawn("client", h, [&](ActorContext& ctx) {
      ctx.sleep_for(SimTime::ns(50));
      done = true;
    });
    background_dma(sim, h, done, SimTime::ns(100));
    sim.run(h);
    return fmt::format("end@{}", sim.scheduler().now().ps());
  });
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "end@160000");
}

TEST(Scheduler, AnErrorInAnActorStopsTheRunAndIsRethrown)
{
  auto r = run_isolated([] {
    Simulation sim;
    auto* h = one_host();
    bool other_finished = false;
    sim.scheduler().spawn("failing", h, [&](ActorContext& ctx) {
      ctx.sleep_for(SimTime::ns(1));
      throw SimulationError("queue pair failed");
    });
    sim.scheduler().spawn("other", h, [&](ActorContext& ctx) {
      ctx.sleep_for(SimTime::us(1));
      other_finished = true;
    });
    try {
      sim.run(h);
    } catch (const SimulationError& e) {
      return fmt::format("{} other_finished={}", e.what(), other_finished);
    }
    return std::string("no error");
  });
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "queue pair failed other_finished=false");
}

TEST(Scheduler, TimeLimitStopsRunawayRuns)
{
  auto r = run_isolated([] {
    Simulation sim;
    auto* h = one_host();
    sim.scheduler().set_time_limit(SimTime::us(10));
    sim.scheduler().spawn("forever", h, [&](ActorContext& ctx) {
      while (true)
        ctx.sleep_for(SimTime::us(1));
    });
    // A run stuck with events still coming (a poll that never finds what it polls for) reaches the limit too: the
    // message says what waits then, as a deadlock's report does.
    sim.scheduler().spawn("client", h, [&](ActorContext& ctx) { ctx.block("a reply the poll never brings"); });
    try {
      sim.run(h);
    } catch (const SimulationError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  });
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("simulated time limit 10us reached"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("- client: a reply the poll never brings"), std::string::npos) << r.output;
}

TEST(Scheduler, ActorsCanSpawnActors)
{
  auto r = run_isolated([] {
    Simulation sim;
    auto* h = one_host();
    std::string log;
    sim.scheduler().spawn("parent", h, [&](ActorContext& ctx) {
      ctx.sleep_for(SimTime::ps(10));
      ctx.scheduler().spawn("child", h, [&](ActorContext& c) {
        c.sleep_for(SimTime::ps(5));
        log += fmt::format("child@{} ", c.now().ps());
      });
      ctx.sleep_for(SimTime::ps(10));
      log += fmt::format("parent@{}", ctx.now().ps());
    });
    sim.run(h);
    return log;
  });
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "child@15 parent@20");
}

TEST(Scheduler, EventsRunInDateOrderAndTiesInSchedulingOrder)
{
  // Engine-free: 20,000 events, many at equal dates and many scheduled by handlers while others of their date are
  // still pending, some cancelled. The radix heap keeps ties in scheduling order without sorting them, so the order
  // seen must be (date, scheduling order), with every cancelled event skipped.
  struct Recorder final : EventHandler {
    Scheduler& s;
    std::uint64_t x = 0x2545F4914F6CDD1DULL;
    std::uint64_t scheduled = 0;
    std::vector<std::pair<std::int64_t, std::uint64_t>> seen;
    std::vector<EventId> ids;
    std::vector<bool> cancelled, ran;
    explicit Recorder(Scheduler& sc) : s(sc) {}
    std::uint64_t next()
    {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      return x;
    }
    void schedule()
    {
      const std::uint64_t r = next();
      const SimTime d       = r % 4 == 0 ? SimTime::zero() : SimTime::ps(static_cast<std::int64_t>(r % 1000));
      ids.push_back(s.at(s.now() + d, this, 0, scheduled++));
      cancelled.push_back(false);
      ran.push_back(false);
    }
    void on_event(std::uint32_t, std::uint64_t arg) override
    {
      seen.emplace_back(s.now().ps(), arg);
      ran[arg] = true;
      for (int k = 0; k < 2 && scheduled < 20000; ++k)
        schedule();
      if (next() % 10 == 0 && !ids.empty()) { // cancel a random earlier event (no effect if it already ran)
        const std::uint64_t victim = next() % ids.size();
        s.cancel(ids[victim]);
        if (!ran[victim])
          cancelled[victim] = true;
      }
    }
  };
  Scheduler s;
  Recorder r(s);
  for (int i = 0; i < 50; ++i)
    r.schedule();
  s.run_standalone();
  ASSERT_GT(r.seen.size(), 10000u);
  std::vector<std::int64_t> date_of(r.scheduled, -1);
  for (std::size_t i = 0; i < r.seen.size(); ++i) {
    date_of[r.seen[i].second] = r.seen[i].first;
    if (i > 0) {
      auto [t0, a0] = r.seen[i - 1];
      auto [t1, a1] = r.seen[i];
      ASSERT_TRUE(t0 < t1 || (t0 == t1 && a0 < a1))
          << "event " << a1 << " at " << t1 << " after " << a0 << " at " << t0;
    }
  }
  for (std::uint64_t a = 0; a < r.scheduled; ++a)
    EXPECT_EQ(date_of[a] < 0, r.cancelled[a])
        << "event " << a << (r.cancelled[a] ? " ran though cancelled" : " never ran");
}

TEST(Scheduler, ACancelledEventsSlotIsTakenAtOnceAndItsOldEntryRunsNothing)
{
  // Engine-free. Cancelling frees the event's payload slot at once; its entry stays in the heap until its date.
  // Events scheduled after the cancel take that slot (at an earlier and at a later date than the cancelled one):
  // each runs once, at its own date, and the old entry neither runs them again nor moves the clock.
  struct Log final : EventHandler {
    Scheduler& s;
    std::vector<std::pair<std::int64_t, std::uint64_t>> seen;
    explicit Log(Scheduler& sc) : s(sc) {}
    void on_event(std::uint32_t, std::uint64_t arg) override { seen.emplace_back(s.now().ps(), arg); }
  };
  Scheduler s;
  Log log(s);
  const EventId far = s.at(SimTime::ps(1'000'000), &log, 0, 1); // the last date of all, cancelled
  const EventId mid = s.at(SimTime::ps(500), &log, 0, 2);        // cancelled
  s.cancel(far);
  s.cancel(mid);
  s.cancel(far); // twice: no effect
  s.at(SimTime::ps(100), &log, 0, 3);  // takes a freed slot, before the cancelled entries' dates
  s.at(SimTime::ps(700), &log, 0, 4);  // takes the other, between them
  const EventId late = s.at(SimTime::ps(900), &log, 0, 5);
  s.cancel(mid); // an old id whose slot is another event's now: no effect on it
  s.run_standalone();
  const std::vector<std::pair<std::int64_t, std::uint64_t>> want{{100, 3}, {700, 4}, {900, 5}};
  EXPECT_EQ(log.seen, want);
  EXPECT_EQ(s.now(), SimTime::ps(900)) << "a cancelled event never advances the clock";
  s.cancel(late); // already ran: no effect
}

// A place reserved among a date's events (Scheduler::reserve_place) and filled later (at_reserved) runs where an
// event scheduled at the reservation would have: before the events of its date scheduled after the reservation,
// after those scheduled before; passed() says, from inside each, whether that place has run.
TEST(Scheduler, AReservedPlaceRunsWhereItsEventWouldHave)
{
  struct Log final : EventHandler {
    Scheduler* s = nullptr;
    std::uint64_t place = 0;
    std::string got;
    void on_event(std::uint32_t kind, std::uint64_t) override
    {
      got += fmt::format("{}@{}{} ", static_cast<char>(kind), s->now().ps(), s->passed(SimTime::ps(10), place) ? "+" : "-");
    }
  } log;
  Scheduler s;
  log.s = &s;
  struct Script final : EventHandler {
    Scheduler* s = nullptr;
    Log* log     = nullptr;
    void on_event(std::uint32_t kind, std::uint64_t) override
    {
      if (kind == 0) {                       // at 0: w before the reservation, x after it, all at 10
        s->at(SimTime::ps(10), log, 'w');
        log->place = s->reserve_place();
        s->at(SimTime::ps(10), log, 'x');
        s->at(SimTime::ps(5), this, 1);
      } else {                               // at 5: the reserved place filled
        s->at_reserved(SimTime::ps(10), log->place, log, 'r');
        s->at(SimTime::ps(10), log, 'y');
      }
    }
  } script;
  script.s   = &s;
  script.log = &log;
  s.at(SimTime::zero(), &script, 0);
  s.run_standalone();
  EXPECT_EQ(log.got, "w@10- r@10- x@10+ y@10+ ");
}
