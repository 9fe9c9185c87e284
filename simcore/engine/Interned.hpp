#pragma once
// Identical configurations kept once per run. A component of every node (a NIC engine, its queue pairs) reads its
// configuration at nearly every event; with a copy per node, at thousands of nodes each event finds that copy out of
// cache (a miss per node and event), where one copy shared by every node with the same values stays in cache.

#include "simcore/engine/Scheduler.hpp"

#include <deque>

namespace nafsim {

/// The values seen so far, each once (a deque: the references handed out never move).
template <class T> class Interned {
public:
  const T& get(const T& v)
  {
    for (const T& x : items_) // (a run has a few distinct configurations: one per node kind or preset)
      if (x == v)
        return x;
    return items_.emplace_back(v);
  }

private:
  std::deque<T> items_;
};

/// `v`'s run-wide copy: the same object for every equal value asked for in the run (T has ==).
template <class T> const T& intern(Scheduler& s, const T& v)
{
  return s.shared<Interned<T>>().get(v);
}

} // namespace nafsim
