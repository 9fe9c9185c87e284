#include "workloads/sendrecv/SendRecv.hpp"

#include "nodes/fpga/FpgaCluster.hpp"
#include "workloads/CriticalPath.hpp"

#include "simcore/config/ConfigError.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace nafsim::workloads {

using roce::Verb;

std::string SendRecv::unread_reason(std::string_view key) const
{
  return size_bounds_unread(key_head(key), !cfg_.sizes.empty());
}

SendRecv::SendRecv(const SendRecvConfig& cfg)
    : cfg_(cfg), sizes_(message_sizes(cfg.sizes, cfg.min_size, cfg.max_size, 1))
{
}

void SendRecv::start(nodes::Cluster& c)
{
  nodes::require_roce(c, "sendrecv workload");
  check_node(c, cfg_.src, "src");
  check_node(c, cfg_.dst, "dst");
  if (cfg_.src == cfg_.dst)
    throw config::ConfigError("", "/workload/dst", "src and dst must be different nodes");
  for (std::size_t i = 0; i < sizes_.size(); ++i)
    if (sizes_[i] > roce::kMaxMessage)
      throw config::ConfigError("", cfg_.sizes.empty() ? std::string("/workload/max_size") : size_path(cfg_.sizes, i),
                                fmt::format("a message of {} is above RoCE's largest, 2 GiB (InfiniBand's 2^31 B): "
                                            "give sizes of at most 2GiB",
                                            format_bytes(Bytes{sizes_[i]})));
  c.scheduler().spawn("sendrecv-src", c.at<nodes::FpgaNode>(cfg_.src).host(), [this, &c](ActorContext& ctx) { run_source(ctx, c); });
  if (cfg_.op != Verb::Read)
    c.scheduler().spawn("sendrecv-dst", c.at<nodes::FpgaNode>(cfg_.dst).host(),
                        [this, &c](ActorContext& ctx) { run_destination(ctx, c); });
}

void SendRecv::run_source(ActorContext& ctx, nodes::Cluster& c)
{
  nodes::FpgaNode& node = c.at<nodes::FpgaNode>(cfg_.src);
  nodes::QpId qp        = c.qp(cfg_.src, cfg_.dst);
  std::uint64_t msg     = 0;
  for (auto bytes : sizes_) {
    for (unsigned it = 0; it < cfg_.iterations; ++it) {
      ++msg;
      Record& r   = records_[msg];
      r.bytes     = bytes;
      r.iteration = it;
      auto before = node.poe().counters();
      r.posted    = ctx.now();
      // Buffers: both sides use address 0 of their device memory (contents are simulated).
      node.poe().post_send(qp, roce::WorkRequest{msg, cfg_.op, 0, 0, bytes, msg});
      roce::Completion done = node.wait_completion(ctx, msg);
      if (done.status != roce::Status::Success)
        throw SimulationError(fmt::format("sendrecv: {} of {} from node {} to node {} failed: {}",
                                          config::enum_name(cfg_.op), format_bytes(Bytes{bytes}), cfg_.src, cfg_.dst,
                                          roce::describe_failure(done)));
      r.completed = ctx.now();
      if (cfg_.op == Verb::Read) { // the data landed in src's memory when the READ completed
        r.landed       = r.completed;
        r.landed_cause = ctx.scheduler().cause_mark();
        r.arrived      = true;
      }
      auto after      = node.poe().counters();
      r.requests_sent = after.requests_sent - before.requests_sent;
      r.retransmitted = after.retransmitted - before.retransmitted;
      if (cfg_.gap > SimTime::zero())
        ctx.sleep_for(cfg_.gap);
    }
  }
}

void SendRecv::run_destination(ActorContext& ctx, nodes::Cluster& c)
{
  nodes::FpgaNode& node = c.at<nodes::FpgaNode>(cfg_.dst);
  nodes::QpId qp        = c.qp(cfg_.dst, cfg_.src);
  std::size_t expected  = sizes_.size() * cfg_.iterations;
  if (cfg_.op == Verb::Send)
    for (std::size_t i = 0; i < expected; ++i)
      node.poe().post_recv(qp, roce::RecvRequest{1000000 + i, 0, sizes_.back()});
  for (std::size_t i = 0; i < expected; ++i) {
    roce::InboundMessage m = node.wait_inbound(ctx);
    auto it                = records_.find(m.msg);
    if (it == records_.end())
      throw SimulationError(fmt::format("sendrecv: node {} received unknown message {}", cfg_.dst, m.msg));
    Record& r = it->second;
    if (r.arrived)
      throw SimulationError(fmt::format("sendrecv: message {} was delivered twice", m.msg));
    if (m.bytes != r.bytes || m.checksum != roce::range_checksum(m.msg, 0, r.bytes))
      throw SimulationError(fmt::format("sendrecv: message {} arrived damaged: {} of {} bytes, checksum {}",
                                        m.msg, m.bytes, r.bytes,
                                        m.checksum == roce::range_checksum(m.msg, 0, r.bytes) ? "ok" : "wrong"));
    r.arrived      = true;
    r.landed       = ctx.now();
    r.landed_cause = ctx.scheduler().cause_mark();
  }
}

void SendRecv::report(const nodes::Cluster& c, results::ResultSink& sink, std::vector<std::string>& summary) const
{
  results::Table t("sendrecv", {"workload", "op", "src", "dst", "hops", "bytes", "iteration", "latency_us",
                                "completion_us", "throughput_gbps", "requests_sent", "retransmitted"});
  unsigned hops = c.fabric().routes().distance(cfg_.src, cfg_.dst);
  std::map<std::uint64_t, std::vector<double>> lat_by_size;
  for (auto const& [msg, r] : records_) {
    if (!r.arrived)
      throw SimulationError(fmt::format("sendrecv: message {} never arrived", msg));
    double lat_us = (r.landed - r.posted).us();
    double gbps   = lat_us > 0 ? static_cast<double>(r.bytes) * 8.0 / (lat_us * 1e3) : 0.0;
    t.row()
        .add("sendrecv")
        .add(config::enum_name(cfg_.op))
        .add(cfg_.src)
        .add(cfg_.dst)
        .add(hops)
        .add(r.bytes)
        .add(r.iteration)
        .add(lat_us, 4)
        .add((r.completed - r.posted).us(), 4)
        .add(gbps, 3)
        .add(r.requests_sent)
        .add(r.retransmitted);
    lat_by_size[r.bytes].push_back(lat_us);
  }
  sink.add(std::move(t));
  summary.push_back(fmt::format("sendrecv: RDMA {} node {} -> node {} ({} cables), {} size(s) x {} iteration(s)",
                                config::enum_name(cfg_.op), cfg_.src, cfg_.dst, hops, sizes_.size(), cfg_.iterations));
  // (several iterations: each size's median, the upper one of an even count)
  summary.push_back(fmt::format("  {:>10}  {:>12}  {:>12}", "bytes", cfg_.iterations > 1 ? "median_us" : "latency_us",
                                "Gbit/s"));
  for (auto& [bytes, lats] : lat_by_size) {
    std::sort(lats.begin(), lats.end());
    double med = lats[lats.size() / 2];
    summary.push_back(fmt::format("  {:>10}  {:>12.3f}  {:>12.3f}", bytes, med,
                                  med > 0 ? static_cast<double>(bytes) * 8.0 / (med * 1e3) : 0.0));
  }
  std::uint64_t resent = 0;
  for (auto const& [msg, r] : records_)
    resent += r.retransmitted;
  if (resent > 0)
    summary.push_back(fmt::format("  {} packet(s) retransmitted (sendrecv.csv: retransmitted, by message)", resent));
  report_critical_paths(c, sink, summary);
}

void SendRecv::report_critical_paths(const nodes::Cluster& c, results::ResultSink& sink,
                                     std::vector<std::string>& summary) const
{
  const CausalGraph* g = c.scheduler().causes();
  if (!g)
    return;
  // Places: "rank 0" is the source, "rank 1" the destination.
  CriticalPathGroups paths(*g, {"op", "bytes", "iteration"},
                           [this](std::uint32_t h) { return h == cfg_.src ? 0 : h == cfg_.dst ? 1 : -1; });
  for (auto const& [msg, r] : records_)
    paths.add(r.bytes, std::to_string(r.bytes),
              {std::string(config::enum_name(cfg_.op)), std::to_string(r.bytes), std::to_string(r.iteration)},
              r.landed_cause, r.posted, r.landed);
  paths.write(sink);
  summary.push_back("  critical path of each size's median message (critical_path.csv has every one's; rank 0: the "
                    "source, rank 1: the destination):");
  paths.summarize_medians(summary, false, false);
}

} // namespace nafsim::workloads
