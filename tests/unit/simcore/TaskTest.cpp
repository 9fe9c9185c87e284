// Task actors (Scheduler::spawn_task, simcore/engine/Task.hpp): coroutines run by the kernel as engine events.
// Engine-free (run_standalone) except where they meet SimGrid actors.
#include "simcore/engine/Simulation.hpp"
#include "simcore/topo/SimgridPlatform.hpp"
#include "tests/support/Isolated.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

using namespace nafsim;

namespace {
Task<int> twice(int x)
{
  co_return 2 * x;
}
Task<int> sleepy_twice(TaskContext& ctx, int x)
{
  co_await ctx.sleep_for(SimTime::ps(10));
  co_return 2 * x;
}
struct Boom : std::runtime_error {
  using std::runtime_error::runtime_error;
};
Task<> throws_after(TaskContext& ctx, SimTime d)
{
  co_await ctx.sleep_for(d);
  throw Boom("boom");
}
/// Wakes `a` at each date of `dates` (a handler, as hardware blocks do).
struct Waker final : EventHandler {
  Scheduler& s;
  ActorId a = 0;
  explicit Waker(Scheduler& sc) : s(sc) {}
  void on_event(std::uint32_t, std::uint64_t) override { s.wake(a); }
};
} // namespace

TEST(Task, SleepsSeeExactTimesWithoutSimGrid)
{
  Scheduler s;
  std::string log;
  s.spawn_task("a", [&](TaskContext& ctx) -> Task<> {
    co_await ctx.sleep_for(SimTime::ps(1500));
    log += fmt::format("a@{} ", ctx.now().ps());
    co_await ctx.sleep_for(SimTime::ps(1500));
    log += fmt::format("a@{} ", ctx.now().ps());
  });
  s.spawn_task("b", [&](TaskContext& ctx) -> Task<> {
    co_await ctx.sleep_for(SimTime::ps(2000));
    log += fmt::format("b@{} ", ctx.now().ps());
  });
  s.run_standalone();
  EXPECT_EQ(log, "a@1500 b@2000 a@3000 ");
  EXPECT_EQ(s.now(), SimTime::ps(3000));
  EXPECT_EQ(s.actor_wakeups(), 0u) << "no SimGrid actor was switched to";
  EXPECT_EQ(s.task_resumes(), 2u + 3u) << "each task's start and each sleep's end";
}

TEST(Task, NestedTasksReturnValuesAndDoNotGrowTheStack)
{
  // A million awaited tasks that finish without suspending: with symmetric transfer each returns to its awaiter
  // by a tail call; a stack frame per task would overflow the 8 MiB stack.
  Scheduler s;
  long sum = 0;
  int slept = 0;
  s.spawn_task("loop", [&](TaskContext& ctx) -> Task<> {
    for (int i = 0; i < 1'000'000; ++i)
      sum += co_await twice(i);
    slept = co_await sleepy_twice(ctx, 21);
  });
  s.run_standalone();
  EXPECT_EQ(sum, 999'999L * 1'000'000L);
  EXPECT_EQ(slept, 42);
  EXPECT_EQ(s.now(), SimTime::ps(10));
}

TEST(Task, ExceptionsReachTheAwaiterAndUncaughtOnesStopTheRun)
{
  Scheduler s;
  std::string log;
  s.spawn_task("catcher", [&](TaskContext& ctx) -> Task<> {
    try {
      co_await throws_after(ctx, SimTime::ps(5));
    } catch (const Boom& e) {
      log += fmt::format("caught {}@{} ", e.what(), ctx.now().ps());
    }
    co_await throws_after(ctx, SimTime::ps(5));
    log += "not reached";
  });
  EXPECT_THROW(s.run_standalone(), Boom);
  EXPECT_EQ(log, "caught boom@5 ");
  EXPECT_EQ(s.now(), SimTime::ps(10));
}

TEST(Task, HandlersWakeTasksInWakeOrderAndDeadlocksNameTheirReasons)
{
  Scheduler s;
  Waker w1(s), w2(s);
  std::string log;
  auto waiter = [&](const char* name) {
    return [&log, name](TaskContext& ctx) -> Task<> {
      co_await ctx.block([] { return std::string("woken by a handler"); });
      log += fmt::format("{}@{} ", name, ctx.now().ps());
      co_await ctx.block([name] { return fmt::format("{} waits for nothing that will come", name); });
    };
  };
  w2.a = s.spawn_task("second", waiter("second"));
  w1.a = s.spawn_task("first", waiter("first"));
  s.at(SimTime::ps(7), &w1, 0); // woken in this order at the same date: they run in this order
  s.at(SimTime::ps(7), &w2, 0);
  try {
    s.run_standalone();
    FAIL() << "a deadlock was expected";
  } catch (const DeadlockError& e) {
    EXPECT_NE(std::string(e.what()).find("second: second waits for nothing that will come"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("first: first waits for nothing that will come"), std::string::npos) << e.what();
  }
  EXPECT_EQ(log, "first@7 second@7 ");
}

TEST(Task, DaemonTasksDoNotKeepTheRunAlive)
{
  Scheduler s;
  bool served = false;
  ActorId d = s.spawn_task(
      "daemon",
      [&](TaskContext& ctx) -> Task<> {
        while (true) {
          co_await ctx.block([] { return std::string("waits for work"); });
          served = true;
        }
      },
      ActorRole::Daemon);
  s.spawn_task("client", [&](TaskContext& ctx) -> Task<> {
    co_await ctx.sleep_for(SimTime::ns(1));
    ctx.scheduler().wake(d);
    co_await ctx.sleep_for(SimTime::ns(1));
  });
  EXPECT_NO_THROW(s.run_standalone());
  EXPECT_TRUE(served);
  EXPECT_EQ(s.now(), SimTime::ns(2));
}

TEST(Task, StandaloneRunsRefuseSimGridActors)
{
  Scheduler s;
  s.run_standalone();
  EXPECT_THROW(s.spawn("actor", nullptr, [](ActorContext&) {}), std::logic_error);
}

TEST(Task, TasksAndSimGridActorsRunInWakeOrder)
{
  auto r = nafsim::testing::run_isolated([] {
    Simulation sim;
    topo::TopologyConfig t;
    t.hosts = 2;
    static topo::Topology topo = topo::Topology::build(t, BitsPerSecond{1e9}, SimTime::ns(1));
    auto* h = topo::build_simgrid_platform(topo)[0];
    std::string log;
    auto& s = sim.scheduler();
    // Four waiters, alternately SimGrid actors and tasks, all woken by one handler at 5 ps in this order.
    std::vector<ActorId> ids;
    for (int i = 0; i < 4; ++i) {
      auto name = fmt::format("w{}", i);
      if (i % 2 == 0)
        ids.push_back(s.spawn(name, h, [&log, name](ActorContext& ctx) {
          ctx.block("woken");
          log += fmt::format("{}@{} ", name, ctx.now().ps());
        }));
      else
        ids.push_back(s.spawn_task(name, [&log, name](TaskContext& ctx) -> Task<> {
          co_await ctx.block([] { return std::string("woken"); });
          log += fmt::format("{}@{} ", name, ctx.now().ps());
        }));
    }
    s.call_at(SimTime::ps(5), [&s, &ids] {
      for (int i = 3; i >= 0; --i)
        s.wake(ids[static_cast<std::size_t>(i)]);
    });
    sim.run(h);
    return log + fmt::format("sg wake-ups {} task resumes {}", s.actor_wakeups(), s.task_resumes());
  });
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "w3@5 w2@5 w1@5 w0@5 sg wake-ups 2 task resumes 4");
}

TEST(Task, AWallClockLimitStopsARunThatWouldNotEndWithAnError)
{
  // A task that sleeps a picosecond forever: the run stops itself once the event loop has taken its wall-clock
  // budget (nafsim run --wall-limit), with an error naming the limit and the simulated time reached.
  Scheduler s;
  s.set_wall_limit(0.05);
  s.spawn_task("forever", [](TaskContext& ctx) -> Task<> {
    for (;;)
      co_await ctx.sleep_for(SimTime::ps(1));
  });
  try {
    s.run_standalone();
    FAIL() << "the run did not stop";
  } catch (const SimulationError& e) {
    EXPECT_NE(std::string(e.what()).find("wall-clock limit of 0.05 s"), std::string::npos) << e.what();
  }
  EXPECT_GT(s.now(), SimTime::ps(1000));
}
