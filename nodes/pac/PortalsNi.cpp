#include "nodes/pac/PortalsNi.hpp"

#include "simcore/config/ConfigError.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace nafsim::nodes {

using portals::Append;
using portals::Arrival;
using portals::Header;
using portals::List;
using portals::MatchBits;
using portals::MatchEntry;

IdealPortalsFabric::IdealPortalsFabric(Scheduler& s, std::size_t nodes, SimTime latency, BitsPerSecond rate,
                                       Bytes header)
    : PortalsFabric(nodes), sched_(s), latency_(latency), rate_(rate), header_(header), port_free_(nodes)
{
}

void IdealPortalsFabric::send(int from, int to, const PortalsWire& w, std::function<void()> sent)
{
  // The master port of `from` writes header and payload into `to`'s address space, one write after another.
  SimTime& free    = port_free_.at(static_cast<std::size_t>(from));
  const SimTime t0 = std::max(sched_.now(), free);
  free             = t0 + transmit_time(Bytes{header_.count + w.bytes}, rate_);
  bus_             = bus_ + (free - t0) + latency_;
  if (sent)
    sched_.call_at(free, std::move(sent));
  sched_.call_at(free + latency_, [this, from, to, w] { deliver(to, from, w); });
}

void UntimedPortalsFabric::send(int from, int to, const PortalsWire& w, std::function<void()> sent)
{
  // At the same date, after the sender's current step (a callback run later in the date's order, not nested).
  if (sent)
    sched_.call_at(sched_.now(), std::move(sent));
  sched_.call_at(sched_.now(), [this, from, to, w] { deliver(to, from, w); });
}

namespace {
portals::MatchingConfig lists_of(const PortalsConfig& c)
{
  portals::MatchingConfig m;
  m.entries = c.list_entries;
  m.hashing = c.hashing;
  m.buckets = c.buckets;
  return m;
}
} // namespace

PortalsNi::PortalsNi(int self, int nodes, const PortalsConfig& cfg, PortalsProtocol proto, Bytes eager_limit,
                     NodeClock& clock, PortalsFabric& fabric)
    : self_(self)
    , nodes_(nodes)
    , cfg_(cfg)
    , pcfg_(cfg.of(cfg.engine))
    , proto_(proto)
    , eager_limit_(eager_limit.count)
    , clock_(clock)
    , fabric_(fabric)
    , cpu_(pcfg_)
    , mu_(lists_of(cfg))
    , rndv_(lists_of(cfg))
    , cts_(cfg.counting_events)
    , store_(cfg.unexpected_store.count, cfg.store_block.count)
{
  fabric_.attach(self_, [this](int from, const PortalsWire& w) { deliver(from, w); });
  // One overflow entry per initiator (PAC 3.2.4, Fig. 7): accepts anything from it, payloads land one after
  // another (the store keeps them; the entry only says whose they are).
  for (int s2 = 0; s2 < nodes_; ++s2) {
    if (s2 == self_)
      continue;
    MatchEntry of;
    of.source      = s2;
    of.ignore_bits = ~MatchBits{0};
    of.length      = cfg_.max_msg_size.count;
    of.use_once    = false;
    of.user        = static_cast<std::uint64_t>(s2);
    if (!mu_.append_overflow(of))
      throw config::ConfigError("", "/platform/node/portals/list_entries",
                                fmt::format("{} list entries cannot hold one overflow entry per initiator ({}): "
                                            "raise list_entries",
                                            cfg_.list_entries, nodes_ - 1));
  }
}

void PortalsNi::after(SimTime t, std::function<void()> fn)
{
  clock_.at(t, std::move(fn));
}

SimTime PortalsNi::copy_time(std::uint64_t bytes) const
{
  if (bytes == 0)
    return {};
  // A constant-latency copy module (PAC on the paper's virtual platform, 5.3) takes the same time for any size.
  return pcfg_.constant_copy ? cpu_.cycles(pcfg_.copy_cycles) : transmit_time(Bytes{bytes}, pcfg_.copy_rate);
}

SimTime PortalsNi::walk(const char* list, unsigned visited, std::size_t entries)
{
  c_.visited += visited;
  const auto missed = cpu_.missed();
  // The processor's command() is the command's fixed cycles plus its walk; reserve() charges the former.
  SimTime t = cpu_.command(list, visited, entries, cfg_.hashing) - cpu_.cycles(pcfg_.command_cycles);
  c_.missed += cpu_.missed() - missed;
  return t;
}

SimTime PortalsNi::reserve(Unit u, SimTime walk, std::uint64_t copy, bool command, SimTime not_before)
{
  const SimTime cmd = command ? cpu_.cycles(pcfg_.command_cycles) : SimTime{};
  const SimTime cp  = copy_time(copy);
  c_.bytes_copied += copy;
  c_.commands += cmd, c_.walks += walk, c_.copies += cp;
  const SimTime now = std::max(clock_.now(), not_before); // (an operation waiting for the host starts after it)
  if (!pcfg_.concurrent) { // one processor runs everything in turn
    const SimTime start = std::max(now, unit_free_[0]);
    unit_free_[0]       = start + cmd + walk + cp;
    return unit_free_[0];
  }
  // The operation's own subsystem decodes it, the shared list manager walks, the subsystem copies.
  const SimTime start = std::max(now, unit_free_[u]);
  SimTime t           = start + cmd;
  if (walk > SimTime{}) {
    t        = std::max(t, lm_free_) + walk;
    lm_free_ = t;
  }
  unit_free_[u] = t + cp;
  return unit_free_[u];
}

SimTime PortalsNi::interrupt_host()
{
  ++c_.interrupts;
  c_.interrupts_time += cfg_.interrupt;
  if (!pcfg_.concurrent) { // software Portals: the handler takes the CPU the engine runs on
    const SimTime start = std::max(clock_.now(), unit_free_[0]);
    unit_free_[0]       = start + cfg_.interrupt;
    return unit_free_[0];
  }
  host_free_ = std::max(clock_.now(), host_free_) + cfg_.interrupt;
  return host_free_;
}

MatchBits PortalsNi::rndv_bits(std::uint64_t msg) const
{
  return msg;
}

void PortalsNi::isend(int dst, MatchBits bits, std::uint64_t bytes, Done done)
{
  const std::uint64_t msg = (static_cast<std::uint64_t>(self_) << 40) | ++next_;
  const std::uint64_t carried = proto_ == PortalsProtocol::Eager ? bytes : std::min(bytes, eager_limit_);
  // A message sent whole asks for an Ack when configured; the rest of one sent in part is read with a Get. Either
  // way the send buffer stays exposed, and the send completes on the Ack or once the Get has read it.
  const bool ack    = cfg_.eager_ack && carried == bytes && bytes > 0;
  const bool expose = carried < bytes || ack;
  SimTime walk_t{};
  if (expose) {
    MatchEntry me;
    me.source     = dst;
    me.match_bits = rndv_bits(msg);
    me.length     = bytes;
    me.user       = msg;
    const auto before = rndv_.size(List::Unexpected);
    Append a          = rndv_.append_priority(me);
    if (!a.appended)
      throw SimulationError(fmt::format("Portals on node {}: cannot expose a {} B send buffer: {}", self_, bytes,
                                        a.why.empty() ? "no entry free" : a.why));
    walk_t = walk("rndv", a.visited, before);
    rndv_sends_[msg] = RndvSend{bytes, std::move(done)};
  }
  Header h;
  h.source     = self_;
  h.match_bits = bits;
  h.length     = bytes;
  h.carried    = carried;
  h.msg        = msg;
  ++c_.puts;
  PortalsWire w;
  w.type  = PortalsWire::Type::Put;
  w.h     = h;
  w.bytes = carried;
  w.ack   = ack;
  post_and_send(dst, w, walk_t, expose ? Done{} : std::move(done));
}

void PortalsNi::irecv(int src, MatchBits bits, std::uint64_t bytes, Done done)
{
  const std::uint64_t id = ++next_;
  recvs_[id]             = Recv{bytes, 0, std::move(done)};
  MatchEntry me;
  me.source     = src;
  me.match_bits = bits;
  me.length     = bytes;
  me.user       = id;
  if (proto_ == PortalsProtocol::Triggered && bytes > eager_limit_) {
    // A counting event on the entry, and a Get of the rest hanging on its first delivery (PAC 3.3.1).
    auto ct = cts_.alloc();
    if (!ct)
      throw SimulationError(fmt::format("Portals on node {}: all {} counting events in use (a receive needs one "
                                        "for its triggered Get): raise node.portals.counting_events",
                                        self_, cfg_.counting_events));
    me.ct = *ct;
    portals::TriggeredOp op;
    op.kind      = portals::TriggeredOp::Kind::Get;
    op.ct        = *ct;
    op.threshold = 1;
    op.user      = id;
    cts_.trigger(op);
  }
  const SimTime posted = clock_.now() + (cfg_.engine == PortalsEngine::Pac ? cfg_.post : SimTime{});
  after(posted, [this, me, id] {
    const auto before = mu_.size(List::Unexpected);
    Append a          = mu_.append_priority(me);
    const SimTime w   = walk("um", a.visited, before);
    if (!a.found_unexpected) {
      if (!a.appended)
        throw SimulationError(fmt::format("Portals on node {}: receive not posted: {} (raise node.portals.list_entries)",
                                          self_, a.why));
      reserve(kHost, w, 0);
      return;
    }
    // The message came first: its stored bytes are copied out, the rest fetched (all of it if the payload was
    // dropped).
    const Header h         = a.header;
    auto st                = stored_.find(h.msg);
    const std::uint64_t in = st == stored_.end() ? 0 : std::min(h.carried, me.length);
    const SimTime end      = reserve(kHost, w, in);
    if (st != stored_.end()) {
      store_.free(st->second);
      stored_.erase(st);
    }
    const std::uint64_t from = dropped_.erase(h.msg) ? 0 : h.carried;
    after(end, [this, h, id, in, from, ct = me.ct] {
      fetch_rest(h, from, id, ct, false); // the host is in its receive call: no interrupt
      recv_progress(id, in);
    });
  });
}

void PortalsNi::window(MatchBits bits, std::uint64_t bytes)
{
  MatchEntry me;
  me.source     = portals::kAnySource;
  me.match_bits = bits;
  me.length     = bytes;
  me.use_once   = false;
  Append a      = mu_.append_priority(me);
  if (!a.appended)
    throw SimulationError(fmt::format("Portals on node {}: window not created: {}", self_, a.why));
  reserve(kHost, walk("um", a.visited, mu_.size(List::Unexpected)), 0);
}

void PortalsNi::get_window(int dst, MatchBits bits, std::uint64_t offset, std::uint64_t bytes, Done done)
{
  const std::uint64_t id = ++next_;
  gets_[id]              = Get{0, std::move(done)};
  ++c_.one_sided;
  ++c_.gets;
  PortalsWire w;
  w.type            = PortalsWire::Type::GetRequest;
  w.one_sided       = true;
  w.h.source        = self_;
  w.h.match_bits    = bits;
  w.h.length        = bytes;
  w.h.remote_offset = offset;
  w.get_id          = id;
  post_and_send(dst, w, SimTime{}, {});
}

void PortalsNi::post_and_send(int dst, const PortalsWire& w, SimTime walk_t, Done sent)
{
  // PAC: the host writes the command into the message buffer; software Portals runs it on the CPU at once.
  const SimTime posted = clock_.now() + (cfg_.engine == PortalsEngine::Pac ? cfg_.post : SimTime{});
  after(posted, [this, dst, w, walk_t, sent = std::move(sent)]() mutable {
    after(reserve(kHost, walk_t, 0),
          [this, dst, w, sent = std::move(sent)]() mutable { fabric_.send(self_, dst, w, std::move(sent)); });
  });
}

void PortalsNi::deliver(int from, const PortalsWire& w)
{
  switch (w.type) {
    case PortalsWire::Type::Put: on_put(from, w); break;
    case PortalsWire::Type::GetRequest: on_get_request(from, w); break;
    case PortalsWire::Type::GetReply: on_get_reply(w); break;
    case PortalsWire::Type::Ack: on_ack(w); break;
  }
}

void PortalsNi::on_put(int from, const PortalsWire& w)
{
  const Header& h = w.h;
  // PAC's message buffer for incoming Puts holds nodes x MAX_MSG_SIZE bytes; past that the host is
  // interrupted to make room (3.2.2).
  const std::uint64_t in_buffer = cfg_.header.count + w.bytes;
  SimTime room{}; // when the host has made room: the Put starts then (a wait, not list-manager work)
  if (cfg_.engine == PortalsEngine::Pac) {
    buffered_ += in_buffer;
    if (buffered_ > static_cast<std::uint64_t>(nodes_) * cfg_.max_msg_size.count)
      room = interrupt_host(); // the message waits for the host to make room
  }
  const std::size_t entries = mu_.size(List::Priority) + mu_.size(List::Overflow);
  Arrival a                 = mu_.arrive(h);
  const SimTime wt          = walk("pr", a.visited, entries);
  if (a.kind == Arrival::Kind::Dropped)
    throw SimulationError(fmt::format("Portals on node {}: a message from node {} ({} B, match bits {:#x}) was "
                                      "dropped: {} (raise node.portals.list_entries)",
                                      self_, from, h.length, h.match_bits, a.why));
  if (a.kind == Arrival::Kind::Unexpected) {
    ++c_.unexpected;
    std::uint64_t keep = 0;
    bool dropped       = false;
    if (h.carried > 0) {
      if (auto off = store_.allocate(h.carried)) {
        stored_[h.msg] = *off;
        keep           = h.carried;
        c_.store_peak  = std::max(c_.store_peak, cfg_.unexpected_store.count - store_.free_bytes());
      } else if (w.ack || h.carried < h.length) { // the initiator's buffer is exposed: drop, fetch it later
        dropped = true;
        dropped_.insert(h.msg);
        ++c_.payload_dropped;
      } else
        throw SimulationError(fmt::format(
            "Portals on node {}: the unexpected store ({} B) is full: a {} B payload from node {} has nowhere to go "
            "and its sender did not keep it (set node.portals.eager_ack to drop it and fetch it later, raise "
            "node.portals.unexpected_store, or send with a rendezvous protocol and a smaller eager_limit)",
            self_, cfg_.unexpected_store.count, h.carried, from));
    }
    cpu_.touch("um", mu_.size(List::Unexpected));
    const SimTime end = reserve(kPut, wt, keep, true, room);
    after(end, [this, in_buffer] { buffered_ -= std::min(buffered_, in_buffer); });
    if (!dropped)
      ack_at(end, from, w); // a dropped payload is not acknowledged: the initiator waits for the Get
    return;
  }
  ++c_.expected;
  const std::uint64_t id = a.user;
  const SimTime end      = reserve(kPut, wt, a.bytes, true, room);
  ack_at(end, from, w);
  after(end, [this, h, id, a, in_buffer] {
    buffered_ -= std::min(buffered_, in_buffer);
    fetch_rest(h, h.carried, id, a.ct, true); // plain rendezvous: the host is interrupted to read the header
    recv_progress(id, a.bytes);
  });
}

void PortalsNi::matched(std::uint64_t recv, const Header& h)
{
  auto it = recvs_.find(recv);
  if (it == recvs_.end())
    throw SimulationError(fmt::format("Portals on node {}: a message for unknown receive {}", self_, recv));
  // Portals delivers min(message, entry) bytes (mlength) and the receive completes with them; MPI fails a receive
  // shorter than its message (MPI_ERR_TRUNCATE), which no model here recovers from.
  if (h.length > it->second.bytes)
    throw SimulationError(fmt::format("Portals on node {}: a {} B message from node {} (match bits {:#x}) matched a "
                                      "{} B receive, which MPI fails as truncated (MPI_ERR_TRUNCATE): post a receive "
                                      "at least as large as the message",
                                      self_, h.length, h.source, h.match_bits, it->second.bytes));
  it->second.bytes = h.length;
}

void PortalsNi::fetch_rest(const Header& h, std::uint64_t from, std::uint64_t recv, std::int32_t ct, bool interrupt)
{
  matched(recv, h);
  if (h.length <= from) {
    // All of it came with the Put: a receive long enough for a rendezvous had its counting event and the triggered
    // Get hanging on it, which nothing fires now (PtlCTFree).
    if (ct >= 0)
      cts_.free(ct);
    return;
  }
  if (ct >= 0) { // the receive's counting event counts this delivery and fires the triggered Get: no host
    for (auto const& op : cts_.inc(ct))
      issue_get(h.source, rndv_bits(h.msg), from, h.length - from, op.user, clock_.now());
    cts_.free(ct);
    ++c_.triggered_gets;
    return;
  }
  ++c_.host_gets;
  issue_get(h.source, rndv_bits(h.msg), from, h.length - from, recv, interrupt ? interrupt_host() : clock_.now());
}

void PortalsNi::issue_get(int from, MatchBits bits, std::uint64_t offset, std::uint64_t bytes, std::uint64_t recv,
                          SimTime at)
{
  const std::uint64_t id = ++next_;
  gets_[id]              = Get{recv, {}};
  ++c_.gets;
  after(at, [this, from, bits, offset, bytes, id] {
    after(reserve(kGet, SimTime{}, 0), [this, from, bits, offset, bytes, id] {
      PortalsWire w;
      w.type            = PortalsWire::Type::GetRequest;
      w.h.source        = self_;
      w.h.match_bits    = bits;
      w.h.length        = bytes;
      w.h.remote_offset = offset;
      w.get_id          = id;
      fabric_.send(self_, from, w, {});
    });
  });
}

void PortalsNi::on_get_request(int from, const PortalsWire& w)
{
  // One-sided: the window entries on the priority list; rendezvous: the exposed send buffers.
  portals::MatchingUnit& lists = w.one_sided ? mu_ : rndv_;
  Header h                     = w.h;
  h.source                     = from;
  h.carried                    = 0;
  const std::size_t entries    = lists.size(List::Priority);
  Arrival a                    = lists.arrive(h);
  const SimTime wt             = walk(w.one_sided ? "pr" : "rndv", a.visited, entries);
  if (a.kind != Arrival::Kind::Expected)
    throw SimulationError(fmt::format("Portals on node {}: a Get from node {} (match bits {:#x}) found no exposed "
                                      "buffer",
                                      self_, from, h.match_bits));
  const SimTime end = reserve(kGet, wt, 0);
  Done sent;
  if (!w.one_sided) {
    auto it = rndv_sends_.find(a.user);
    if (it != rndv_sends_.end()) {
      sent = std::move(it->second.done);
      rndv_sends_.erase(it);
    }
  }
  after(end, [this, from, w, sent = std::move(sent)]() mutable {
    PortalsWire r;
    r.type   = PortalsWire::Type::GetReply;
    r.get_id = w.get_id;
    r.bytes  = w.h.length;
    r.h      = w.h;
    fabric_.send(self_, from, r, std::move(sent)); // the send buffer is free once read out
  });
}

void PortalsNi::on_get_reply(const PortalsWire& w)
{
  // The reply is written by the master port straight into the user buffer: a command, no copy.
  const SimTime end = reserve(kGet, SimTime{}, 0);
  after(end, [this, w] {
    auto it = gets_.find(w.get_id);
    if (it == gets_.end())
      throw SimulationError(fmt::format("Portals on node {}: a Get reply for unknown request {}", self_, w.get_id));
    Get g = std::move(it->second);
    gets_.erase(it);
    if (g.recv)
      recv_progress(g.recv, w.bytes);
    else if (g.done)
      g.done();
  });
}

void PortalsNi::ack_at(SimTime end, int to, const PortalsWire& put)
{
  if (!put.ack)
    return;
  after(end, [this, to, msg = put.h.msg] {
    PortalsWire a;
    a.type  = PortalsWire::Type::Ack;
    a.h.msg = msg;
    fabric_.send(self_, to, a, {});
  });
}

void PortalsNi::on_ack(const PortalsWire& w)
{
  // The Get subsystem takes the Ack: the exposed buffer is unlinked and the send completes.
  const SimTime end = reserve(kGet, SimTime{}, 0);
  after(end, [this, msg = w.h.msg] {
    ++c_.acks;
    rndv_.unlink_priority(msg);
    auto it = rndv_sends_.find(msg);
    if (it == rndv_sends_.end())
      throw SimulationError(fmt::format("Portals on node {}: an Ack for unknown message {:#x}", self_, msg));
    Done d = std::move(it->second.done);
    rndv_sends_.erase(it);
    if (d)
      d();
  });
}

void PortalsNi::recv_progress(std::uint64_t recv, std::uint64_t bytes)
{
  auto it = recvs_.find(recv);
  if (it == recvs_.end())
    throw SimulationError(fmt::format("Portals on node {}: data for unknown receive {}", self_, recv));
  it->second.have += bytes;
  if (it->second.have < it->second.bytes)
    return;
  Done d = std::move(it->second.done);
  recvs_.erase(it);
  if (d)
    d();
}

} // namespace nafsim::nodes
