#include "protocols/portals/Matching.hpp"

#include <algorithm>
#include <stdexcept>

namespace nafsim::portals {

MatchingUnit::MatchingUnit(MatchingConfig cfg) : cfg_(cfg)
{
  if (cfg_.entries == 0)
    throw std::invalid_argument("a Portals list pool needs at least one entry");
  const unsigned n = cfg_.hashing ? std::max(1u, cfg_.buckets) : 1u;
  for (Lists* l : {&pr_, &of_, &um_})
    l->bucket.resize(n);
}

std::list<MatchingUnit::Node>& MatchingUnit::home(Lists& l, ProcessId source)
{
  if (!cfg_.hashing)
    return l.bucket[0];
  if (source == kAnySource)
    return l.any;
  return l.bucket[static_cast<std::size_t>(source) % l.bucket.size()];
}

template <class Accept>
MatchingUnit::Found MatchingUnit::search(Lists& l, ProcessId source, Accept accepts, unsigned& visited)
{
  // Without hashing: one walk in list order. With hashing: the source's bucket and the wildcards, each in
  // order; the earlier of their first matches is the one a linear walk would have found. A search from any
  // source (a receive accepting any sender looking at UM) walks every bucket.
  Found best;
  auto walk = [&](std::list<Node>& lst) {
    for (auto it = lst.begin(); it != lst.end(); ++it) {
      if (best.in && it->seq > best.it->seq)
        return; // nothing later in this list can be first
      ++visited;
      if (accepts(*it)) {
        if (!best.in || it->seq < best.it->seq)
          best = Found{&lst, it};
        return;
      }
    }
  };
  if (!cfg_.hashing) {
    walk(l.bucket[0]);
  } else if (source == kAnySource) {
    for (auto& b : l.bucket)
      walk(b);
    walk(l.any);
  } else {
    walk(l.bucket[static_cast<std::size_t>(source) % l.bucket.size()]);
    walk(l.any);
  }
  visited_ += visited;
  return best;
}

MatchingUnit::Lists& MatchingUnit::lists(List k)
{
  return k == List::Priority ? pr_ : k == List::Overflow ? of_ : um_;
}

void MatchingUnit::insert(List k, Node n)
{
  home(lists(k), n.me.source).push_back(std::move(n));
  ++sizes_[static_cast<int>(k)];
}

void MatchingUnit::erase(List k, const Found& f)
{
  f.in->erase(f.it);
  --sizes_[static_cast<int>(k)];
}

std::size_t MatchingUnit::used() const
{
  return sizes_[0] + sizes_[1] + sizes_[2];
}

Append MatchingUnit::append_priority(const MatchEntry& me)
{
  Append a;
  // The message may have come already: the oldest unexpected header this entry accepts.
  Found f = search(um_, me.source, [&](const Node& n) { return me.matches(n.header); }, a.visited);
  if (f.in) {
    a.found_unexpected = true;
    a.header           = f.it->header;
    a.stored_at        = f.it->stored_at;
    a.of_user          = f.it->of_user;
    erase(List::Unexpected, f);
    if (me.use_once)
      return a; // consumed at once: never on PR
  }
  if (used() >= cfg_.entries) {
    a.why = "the list pool is full (" + std::to_string(cfg_.entries) + " entries)";
    return a;
  }
  Node n;
  n.seq = next_seq_++;
  n.me  = me;
  if (a.found_unexpected && me.manage_local)
    n.offset = std::min(me.length, a.header.carried);
  insert(List::Priority, std::move(n));
  a.appended = true;
  return a;
}

bool MatchingUnit::append_overflow(const MatchEntry& me)
{
  if (used() >= cfg_.entries)
    return false;
  Node n;
  n.seq = next_seq_++;
  n.me  = me;
  insert(List::Overflow, std::move(n));
  return true;
}

Arrival MatchingUnit::arrive(const Header& h)
{
  Arrival r;
  auto fits = [&](const Node& n) { return !n.me.manage_local || n.offset + h.carried <= n.me.length; };
  // The priority list: a posted receive.
  Found f = search(pr_, h.source, [&](const Node& n) { return n.me.matches(h); }, r.visited);
  if (f.in) {
    Node& n   = *f.it;
    r.kind    = Arrival::Kind::Expected;
    r.user    = n.me.user;
    r.ct      = n.me.ct;
    const std::uint64_t off = n.me.manage_local ? n.offset : h.remote_offset;
    r.addr    = n.me.start + off;
    r.bytes   = off >= n.me.length ? 0 : std::min(h.carried, n.me.length - off);
    if (n.me.manage_local)
      n.offset += r.bytes;
    if (n.me.use_once) {
      erase(List::Priority, f);
      r.unlinked = true;
    }
    return r;
  }
  // A header without payload (a rendezvous's, eager limit 0) needs no overflow buffer: only its UM entry is saved
  // (PAC 5.5: "in the case of unexpected messages without payloads only the UM list is traversed so as to save the
  // header"; it "will never have to traverse the large OF list").
  if (h.carried == 0) {
    if (used() >= cfg_.entries) {
      r.why = "the list pool is full (" + std::to_string(cfg_.entries) + " entries): no room for the header";
      return r;
    }
    r.kind = Arrival::Kind::Unexpected;
    Node um;
    um.seq       = next_seq_++;
    um.me.source = h.source;
    um.header    = h;
    insert(List::Unexpected, std::move(um));
    return r;
  }
  // The overflow list: a buffer for the unexpected payload, and a UM entry for the header.
  f = search(of_, h.source, [&](const Node& n) { return n.me.matches(h) && fits(n); }, r.visited);
  if (!f.in) {
    r.why = "no priority entry matched and no overflow buffer had room";
    return r;
  }
  if (used() >= cfg_.entries) {
    r.why = "the list pool is full (" + std::to_string(cfg_.entries) + " entries): no room for the header";
    return r;
  }
  Node& of = *f.it;
  r.kind   = Arrival::Kind::Unexpected;
  r.user   = of.me.user;
  r.ct     = of.me.ct;
  r.addr   = of.me.start + of.offset;
  r.bytes  = std::min(h.carried, of.me.length - std::min(of.me.length, of.offset));
  if (of.me.manage_local)
    of.offset += r.bytes;
  Node um;
  um.seq       = next_seq_++;
  um.me.source = h.source; // the UM entry is found by the header's source
  um.header    = h;
  um.stored_at = r.addr;
  um.of_user   = of.me.user;
  if (of.me.use_once) {
    erase(List::Overflow, f);
    r.unlinked = true;
  }
  insert(List::Unexpected, std::move(um));
  return r;
}

bool MatchingUnit::unlink_priority(std::uint64_t user)
{
  auto drop = [&](std::list<Node>& l) {
    auto it = std::find_if(l.begin(), l.end(), [&](const Node& n) { return n.me.user == user; });
    if (it == l.end())
      return false;
    erase(List::Priority, Found{&l, it});
    return true;
  };
  for (auto& b : pr_.bucket)
    if (drop(b))
      return true;
  return drop(pr_.any);
}

std::size_t MatchingUnit::size(List l) const
{
  return sizes_[static_cast<int>(l)];
}

} // namespace nafsim::portals
