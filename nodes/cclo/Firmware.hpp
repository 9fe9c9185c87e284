#pragma once
// The CCLO micro-controller running the ACCL+ firmware (Xilinx/ACCL @622bdbe,
// kernels/cclo/fw/sw_apps/ccl_offload_control/src/ccl_offload_control.c; "the firmware" below).
//
// run() is the firmware's main loop: wait_for_call() takes a call from the command FIFO or from the
// retry queue (it keeps taking new calls while there are any, and retried ones while there are any
// once it took one; the barrier flushes the retry queue first), starts the cycle counter on a call's
// first pick-up, runs the collective's function, and either finalizes the call or, when the function
// returns NOT_READY (a rendezvous step whose notification has not come), puts it back in the retry
// queue with its `current_step`. The functions (FirmwareCalls.cpp) use the primitives below, which
// charge micro-controller cycles and block the micro-controller where the firmware blocks:
// end_move() on the oldest data-mover status, busy-wait loops (`while (lookup() == NOT_READY);`) on
// the rendezvous notification queues. Algorithms the firmware does not have run through the schedule
// executor (ScheduleExecutor.cpp) on the same primitives.
//
// The firmware runs as a task actor (simcore/engine/Task.hpp): its main loop and the collective functions
// are coroutines, and each primitive that takes micro-controller time or waits is an awaitable
// (`co_await fw.charge(n)`, `co_await fw.end_move()`): the kernel resumes the firmware where it waits, as an
// engine event, without a SimGrid context switch per primitive.
//
// Waiting is modeled without simulating every loop pass: a loop that found nothing blocks until a
// notification arrives, then resumes on the pass grid (period = the measured duration of a failed
// pass), so the firmware notices a notification at the end of the first pass after its arrival, as
// the hardware does.

#include "nodes/cclo/FirmwarePorts.hpp"
#include "nodes/cclo/RndzvQueue.hpp"

#include <deque>
#include <nlohmann/json.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

namespace nafsim::nodes {

/// A collective function's outcome: finished, or not ready (the call goes to the retry queue).
enum class FwStatus { Done, NotReady };

/// Which rendezvous notice a lookup takes (rendezvous_get_addr / _get_completion and their _any forms): an
/// address notice from `src` with tag `tag` or 0, or a completion notice from `src` for `addr` of `bytes`
/// (kAny / 0: any). A plain value, passed to the tasks the firmware awaits (simcore/engine/Task.hpp).
struct NoticeMatch {
  static constexpr std::uint32_t kAny = ~0u;
  RndzvNotice::Type type = RndzvNotice::Type::Address;
  std::uint32_t src      = kAny;
  std::uint32_t tag      = 0;
  std::uint64_t addr     = 0;
  std::uint64_t bytes    = 0;
  bool operator()(const RndzvNotice& e) const
  {
    if (e.type != type || (src != kAny && e.src != src))
      return false;
    if (type == RndzvNotice::Type::Address)
      return e.tag == tag || e.tag == 0;
    return (addr == 0 || e.addr == addr) && (bytes == 0 || e.bytes == bytes);
  }
};
/// Text for a deadlock report, built only if one is written.
using WaitText = FnRef<std::string()>;

/// Thrown through a call's function when the CCLO failed (a transport error, an Rx-buffer deadlock).
struct FirmwareAbort {};

class Firmware;
/// The firmware's collective functions as the micro-controller runs them (ccl_offload_control.c's dispatch of a call:
/// FirmwareDispatch.hpp): whoever builds the micro-controller gives it this program.
using CallDispatch = Task<FwStatus> (*)(Firmware& fw, CcloPending& call);

class Firmware {
public:
  Firmware(FirmwarePorts& ports, CallDispatch dispatch);
  /// The firmware's main loop (a daemon task actor).
  Task<> run(TaskContext& ctx);

  // ---- the micro-controller's primitives (each awaited: `co_await fw.charge(n)`) ----
  SimTime now() const { return ctx_->now(); }
  const FirmwareCosts& costs() const;
  /// Spend `cycles` of micro-controller time on `what` (its name on the micro-controller's trace track).
  TaskContext::Sleep charge(unsigned cycles, const char* what = "step");
  /// `cycles` of micro-controller time on `what`, spent with the next charge (one sleep for both: issue 53) or at
  /// settle(), whichever comes first; the caller observes and does nothing others see until then (the schedule
  /// executor's step before its move). An untraced run only: a traced one charges at once (the awaitable returned
  /// then sleeps), its trace in order.
  TaskContext::Sleep defer(unsigned cycles, const char* what = "step");
  /// Spend what defer() left owed.
  TaskContext::Sleep settle() { return charge(0, nullptr); }
  /// Trace tracks of the CCLO's blocks in the node's trace process (--trace blocks).
  static constexpr std::uint32_t kUcTrack = 100;
  /// start_move(): a move instruction to the data mover; its status joins STS_DMA_MOVE.
  Task<> start_move(const Move& m);
  /// end_move(): the oldest status of STS_DMA_MOVE, waiting for it.
  Task<> end_move();
  Task<> move(const Move& m);
  /// A move whose completion runs `done` (the schedule executor's dataflow; no STS_DMA_MOVE entry).
  /// (`done` is taken from the caller's named function before the task first waits.)
  Task<> submit_move(const Move& m, std::function<void()>& done);
  /// rendezvous_send_addr(): an address notice to `peer` (`addr` 0, `bytes` 0 for the barrier).
  Task<> send_address(std::uint32_t peer, std::uint64_t addr, std::uint64_t bytes, std::uint32_t tag = 0,
                      unsigned transfers = 1);
  /// One rendezvous lookup (rendezvous_get_*): walks the pending notices, then the arrivals.
  Task<std::optional<RndzvNotice>> lookup(const NoticeMatch& match);
  /// `while (rendezvous_get_*() == NOT_READY);`: busy-wait in place for a notice.
  Task<RndzvNotice> spin(const NoticeMatch& match, WaitText what);
  /// `while (function() == NOT_READY);`: re-run a collective function in place until it finishes
  /// (the rendezvous allreduce's broadcast, reduce-scatter's scatter).
  Task<> spin_call(FnRef<Task<FwStatus>()> function, WaitText what);
  /// Block until a notification arrives, a move completes or the CCLO fails (schedule executor).
  Task<> wait_event(WaitText what);
  /// Throws FirmwareAbort if the CCLO failed.
  void check_error() const;
  FirmwarePorts& ports() { return c_; }
  CcloCore& core() { return core_; }
  /// What the running call's last failed lookup waited for (the retry queue's diagnosis).
  void set_waits_for(std::string what) { waits_for_ = std::move(what); }
  /// barrier(): the retry queue is flushed before the barrier runs: true (what it waits for noted) while retried
  /// calls remain; new calls are taken again once barrier_done().
  bool barrier_waits_for_retries();
  void barrier_done() { flush_retries_ = false; }

private:
  /// Why the run stops when rendezvous_get_any_completion() walks past `put_back` pending notices (the firmware puts
  /// each back as 9 words where it read 7: its queue is corrupt from then on).
  std::string any_completion_corrupts(unsigned put_back) const;
  struct Retry {
    std::shared_ptr<CcloPending> call;
    std::uint64_t seen = 0;   ///< notifications that had arrived at its last lookup
    SimTime pass;             ///< duration of its last failed retry pass
    bool pass_known = false;
    SimTime failed_at;        ///< when that pass ended
    std::string waits_for;    ///< what it waits for (diagnoses)
  };
  /// Pick the next call as wait_for_call() does, or nothing (none queued).
  Task<std::optional<std::pair<std::shared_ptr<CcloPending>, bool>>> pick();
  /// The whole retry queue failed since the last notification: sleep until one arrives (or a call),
  /// then resume on the retry loop's pass grid.
  Task<> idle_retry_loop();
  /// After a loop pass that found nothing (ended `failed_at`, lasted `pass`): block until a new
  /// notification, then sleep to the start of the pass that sees it.
  Task<> wait_aligned(SimTime failed_at, SimTime pass, WaitText what);
  /// Sleep from `failed_at`, where back-to-back loop passes of `pass` began, to the start of the pass that
  /// sees what just happened (`rerun`), or to the end of the pass in progress.
  Task<> align(SimTime failed_at, SimTime pass, bool rerun);
  /// One call picked from a queue: run it, then finalize it or queue it for a retry.
  Task<> serve(const std::shared_ptr<CcloPending>& p, bool is_new);
  /// The firmware failed while looping over retried calls: each of them ends with the error.
  void fail_retries();
  Task<FwStatus> execute(CcloPending& p);
  void finish(CcloPending& p);
  /// Wait until woken (the firmware's only way to block besides charging cycles).
  struct Block {
    TaskContext::Block inner;
    CcloCore& core;
    SimTime since{};
    std::string why{}; ///< traced runs: what it waits for, as it starts waiting
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h)
    {
      core.fw_waiting = true;
      if (core.trace) {
        since = inner.ctx->now();
        why   = inner.why();
      }
      inner.await_suspend(h);
    }
    void await_resume()
    {
      core.fw_waiting = false;
      if (core.trace)
        core.trace->span(core.trace_pid, kUcTrack, "wait", since, inner.ctx->now(),
                         nlohmann::json{{"for", why}}.dump());
    }
  };
  Block block(WaitText why) { return Block{ctx_->block(why), core_}; }

  FirmwarePorts& c_;
  CcloCore& core_;
  CallDispatch dispatch_;
  TaskContext* ctx_ = nullptr;
  /// STS_DMA_MOVE: the statuses of the moves started, in issue order (whether each has come), the oldest being
  /// move number `status_base_`; a move's completion marks its own by number (no allocation per move).
  std::deque<bool> statuses_;
  std::uint64_t status_base_ = 0;
  std::deque<Retry> retry_;                      ///< the retry queue (CMD_CALL_RETRY / STS_CALL_RETRY)
  bool last_new_       = true;  ///< the last pick was a new call (wait_for_call's new_call)
  bool flush_retries_  = false; ///< the barrier empties the retry queue first
  std::uint64_t seen_  = 0;     ///< notifications that had arrived at the last lookup
  std::string waits_for_;       ///< what the current call's last failed lookup waited for
  std::unordered_map<const char*, std::uint32_t> causes_; ///< critical paths: the label of each primitive's name
  unsigned owed_cycles_   = 0;       ///< defer(): cycles charged with the next charge
  const char* owed_what_  = nullptr; ///< ... on what
  CauseLabel label(const char* what);
  TaskContext::Sleep charge_now(unsigned cycles, const char* what);
};

} // namespace nafsim::nodes
