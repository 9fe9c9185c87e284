#include "workloads/program/DramShare.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace nafsim::workloads {

void DramShare::run(ActorContext& ctx, SimTime start, const Phase& p, const CauseLabel& busy)
{
  if (start > ctx.now())
    ctx.sleep_until(start, busy);
  if (busy_ < slots_) {
    ++busy_;
  } else { // the slot of the phase that ends first, in the order the waiting ones came
    waiting_.push_back(ctx.id());
    while (!granted_.count(ctx.id()))
      ctx.block("a compute slot of the rank's cores (compute.threads)");
    granted_.erase(ctx.id());
  }
  const SimTime began = ctx.now();
  busy_label_         = busy; // (one rank's phases share one: its host's compute)
  if (p.bytes > 0) {
    advance(began);
    auto it = streaming_.insert(streaming_.end(), Streaming{ctx.id(), p.bytes, std::min(p.cap, socket_)});
    reshare();
    arm(began);
    while (!it->done)
      ctx.block("the rank's DRAM bandwidth (compute phases side by side)");
    streaming_.erase(it);
    advance(ctx.now());
    reshare();
    arm(ctx.now());
  }
  ctx.sleep_until(std::max(ctx.now(), began + p.compute) + p.extra, busy);
  if (waiting_.empty()) {
    --busy_;
  } else {
    granted_.insert(waiting_.front());
    sched_.wake(waiting_.front());
    waiting_.pop_front();
  }
}

void DramShare::advance(SimTime now)
{
  const double dt = (now - last_).seconds();
  for (auto& s : streaming_)
    if (!s.done)
      s.left = std::max(0.0, s.left - s.rate * dt);
  last_ = now;
}

void DramShare::reshare()
{
  // Water-filling on one resource: the phases whose own rate is below an equal share of what is left keep it.
  std::vector<Streaming*> open;
  for (auto& s : streaming_)
    if (!s.done)
      open.push_back(&s);
  std::sort(open.begin(), open.end(), [](auto* a, auto* b) { return a->cap < b->cap; });
  double left = socket_;
  for (std::size_t i = 0; i < open.size(); ++i) {
    const double share = left / static_cast<double>(open.size() - i);
    open[i]->rate      = std::min(open[i]->cap, share);
    left -= open[i]->rate;
  }
}

void DramShare::arm(SimTime now)
{
  double first = -1;
  for (auto const& s : streaming_)
    if (!s.done && s.rate > 0) {
      const double t = s.left / s.rate;
      first          = first < 0 ? t : std::min(first, t);
    }
  if (first < 0)
    return;
  const std::uint64_t g = ++generation_;
  const SimTime at      = now + std::max(SimTime::ps(1), SimTime::ps(static_cast<std::int64_t>(std::ceil(first * 1e12))));
  sched_.call_at(at, [this, g] { check(g); }, busy_label_);
}

void DramShare::check(std::uint64_t generation)
{
  if (generation != generation_) // re-shared since: a later check was armed
    return;
  const SimTime now = sched_.now();
  advance(now);
  for (auto& s : streaming_)
    if (!s.done && s.left <= s.rate * 1e-12) { // less than a picosecond's worth left: done
      s.done = true;
      sched_.wake(s.who);
    }
  reshare();
  arm(now);
}

} // namespace nafsim::workloads
