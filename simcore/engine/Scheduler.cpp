#include "simcore/engine/Scheduler.hpp"

#include <algorithm>
#include <cassert>
#include <fmt/format.h>
#include <simgrid/s4u.hpp>
#include <simgrid/simix.hpp>
#include <xbt/log.h>

XBT_LOG_NEW_DEFAULT_CATEGORY(nafsim_engine, "nafsim event kernel");

namespace sg4 = simgrid::s4u;

namespace nafsim {

struct Scheduler::ActorSlot {
  std::string name;
  sg4::SemaphorePtr sem;
  ActorState state = ActorState::Running;
  std::string waiting_for;
  WaitReason waiting_why; ///< built when a report needs it (when set, it replaces waiting_for)
  ActorRole role = ActorRole::Normal;
  bool task = false;               ///< a task actor (a coroutine run by the kernel), not a SimGrid actor
  std::coroutine_handle<> resume;  ///< task actors: where the task waits
  std::coroutine_handle<> root;    ///< task actors: the outermost frame (destroyed when the task ends)
  std::uint32_t wake_cause = 0;    ///< causes: the step that woke it (or spawned it)
};

/// The outermost frame of a task actor: runs the body, reports its exception, ends the actor.
struct Scheduler::Root {
  struct promise_type {
    static void* operator new(std::size_t n) { return FramePool::allocate(n); }
    static void operator delete(void* p, std::size_t n) noexcept { FramePool::release(p, n); }
    Root get_return_object() { return Root{std::coroutine_handle<promise_type>::from_promise(*this)}; }
    std::suspend_always initial_suspend() noexcept { return {}; }
    std::suspend_always final_suspend() noexcept { return {}; }
    void return_void() noexcept {}
    void unhandled_exception() noexcept { std::terminate(); } // the body's exceptions are caught in task_root
  };
  std::coroutine_handle<promise_type> h;
};

struct Scheduler::Sync {
  sg4::SemaphorePtr all_blocked = sg4::Semaphore::create(0);
};

/// Runs the std::function callbacks scheduled with call_at.
class Scheduler::CallbackHandler final : public EventHandler {
public:
  std::uint64_t add(std::function<void()> fn)
  {
    if (free_.empty()) {
      fns_.push_back(std::move(fn));
      return fns_.size() - 1;
    }
    auto slot = free_.back();
    free_.pop_back();
    fns_[slot] = std::move(fn);
    return slot;
  }
  /// The type of the function pending in `slot` (EventProfile).
  const std::type_info& target_type(std::uint64_t slot) const { return fns_[slot].target_type(); }
  void on_event(std::uint32_t, std::uint64_t slot) override
  {
    auto fn = std::move(fns_[slot]);
    fns_[slot] = nullptr;
    free_.push_back(slot);
    fn();
  }

private:
  std::vector<std::function<void()>> fns_;
  std::vector<std::uint64_t> free_;
};

/// Wakes the actor whose id is the event argument (ActorContext::sleep_until).
class Scheduler::WakeHandler final : public EventHandler {
public:
  explicit WakeHandler(Scheduler& s) : s_(s) {}
  void on_event(std::uint32_t, std::uint64_t actor) override
  {
    auto a = static_cast<ActorId>(actor);
    if (s_.actors_[a].role == ActorRole::Background)
      --s_.background_sleeps_;
    else
      --s_.sleeps_;
    s_.wake(a);
  }

private:
  Scheduler& s_;
};

Scheduler::Scheduler()
    : callbacks_(std::make_unique<CallbackHandler>()), waker_(std::make_unique<WakeHandler>(*this))
{
}
Scheduler::~Scheduler()
{
  // Tasks still waiting (daemons, or a run stopped by an error): their frames go, with every frame they await.
  for (auto& a : actors_)
    if (a.task && a.root)
      a.root.destroy();
}

EventId Scheduler::at(SimTime t, EventHandler* h, std::uint32_t kind, std::uint64_t arg, const CauseLabel& label)
{
  const EventId id = push_event(t, h, kind, arg);
  if (causes_) [[unlikely]]
    note_cause(id, label, cur_cause_);
  return id;
}

EventId Scheduler::at_caused_by(std::uint32_t parent, SimTime t, EventHandler* h, std::uint32_t kind,
                                std::uint64_t arg)
{
  const EventId id = push_event(t, h, kind, arg);
  if (causes_) [[unlikely]]
    note_cause(id, h->cause(kind, arg), parent == kRunningStep ? cur_cause_ : parent);
  return id;
}

EventId Scheduler::at_caused_by(std::uint32_t parent, SimTime t, EventHandler* h, std::uint32_t kind,
                                std::uint64_t arg, const CauseLabel& label)
{
  const EventId id = push_event(t, h, kind, arg);
  if (causes_) [[unlikely]]
    note_cause(id, label, parent == kRunningStep ? cur_cause_ : parent);
  return id;
}

void Scheduler::note_cause(EventId id, const CauseLabel& label, std::uint32_t parent)
{
  const auto slot = static_cast<std::uint32_t>(id & ((1u << kSlotBits) - 1));
  if (pending_causes_.size() <= slot)
    pending_causes_.resize(payloads_.size());
  pending_causes_[slot] = PendingCause{parent, label};
}

std::uint32_t Scheduler::new_slot()
{
  const auto slot = static_cast<std::uint32_t>(payloads_.size());
  if (slot >= (1u << kSlotBits))
    throw SimulationError("more than 16 million events pending at once");
  payloads_.push_back(Payload{});
  return slot;
}

void Scheduler::cancel(EventId id)
{
  auto slot = static_cast<std::uint32_t>(id & ((1u << kSlotBits) - 1));
  // The payload's slot is free at once (its entry stays in the heap until its date, then is skipped: its key no
  // longer matches the slot's). A run that cancels many far events (a RoCE queue pair's retransmission timer at
  // every message, 1e5 s ahead at flow fidelity) would otherwise hold a slot per cancelled event to the end: 2.1 M
  // of them in a 1,024-rank all-to-all, an eighth of the 2^24 the slots' numbering allows.
  if (slot < payloads_.size() && payloads_[slot].key == id) {
    payloads_[slot] = Payload{};
    free_payloads_.push_back(slot);
  }
}

void Scheduler::call_at(SimTime t, std::function<void()> fn, CauseLabel label)
{
  at(t, callbacks_.get(), 0, callbacks_->add(std::move(fn)), label);
}

void Scheduler::call_at_caused_by(std::uint32_t parent, SimTime t, std::function<void()> fn, CauseLabel label)
{
  at_caused_by(parent, t, callbacks_.get(), 0, callbacks_->add(std::move(fn)), label);
}

void Scheduler::record_causes(std::size_t max_records)
{
  if (!causes_)
    causes_ = std::make_unique<CausalGraph>(max_records);
}

void Scheduler::resume_cause(ActorId a)
{
  if (causes_)
    cur_cause_ = actors_[a].wake_cause;
}

ActorId Scheduler::spawn(const std::string& name, sg4::Host* host, std::function<void(ActorContext&)> body,
                         ActorRole role)
{
  if (standalone_)
    throw std::logic_error("Scheduler::spawn: a standalone run (run_standalone) has task actors only");
  if (!sync_)
    sync_ = std::make_unique<Sync>();
  ++simgrid_actors_;
  auto id = static_cast<ActorId>(actors_.size());
  actors_.push_back(ActorSlot{name, sg4::Semaphore::create(0), ActorState::Running, {}, {}, role, false, {}, {}, cur_cause_});
  ++running_;
  if (role != ActorRole::Daemon)
    ++live_;
  if (role == ActorRole::Normal)
    ++live_normal_;
  auto create = [this, id, name, host, body = std::move(body)]() mutable {
    sg4::Actor::create(name, host, [this, id, body = std::move(body)]() {
      try {
        resume_cause(id);
        ActorContext ctx(*this, id);
        body(ctx);
      } catch (const std::exception&) {
        // Config/simulation errors stop the run; SimGrid's kill exception is not a std::exception
        // and passes through untouched.
        fail(std::current_exception());
      }
      finish(id);
    });
  };
  if (spawned_)
    create();
  else
    unspawned_.emplace_back(std::move(create));
  return id;
}

void Scheduler::create_spawned()
{
  spawned_ = true;
  for (auto& create : unspawned_)
    create();
  unspawned_.clear();
}

Scheduler::Root Scheduler::task_root(Scheduler* s, ActorId id, std::function<Task<>(TaskContext&)> body)
{
  TaskContext ctx(*s, id);
  std::exception_ptr error;
  try {
    co_await body(ctx);
  } catch (...) {
    error = std::current_exception();
  }
  if (error)
    s->fail(error);
  s->finish(id);
}

ActorId Scheduler::spawn_task(const std::string& name, std::function<Task<>(TaskContext&)> body, ActorRole role)
{
  auto id = static_cast<ActorId>(actors_.size());
  ActorSlot slot{name, nullptr, ActorState::Pending, {}, {}, role, true, {}, {}, cur_cause_};
  actors_.push_back(std::move(slot));
  if (role != ActorRole::Daemon)
    ++live_;
  if (role == ActorRole::Normal)
    ++live_normal_;
  Root r              = task_root(this, id, std::move(body));
  actors_[id].root   = r.h;
  actors_[id].resume = r.h;
  if (running_kernel_)
    pending_.push_back(id); // runs with the actors woken next
  else
    resume_task(id); // as a SimGrid actor created before the run: it runs until it first waits
  return id;
}

void Scheduler::resume_task(ActorId a)
{
  auto& slot = actors_[a];
  slot.state = ActorState::Running;
  ++running_;
  ++task_resumes_;
  resume_cause(a);
  slot.resume.resume();
  if (actors_[a].state == ActorState::Finished && actors_[a].root) {
    actors_[a].root.destroy();
    actors_[a].root = nullptr;
  }
}

void Scheduler::task_block(ActorId a, std::coroutine_handle<> h, const char* why)
{
  auto& slot       = actors_[a];
  slot.state       = ActorState::Blocked;
  slot.waiting_for = why;
  slot.waiting_why = nullptr;
  slot.resume      = h;
  --running_;
}

void Scheduler::task_block(ActorId a, std::coroutine_handle<> h, WaitReason why)
{
  auto& slot       = actors_[a];
  slot.state       = ActorState::Blocked;
  slot.waiting_why = std::move(why);
  slot.resume      = h;
  --running_;
}

void TaskContext::suspend_until(SimTime t, std::coroutine_handle<> h, CauseLabel label)
{
  if (sched_.actors_[id_].role == ActorRole::Background)
    ++sched_.background_sleeps_;
  else
    ++sched_.sleeps_;
  sched_.at(std::max(t, now()), sched_.waker_.get(), 0, id_, label);
  sched_.task_block(id_, h, "sleeping");
}

void Scheduler::wake(ActorId a)
{
  auto& slot = actors_.at(a);
  if (slot.state != ActorState::Blocked)
    return;
  slot.state = ActorState::Pending;
  slot.wake_cause = cur_cause_;
  pending_.push_back(a);
}

void Scheduler::fail(std::exception_ptr e)
{
  if (!error_)
    error_ = std::move(e);
}

void Scheduler::block(ActorId a, std::string_view why)
{
  auto& slot       = actors_[a];
  slot.state       = ActorState::Blocked;
  slot.waiting_for = why;
  slot.waiting_why = nullptr;
  if (--running_ == 0)
    sync_->all_blocked->release();
  slot.sem->acquire();
  resume_cause(a);
}

void Scheduler::block(ActorId a, WaitReason why)
{
  auto& slot       = actors_[a];
  slot.state       = ActorState::Blocked;
  slot.waiting_why = std::move(why);
  if (--running_ == 0)
    sync_->all_blocked->release();
  slot.sem->acquire();
  resume_cause(a);
}

void Scheduler::finish(ActorId a)
{
  actors_[a].state = ActorState::Finished;
  if (actors_[a].role != ActorRole::Daemon)
    --live_;
  if (actors_[a].role == ActorRole::Normal)
    --live_normal_;
  if (--running_ == 0 && !actors_[a].task)
    sync_->all_blocked->release();
}

void ActorContext::sleep_until(SimTime t, CauseLabel label)
{
  if (sched_.actors_[id_].role == ActorRole::Background)
    ++sched_.background_sleeps_;
  else
    ++sched_.sleeps_;
  sched_.at(std::max(t, now()), sched_.waker_.get(), 0, id_, label);
  block("sleeping");
}

void Scheduler::sync_simgrid_clock() const
{
  double t = now_.seconds();
  if (sg4::Engine::get_clock() < t)
    sg4::this_actor::sleep_until(t);
}

void Scheduler::wait_for_running_actors()
{
  if (running_ == 0)
    return;
  if (follow_clock_)
    sync_simgrid_clock();
  sync_->all_blocked->acquire();
}

void Scheduler::flush_pending()
{
  while (!pending_.empty() && !error_) {
    if (follow_clock_)
      sync_simgrid_clock();
    std::vector<ActorId> batch;
    if (!spare_batches_.empty()) {
      batch = std::move(spare_batches_.back());
      spare_batches_.pop_back();
    }
    batch.swap(pending_); // pending_ keeps the spare's storage for the wake-ups to come
    // The actors run in the order they were woken, each until it waits: a task actor resumed here, a run of
    // consecutive SimGrid actors released together.
    for (std::size_t k = 0; k < batch.size() && !error_;) {
      if (actors_[batch[k]].task) {
        resume_task(batch[k++]);
        continue;
      }
      std::size_t end = k;
      while (end < batch.size() && !actors_[batch[end]].task)
        ++end;
      for (std::size_t j = k; j < end; ++j) {
        actors_[batch[j]].state = ActorState::Running;
        ++running_;
        ++wakeups_;
      }
      // One simcall releases them all (in the maestro, each release runs directly): a simcall per actor was a
      // scheduling round of SimGrid's each.
      simgrid::kernel::actor::simcall_answered([this, &batch, k, end] {
        for (std::size_t j = k; j < end; ++j)
          actors_[batch[j]].sem->release();
      });
      sync_->all_blocked->acquire();
      k = end;
    }
    batch.clear();
    spare_batches_.push_back(std::move(batch));
  }
}

std::string Scheduler::deadlock_report() const
{
  std::string s =
      background_sleeps_ > 0
          ? fmt::format("simulated deadlock at t={}: only background actors' sleeps are pending (they wake no one), "
                        "yet {} actor(s) wait forever:",
                        format_time(now_), live_normal_)
          : fmt::format("simulated deadlock at t={}: no event is pending, yet {} actor(s) wait forever:",
                        format_time(now_), live_);
  return s + blocked_actors();
}

std::string Scheduler::blocked_actors() const
{
  std::string s;
  for (auto const& a : actors_)
    if (a.state == ActorState::Blocked)
      s += fmt::format("\n  - {}{}: {}", a.name,
                       a.role == ActorRole::Daemon ? " (firmware)" : a.role == ActorRole::Background ? " (background)" : "",
                       a.waiting_why ? a.waiting_why() : a.waiting_for);
  for (auto const& note : notes_)
    if (std::string n = note(); !n.empty())
      s += "\n" + n;
  return s;
}

std::string Scheduler::failure_notes(const std::string& failure) const
{
  std::string s;
  for (auto const& note : failure_notes_)
    if (std::string n = note(failure); !n.empty())
      s += "\n" + n;
  return s;
}

void Scheduler::run_kernel()
{
  if (!sync_)
    sync_ = std::make_unique<Sync>();
  wait_for_running_actors();
  loop();
  if (error_) {
    XBT_DEBUG("run stopped by an error; killing the remaining actors");
    sg4::Actor::kill_all();
    return;
  }
  // Only daemons (firmware loops waiting for work) may still be blocked: end them.
  sg4::Actor::kill_all();
  sync_simgrid_clock();
}

void Scheduler::run_standalone()
{
  if (simgrid_actors_ > 0)
    throw std::logic_error("Scheduler::run_standalone: SimGrid actors need run_kernel() inside the SimGrid engine");
  standalone_ = true;
  loop();
  if (error_)
    std::rethrow_exception(error_);
}

void Scheduler::loop()
{
  running_kernel_ = true;
  while (!error_) {
    // Actors woken at the current date run once every event of that date has been handled.
    if (!pending_.empty() && (heap_empty() || heap_next_time() > now_.ps())) {
      cur_place_ = UINT64_MAX; // (after every event of the date: Scheduler::passed)
      flush_pending();
    }
    if (error_)
      break;
    if (running_ > 0) // actors spawned by a handler
      wait_for_running_actors();
    if (heap_empty()) {
      if (live_ > 0)
        error_ = std::make_exception_ptr(DeadlockError(deadlock_report()));
      break;
    }
    // Only background actors' sleeps are pending while normal actors are left: those all wait, and nothing can
    // wake them (background actors wake no one).
    if (live_normal_ > 0 && queue_.size() == background_sleeps_ && pending_.empty()) {
      error_ = std::make_exception_ptr(DeadlockError(deadlock_report()));
      break;
    }
    Entry e = heap_pop();
    auto slot       = static_cast<std::uint32_t>(e.key & ((1u << kSlotBits) - 1));
    if (payloads_[slot].key != e.key)
      continue; // cancelled (its slot freed then, perhaps taken since): skipped without advancing the clock
    Payload ev          = payloads_[slot];
    payloads_[slot].key = 0;
    free_payloads_.push_back(slot);
    if (SimTime::ps(e.t) > limit_) {
      const std::string waiting = blocked_actors();
      error_ = std::make_exception_ptr(SimulationError(
          fmt::format("simulated time limit {} reached with work still pending (raise the scenario's "
                      "max_sim_time, e.g. --set max_sim_time=1000s, if the run is expected to take longer; if what "
                      "waits below never moves, the run is stuck: events still come, from polls or timers, but "
                      "nothing progresses).{}",
                      format_time(limit_), waiting.empty() ? std::string() : " What waits then:" + waiting)));
      break;
    }
    now_ = SimTime::ps(e.t);
    if ((++events_ & 0xFFFF) == 0) {
      if (wall_limit_ > 0 && std::chrono::steady_clock::now() > wall_deadline_) {
        error_ = std::make_exception_ptr(SimulationError(
            fmt::format("wall-clock limit of {} s reached at simulated time {} with work still pending (--wall-limit)",
                        wall_limit_, format_time(now_))));
        break;
      }
      if (progress_)
        progress_();
    }
    if (causes_) { // (events scheduled before causes were recorded have the origin as cause)
      const PendingCause pc = slot < pending_causes_.size() ? pending_causes_[slot] : PendingCause{0, {}};
      try {
        cur_cause_ = causes_->add(now_, pc.parent, pc.label);
      } catch (const std::length_error& full) { // too many to keep: the run stops, saying so
        error_ = std::make_exception_ptr(SimulationError(full.what()));
        break;
      }
    }
    if (profile_)
      profile_->count(ev.h == callbacks_.get() ? callbacks_->target_type(ev.arg) : typeid(*ev.h), ev.kind);
    cur_place_ = e.key >> kSlotBits;
    try {
      ev.h->on_event(ev.kind, ev.arg);
    } catch (const std::exception&) {
      fail(std::current_exception());
    }
  } // (actors a handler spawned run right after it, with its place: wait_for_running_actors above)
  running_kernel_ = false;
}

void Scheduler::set_wall_limit(double seconds)
{
  wall_limit_    = seconds;
  wall_deadline_ = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                          std::chrono::duration<double>(seconds));
}

} // namespace nafsim
