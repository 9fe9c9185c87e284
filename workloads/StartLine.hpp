#pragma once
// A benchmark's start line: actors arrive one by one; the last of `n` releases all of them at the
// same instant (every iteration of a collective starts together on every rank).

#include "simcore/engine/Scheduler.hpp"

#include <vector>

namespace nafsim::workloads {

class StartLine {
public:
  void arrive(ActorContext& ctx, unsigned n)
  {
    arrive(ctx, n, [] {});
  }
  /// As arrive(), the last of `n` running `at_release()` before it releases the others: a moment when every actor
  /// has arrived and none has gone on (e.g. counters read between a set-up and what is timed after it).
  template <class F>
  void arrive(ActorContext& ctx, unsigned n, F&& at_release)
  {
    if (++arrived_ == n) {
      at_release();
      arrived_ = 0;
      ++generation_;
      for (auto a : waiting_)
        ctx.scheduler().wake(a);
      waiting_.clear();
      return;
    }
    auto gen = generation_;
    waiting_.push_back(ctx.id());
    ctx.wait_until([&] { return generation_ != gen; }, "the benchmark's start line");
  }

private:
  unsigned arrived_         = 0;
  std::uint64_t generation_ = 0;
  std::vector<ActorId> waiting_;
};

} // namespace nafsim::workloads
