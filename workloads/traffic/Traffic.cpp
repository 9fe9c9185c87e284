#include "workloads/traffic/Traffic.hpp"

#include "nodes/fpga/FpgaCluster.hpp"
#include "simcore/config/ConfigError.hpp"
#include "simcore/engine/Rng.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <numeric>

namespace nafsim::workloads {

std::string Traffic::unread_reason(std::string_view key) const
{
  return key_head(key) == "window" && cfg_.window >= cfg_.messages
             ? "every message is in flight at once (window >= messages)"
             : std::string();
}

void Traffic::start(nodes::Cluster& c)
{
  nodes::require_roce(c, "traffic workload");
  const std::size_t n = c.size();
  if (n < 2)
    throw config::ConfigError("", "/platform/topology/hosts", "the traffic workload needs at least 2 hosts");
  if (cfg_.message.count > roce::kMaxMessage)
    throw config::ConfigError("", "/workload/message",
                              fmt::format("a message of {} is above RoCE's largest, 2 GiB (InfiniBand's 2^31 B): "
                                          "send more messages of at most 2GiB (workload.messages)",
                                          format_bytes(cfg_.message)));
  nodes_.assign(n, {});
  std::vector<std::size_t> partner(n);
  switch (cfg_.pattern) {
    case TrafficPattern::Shift:
      for (std::size_t i = 0; i < n; ++i)
        partner[i] = (i + n / 2) % n;
      break;
    case TrafficPattern::Neighbor:
      for (std::size_t i = 0; i < n; ++i)
        partner[i] = (i + 1) % n;
      break;
    case TrafficPattern::Incast: // every node converges on node 0, whose own messages go to node 1
      for (std::size_t i = 0; i < n; ++i)
        partner[i] = i == 0 ? 1 : 0;
      break;
    case TrafficPattern::RandomPermutation: {
      // A random derangement (nobody sends to itself), from its own stream of the run seed.
      Rng rng(c.seed(), 0x7EAFF1C);
      std::vector<std::size_t> p(n);
      std::iota(p.begin(), p.end(), 0);
      do {
        for (std::size_t i = n - 1; i > 0; --i)
          std::swap(p[i], p[rng.below(i + 1)]);
      } while (std::any_of(p.begin(), p.end(), [&, i = std::size_t{0}](std::size_t v) mutable { return v == i++; }));
      partner = p;
      break;
    }
  }
  std::vector<unsigned> incoming(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    nodes_[i].partner = partner[i];
    ++incoming[partner[i]];
  }
  for (std::size_t i = 0; i < n; ++i) {
    c.scheduler().spawn(fmt::format("traffic-{}", i), c.at<nodes::FpgaNode>(i).host(), [this, &c, i](ActorContext& ctx) {
      nodes::FpgaNode& node = c.at<nodes::FpgaNode>(i);
      nodes::QpId qp        = c.qp(i, nodes_[i].partner);
      nodes_[i].started     = ctx.now();
      unsigned posted = 0, done = 0;
      while (done < cfg_.messages) {
        while (posted < cfg_.messages && posted - done < cfg_.window) {
          std::uint64_t id = (std::uint64_t{i} << 32) | posted;
          node.poe().post_send(qp, roce::WorkRequest{id, roce::Verb::Write, 0, 0, cfg_.message.count, id});
          ++posted;
        }
        std::uint64_t id = (std::uint64_t{i} << 32) | done;
        auto comp        = node.wait_completion(ctx, id);
        if (comp.status != roce::Status::Success)
          throw SimulationError(fmt::format("traffic: node {} -> {}: {}", i, nodes_[i].partner,
                                            roce::describe_failure(comp)));
        ++done;
      }
      nodes_[i].finished = ctx.now();
    });
    if (incoming[i] > 0)
      c.scheduler().spawn(fmt::format("traffic-rx-{}", i), c.at<nodes::FpgaNode>(i).host(),
                          [this, &c, i, expect = incoming[i] * cfg_.messages](ActorContext& ctx) {
                            for (unsigned k = 0; k < expect; ++k) {
                              auto m = c.at<nodes::FpgaNode>(i).wait_inbound(ctx);
                              if (m.bytes != cfg_.message.count ||
                                  m.checksum != roce::range_checksum(m.msg, 0, m.bytes))
                                throw SimulationError(fmt::format("traffic: node {} received a damaged message", i));
                              ++nodes_[i].received;
                            }
                          });
  }
}

void Traffic::report(const nodes::Cluster& c, results::ResultSink& sink, std::vector<std::string>& summary) const
{
  results::Table t("traffic", {"node", "partner", "hops", "bytes_sent", "bytes_received", "time_us", "throughput_gbps"});
  double total = 0;
  SimTime last;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    auto const& r = nodes_[i];
    double us     = (r.finished - r.started).us();
    double bytes  = static_cast<double>(cfg_.message.count) * cfg_.messages;
    double gbps   = us > 0 ? bytes * 8 / (us * 1e3) : 0;
    total += gbps;
    last = std::max(last, r.finished);
    t.row()
        .add(i)
        .add(r.partner)
        .add(c.fabric().routes().distance(i, r.partner))
        .add(static_cast<std::uint64_t>(bytes))
        .add(r.received * cfg_.message.count)
        .add(us, 3)
        .add(gbps, 3);
  }
  sink.add(std::move(t));
  summary.push_back(fmt::format("traffic: {} nodes, pattern {}, {} x {} per node, window {}", nodes_.size(),
                                config::enum_name(cfg_.pattern), cfg_.messages, format_bytes(cfg_.message),
                                cfg_.window));
  // The RoCE engine keeps at most max_outstanding work requests of a queue pair in flight and holds the rest posted
  // (Coyote's RDMA_N_WR_OUTSTANDING): a wider window changes nothing beyond it.
  const unsigned outstanding = nodes::fpga_config(c.config().node).rdma.max_outstanding;
  if (cfg_.window > outstanding && cfg_.messages > outstanding)
    summary.push_back(fmt::format("  note: window {} is wider than the {} messages a queue pair keeps in flight "
                                  "(platform.node.fpga.rdma.max_outstanding): the rest wait posted; raise it for a "
                                  "wider window",
                                  cfg_.window, outstanding));
  // The mean of the nodes' own rates (each node's bytes over its own time) rewards unfairness: under an incast the
  // early finishers' rates add up beyond the shared link. The aggregate (all bytes over the time to the last
  // completion) is what the network delivered.
  SimTime first = SimTime::max();
  for (auto const& r : nodes_)
    first = std::min(first, r.started);
  const double all_bytes = static_cast<double>(cfg_.message.count) * cfg_.messages * static_cast<double>(nodes_.size());
  const double span_us   = nodes_.empty() ? 0 : (last - first).us();
  summary.push_back(fmt::format("  aggregate {:.3f} Gbit/s (all bytes over the time to the last completion); mean "
                                "per-node throughput {:.3f} Gbit/s (each node's bytes over its own time); all done at {}",
                                span_us > 0 ? all_bytes * 8 / (span_us * 1e3) : 0.0, total / nodes_.size(),
                                format_time(last)));
  // An incast's own goodput: the aggregate also counts node 0's messages to node 1, on another port, and came out
  // above what node 0's port can deliver (99.4 Gbit/s of payload through a 100 Gb/s port that carries 98.0).
  if (cfg_.pattern == TrafficPattern::Incast && nodes_.size() > 2) {
    SimTime in_last;
    for (std::size_t i = 1; i < nodes_.size(); ++i)
      in_last = std::max(in_last, nodes_[i].finished);
    const double in_bytes = static_cast<double>(nodes_[0].received * cfg_.message.count);
    const double in_us    = (in_last - first).us();
    summary.push_back(fmt::format("  into node 0: {:.3f} Gbit/s ({} from {} nodes over the time to their last "
                                  "completion; the aggregate also counts node 0's own messages to node 1)",
                                  in_us > 0 ? in_bytes * 8 / (in_us * 1e3) : 0.0,
                                  format_bytes(Bytes{static_cast<std::uint64_t>(in_bytes)}), nodes_.size() - 1));
  }
}

} // namespace nafsim::workloads
