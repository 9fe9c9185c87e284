#include "workloads/portals/UnexpectedQueue.hpp"

#include "nodes/pac/PortalsSection.hpp"
#include "nodes/platform/Cluster.hpp"
#include "protocols/portals/Matching.hpp"
#include "simcore/config/ConfigError.hpp"

#include <fmt/format.h>

namespace nafsim::workloads {

std::string UnexpectedQueue::unread_reason(std::string_view key) const
{
  const std::string_view k = key_head(key);
  return (k == "min_messages" || k == "max_messages") && !cfg_.messages.empty()
             ? "workload.messages lists the queue lengths (min_messages and max_messages make the list only when "
               "messages is empty)"
             : std::string();
}

UnexpectedQueue::UnexpectedQueue(const UnexpectedQueueConfig& cfg) : cfg_(cfg)
{
  if (!cfg_.messages.empty()) {
    lengths_ = cfg_.messages;
    for (std::size_t i = 0; i < lengths_.size(); ++i)
      if (lengths_[i] == 0 || lengths_[i] > (1u << 20))
        throw config::ConfigError("", fmt::format("/workload/messages/{}", i),
                                  "a queue length runs from 1 to 1048576 messages");
  } else {
    if (cfg_.min_messages > cfg_.max_messages)
      throw config::ConfigError("", "/workload/min_messages", "min_messages is above max_messages: swap them");
    for (std::uint64_t n = cfg_.min_messages; n <= cfg_.max_messages; n *= 2)
      lengths_.push_back(n);
  }
}

void UnexpectedQueue::start(nodes::Cluster& c)
{
  if (c.size() < 2)
    throw config::ConfigError("", "/platform/topology/hosts",
                              "the unexpected-queue benchmark needs node 0 and at least one sender: give 2 or more "
                              "hosts");
  if (auto why = nodes::portals_config(c.config().node).engine_problem(); !why.empty())
    throw config::ConfigError("", "/platform/node/portals/engine", why);
  const auto senders = static_cast<unsigned>(c.size() - 1);
  c.scheduler().spawn("portals-uq", c.kernel_host(), [this, &c, senders](ActorContext& ctx) {
    run(ctx, nodes::portals_config(c.config().node), senders);
  });
}

void UnexpectedQueue::run(ActorContext& ctx, const nodes::PortalsConfig& pc, unsigned senders)
{
  using namespace portals;
  for (std::uint64_t L : lengths_) {
    nodes::PortalsProcessor cpu(pc.of(pc.engine));
    MatchingConfig mc;
    mc.entries = static_cast<unsigned>(L + senders + 1); // the benchmark's lists live in cached memory
    mc.hashing = pc.hashing;
    mc.buckets = pc.buckets;
    MatchingUnit mu(mc);
    for (unsigned s = 1; s <= senders; ++s) { // one overflow buffer per initiator (PAC 3.2.4)
      MatchEntry of;
      of.source       = static_cast<ProcessId>(s);
      of.ignore_bits  = ~MatchBits{0};
      of.length       = (L / senders + 1) * std::max<std::uint64_t>(cfg_.payload.count, 1);
      of.use_once     = false;
      of.manage_local = true;
      of.user         = s;
      mu.append_overflow(of);
    }
    Record r;
    r.messages         = L;
    const SimTime from = ctx.now();
    // Every message arrives before any receive: tags descending, senders in turn.
    for (std::uint64_t i = 0; i < L; ++i) {
      Header h;
      h.source     = static_cast<ProcessId>(1 + i % senders);
      h.match_bits = L - 1 - i;
      h.length = h.carried = cfg_.payload.count;
      h.msg                = i;
      Arrival a            = mu.arrive(h);
      if (a.kind != Arrival::Kind::Unexpected)
        throw SimulationError(fmt::format("portals_uq: message {} of {} was not queued as unexpected: {}", i, L,
                                          a.why.empty() ? "it matched a receive" : a.why));
      r.visited += a.visited;
      ctx.sleep_for(cpu.command("of", a.visited, mu.size(List::Overflow), pc.hashing));
      cpu.touch("um", mu.size(List::Unexpected));
    }
    r.arrivals          = ctx.now() - from;
    const SimTime begin = ctx.now();
    // The receives, tags ascending: each finds its message at the tail of the unexpected list.
    for (std::uint64_t t = 0; t < L; ++t) {
      MatchEntry me;
      me.source         = static_cast<ProcessId>(1 + (L - 1 - t) % senders);
      me.match_bits     = t;
      me.user           = t;
      const auto before = mu.size(List::Unexpected);
      Append a          = mu.append_priority(me);
      if (!a.found_unexpected || a.header.match_bits != t)
        throw SimulationError(fmt::format("portals_uq: the receive for tag {} of {} found no message", t, L));
      r.visited += a.visited;
      ctx.sleep_for(cpu.command("um", a.visited, before, pc.hashing));
    }
    r.receives = ctx.now() - begin;
    r.missed   = cpu.missed();
    records_.push_back(r);
  }
}

void UnexpectedQueue::report(const nodes::Cluster& c, results::ResultSink& sink,
                             std::vector<std::string>& summary) const
{
  auto const& pc = nodes::portals_config(c.config().node);
  results::Table t("portals_uq", {"engine", "hashing", "senders", "messages", "total_us", "arrivals_us", "receives_us",
                                  "per_message_us", "visited", "missed"});
  for (auto const& r : records_) {
    const double total = (r.arrivals + r.receives).us();
    t.row()
        .add(config::enum_name(pc.engine))
        .add(pc.hashing ? "yes" : "no")
        .add(c.size() - 1)
        .add(r.messages)
        .add(total, 4)
        .add(r.arrivals.us(), 4)
        .add(r.receives.us(), 4)
        .add(total / static_cast<double>(r.messages), 5)
        .add(r.visited)
        .add(r.missed);
    summary.push_back(fmt::format("{} messages on {}{}: {:.3f} us ({:.4f} us per message, {} entries visited)",
                                  r.messages, config::enum_name(pc.engine), pc.hashing ? " with hashing" : "", total,
                                  total / static_cast<double>(r.messages), r.visited));
  }
  sink.add(std::move(t));
}

} // namespace nafsim::workloads
