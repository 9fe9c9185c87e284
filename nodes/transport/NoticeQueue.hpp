#pragma once
// The completion queue every NIC engine has (RdmaPoe, TcpPoe, UdpPoe): notices (a send's completion, an inbound
// message) reach the node in order, each once every payload written before it is in memory, through the engine's
// event of `kind`. A notice due at the date of the engine's own event, with none ahead of it (a sender's completion
// on its ACK), is handed over at the end of that event instead of through an event of its own at the same date:
// nobody else can see the moment between (issue 53; outputs byte-identical). As RxPipe: one element the engines
// share instead of each rewriting it.

#include "nodes/transport/PayloadWrites.hpp"
#include "simcore/engine/Fifo.hpp"
#include "simcore/engine/Scheduler.hpp"
#include "simcore/engine/SlotPool.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace nafsim::nodes {

template <class Notice>
class NoticeQueue {
public:
  NoticeQueue(Scheduler& s, EventHandler* owner, std::uint32_t kind) : sched_(s), owner_(owner), kind_(kind) {}

  /// A notice, due once `writes_done` and every notice ahead of it have passed. `why()`, asked only when the run
  /// records causes and the notice waits, labels what it waits for (none: the owner's label for `kind`).
  /// `writes_began` (critical paths): the step that began the writes that end at `writes_done`; a notice whose date
  /// they set is caused by it (Scheduler::kRunningStep: by the step running now).
  template <class Why>
  void push(Notice n, SimTime writes_done, Why&& why, std::uint32_t writes_began = Scheduler::kRunningStep)
  {
    const SimTime at = due(writes_done);
    if (in_event_ && at == sched_.now() && queued_.empty()) {
      due_now_.push_back(std::move(n));
      return;
    }
    queued_.emplace_back(at, std::move(n));
    if (sched_.causes() && at > sched_.now()) {
      if (CauseLabel label = why(); label.what != 0) {
        sched_.at_caused_by(at == writes_done ? writes_began : Scheduler::kRunningStep, at, owner_, kind_, 0, label);
        return;
      }
    }
    sched_.at(at, owner_, kind_);
  }
  void push(Notice n, SimTime writes_done) { push(std::move(n), writes_done, [] { return CauseLabel{}; }); }
  /// A notice due once the engine's payload writes so far are in memory (labelled by them when it waits for them,
  /// and then caused by the step that began them).
  void push(Notice n, const PayloadWrites& w)
  {
    push(std::move(n), w.done(), [&] { return w.why(); }, w.busy_cause());
  }

  /// A notice its consumer takes `delay` after it falls due, with nothing at the due date itself that anyone else
  /// observes (PoeListener::inbound_delay): handed over once, at due + delay, through the owner's event of
  /// `late_kind` whose argument take_late() reads, instead of the notice's event at its due date and the consumer's
  /// event after it (issue 53). Its due date still holds back the notices pushed after it. `consumer` labels the
  /// delay (critical paths), what the notice waited for (as push labels it) its lead-in. Returns false, and `n` is
  /// left as it was, when the notice would be handed over at the end of the owner's event running now: push() then
  /// hands it over there and the consumer runs its delay itself.
  template <class Why>
  bool push_late(Notice& n, SimTime writes_done, SimTime delay, std::uint32_t late_kind, const CauseLabel& consumer,
                 Why&& why, std::uint32_t writes_began = Scheduler::kRunningStep)
  {
    const SimTime now = sched_.now();
    const SimTime at  = due(writes_done);
    if (in_event_ && at == now && queued_.empty())
      return false;
    const std::uint32_t slot = late_.put({std::move(n), at});
    late_due_ = std::max(late_due_, at);
    if (sched_.causes()) {
      CauseLabel lead = owner_->cause(kind_, 0);
      std::uint32_t parent = Scheduler::kRunningStep;
      if (at > now)
        if (CauseLabel label = why(); label.what != 0) {
          lead = label;
          if (at == writes_done)
            parent = writes_began;
        }
      sched_.at_caused_by(parent, at + delay, owner_, late_kind, slot, CausalGraph::with_lead(consumer, lead, at));
    } else {
      sched_.at(at + delay, owner_, late_kind, slot);
    }
    return true;
  }
  bool push_late(Notice& n, const PayloadWrites& w, SimTime delay, std::uint32_t late_kind, const CauseLabel& consumer)
  {
    return push_late(n, w.done(), delay, late_kind, consumer, [&] { return w.why(); }, w.busy_cause());
  }
  /// At the owner's event of `late_kind` with argument `slot`: the notice, and the date it fell due.
  std::pair<Notice, SimTime> take_late(std::uint64_t slot)
  {
    return late_.take(static_cast<std::uint32_t>(slot));
  }

  /// At the owner's event of `kind`: the notice due.
  Notice pop()
  {
    Notice n = std::move(queued_.front().second);
    queued_.pop_front();
    return n;
  }

  /// The owner's on_event begins; at its end, end_event hands the notices that fell due meanwhile to `hand_over`,
  /// in order (one it adds while handing over goes in the same loop).
  void begin_event() { in_event_ = true; }
  template <class F>
  void end_event(F&& hand_over)
  {
    for (std::size_t i = 0; i < due_now_.size(); ++i) {
      Notice n = std::move(due_now_[i]);
      hand_over(n);
    }
    due_now_.clear();
    in_event_ = false;
  }

private:
  /// When a notice whose payload is written by `writes_done` falls due: not before the notices ahead of it.
  SimTime due(SimTime writes_done) const
  {
    SimTime at = std::max({sched_.now(), writes_done, late_due_});
    if (!queued_.empty())
      at = std::max(at, queued_.back().first);
    return at;
  }

  Scheduler& sched_;
  EventHandler* owner_;
  std::uint32_t kind_;
  Fifo<std::pair<SimTime, Notice>> queued_; ///< (a ring buffer: a deque allocated a block every few notices)
  bool in_event_ = false;
  std::vector<Notice> due_now_;
  SlotPool<std::pair<Notice, SimTime>> late_; ///< notices handed over late (push_late), by slot: notice, due date
  SimTime late_due_;                          ///< the latest due date of a notice pushed late
};

} // namespace nafsim::nodes
