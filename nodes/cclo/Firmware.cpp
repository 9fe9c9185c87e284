#include "nodes/cclo/Firmware.hpp"

#include <algorithm>
#include <utility>
#include <fmt/format.h>

namespace nafsim::nodes {

Firmware::Firmware(FirmwarePorts& ports, CallDispatch dispatch)
    : c_(ports), core_(ports.core()), dispatch_(dispatch)
{
}

const FirmwareCosts& Firmware::costs() const
{
  return core_.cfg.firmware;
}

CauseLabel Firmware::label(const char* what)
{
  auto [it, added] = causes_.try_emplace(what, 0);
  if (added)
    it->second = cause_what("firmware", what);
  return CauseLabel::at_host(it->second, core_.host);
}

TaskContext::Sleep Firmware::defer(unsigned cycles, const char* what)
{
  if (core_.trace || cycles == 0 || owed_cycles_ > 0) // (one owed at a time: an earlier one goes with this, now)
    return charge(cycles, what);
  owed_cycles_ = cycles;
  owed_what_   = what;
  return ctx_->no_wait();
}

TaskContext::Sleep Firmware::charge(unsigned cycles, const char* what)
{
  if (owed_cycles_ == 0)
    return charge_now(cycles, what);
  // What defer() left owed, then this: one sleep, its first part the owed charge's (critical paths: the lead-in).
  const SimTime owed = core_.cycles(std::exchange(owed_cycles_, 0));
  core_.counters.uc_busy += owed;
  if (cycles == 0)
    return ctx_->sleep_for(owed, ctx_->scheduler().causes() ? label(owed_what_) : CauseLabel{});
  const SimTime t = core_.cycles(cycles);
  core_.counters.uc_busy += t;
  CauseLabel l;
  if (ctx_->scheduler().causes())
    l = CausalGraph::with_lead(label(what), label(owed_what_), now() + owed);
  return ctx_->sleep_for(owed + t, l);
}

TaskContext::Sleep Firmware::charge_now(unsigned cycles, const char* what)
{
  if (cycles == 0)
    return ctx_->no_wait();
  SimTime t = core_.cycles(cycles);
  core_.counters.uc_busy += t;
  if (core_.trace)
    core_.trace->span(core_.trace_pid, kUcTrack, what, now(), now() + t, fmt::format(R"({{"cycles":{}}})", cycles));
  return ctx_->sleep_for(t, ctx_->scheduler().causes() ? label(what) : CauseLabel{});
}

void Firmware::check_error() const
{
  if (!core_.error.empty())
    throw FirmwareAbort{};
}

// ---------------------------------------------------------------------------------------------
// Data-mover instructions.

Task<> Firmware::start_move(const Move& m)
{
  const std::uint64_t id = status_base_ + statuses_.size();
  statuses_.push_back(false);
  core_.counters.max_moves_pending = std::max(core_.counters.max_moves_pending, statuses_.size());
  co_await charge(costs().move, "start_move");
  c_.data_mover().submit(m, [this, id] {
    statuses_[id - status_base_] = true;
    c_.wake_firmware();
  });
}

Task<> Firmware::end_move()
{
  if (statuses_.empty())
    throw std::logic_error("end_move() without an outstanding move");
  while (!statuses_.front()) {
    check_error();
    co_await block([this] {
      auto w = c_.data_mover().waiting();
      return fmt::format("the CCLO firmware of host {} waits for a data-mover status (end_move){}", core_.host,
                         w.empty() ? "" : ": " + w);
    });
  }
  statuses_.pop_front();
  ++status_base_;
}

Task<> Firmware::move(const Move& m)
{
  co_await start_move(m);
  co_await end_move();
}

Task<> Firmware::submit_move(const Move& m, std::function<void()>& done)
{
  std::function<void()> on_done = [this, done = std::move(done)] {
    if (done)
      done();
    c_.wake_firmware();
  };
  co_await charge(costs().move, "submit_move");
  c_.data_mover().submit(m, std::move(on_done));
}

// ---------------------------------------------------------------------------------------------
// Rendezvous notifications.

Task<> Firmware::send_address(std::uint32_t peer, std::uint64_t addr, std::uint64_t bytes, std::uint32_t tag,
                              unsigned transfers)
{
  co_await charge(costs().notify, "send_address");
  c_.send_control(peer, CcloMsg::Init, addr, transfers | (std::uint64_t{tag} << 32), bytes);
}

Task<std::optional<RndzvNotice>> Firmware::lookup(const NoticeMatch& match)
{
  co_await charge(costs().poll, "lookup");
  unsigned examined = 0, put_back = 0;
  seen_             = core_.arrivals;
  auto r            = core_.rndzv.take(match, examined, put_back);
  if (put_back > 0 && match.type == RndzvNotice::Type::Done && match.src == NoticeMatch::kAny)
    throw SimulationError(any_completion_corrupts(put_back));
  co_await charge(examined * costs().entry, "lookup: queue walk");
  if (r)
    ++core_.counters.polls;
  co_return r;
}

std::string Firmware::any_completion_corrupts(unsigned put_back) const
{
  return fmt::format(
      "the CCLO firmware of host {} waits for any write's completion and walks past {} notice(s) set aside "
      "earlier ({}); its rendezvous_get_any_completion() puts each back as 9 words where it read 7 "
      "(ccl_offload_control.c @622bdbe: `putd(CMD_RNDZV_PENDING, host); putd(CMD_RNDZV_PENDING, count);` twice), "
      "so the hardware's pending queue holds stray words from here on, its next walk misreads the notices behind "
      "them (a lost address or completion: a hang), and nafsim cannot time what follows. A notice is set aside when "
      "it comes for a later step while this one waits (an allreduce's broadcast addresses during its flat reduce, a "
      "next call's during an all-to-all or gather): let the reduce run as a tree (cclo.tuning."
      "reduce_flat_tree_max_count below the size, or reduce_flat_tree_max_ranks below the rank count), keep the call "
      "eager (max_eager_size at least its size), or separate back-to-back calls by a barrier (the collective "
      "workload's pre_barrier, a program's barrier operation)",
      core_.host, put_back, core_.rndzv.describe());
}

Task<> Firmware::wait_aligned(SimTime failed_at, SimTime pass, WaitText what)
{
  // A notice that came while the pass was walking the queues was not seen by it: pass again.
  while (core_.arrivals == seen_) {
    check_error();
    co_await block(what);
  }
  co_await align(failed_at, pass, true);
}

Task<> Firmware::align(SimTime failed_at, SimTime pass, bool rerun)
{
  // Passes have run back to back since failed_at. A notice is seen by the first pass that ends after it
  // arrived: resume at that pass's start and run it. A new call is seen when the pass in progress ends.
  SimTime at = now();
  if (pass <= SimTime{} || at <= failed_at)
    co_return;
  auto k         = (at - failed_at).ps() / pass.ps() + ((at - failed_at).ps() % pass.ps() != 0 ? 1 : 0);
  SimTime resume = failed_at + pass * (rerun ? k - 1 : k);
  if (resume > now()) {
    core_.counters.uc_busy += resume - now();
    if (core_.trace)
      core_.trace->span(core_.trace_pid, kUcTrack, "loop passes", now(), resume);
    static const std::uint32_t passes = cause_what("firmware", "loop passes");
    co_await ctx_->sleep_until(resume, CauseLabel::at_host(passes, core_.host));
  }
  core_.counters.loop_passes += static_cast<std::uint64_t>(rerun ? k - 1 : k);
}

Task<RndzvNotice> Firmware::spin(const NoticeMatch& match, WaitText what)
{
  while (true) {
    check_error();
    SimTime start = now();
    auto r = co_await lookup(match);
    if (r)
      co_return *r;
    ++core_.counters.loop_passes;
    auto why = [this, what] {
      return fmt::format("the CCLO firmware of host {} busy-waits: {} ({})", core_.host, what(), core_.rndzv.describe());
    };
    co_await wait_aligned(now(), now() - start, why);
  }
}

Task<> Firmware::spin_call(FnRef<Task<FwStatus>()> function, WaitText what)
{
  while (true) {
    check_error();
    SimTime start = now();
    const FwStatus st = co_await function();
    if (st == FwStatus::Done)
      co_return;
    ++core_.counters.loop_passes;
    auto why = [this, what] {
      return fmt::format("the CCLO firmware of host {} re-runs {} until it is ready ({})", core_.host, what(),
                         core_.rndzv.describe());
    };
    co_await wait_aligned(now(), now() - start, why);
  }
}

Task<> Firmware::wait_event(WaitText what)
{
  check_error();
  co_await block(what);
}

// ---------------------------------------------------------------------------------------------
// The main loop.

Task<std::optional<std::pair<std::shared_ptr<CcloPending>, bool>>> Firmware::pick()
{
  // wait_for_call(): after a new call it looks at the command FIFO first, after a retried call (or
  // while the barrier flushes the retry queue) at the retry queue first.
  using Picked           = std::optional<std::pair<std::shared_ptr<CcloPending>, bool>>;
  const bool retry_first = flush_retries_ || !last_new_;
  auto take_new          = [&]() -> Picked {
    if (core_.calls.empty())
      return std::nullopt;
    auto p = core_.calls.front();
    core_.calls.pop_front();
    return std::pair{p, true};
  };
  auto idle = [&] {
    return std::all_of(retry_.begin(), retry_.end(),
                       [&](const Retry& r) { return r.pass_known && r.seen == core_.arrivals; }) &&
           (core_.calls.empty() || retry_first);
  };
  if (!retry_first)
    if (auto n = take_new())
      co_return n;
  if (!retry_.empty()) {
    if (idle())
      co_await idle_retry_loop();
    auto p = retry_.front().call;
    retry_.pop_front();
    co_return std::pair{p, false};
  }
  if (retry_first)
    co_return take_new();
  co_return std::nullopt;
}

Task<> Firmware::idle_retry_loop()
{
  // Every queued call failed since the last notification: the loop goes round without effect until
  // one arrives (or the CCLO fails). Cycle = the passes of all of them.
  SimTime cycle{}, last{};
  for (auto const& r : retry_) {
    cycle += r.pass;
    last = std::max(last, r.failed_at);
  }
  const std::string& waits_for = retry_.front().waits_for;
  seen_            = core_.arrivals;
  const std::size_t calls = core_.calls.size();
  // A new call is taken at the next wait_for_call only if the loop looks at the command FIFO first.
  const bool sees_calls = !flush_retries_ && last_new_;
  while (core_.arrivals == seen_ && !(sees_calls && core_.calls.size() != calls)) {
    check_error();
    co_await block([this, &waits_for] {
      return fmt::format("the CCLO firmware of host {} loops over its retry queue: {} ({})", core_.host, waits_for,
                         core_.rndzv.describe());
    });
  }
  co_await align(last, cycle, core_.arrivals != seen_);
}

void Firmware::fail_retries()
{
  for (auto& r : retry_) {
    r.call->result.error = core_.error;
    finish(*r.call);
  }
  retry_.clear();
}

Task<> Firmware::run(TaskContext& ctx)
{
  ctx_           = &ctx;
  core_.fw_actor = ctx.id();
  while (true) {
    std::optional<std::pair<std::shared_ptr<CcloPending>, bool>> next;
    bool aborted = false;
    try {
      while (true) {
        next = co_await pick();
        if (next)
          break;
        co_await block([] { return std::string("the CCLO firmware waits for a call"); });
      }
    } catch (FirmwareAbort&) {
      aborted = true;
    }
    if (aborted) {
      fail_retries();
      continue;
    }
    co_await serve(next->first, next->second);
  }
}

Task<> Firmware::serve(const std::shared_ptr<CcloPending>& p, bool is_new)
{
  last_new_     = is_new;
  SimTime start = now();
  if (is_new) {
    p->result.started = start;
    ++core_.counters.calls;
    co_await charge(costs().call, "call");
  } else {
    co_await charge(costs().retry, "retry");
  }
  FwStatus st = FwStatus::Done;
  try {
    st = co_await execute(*p);
  } catch (FirmwareAbort&) {
    p->result.error = core_.error;
  }
  if (st == FwStatus::NotReady) {
    ++core_.counters.retries;
    retry_.push_back(Retry{p, seen_, now() - start, !is_new, now(), waits_for_});
    co_return;
  }
  co_await charge(costs().finalize, "finalize");
  finish(*p);
}

void Firmware::finish(CcloPending& p)
{
  p.result.finished  = now();
  p.result.end_cause = ctx_->scheduler().cause_mark();
  p.done             = true;
  ctx_->scheduler().wake(p.caller);
}

Task<FwStatus> Firmware::execute(CcloPending& p)
{
  if (!core_.error.empty()) {
    p.result.error = core_.error;
    co_return FwStatus::Done;
  }
  FwStatus st = co_await dispatch_(*this, p);
  co_return st;
}

bool Firmware::barrier_waits_for_retries()
{
  flush_retries_ = true;
  if (retry_.empty())
    return false;
  waits_for_ = "the barrier waits for the retried calls to finish";
  return true;
}

} // namespace nafsim::nodes
