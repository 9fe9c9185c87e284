#include "nodes/cclo/Firmware.hpp"

#include "nodes/cclo/FirmwareCall.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace nafsim::nodes {

Firmware::Firmware(Cclo& cclo) : c_(cclo), core_(cclo.core()) {}

const FirmwareCosts& Firmware::costs() const
{
  return core_.cfg.firmware;
}

void Firmware::charge(unsigned cycles)
{
  if (cycles == 0)
    return;
  SimTime t = core_.cycles(cycles);
  core_.counters.uc_busy += t;
  ctx_->sleep_for(t);
}

void Firmware::block(WaitReason why)
{
  core_.fw_waiting = true;
  ctx_->block(std::move(why));
  core_.fw_waiting = false;
}

void Firmware::check_error() const
{
  if (!core_.error.empty())
    throw FirmwareAbort{};
}

// ---------------------------------------------------------------------------------------------
// Data-mover instructions.

void Firmware::start_move(Move m)
{
  auto st  = std::make_shared<Status>();
  m.on_done = [this, st] {
    st->done = true;
    c_.wake_firmware();
  };
  statuses_.push_back(st);
  charge(costs().move);
  c_.data_mover().submit(std::move(m));
}

void Firmware::end_move()
{
  if (statuses_.empty())
    throw std::logic_error("end_move() without an outstanding move");
  auto st = statuses_.front();
  while (!st->done) {
    check_error();
    block([this] {
      auto w = c_.data_mover().waiting();
      return fmt::format("the CCLO firmware of host {} waits for a data-mover status (end_move){}", core_.host,
                         w.empty() ? "" : ": " + w);
    });
  }
  statuses_.pop_front();
}

void Firmware::submit_move(Move m, std::function<void()> done)
{
  m.on_done = [this, done = std::move(done)] {
    if (done)
      done();
    c_.wake_firmware();
  };
  charge(costs().move);
  c_.data_mover().submit(std::move(m));
}

// ---------------------------------------------------------------------------------------------
// Rendezvous notifications.

void Firmware::send_address(std::uint32_t peer, std::uint64_t addr, std::uint64_t bytes, std::uint32_t tag,
                            unsigned transfers)
{
  charge(costs().notify);
  c_.send_control(peer, CcloMsg::Init, addr, transfers | (std::uint64_t{tag} << 32), bytes);
}

std::optional<RndzvNotice> Firmware::lookup(const NoticeMatch& match)
{
  charge(costs().poll);
  unsigned examined = 0;
  seen_             = core_.arrivals;
  auto r            = core_.rndzv.take(match, examined);
  charge(examined * costs().entry);
  if (r)
    ++core_.counters.polls;
  return r;
}

void Firmware::wait_aligned(SimTime failed_at, SimTime pass, const WaitReason& what)
{
  // A notice that came while the pass was walking the queues was not seen by it: pass again.
  while (core_.arrivals == seen_) {
    check_error();
    block(what);
  }
  align(failed_at, pass, true);
}

void Firmware::align(SimTime failed_at, SimTime pass, bool rerun)
{
  // Passes have run back to back since failed_at. A notice is seen by the first pass that ends after it
  // arrived: resume at that pass's start and run it. A new call is seen when the pass in progress ends.
  SimTime at = now();
  if (pass <= SimTime{} || at <= failed_at)
    return;
  auto k         = (at - failed_at).ps() / pass.ps() + ((at - failed_at).ps() % pass.ps() != 0 ? 1 : 0);
  SimTime resume = failed_at + pass * (rerun ? k - 1 : k);
  if (resume > now()) {
    core_.counters.uc_busy += resume - now();
    ctx_->sleep_until(resume);
  }
  core_.counters.loop_passes += static_cast<std::uint64_t>(rerun ? k - 1 : k);
}

RndzvNotice Firmware::spin(const NoticeMatch& match, const WaitReason& what)
{
  while (true) {
    check_error();
    SimTime start = now();
    if (auto r = lookup(match))
      return *r;
    ++core_.counters.loop_passes;
    wait_aligned(now(), now() - start, [this, &what] {
      return fmt::format("the CCLO firmware of host {} busy-waits: {} ({})", core_.host, what(), core_.rndzv.describe());
    });
  }
}

void Firmware::spin_call(const std::function<FwStatus()>& function, const WaitReason& what)
{
  while (true) {
    check_error();
    SimTime start = now();
    if (function() == FwStatus::Done)
      return;
    ++core_.counters.loop_passes;
    wait_aligned(now(), now() - start, [this, &what] {
      return fmt::format("the CCLO firmware of host {} re-runs {} until it is ready ({})", core_.host, what(),
                         core_.rndzv.describe());
    });
  }
}

void Firmware::wait_event(WaitReason what)
{
  check_error();
  block(std::move(what));
}

// ---------------------------------------------------------------------------------------------
// The main loop.

std::optional<std::pair<std::shared_ptr<CcloPending>, bool>> Firmware::pick()
{
  // wait_for_call(): after a new call it looks at the command FIFO first, after a retried call (or
  // while the barrier flushes the retry queue) at the retry queue first.
  const bool retry_first = flush_retries_ || !last_new_;
  auto take_new          = [&]() -> std::optional<std::pair<std::shared_ptr<CcloPending>, bool>> {
    if (core_.calls.empty())
      return std::nullopt;
    auto p = core_.calls.front();
    core_.calls.pop_front();
    return std::pair{p, true};
  };
  auto take_retry = [&]() -> std::optional<std::pair<std::shared_ptr<CcloPending>, bool>> {
    if (retry_.empty())
      return std::nullopt;
    if (std::all_of(retry_.begin(), retry_.end(),
                    [&](const Retry& r) { return r.pass_known && r.seen == core_.arrivals; }) &&
        (core_.calls.empty() || retry_first))
      idle_retry_loop();
    auto p = retry_.front().call;
    retry_.pop_front();
    return std::pair{p, false};
  };
  if (retry_first) {
    if (auto r = take_retry())
      return r;
    return take_new();
  }
  if (auto n = take_new())
    return n;
  return take_retry();
}

void Firmware::idle_retry_loop()
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
    block([this, &waits_for] {
      return fmt::format("the CCLO firmware of host {} loops over its retry queue: {} ({})", core_.host, waits_for,
                         core_.rndzv.describe());
    });
  }
  align(last, cycle, core_.arrivals != seen_);
}

void Firmware::run(ActorContext& ctx)
{
  ctx_          = &ctx;
  core_.fw_actor  = ctx.id();
  while (true) {
    std::optional<std::pair<std::shared_ptr<CcloPending>, bool>> next;
    try {
      while (!(next = pick()))
        block([] { return std::string("the CCLO firmware waits for a call"); });
    } catch (FirmwareAbort&) {
      // Failed while looping over retried calls: each of them ends with the error.
      for (auto& r : retry_) {
        r.call->result.error = core_.error;
        finish(*r.call);
      }
      retry_.clear();
      continue;
    }
    auto [p, is_new] = *next;
    last_new_        = is_new;
    SimTime start    = now();
    if (is_new) {
      p->result.started = start;
      ++core_.counters.calls;
      charge(costs().call);
    } else {
      charge(costs().retry);
    }
    FwStatus st = FwStatus::Done;
    try {
      st = execute(*p);
    } catch (FirmwareAbort&) {
      p->result.error = core_.error;
    }
    if (st == FwStatus::NotReady) {
      ++core_.counters.retries;
      retry_.push_back(Retry{p, seen_, now() - start, !is_new, now(), waits_for_});
      continue;
    }
    charge(costs().finalize);
    finish(*p);
  }
}

void Firmware::finish(CcloPending& p)
{
  p.result.finished = now();
  p.done            = true;
  ctx_->scheduler().wake(p.caller);
}

FwStatus Firmware::execute(CcloPending& p)
{
  if (!core_.error.empty()) {
    p.result.error = core_.error;
    return FwStatus::Done;
  }
  FirmwareCall call(*this, p);
  if (!call.ok())
    return FwStatus::Done;
  waits_for_.clear();
  if (call.call().call.collective == coll::Collective::Barrier) {
    // barrier(): the retry queue is flushed before the barrier runs.
    flush_retries_ = true;
    if (!retry_.empty()) {
      waits_for_ = "the barrier waits for the retried calls to finish";
      return FwStatus::NotReady;
    }
  }
  FwStatus st = call.run();
  if (call.call().call.collective == coll::Collective::Barrier && st == FwStatus::Done)
    flush_retries_ = false;
  return st;
}

} // namespace nafsim::nodes
