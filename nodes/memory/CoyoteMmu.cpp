#include "nodes/memory/CoyoteMmu.hpp"

#include "simcore/engine/Scheduler.hpp"

#include <algorithm>
#include <stdexcept>

namespace nafsim::nodes {

CoyoteMmu::CoyoteMmu(const MmuConfig& cfg, Hertz clock)
    : cfg_(cfg), cycle_(cycles_time(Cycles{1}, clock))
{
  for (auto& m : machines_)
    for (auto& r : m.ring)
      r.assign(cfg_.outstanding, SimTime::zero());
}

void CoyoteMmu::follow(Scheduler& s)
{
  present_        = &s;
  shared_scratch_ = &s.shared<Scratch>();
}

bool CoyoteMmu::lookup(std::uint64_t page)
{
  const std::uint64_t key = page % cfg_.tlb_sets;
  bool added              = false;
  const std::uint32_t id  = sets_.find_or_add(key, static_cast<std::uint32_t>(used_.size()), added);
  if (added) {
    used_.push_back(0);
    ways_.resize(ways_.size() + cfg_.tlb_ways);
  }
  std::uint64_t* set = ways_.data() + std::size_t{id} * cfg_.tlb_ways;
  std::uint64_t* end = set + used_[id];
  if (auto it = std::find(set, end, page); it != end) {
    std::rotate(it, it + 1, end); // most recently used last
    return false;
  }
  const bool fault = mapped_.find(page) != FlatIndex::kNone; // mapped once, evicted since
  mapped_.set(page, 1);
  if (used_[id] == cfg_.tlb_ways) { // the least recently used entry of the set goes (the driver maps over it)
    std::rotate(set, set + 1, end);
    end[-1] = page;
  } else {
    *end = page;
    ++used_[id];
  }
  return fault;
}

SimTime CoyoteMmu::Timeline::earliest(SimTime t, SimTime d) const
{
  // Intervals are sorted by start and do not overlap: walk those that end after t.
  auto it = std::lower_bound(busy_.begin(), busy_.end(), t,
                             [](const std::pair<SimTime, SimTime>& iv, SimTime x) { return iv.second <= x; });
  for (; it != busy_.end(); ++it) {
    if (t + d <= it->first)
      return t;
    t = std::max(t, it->second);
  }
  return t;
}

void CoyoteMmu::Timeline::forget_before(SimTime t)
{
  std::size_t n = 0;
  while (n < busy_.size() && busy_[n].second <= t)
    ++n;
  if (n > 0)
    busy_.erase(busy_.begin(), busy_.begin() + static_cast<std::ptrdiff_t>(n));
}

void CoyoteMmu::Timeline::book(SimTime start, SimTime end)
{
  if (end <= start)
    return;
  auto it = std::lower_bound(busy_.begin(), busy_.end(), start,
                             [](const std::pair<SimTime, SimTime>& iv, SimTime x) { return iv.first < x; });
  busy_.insert(it, {start, end});
  // Forget the oldest: callers never ask before the simulation's present, and these lie behind it (a node has a
  // few accesses booked ahead at a time: the data mover's moves, the packets in its receive pipeline).
  if (busy_.size() > 64)
    busy_.erase(busy_.begin(), busy_.begin() + 32);
}

SimTime CoyoteMmu::lock_at(SimTime at, const std::pair<SimTime, SimTime>* own) const
{
  // A plan's lookups follow one another (each starts after the previous one ends), so of its own lookups only the
  // last can still be under way at `at`: checking it alone keeps a request of many fragments linear (a 1 TB copy
  // is 476,837 fragments of 2 MiB; checking every earlier lookup was quadratic).
  const SimTime lock_len = cycles(cfg_.lock_cycles);
  for (;;) {
    SimTime x = mutex_.earliest(at, lock_len);
    if (own && x < own->second && own->first < x + lock_len)
      x = own->second;
    if (x == at)
      return x;
    at = x;
  }
}

CoyoteMmu::Plan CoyoteMmu::plan(Machine& m, unsigned lane, SimTime t0, std::uint64_t addr, Bytes b, bool look_up)
{
  const std::uint64_t page_bytes = cfg_.page.count;
  const unsigned after_lock      = cfg_.command_cycles - 1 - cfg_.lock_cycles - 1; // HIT, CALC (SEND below)
  const SimTime lock_len         = cycles(cfg_.lock_cycles);
  auto& ring                     = m.ring[lane];
  Scratch& sc = scratch();
  sc.steps.clear();
  sc.held.clear(); // this plan's own lookups, not booked yet
  Plan p;
  SimTime t       = t0 + cycles(1); // IDLE
  std::uint64_t a = addr, left = b.count;
  std::size_t k = 0, slot = m.next[lane];
  while (left > 0) {
    Step st{};
    st.addr = a;
    st.lock = lock_at(t, sc.held.empty() ? nullptr : &sc.held.back());
    p.lock_wait += st.lock - t;
    sc.held.emplace_back(st.lock, st.lock + lock_len);
    t = st.lock + lock_len;
    if (look_up) // MUTEX .. CHECK found the page, or not
      sc.faults.push_back(lookup(a / page_bytes) ? 1 : 0);
    st.fault = sc.faults[k] != 0;
    if (st.fault) { // the driver answers, then the lookup is made again
      t += cfg_.page_fault;
      st.relock = lock_at(t, &sc.held.back());
      p.lock_wait += st.relock - t;
      sc.held.emplace_back(st.relock, st.relock + lock_len);
      t = st.relock + lock_len;
    }
    t += cycles(after_lock); // HIT, CALC: the fragment ends at the page's end
    st.bytes = std::min(left, page_bytes - a % page_bytes);
    const SimTime free_slot = std::max(t, ring[slot]); // SEND: a free slot among those in flight to the lane
    p.slot_wait += free_slot - t;
    st.send = t = free_slot;
    if (++slot == ring.size()) // (a wrap, not a division: this is per fragment)
      slot = 0;
    t += cycles(1); // the SEND cycle; a further fragment goes back to MUTEX
    sc.steps.push_back(st);
    a += st.bytes;
    left -= st.bytes;
    ++k;
  }
  p.end = t;
  return p;
}

CoyoteMmu::Busy CoyoteMmu::take_scratch()
{
  Scratch& sc = scratch();
  if (sc.busy)
    throw std::logic_error("CoyoteMmu::request: asked from a fragment's issue function while a request of the same "
                           "MMU, or of one sharing its scratch lists (the run's: CoyoteMmu::follow), is under way");
  sc.busy = true;
  return Busy{sc.busy};
}

void CoyoteMmu::forget_past(Machine& m)
{
  if (present_) { // what ended before the present can no longer be in a request's way
    const SimTime past = present_->now();
    m.timeline.forget_before(past);
    mutex_.forget_before(past);
  }
}

Stream CoyoteMmu::request(Dir dir, unsigned lane, SimTime now, std::uint64_t addr, Bytes b, const Issue& issue)
{
  if (b.count == 0) // the state machine ignores an empty request (tlb_fsm.sv: len != 0)
    return issue(now, addr, b);
  if (addr % cfg_.page.count + b.count <= cfg_.page.count) // (page is a power of two: config check)
    return request_in_page(machines_[static_cast<int>(dir)], lane, now, addr, b, issue);
  return request_by_fragments(dir, lane, now, addr, b, issue);
}

Stream CoyoteMmu::request_in_page(Machine& m, unsigned lane, SimTime now, std::uint64_t addr, Bytes b,
                                  const Issue& issue)
{
  // plan() and request_by_fragments() for one fragment, step for step: the same look-ups, in the same order, at the
  // same dates. (The scratch lists are taken all the same: an issue function may not ask an MMU of the run.)
  const Busy busy = take_scratch();
  ++counters_.requests;
  forget_past(m);
  const SimTime lock_len   = cycles(cfg_.lock_cycles);
  const SimTime after_lock = cycles(cfg_.command_cycles - 1 - cfg_.lock_cycles - 1); // HIT, CALC
  const SimTime ring_free  = m.ring[lane][m.next[lane]];
  const SimTime start      = std::max(now, SimTime::zero());
  bool fault = false, looked_up = false;
  SimTime t0 = start;
  std::pair<SimTime, SimTime> lock, relock;
  SimTime send, end, lock_wait, slot_wait;
  for (;;) {
    SimTime t  = t0 + cycles(1); // IDLE
    lock_wait  = SimTime::zero();
    slot_wait  = SimTime::zero();
    lock.first = lock_at(t, nullptr);
    lock_wait += lock.first - t;
    lock.second = lock.first + lock_len;
    t           = lock.second;
    if (!looked_up) { // MUTEX .. CHECK found the page, or not (looked up once, in the first plan)
      fault     = lookup(addr / cfg_.page.count);
      looked_up = true;
    }
    if (fault) { // the driver answers, then the lookup is made again
      t += cfg_.page_fault;
      relock.first = lock_at(t, &lock);
      lock_wait += relock.first - t;
      relock.second = relock.first + lock_len;
      t             = relock.second;
    }
    t += after_lock;
    const SimTime free_slot = std::max(t, ring_free); // SEND: a free slot among those in flight to the lane
    slot_wait += free_slot - t;
    send = free_slot;
    end  = send + cycles(1); // the SEND cycle
    const SimTime fits = m.timeline.earliest(t0, end - t0);
    if (fits == t0)
      break;
    t0 = fits; // the machine is busy with another request then: take this one after it
  }
  counters_.machine_wait += t0 - start;
  counters_.lock_wait += lock_wait;
  counters_.slot_wait += slot_wait;
  mutex_.book(lock.first, lock.second);
  if (fault)
    mutex_.book(relock.first, relock.second);
  m.timeline.book(t0, end);
  if (fault)
    ++counters_.page_faults;
  const Stream s   = issue(send, addr, b);
  auto& ring       = m.ring[lane];
  std::size_t& idx = m.next[lane];
  ring[idx]        = s.last;
  if (++idx == ring.size())
    idx = 0;
  ++counters_.fragments;
  return s;
}

Stream CoyoteMmu::request_by_fragments(Dir dir, unsigned lane, SimTime now, std::uint64_t addr, Bytes b,
                                       const Issue& issue)
{
  if (b.count == 0)
    return issue(now, addr, b);
  const Busy busy = take_scratch();
  Scratch& sc     = scratch();
  Machine& m      = machines_[static_cast<int>(dir)];
  ++counters_.requests;
  forget_past(m);
  // Plan the request from when it arrives; book it once the machine is free for all of its cycles. A plan is
  // made again only when the machine was busy: faults are looked up once.
  sc.faults.clear();
  SimTime t0 = std::max(now, SimTime::zero());
  Plan p     = plan(m, lane, t0, addr, b, true);
  for (;;) {
    const SimTime fits = m.timeline.earliest(t0, p.end - t0);
    if (fits == t0)
      break;
    t0 = fits; // the machine is busy with another request then: take this one after it
    p  = plan(m, lane, t0, addr, b, false);
  }
  counters_.machine_wait += t0 - std::max(now, SimTime::zero());
  counters_.lock_wait += p.lock_wait;
  counters_.slot_wait += p.slot_wait;
  for (auto const& [s0, s1] : sc.held)
    mutex_.book(s0, s1);
  m.timeline.book(t0, p.end);
  auto& ring       = m.ring[lane];
  std::size_t& idx = m.next[lane];
  Stream out{};
  bool first = true;
  for (auto const& st : sc.steps) {
    if (st.fault)
      ++counters_.page_faults;
    Stream s  = issue(st.send, st.addr, Bytes{st.bytes});
    ring[idx] = s.last;
    if (++idx == ring.size())
      idx = 0;
    ++counters_.fragments;
    if (first)
      out = s;
    else
      out.last = std::max(out.last, s.last);
    first = false;
  }
  return out;
}

} // namespace nafsim::nodes
