#pragma once
// The discrete-event kernel of nafsim, hosted in one SimGrid actor.
//
// Hardware that reacts per packet (NIC ports, links, switches, POEs) is modeled by event-driven
// components (EventHandler) scheduled here on an integer-picosecond clock: one heap operation per
// event, no SimGrid activity per packet. Logic that is naturally sequential (workloads, firmware,
// MPI ranks) runs in SimGrid actors that block and are woken through this scheduler, at message
// granularity. The kernel synchronises SimGrid's clock before it lets actors run, so actors see a
// consistent date, and processes everything else without entering SimGrid.
//
// Protocol: an actor runs until it blocks (sleep, wait); the kernel waits until every runnable
// actor has blocked or finished, then takes the next event. When the heap is empty while actors
// are still blocked, nothing can ever wake them: that is a deadlock, reported with each actor's
// wait reason. An exception escaping an actor or a handler stops the run and is re-thrown by run().

#include "simcore/engine/CausalGraph.hpp"
#include "simcore/engine/EventProfile.hpp"
#include "simcore/engine/EventQueue.hpp"
#include "simcore/engine/Task.hpp"
#include "simcore/units/Units.hpp"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace simgrid::s4u {
class Host;
}

namespace nafsim {

/// A component that receives events. `kind` and `arg` are the component's own encoding.
class EventHandler {
public:
  virtual void on_event(std::uint32_t kind, std::uint64_t arg) = 0;
  /// What the delay up to this event is spent on (CausalGraph.hpp), asked as the event is scheduled in runs that
  /// record causes (`--critical-path`); not labelled by default.
  virtual CauseLabel cause(std::uint32_t /*kind*/, std::uint64_t /*arg*/) const { return {}; }

protected:
  ~EventHandler() = default;
};

/// Raised when no event can ever wake the blocked actors.
class DeadlockError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Raised when a run fails for a simulated reason (retries exhausted, time limit, ...).
class SimulationError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

using ActorId = std::uint32_t;
/// How an actor counts for the end of a run and for deadlock detection.
enum class ActorRole {
  Normal, ///< the run lasts until it finishes
  /// A firmware loop waiting for work: it does not keep the run alive (when only daemons are left blocked, the
  /// run ends and they are killed).
  Daemon,
  /// Load beside the measured actors (a background DMA) that never wakes another actor: when every normal actor
  /// waits and only background actors' sleeps are pending, nothing can end the wait (a deadlock), although the
  /// clock would run on until the background stops or the time limit.
  Background,
};
/// Why a blocked actor waits, built only when a deadlock report needs it: actors block millions of times
/// and a text formatted at every block (queue contents, peers) would cost more than the simulation itself.
using WaitReason = std::function<std::string()>;
/// Identifies a scheduled event (to cancel it).
using EventId = std::uint64_t;
class ActorContext;
class TaskContext;

class Scheduler {
public:
  Scheduler();
  ~Scheduler();
  Scheduler(const Scheduler&)            = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  SimTime now() const { return now_; }

  /// Schedule `h->on_event(kind, arg)` at date `t` (t >= now). Ties run in scheduling order.
  EventId at(SimTime t, EventHandler* h, std::uint32_t kind, std::uint64_t arg = 0)
  {
    const EventId id = push_event(t, h, kind, arg);
    if (causes_) [[unlikely]]
      note_cause(id, h->cause(kind, arg), cur_cause_);
    return id;
  }
  /// The same, with what the delay up to it is spent on (instead of the handler's label).
  EventId at(SimTime t, EventHandler* h, std::uint32_t kind, std::uint64_t arg, const CauseLabel& label);
  /// at_caused_by's parent that stands for the step running now (its cause_mark()): what a component that records
  /// the step that began some work holds before any began (cause_mark() 0 is the run's origin, a step of its own).
  static constexpr std::uint32_t kRunningStep = 0xffffffffu;
  /// The same as at(t, h, kind, arg), but caused by the step recorded as `parent` (a cause_mark() taken earlier;
  /// kRunningStep: the step running now) rather than by the step running now: for a component that batches the work
  /// of several causes into one event (the flow fabric's completions), so that each piece of work walks back to its
  /// own.
  EventId at_caused_by(std::uint32_t parent, SimTime t, EventHandler* h, std::uint32_t kind, std::uint64_t arg);
  /// ... with what the delay up to it is spent on (instead of the handler's label).
  EventId at_caused_by(std::uint32_t parent, SimTime t, EventHandler* h, std::uint32_t kind, std::uint64_t arg,
                       const CauseLabel& label);
  EventId after(SimTime d, EventHandler* h, std::uint32_t kind, std::uint64_t arg = 0) { return at(now_ + d, h, kind, arg); }
  /// An event's place among the events of its date, taken now without the event (an event that may turn out not to
  /// be needed): the scheduling number an at() now would give it. at_reserved() schedules it there later;
  /// passed() tells whether the run has gone beyond that place. Not for runs that record causes (its cause would be
  /// the later step).
  std::uint64_t reserve_place() { return seq_++; }
  EventId at_reserved(SimTime t, std::uint64_t place, EventHandler* h, std::uint32_t kind, std::uint64_t arg = 0)
  {
    assert(t >= now_ && place < seq_ && "a reserved place is scheduled at or after now");
    return push_event(t, h, kind, arg, place);
  }
  /// Whether an event at (`t`, `place`) would have run by now: an earlier date, or this date and a place before the
  /// running event's (actors and tasks woken run once every event of their date has; an actor a handler spawns runs
  /// right after that handler, in its place).
  bool passed(SimTime t, std::uint64_t place) const { return t < now_ || (t == now_ && place < cur_place_); }
  /// Cancel a pending event (no effect if it already ran). A cancelled event never advances the clock.
  void cancel(EventId id);
  /// Schedule a callback (convenient; not for per-packet hot paths).
  void call_at(SimTime t, std::function<void()> fn, CauseLabel label = {});
  /// The same, caused by the step recorded as `parent` (see at_caused_by).
  void call_at_caused_by(std::uint32_t parent, SimTime t, std::function<void()> fn, CauseLabel label = {});

  /// Record the cause of every event and actor step from now on (CausalGraph.hpp): 40 bytes per event, at most
  /// `max_records` of them (past that the run stops with a SimulationError).
  void record_causes(std::size_t max_records = CausalGraph::kMaxRecords);
  /// The causes recorded (null unless record_causes()).
  const CausalGraph* causes() const { return causes_.get(); }
  /// The record of the event or actor step running now (0 when causes are not recorded): where a critical path
  /// that ends here starts walking back.
  std::uint32_t cause_mark() const { return cur_cause_; }

  /// Create a SimGrid actor on `host` running `body`. Call before run() or from an actor. Before the run the SimGrid
  /// actor is made only by create_spawned() (Simulation::run, in spawn order): a setup that fails after spawning
  /// leaves no SimGrid actor behind (SimGrid's exit warnings around the error).
  ActorId spawn(const std::string& name, simgrid::s4u::Host* host, std::function<void(ActorContext&)> body,
                ActorRole role = ActorRole::Normal);
  /// Create the SimGrid actors spawned before the run, in the order they were spawned.
  void create_spawned();
  /// Create a task actor running the coroutine `body` (Task.hpp) as engine events, in the kernel: it has an actor's
  /// id, role, wake-ups and deadlock diagnosis, and runs in the same order among the actors woken at a date, but
  /// a wake-up resumes a coroutine instead of switching to a SimGrid actor's stack. Before the run it runs at once
  /// until it first waits; during the run, with the actors woken next.
  ActorId spawn_task(const std::string& name, std::function<Task<>(TaskContext&)> body,
                     ActorRole role = ActorRole::Normal);
  /// Make a blocked actor runnable at the current date (no effect if it is not blocked).
  void wake(ActorId a);

  /// Stop the run with this error (re-thrown by run()).
  void fail(std::exception_ptr e);
  /// Whether an actor that is not a background one sleeps (a wake-up of one is pending): the run is not stuck,
  /// whatever polls meanwhile (a rank computing before it takes its messages).
  bool actors_sleeping() const { return sleeps_ > 0; }
  /// The actors blocked, each with what it waits for, and the notes (deadlock_report, the time limit).
  std::string blocked_actors() const;
  /// Bring SimGrid's clock to the kernel's date before actors run (for SimGrid's log lines, which print
  /// its clock), not only at the end of the run. Off by default: a SimGrid sleep per date doubles the cost
  /// of waking an actor (measured 650 -> 1,350 ns), and nafsim's code reads the kernel's clock.
  void follow_simgrid_clock(bool on) { follow_clock_ = on; }
  /// Stop with an error if simulated time would pass `limit`.
  void set_time_limit(SimTime limit) { limit_ = limit; }
  /// Stop the run with a SimulationError once `seconds` of wall-clock time have passed since this call (checked
  /// every 65,536 events; 0: no limit).
  void set_wall_limit(double seconds);
  /// Call `tick` every 65,536 events (a long run's progress line, app/Progress.hpp; empty: none).
  void set_progress(std::function<void()> tick) { progress_ = std::move(tick); }
  /// Add what `explain` returns (when not empty) to a deadlock report: a component telling why the
  /// waiting may never end (e.g. a UDP engine holding messages that lost datagrams).
  void add_deadlock_note(std::function<std::string()> explain) { notes_.push_back(std::move(explain)); }
  /// Add what `explain` returns (when not empty) to the report of any simulated failure (a deadlock,
  /// a retry limit, the time limit), given that failure's message: e.g. the network faults injected before it.
  void add_failure_note(std::function<std::string(const std::string& failure)> explain)
  {
    failure_notes_.push_back(std::move(explain));
  }
  /// The failure notes on `failure`, one per line (empty when none has anything to say).
  std::string failure_notes(const std::string& failure) const;

  /// Run until no event and no actor is left. Must be called from inside the SimGrid engine (the
  /// kernel actor); Simulation::run() does that and re-throws error() once the engine returns.
  void run_kernel();
  /// Run without SimGrid (engine-free test worlds): only task actors and event handlers; spawn() is refused. The
  /// run's error (a deadlock, a task's exception) is thrown.
  void run_standalone();
  /// The first error of the run, if any.
  std::exception_ptr error() const { return error_; }

  std::uint64_t events_processed() const { return events_; }
  /// SimGrid actor wake-ups (context switches), task actors aside.
  std::uint64_t actor_wakeups() const { return wakeups_; }
  /// Task actor resumptions (a coroutine resumed by the kernel).
  std::uint64_t task_resumes() const { return task_resumes_; }
  /// Largest number of events pending at once (cancelled ones included until their date).
  std::size_t peak_pending_events() const { return peak_pending_; }
  /// One T per run, shared by every component that asks for it: made at the first request, destroyed with the
  /// scheduler (a component holding it must not outlive the scheduler). For state that components of one kind keep together rather than each its own (the receive pipes'
  /// packet store, nodes/transport/RxPipe.hpp).
  template <class T> T& shared()
  {
    static const char tag = 0; // one address per T
    for (auto& [k, obj] : shared_)
      if (k == &tag)
        return *static_cast<T*>(obj.get());
    SharedPtr obj(new T(), [](void* x) { delete static_cast<T*>(x); });
    T& t = *static_cast<T*>(obj.get());
    shared_.emplace_back(&tag, std::move(obj));
    return t;
  }
  /// Count the events by what handles them from now on (EventProfile); profile() is null until then.
  void profile_events() { profile_ = std::make_unique<EventProfile>(); }
  const EventProfile* profile() const { return profile_.get(); }

private:
  friend class ActorContext;
  friend class TaskContext;
  using SharedPtr = std::unique_ptr<void, void (*)(void*)>;
  std::vector<std::pair<const void*, SharedPtr>> shared_; ///< shared<T>(): per T, its tag's address and its object
  // Pending events are 16-byte entries (date, insertion order << 24 | payload slot) in the event queue
  // (EventQueue.hpp: a radix heap), taken in (date, key) order: ties run in scheduling order.
  using Entry = QueueEntry;
  struct Payload {
    EventHandler* h; ///< nullptr once cancelled
    std::uint64_t arg;
    std::uint64_t key;
    std::uint32_t kind;
  };
  static constexpr unsigned kSlotBits = 24;
  void heap_push(Entry e) { queue_.push(e); }
  Entry heap_pop() { return queue_.pop(); }
  bool heap_empty() const { return queue_.empty(); }
  std::int64_t heap_next_time() { return queue_.next_time(); }
  enum class ActorState { Running, Blocked, Pending, Finished };
  struct ActorSlot;
  class CallbackHandler;
  class WakeHandler;

  void block(ActorId a, std::string_view why);
  void block(ActorId a, WaitReason why);
  void finish(ActorId a);
  void task_block(ActorId a, std::coroutine_handle<> h, const char* why);
  void task_block(ActorId a, std::coroutine_handle<> h, WaitReason why);
  void resume_task(ActorId a);
  /// The kernel's loop (run_kernel and run_standalone).
  void loop();
  struct Root;
  static Root task_root(Scheduler* s, ActorId id, std::function<Task<>(TaskContext&)> body);
  void wait_for_running_actors();
  void flush_pending();
  std::string deadlock_report() const;

  SimTime now_;
  SimTime limit_ = SimTime::max();
  double wall_limit_ = 0;
  std::function<void()> progress_;
  std::chrono::steady_clock::time_point wall_deadline_{};
  bool follow_clock_ = false;
  void sync_simgrid_clock() const;
  std::vector<std::function<std::string()>> notes_;
  std::vector<std::function<std::string(const std::string&)>> failure_notes_;
  std::uint64_t seq_ = 1; // 0 never names a live event
  std::uint64_t cur_place_ = UINT64_MAX; ///< the running (or last) event's scheduling number; UINT64_MAX: woken actors' turn
  EventQueue queue_;
  std::vector<Payload> payloads_;
  std::vector<std::uint32_t> free_payloads_;
  std::vector<ActorSlot> actors_;
  std::vector<ActorId> pending_;
  /// Emptied batches of flush_pending() kept with their storage (it nests: a resumed task may flush): moving pending_
  /// out left it without storage, and the next wake-ups allocated it again, about two allocations per CCLO message.
  std::vector<std::vector<ActorId>> spare_batches_;
  int running_ = 0;
  int live_    = 0;           ///< actors not finished, daemons aside
  int live_normal_ = 0;       ///< ... of them normal (not background)
  std::size_t background_sleeps_ = 0; ///< pending events that wake a background actor
  std::size_t sleeps_            = 0; ///< pending events that wake another actor (actors_sleeping)
  std::exception_ptr error_;
  std::uint64_t events_  = 0;
  std::uint64_t wakeups_ = 0;
  std::uint64_t task_resumes_ = 0;
  bool standalone_ = false;
  bool running_kernel_ = false;
  std::size_t simgrid_actors_ = 0;
  std::vector<std::function<void()>> unspawned_; ///< SimGrid actors to create when the run starts
  bool spawned_                = false;         ///< create_spawned() has run: spawn() creates at once
  std::size_t peak_pending_ = 0;
  struct Sync;
  std::unique_ptr<Sync> sync_;
  std::unique_ptr<CallbackHandler> callbacks_;
  std::unique_ptr<WakeHandler> waker_;
  // Causes (record_causes): per pending event, the step that scheduled it and its label; the step running now.
  struct PendingCause {
    std::uint32_t parent;
    CauseLabel label;
  };
  std::unique_ptr<EventProfile> profile_;
  std::unique_ptr<CausalGraph> causes_;
  std::vector<PendingCause> pending_causes_; ///< by payload slot
  std::uint32_t cur_cause_ = 0;
  /// An actor resumes: its step's cause is what woke it.
  void resume_cause(ActorId a);
  /// Queue an event (its payload slot, in the entry's key). Inline, with at() and heap_push(): every packet hop
  /// schedules an event from another translation unit.
  EventId push_event(SimTime t, EventHandler* h, std::uint32_t kind, std::uint64_t arg, std::uint64_t place = 0)
  {
    assert(t >= now_ && "events cannot be scheduled in the past");
    std::uint32_t slot;
    if (free_payloads_.empty()) [[unlikely]] {
      slot = new_slot();
    } else {
      slot = free_payloads_.back();
      free_payloads_.pop_back();
    }
    std::uint64_t key = ((place != 0 ? place : seq_++) << kSlotBits) | slot;
    payloads_[slot]   = Payload{h, arg, key, kind};
    heap_push(Entry{t.ps(), key});
    peak_pending_ = std::max(peak_pending_, queue_.size());
    return key;
  }
  /// A payload slot when none is free (SimulationError beyond 2^kSlotBits pending events).
  std::uint32_t new_slot();
  /// Causes: the event just pushed (`id`) was caused by the step recorded as `parent` (usually the one running now),
  /// its delay spent on `label`.
  void note_cause(EventId id, const CauseLabel& label, std::uint32_t parent);
};

/// What a task actor's code sees: the clock and the ways to wait, as awaitables (`co_await ctx.sleep_for(d)`).
class TaskContext {
public:
  TaskContext(Scheduler& s, ActorId id) : sched_(s), id_(id) {}
  SimTime now() const { return sched_.now(); }
  ActorId id() const { return id_; }
  Scheduler& scheduler() { return sched_; }

  struct [[nodiscard]] Sleep {
    TaskContext* ctx;
    SimTime until;
    bool skip = false; ///< no wait at all (a zero charge that the caller does not count as a wait)
    CauseLabel label{}; ///< what the sleep is spent on (critical paths)
    bool await_ready() const noexcept { return skip; }
    void await_suspend(std::coroutine_handle<> h) { ctx->suspend_until(until, h, label); }
    void await_resume() const noexcept {}
  };
  /// Sleep until `t` (or now if t is past): a wake-up, as ActorContext::sleep_until.
  Sleep sleep_until(SimTime t, CauseLabel label = {}) { return Sleep{this, t, false, label}; }
  Sleep sleep_for(SimTime d, CauseLabel label = {}) { return Sleep{this, now() + d, false, label}; }
  /// An awaitable that does not wait.
  Sleep no_wait() { return Sleep{this, now(), true}; }

  struct [[nodiscard]] Block {
    TaskContext* ctx;
    FnRef<std::string()> why;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h)
    {
      ctx->sched_.task_block(ctx->id_, h, WaitReason([why = why] { return why(); }));
    }
    void await_resume() const noexcept {}
  };
  /// Wait until woken (Scheduler::wake); `why` runs only if the run deadlocks, while the task waits (the callable,
  /// a temporary of the awaiting expression, lives until then).
  Block block(FnRef<std::string()> why) { return Block{this, why}; }

private:
  void suspend_until(SimTime t, std::coroutine_handle<> h, CauseLabel label);
  Scheduler& sched_;
  ActorId id_;
};

/// What an actor's code sees: the clock and the ways to wait.
class ActorContext {
public:
  ActorContext(Scheduler& s, ActorId id) : sched_(s), id_(id) {}
  SimTime now() const { return sched_.now(); }
  ActorId id() const { return id_; }
  Scheduler& scheduler() { return sched_; }

  /// Sleep until `t`; `label`: what the sleep is spent on (critical paths).
  void sleep_until(SimTime t, CauseLabel label = {});
  void sleep_for(SimTime d, CauseLabel label = {}) { sleep_until(now() + d, label); }
  /// Block until woken (Scheduler::wake); `why` is shown if the run deadlocks.
  void block(std::string_view why) { sched_.block(id_, why); }
  /// Block until woken; `why` runs only if the run deadlocks (while this actor is still blocked, so it may
  /// refer to the actor's own locals).
  void block(WaitReason why) { sched_.block(id_, std::move(why)); }
  /// Block until `pred()` holds, re-checking after every wake.
  template <class Pred> void wait_until(Pred pred, std::string_view why)
  {
    while (!pred())
      block(why);
  }
  template <class Pred> void wait_until(Pred pred, const WaitReason& why)
  {
    while (!pred())
      block(why);
  }

private:
  Scheduler& sched_;
  ActorId id_;
};

} // namespace nafsim
