#include "workloads/connectionless/Connectionless.hpp"

#include "nodes/fpga/FpgaCluster.hpp"
#include "workloads/CriticalPath.hpp"

#include "protocols/lant/AreaModel.hpp"
#include "simcore/engine/Rng.hpp"

#include <cmath>
#include <algorithm>
#include <fmt/format.h>

namespace nafsim::workloads {

using lant::LocalNotice;
using lant::Notify;

Connectionless::Connectionless(const ConnectionlessConfig& cfg) : cfg_(cfg) {}

std::string Connectionless::unread_reason(std::string_view key) const
{
  const std::string_view k = key_head(key);
  const bool stream        = cfg_.mode == ClMode::Stream;
  if (!stream && (k == "operations" || k == "window" || k == "pattern" || k == "poster" || k == "stream_notify"))
    return "only stream mode reads it (mode latency)";
  if (stream && (k == "src" || k == "iterations" || k == "notify" || k == "gap" || k == "background"))
    return "only latency mode reads it (mode stream)";
  if (stream && k == "dst" && cfg_.pattern == ClPattern::Random)
    return "each command draws a random peer (pattern random; dst is many-to-one's receiver)";
  if (!stream && key == "background.size" && cfg_.background.load == 0)
    return "no background load runs (background.load 0)";
  return size_bounds_unread(k, !cfg_.sizes.empty());
}

unsigned Connectionless::segments_of(std::uint64_t bytes) const
{
  auto const& lt = transport_.large_transfer;
  if (lt.threshold.count == 0 || bytes <= lt.threshold.count)
    return 1;
  return static_cast<unsigned>((bytes + lt.segment.count - 1) / lt.segment.count);
}

std::uint64_t Connectionless::wire_bytes_of(std::uint64_t bytes, const net::EthernetConfig& eth) const
{
  // Each operation (a segment of a large transfer, else the command) goes as full packets and a last partial one,
  // each framed with the transport's header (Sender::next_packet, LantNi::make).
  auto operation = [&](std::uint64_t b) {
    const std::uint64_t pp = transport_.packet_payload.count, h = transport_.header.count;
    return (b / pp) * eth.wire_bytes(h + pp) + (b % pp > 0 ? eth.wire_bytes(h + b % pp) : 0);
  };
  const std::uint64_t seg = transport_.largest_operation(bytes);
  return (bytes / seg) * operation(seg) + (bytes % seg > 0 ? operation(bytes % seg) : 0);
}

void Connectionless::start(nodes::Cluster& c)
{
  nodes::require_connectionless(c, "connectionless workload");
  transport_ = nodes::fpga_config(c.config().node).connectionless.transport;
  // The receiver forgets a completed operation completed_filter_time after it completed; a copy of one of its packets
  // that the network holds back longer registers it again (delivered twice, or a table entry never released). Faults
  // apply at the end of each cable, so a packet may be held back once per cable of its path.
  if (auto const& f = c.config().network.faults; f.reorder_rate > 0) {
    unsigned cables = 1;
    for (std::size_t a = 0; a < c.size() && a < 64; ++a)
      for (std::size_t b = 0; b < c.size(); ++b)
        cables = std::max(cables, c.fabric().routes().distance(a, b));
    const SimTime longest = SimTime::ps(f.reorder_delay.ps() * cables);
    if (longest >= transport_.completed_filter_time)
      late_copy_ = fmt::format(": a packet held back up to faults.reorder_delay ({}) at the end of each of up to {} "
                               "cable(s), {} in all, can arrive after its operation left the receiver's "
                               "completed-operation filter (completed_filter_time {}) and register it again; raise "
                               "platform.node.fpga.connectionless.transport.completed_filter_time above {}",
                               format_time(f.reorder_delay), cables, format_time(longest),
                               format_time(transport_.completed_filter_time), format_time(longest));
  }
  check_node(c, cfg_.dst, "dst");
  if (c.size() < 2)
    throw config::ConfigError("", "/platform/topology/hosts", "the connectionless workload needs at least 2 hosts");
  check_sizes();
  if (cfg_.mode == ClMode::Latency)
    start_latency(c);
  else
    start_stream(c);
}

void Connectionless::check_sizes() const
{
  if (cfg_.max_size.count < cfg_.min_size.count)
    throw config::ConfigError("", "/workload/min_size",
                              fmt::format("min_size {} is above max_size {}", format_bytes(cfg_.min_size),
                                          format_bytes(cfg_.max_size)));
  // Every size must make a command the transport accepts (at least one byte, at most kMaxCommandPackets).
  auto check_size = [&](std::uint64_t bytes, const std::string& path) {
    if (auto why = transport_.command_size_problem(bytes); !why.empty())
      throw config::ConfigError("", path, fmt::format("size {}: {}", format_bytes(Bytes{bytes}), why));
  };
  if (!cfg_.sizes.empty()) {
    for (std::size_t i = 0; i < cfg_.sizes.size(); ++i)
      check_size(cfg_.sizes[i].count, fmt::format("/workload/sizes/{}", i));
  } else {
    check_size(cfg_.min_size.count, "/workload/min_size");
    check_size(cfg_.max_size.count, "/workload/max_size");
  }
  // Receive-side notification needs every operation registered: every size within the registration range.
  if (cfg_.mode == ClMode::Stream && cfg_.stream_notify == lant::Notify::Receiver) {
    std::vector<std::uint64_t> ends;
    for (auto b : cfg_.sizes)
      ends.push_back(b.count);
    if (cfg_.sizes.empty()) {
      // A drawn size anywhere in the range: registrable_command(b) changes only at the range's ends, at the
      // segmentation threshold and the segment size, and (segmented) where b's tail segment, b mod segment, falls
      // between 1 and register_min - 1: the first such b at or after the segmented part's start is tried too
      // (the ends alone had passed a range whose drawn sizes then failed at their post, mid-run).
      const std::uint64_t lo = cfg_.min_size.count, hi = cfg_.max_size.count;
      const std::uint64_t t = transport_.large_transfer.threshold.count, seg = transport_.large_transfer.segment.count;
      std::vector<std::uint64_t> at{lo, hi};
      if (t > 0)
        for (std::uint64_t b : {t, t + 1, seg, seg + 1})
          at.push_back(b);
      if (t > 0 && seg > 0 && transport_.register_min.count > 1) {
        const std::uint64_t a = std::max({lo, t + 1, seg + 1}), r = a % seg;
        at.push_back(r >= 1 && r < transport_.register_min.count ? a : a - r + (r == 0 ? 1 : seg + 1));
      }
      for (auto b : at)
        if (b >= lo && b <= hi)
          ends.push_back(b);
    }
    for (auto b : ends) // (a segmented command's operations are its segments: each must be registrable)
      if (!transport_.registrable_command(b))
        throw config::ConfigError(
            "", "/workload/stream_notify",
            fmt::format("receiver notification registers every operation, but {}{} is outside the registration "
                        "range [{}, {}] bytes{}: use stream_notify auto or sender, other sizes, or wider bitmask_bits",
                        format_bytes(Bytes{b}),
                        transport_.largest_operation(b) < b ? " (as its segments)" : "",
                        transport_.register_min.count,
                        transport_.registration ? transport_.max_registered() : 0,
                        transport_.registration ? "" : " (registration is off)"));
  }
}

void Connectionless::start_latency(nodes::Cluster& c)
{
  Scheduler& s = c.scheduler();
  check_node(c, cfg_.src, "src");
  if (cfg_.src == cfg_.dst)
    throw config::ConfigError("", "/workload/dst", "src and dst must be different nodes");
  sizes_ = message_sizes(cfg_.sizes, cfg_.min_size, cfg_.max_size, 64);
  if (cfg_.notify.empty())
    throw config::ConfigError("", "/workload/notify", "name at least one notification kind (sender, receiver, auto)");
  bool any = false;
  for (auto bytes : sizes_)
    for (Notify kind : cfg_.notify)
      any = any || measured(bytes, kind);
  if (!any && !transport_.registration)
    throw config::ConfigError("", "/workload/notify",
                              "nothing to measure: 'receiver' notification needs registered operations, and "
                              "registration is off (platform.node.fpga.connectionless.transport.registration false): "
                              "add 'sender', or turn registration on");
  if (!any)
    throw config::ConfigError("", "/workload/notify",
                              fmt::format("nothing to measure: 'receiver' notification needs operations within the "
                                          "registration range [{}, {}] bytes (a command above "
                                          "large_transfer.threshold issues segments of large_transfer.segment); "
                                          "add 'sender', or use smaller sizes or segments",
                                          transport_.register_min.count, transport_.max_registered()));
  s.spawn("cl-src", c.at<nodes::FpgaNode>(cfg_.src).host(), [this, &c](ActorContext& ctx) { run_latency_source(ctx, c); });
  s.spawn("cl-dst", c.at<nodes::FpgaNode>(cfg_.dst).host(), [this, &c](ActorContext& ctx) { run_latency_sink(ctx, c); });
  if (cfg_.background.load > 0) {
    std::vector<std::uint32_t> bg;
    for (std::uint32_t i = 0; i < c.size(); ++i)
      if (i != cfg_.src && i != cfg_.dst)
        bg.push_back(i);
    if (bg.empty())
      throw config::ConfigError("", "/workload/background/load",
                                "background load needs nodes other than src and dst; raise topology.hosts");
    // The load counts wire bytes, as a link's load is read: at 64 B an operation's framing nearly doubles it.
    double ops_per_s = cfg_.background.load * c.config().network.link.rate.bps /
                       (8.0 * static_cast<double>(wire_bytes_of(cfg_.background.size.count, c.config().network.ethernet))) /
                       static_cast<double>(bg.size());
    for (auto n : bg)
      s.spawn(fmt::format("cl-bg-{}", n), c.at<nodes::FpgaNode>(n).host(),
              [this, &c, n, ops_per_s](ActorContext& ctx) { run_background(ctx, c, n, ops_per_s); });
    // The background's notifications at dst are read and dropped by a helper.
    s.spawn("cl-bg-sink", c.at<nodes::FpgaNode>(cfg_.dst).host(),
            [this, &c](ActorContext& ctx) {
              auto& ni = *c.at<nodes::FpgaNode>(cfg_.dst).lant();
              for (;;)
                ni.wait_receive(ctx, [this](auto const& n) { return n.src != cfg_.src; });
            },
            ActorRole::Daemon);
  }
}

void Connectionless::start_stream(nodes::Cluster& c)
{
  Scheduler& s = c.scheduler();
  // Stream: draw every command up front (seeded), then hand each sender its list.
  Rng rng(c.seed(), Rng::mix(0xC1D5, 1));
  std::vector<std::vector<std::uint64_t>> mine(c.size());
  std::vector<std::uint64_t> expected(c.size(), 0);
  std::vector<std::uint64_t> next_addr(c.size(), 0);
  std::vector<std::uint32_t> senders;
  for (std::uint32_t i = 0; i < c.size(); ++i)
    if (cfg_.pattern == ClPattern::Random || i != cfg_.dst)
      senders.push_back(i);
  draws_.reserve(cfg_.operations);
  finished_.assign(cfg_.operations, false);
  for (std::uint64_t id = 1; id <= cfg_.operations; ++id) {
    Draw o;
    o.src = senders[(id - 1) % senders.size()];
    if (cfg_.pattern == ClPattern::ManyToOne)
      o.dst = cfg_.dst;
    else {
      o.dst = static_cast<std::uint32_t>(rng.below(c.size() - 1));
      if (o.dst >= o.src)
        ++o.dst;
    }
    if (!cfg_.sizes.empty())
      o.bytes = cfg_.sizes[rng.below(cfg_.sizes.size())].count;
    else
      o.bytes = cfg_.min_size.count + rng.below(cfg_.max_size.count - cfg_.min_size.count + 1);
    // Every command has its own destination buffer: a late duplicate of an old operation can
    // then never be mistaken for new data (the checks below would see it).
    o.remote = next_addr[o.dst];
    next_addr[o.dst] += (o.bytes + 4095) / 4096 * 4096;
    expected[o.dst] += segments_of(o.bytes);
    mine[o.src].push_back(id);
    draws_.push_back(o);
  }
  for (std::uint32_t n = 0; n < c.size(); ++n) {
    if (!mine[n].empty())
      s.spawn(fmt::format("cl-send-{}", n), c.at<nodes::FpgaNode>(n).host(),
              [this, &c, n, ids = mine[n]](ActorContext& ctx) { run_stream_sender(ctx, c, n, ids); });
    if (expected[n] > 0)
      s.spawn(fmt::format("cl-recv-{}", n), c.at<nodes::FpgaNode>(n).host(),
              [this, &c, n, e = expected[n]](ActorContext& ctx) { run_stream_receiver(ctx, c, n, e); });
  }
}

void Connectionless::record_delivery(const nodes::ReceiveNotice& n, std::uint32_t at)
{
  auto it = ops_.find(n.msg);
  if (it == ops_.end() && cfg_.mode == ClMode::Stream && n.msg >= 1 && n.msg <= finished_.size() && finished_[n.msg - 1])
    throw SimulationError(fmt::format("connectionless: operation {} (node {} -> node {}) was delivered again after it "
                                      "had finished: exactly-once delivery is violated{}",
                                      n.msg, n.src, at, late_copy_));
  if (it == ops_.end() || it->second.dst != at || it->second.src != n.src)
    throw SimulationError(fmt::format("connectionless: node {} was notified of an operation nobody sent to it "
                                      "(content {}, from node {})",
                                      at, n.msg, n.src));
  Op& o = it->second;
  if (n.base < o.remote || n.base + n.bytes > o.remote + o.bytes)
    throw SimulationError(fmt::format("connectionless: operation {} notified for bytes [{}, {}) outside its buffer",
                                      n.msg, n.base - o.remote, n.base - o.remote + n.bytes));
  unsigned& count = o.delivered[n.base - o.remote];
  ++count;
  o.verified   = o.verified && n.verified;
  o.registered = n.registered;
  if (count == 1 && o.delivered.size() == o.segments_expected) {
    o.received       = n.at;
    o.received_cause = n.cause;
    ++delivered_ops_;
  }
  if (cfg_.mode == ClMode::Stream)
    finish_stream_op(it);
}

void Connectionless::run_latency_source(ActorContext& ctx, nodes::Cluster& c)
{
  source_actor_ = ctx.id();
  nodes::LantNi& ni = *c.at<nodes::FpgaNode>(cfg_.src).lant();
  std::uint64_t id = 0;
  // The notification kinds take turns within each iteration, so that a slow drift (background
  // load) affects them alike.
  for (auto bytes : sizes_) {
    for (unsigned it = 0; it < cfg_.iterations; ++it) {
      for (Notify kind : cfg_.notify) {
        if (!measured(bytes, kind))
          continue; // not registrable: measured only as unregistered
        Op& o               = ops_[++id];
        o.src               = cfg_.src;
        o.dst               = cfg_.dst;
        o.bytes             = bytes;
        o.remote            = 0;
        o.notify            = kind;
        o.iteration         = it;
        o.segments_expected = segments_of(bytes);
        o.posted            = ctx.now();
        o.received          = SimTime::max();
        ni.post(ctx, lant::Command{id, cfg_.dst, 0, 0, bytes, id, kind, 0});
        o.pushed    = ni.wait_local(ctx, id, LocalNotice::Kind::Pushed);
        o.completed = ni.wait_local(ctx, id, LocalNotice::Kind::Complete);
        ni.release(id);
        ctx.wait_until([&] { return o.received != SimTime::max(); },
                       WaitReason([&] { return fmt::format("connectionless: node {} waits for operation {} to reach node {}", cfg_.src, id,
                                   cfg_.dst); }));
        if (cfg_.gap > SimTime::zero())
          ctx.sleep_for(cfg_.gap);
      }
    }
  }
  measuring_      = false;
  measured_until_ = ctx.now();
}

void Connectionless::run_latency_sink(ActorContext& ctx, nodes::Cluster& c)
{
  nodes::LantNi& ni = *c.at<nodes::FpgaNode>(cfg_.dst).lant();
  std::uint64_t expected = 0;
  for (auto bytes : sizes_)
    for (Notify kind : cfg_.notify)
      if (measured(bytes, kind))
        expected += std::uint64_t{cfg_.iterations} * segments_of(bytes);
  for (std::uint64_t i = 0; i < expected; ++i) {
    auto n = ni.wait_receive(ctx, [this](auto const& x) { return x.src == cfg_.src; });
    record_delivery(n, cfg_.dst);
    n.at = ctx.now(); // when the program saw it
    Op& o = ops_.at(n.msg);
    if (o.received != SimTime::max()) {
      o.received       = ctx.now();
      o.received_cause = ctx.scheduler().cause_mark();
      ctx.scheduler().wake(source_actor_);
    }
  }
}

void Connectionless::run_background(ActorContext& ctx, nodes::Cluster& c, std::uint32_t node, double ops_per_s)
{
  nodes::LantNi& ni = *c.at<nodes::FpgaNode>(node).lant();
  Rng rng(c.seed(), Rng::mix(0xB6, node));
  std::uint64_t id = 0;
  while (measuring_) {
    double gap_s = -std::log(1.0 - rng.uniform()) / ops_per_s;
    ctx.sleep_for(SimTime::from_seconds(gap_s));
    if (!measuring_)
      break;
    // Fire and forget from an accelerator queue; a full queue skips the arrival (counted below). Each operation
    // writes a range of its own at the receiver (per sender, a ring of 4,096, far more than its queues hold at
    // once): sharing one address, the operations in flight together, from one sender or several, overwrote each
    // other's data, which failed their checks unsaid.
    ++id;
    const std::uint64_t span = ((cfg_.background.size.count + 4095) / 4096) * 4096;
    const std::uint64_t slot = span * (std::uint64_t{node} * 4096 + id % 4096);
    if (ni.try_post(lant::Command{(std::uint64_t{1} << 62) | id, cfg_.dst, 0, (std::uint64_t{1} << 40) + slot,
                                  cfg_.background.size.count, (std::uint64_t{1} << 62) | id, Notify::Auto, 1}))
      ++background_ops_;
    else
      ++background_skipped_;
    ni.release((std::uint64_t{1} << 62) | id);
  }
}

void Connectionless::run_stream_sender(ActorContext& ctx, nodes::Cluster& c, std::uint32_t node,
                                       std::vector<std::uint64_t> ids)
{
  nodes::LantNi& ni = *c.at<nodes::FpgaNode>(node).lant();
  std::deque<std::uint64_t> outstanding;
  auto retire = [&] {
    std::uint64_t front = outstanding.front();
    outstanding.pop_front();
    auto it          = ops_.find(front);
    it->second.completed = ni.wait_local(ctx, front, LocalNotice::Kind::Complete);
    it->second.done      = true;
    ni.release(front);
    finish_stream_op(it);
  };
  for (std::uint64_t id : ids) {
    while (outstanding.size() >= cfg_.window)
      retire();
    const Draw& d       = draws_[id - 1];
    Op& o               = ops_[id];
    o.src               = d.src;
    o.dst               = d.dst;
    o.bytes             = d.bytes;
    o.remote            = d.remote;
    o.notify            = cfg_.stream_notify;
    o.segments_expected = segments_of(d.bytes);
    o.posted            = ctx.now();
    first_post_      = std::min(first_post_, o.posted);
    lant::Command cmd{id, o.dst, std::uint64_t{id} << 20, o.remote, o.bytes, id, o.notify, 0};
    if (cfg_.poster == ClPoster::Cpu) {
      ni.post(ctx, cmd);
    } else {
      cmd.queue = 1;
      while (!ni.try_post(cmd))
        retire(); // the accelerator's queue is full: wait for the oldest command
    }
    outstanding.push_back(id);
  }
  while (!outstanding.empty())
    retire();
}

void Connectionless::run_stream_receiver(ActorContext& ctx, nodes::Cluster& c, std::uint32_t node,
                                         std::uint64_t expected)
{
  nodes::LantNi& ni = *c.at<nodes::FpgaNode>(node).lant();
  for (std::uint64_t i = 0; i < expected; ++i) {
    auto n = ni.wait_receive(ctx);
    record_delivery(n, node);
    last_delivery_ = std::max(last_delivery_, ctx.now());
  }
}

namespace {
std::string registered_name(bool r) { return r ? "registered" : "unregistered"; }
} // namespace

std::string Connectionless::op_problem(const Op& o)
{
  std::string why;
  if (o.delivered.size() != o.segments_expected)
    why = fmt::format("{} of {} segments delivered", o.delivered.size(), o.segments_expected);
  for (auto const& [base, n] : o.delivered)
    if (n != 1)
      why = fmt::format("segment at +{} delivered {} times", base, n);
  if (!o.verified)
    why = "a packet slot of its buffer holds other data";
  return why;
}

void Connectionless::finish_stream_op(std::map<std::uint64_t, Op>::iterator it)
{
  const Op& o = it->second;
  if (!o.done || o.delivered.size() != o.segments_expected)
    return; // still in flight
  if (auto why = op_problem(o); !why.empty() && stream_bad_count_++ < 5)
    stream_bad_.push_back(fmt::format("operation {} ({} B, node {} -> {}): {}", it->first, o.bytes, o.src, o.dst, why));
  stream_bytes_ += o.bytes;
  stream_registered_ += o.registered;
  finished_[it->first - 1] = true;
  ops_.erase(it);
}

void Connectionless::report(const nodes::Cluster& c, results::ResultSink& sink, std::vector<std::string>& summary) const
{
  check_delivered(c);
  auto const& tc = transport_;
  auto area      = lant::registration_area(tc.registration_entries, tc.bitmask_bits, tc.escape_packets,
                                           tc.packet_payload.count);
  if (!tc.registration)
    summary.push_back("registration module: off (every operation is notified by its sender)");
  else
    summary.push_back(fmt::format(
      "registration module: {} entries x {} bits (registers up to {}): ~{:.0f} LUTs ({:.2f} %), ~{:.1f} BRAM36 "
      "({:.2f} %) of a ZCU102 [model fitted to Lant et al. Table 1{}]",
      tc.registration_entries, tc.bitmask_bits, format_bytes(Bytes{tc.max_registered()}), area.luts,
      area.lut_percent(), area.brams, area.bram_percent(), area.measured_range ? "" : "; OUTSIDE its measured range"));

  if (cfg_.mode == ClMode::Latency)
    report_latency(c, sink, summary);
  else
    report_stream(c, area, sink, summary);
}

void Connectionless::check_delivered(const nodes::Cluster& c) const
{
  // Every operation delivered exactly once, with its own data in every packet slot.
  std::vector<std::string> bad = stream_bad_;
  if (cfg_.mode == ClMode::Stream)
    if (auto posted = static_cast<std::uint64_t>(std::count(finished_.begin(), finished_.end(), true)) + ops_.size();
        posted < draws_.size())
      bad.push_back(fmt::format("{} of {} operations were never posted", draws_.size() - posted, draws_.size()));
  for (auto const& [id, o] : ops_) {
    std::string why = op_problem(o);
    if (!why.empty() && bad.size() < 5)
      bad.push_back(fmt::format("operation {} ({} B, node {} -> {}): {}", id, o.bytes, o.src, o.dst, why));
  }
  // Every delivery's data checked at its receiver, the background load's too.
  for (std::uint32_t n = 0; n < c.size() && bad.size() < 5; ++n)
    if (auto f = c.at<nodes::FpgaNode>(n).lant()->counters().verification_failures; f > 0)
      bad.push_back(fmt::format("{} deliveries at node {} failed their data check", f, n));
  if (!bad.empty())
    throw SimulationError("connectionless: not every operation was delivered exactly once: " + fmt::format("{}", fmt::join(bad, "; ")));
  if (cfg_.background.load == 0 || cfg_.mode == ClMode::Stream) // (the background load runs in latency mode only)
    for (std::uint32_t n = 0; n < c.size(); ++n)
      if (auto l = c.at<nodes::FpgaNode>(n).lant()->leaks(); !l.empty())
        throw SimulationError(fmt::format("connectionless: node {} ends the run holding {}{}", n, l, late_copy_));
}

void Connectionless::report_latency(const nodes::Cluster& c, results::ResultSink& sink,
                                    std::vector<std::string>& summary) const
{
  unsigned hops = c.fabric().routes().distance(cfg_.src, cfg_.dst);
  // The background load posted: the wire bytes of the operations the senders took over the measured time, against
  // dst's link rate (the offered load less the arrivals that found a command queue full, and the Poisson draw).
  const double posted =
      cfg_.background.load > 0 && measured_until_ > SimTime::zero()
          ? static_cast<double>(background_ops_) *
                static_cast<double>(wire_bytes_of(cfg_.background.size.count, c.config().network.ethernet)) * 8.0 /
                (c.config().network.link.rate.bps * measured_until_.seconds())
          : 0.0;
  results::Table t("connectionless", {"workload", "mode", "notify", "src", "dst", "hops", "background_load",
                                      "background_posted", "bytes", "iteration", "send_us", "recv_us", "complete_us"});
  std::map<std::pair<std::uint64_t, bool>, std::pair<double, unsigned>> mean;
  for (auto const& [id, o] : ops_) {
    t.row()
        .add("connectionless")
        .add("latency")
        .add(registered_name(o.registered))
        .add(o.src)
        .add(o.dst)
        .add(hops)
        .add(cfg_.background.load, 3)
        .add(posted, 3)
        .add(o.bytes)
        .add(o.iteration)
        .add((o.pushed - o.posted).us(), 4)
        .add((o.received - o.posted).us(), 4)
        .add((o.completed - o.posted).us(), 4);
    auto& m = mean[{o.bytes, o.registered}];
    m.first += (o.received - o.posted).us();
    ++m.second;
  }
  sink.add(std::move(t));
  summary.push_back(fmt::format("receive latency, node {} -> node {} ({} cable(s){}), mean over iterations:", cfg_.src, cfg_.dst, hops,
                                cfg_.background.load > 0
                                    ? fmt::format(", background load {:.0f} % offered, {:.1f} % posted: {} operations of {}",
                                                  100 * cfg_.background.load, 100 * posted, background_ops_,
                                                  format_bytes(cfg_.background.size))
                                    : ""));
  if (background_skipped_ > 0)
    summary.push_back(fmt::format(
        "  background: {} arrivals found their sender's command queue full ({} commands) and were not posted: the "
        "load posted is below the one offered (a larger background.size carries the load in fewer commands)",
        background_skipped_, transport_.command_queue_depth));
  for (auto b : sizes_) {
    auto u = mean.find({b, false});
    auto r = mean.find({b, true});
    std::string line = fmt::format("  {:>9}:", format_bytes(Bytes{b}));
    double um = u != mean.end() ? u->second.first / u->second.second : 0;
    double rm = r != mean.end() ? r->second.first / r->second.second : 0;
    if (u != mean.end())
      line += fmt::format(" unregistered {:8.3f} us", um);
    if (r != mean.end())
      line += fmt::format("  registered {:8.3f} us", rm);
    if (u != mean.end() && r != mean.end())
      line += fmt::format("  gain {:5.1f} %", 100 * (um - rm) / um);
    summary.push_back(line);
  }
  report_critical_paths(c, sink, summary);
}

namespace {
// The connectionless transport's counters summed over the cluster's nodes.
std::pair<lant::SenderCounters, lant::ReceiverCounters> summed_counters(const nodes::Cluster& c)
{
  lant::SenderCounters st{};
  lant::ReceiverCounters rt{};
  for (std::uint32_t n = 0; n < c.size(); ++n) {
    auto const& ni = *c.at<nodes::FpgaNode>(n).lant();
    auto const& s  = ni.sender().counters();
    auto const& r  = ni.receiver().counters();
    st.packets_sent += s.packets_sent;
    st.retransmitted += s.retransmitted;
    st.retransmit_requests += s.retransmit_requests;
    st.retransmit_on_timeout += s.retransmit_on_timeout;
    st.retransmit_on_nack += s.retransmit_on_nack;
    st.retransmissions_cancelled += s.retransmissions_cancelled;
    st.timeouts += s.timeouts;
    st.nacks_received += s.nacks_received;
    st.op_table_stalls += s.op_table_stalls;
    st.op_table_stall_time = st.op_table_stall_time + s.op_table_stall_time;
    st.transaction_table_stalls += s.transaction_table_stalls;
    st.transaction_table_stall_time = st.transaction_table_stall_time + s.transaction_table_stall_time;
    rt.registration_full_drops += r.registration_full_drops;
    rt.escape_timeouts += r.escape_timeouts;
    rt.escape_overflow_drops += r.escape_overflow_drops;
    rt.duplicates_dropped += r.duplicates_dropped;
    rt.escaped += r.escaped;
    rt.not_ready_drops += r.not_ready_drops;
  }
  return {st, rt};
}
} // namespace

void Connectionless::report_stream(const nodes::Cluster& c, const lant::AreaEstimate& area, results::ResultSink& sink,
                                   std::vector<std::string>& summary) const
{
  auto const& tc = transport_;
  auto [st, rt]  = summed_counters(c);

  std::uint64_t bytes = stream_bytes_, registered = stream_registered_;
  for (auto const& [id, o] : ops_) { // none when every operation finished (the check above)
    bytes += o.bytes;
    registered += o.registered;
  }
  double dur_us = last_delivery_ > first_post_ ? (last_delivery_ - first_post_).us() : 0;
  double gbps   = dur_us > 0 ? static_cast<double>(bytes) * 8 / (dur_us * 1e3) : 0;
  auto ft       = c.fabric().totals();
  results::Table t("connectionless",
                   {"workload", "mode", "pattern", "poster", "nodes", "operations", "bytes", "registered_ops",
                    "duration_us", "throughput_gbps", "registration_entries", "bitmask_bits", "op_table_entries",
                    "transaction_table_entries", "op_table_stalls", "op_table_stall_us", "transaction_table_stalls",
                    "transaction_table_stall_us", "packets_sent", "retransmitted", "timeouts", "nacks",
                    "registration_full_drops", "escaped", "escape_timeouts", "escape_overflow_drops",
                    "duplicates_dropped", "network_lost", "network_duplicated", "network_held_back", "luts",
                    "brams", "verified"});
  t.row()
      .add("connectionless")
      .add("stream")
      .add(config::enum_name(cfg_.pattern))
      .add(config::enum_name(cfg_.poster))
      .add(static_cast<std::uint64_t>(c.size()))
      .add(static_cast<std::uint64_t>(draws_.size()))
      .add(bytes)
      .add(registered)
      .add(dur_us, 3)
      .add(gbps, 3)
      // (with registration off no registration module is built: its size and area are '-', as the settings are unread)
      .add(tc.registration ? std::to_string(tc.registration_entries) : std::string("-"))
      .add(tc.registration ? std::to_string(tc.bitmask_bits) : std::string("-"))
      .add(tc.op_table_entries)
      .add(tc.transaction_table_entries)
      .add(st.op_table_stalls)
      .add(st.op_table_stall_time.us(), 3)
      .add(st.transaction_table_stalls)
      .add(st.transaction_table_stall_time.us(), 3)
      .add(st.packets_sent)
      .add(st.retransmitted)
      .add(st.timeouts)
      .add(st.nacks_received)
      .add(rt.registration_full_drops)
      .add(rt.escaped)
      .add(rt.escape_timeouts)
      .add(rt.escape_overflow_drops)
      .add(rt.duplicates_dropped)
      .add(ft.fault_drops + ft.queue_drops)
      .add(ft.duplicates)
      .add(ft.held_back)
      .add(tc.registration ? fmt::format("{:.0f}", area.luts) : std::string("-"))
      .add(tc.registration ? fmt::format("{:.1f}", area.brams) : std::string("-"))
      .add("yes");
  sink.add(std::move(t));
  summary.push_back(fmt::format(
      "stream: {} operations ({}, {} registered) delivered exactly once in {:.3f} us: {:.3f} Gb/s", draws_.size(),
      format_bytes(Bytes{bytes}), registered, dur_us, gbps));
  summary.push_back(fmt::format(
      "  retransmitted {} ({} asked: {} on a timeout, {} on a NACK; {} acknowledged before they left); table stalls: op "
      "{} ({:.3f} us), transaction {} ({:.3f} us); registration-full drops {}; escape channel: {} in, {} timed out, {} "
      "overflowed; duplicates dropped {}",
      st.retransmitted, st.retransmit_requests, st.retransmit_on_timeout, st.retransmit_on_nack,
      st.retransmissions_cancelled, st.op_table_stalls, st.op_table_stall_time.us(),
      st.transaction_table_stalls, st.transaction_table_stall_time.us(), rt.registration_full_drops, rt.escaped,
      rt.escape_timeouts, rt.escape_overflow_drops, rt.duplicates_dropped));
  // Escape-channel timeouts on a network that lost and duplicated nothing and receivers that refused no first
  // packet: the first packets came, later than the channel waits for them (section 3.3's "severely delayed"), and
  // every one of those packets was sent again after the packet timeout.
  if (rt.escape_timeouts > 0 && ft.fault_drops + ft.queue_drops + ft.corrupted + ft.duplicates == 0 &&
      rt.registration_full_drops + rt.not_ready_drops == 0)
    summary.push_back(fmt::format(
        "  the network lost no packet, yet {} packet(s) timed out in the escape channel: their operations' first "
        "packets came more than its {} after them (queues, other paths) and they were sent again after the {} packet "
        "timeout; raise platform.node.fpga.connectionless.transport.escape_timeout where the fabric delays packets "
        "that long",
        rt.escape_timeouts, format_time(tc.escape_timeout), format_time(tc.packet_timeout)));
}

void Connectionless::report_critical_paths(const nodes::Cluster& c, results::ResultSink& sink,
                                           std::vector<std::string>& summary) const
{
  const CausalGraph* g = c.scheduler().causes();
  if (!g || cfg_.mode != ClMode::Latency)
    return;
  // Places: "rank 0" is the source, "rank 1" the destination.
  CriticalPathGroups paths(*g, {"notify", "bytes", "iteration"},
                           [this](std::uint32_t h) { return h == cfg_.src ? 0 : h == cfg_.dst ? 1 : -1; });
  for (auto const& [id, o] : ops_) {
    // Summarized unregistered first, then registered, each by size.
    const char* notify = o.registered ? "registered" : "unregistered";
    paths.add((std::uint64_t{o.registered} << 63) | o.bytes,
              fmt::format("{:>9} {:>12}", format_bytes(Bytes{o.bytes}), notify),
              {notify, std::to_string(o.bytes), std::to_string(o.iteration)}, o.received_cause, o.posted, o.received);
  }
  paths.write(sink);
  summary.push_back("critical path of each size's median operation, post to delivery (critical_path.csv has every "
                    "one's; rank 0: the source, rank 1: the destination):");
  paths.each_median([&](const std::string& size, const CriticalPath& median) {
    summary.push_back(fmt::format("  {}: {}", size, median.summary()));
    summary.push_back(fmt::format("  {:>22}  {}", "", median.bottleneck(*g, paths.rank_of())));
  });
}

} // namespace nafsim::workloads
