#include "workloads/hostcopy/HostCopy.hpp"

#include "nodes/fpga/FpgaCluster.hpp"


#include <fmt/format.h>
#include <map>

namespace nafsim::workloads {

std::string HostCopy::unread_reason(std::string_view key) const
{
  return size_bounds_unread(key_head(key), !cfg_.sizes.empty());
}

void HostCopy::start(nodes::Cluster& c)
{
  check_node(c, cfg_.node, "node");
  sizes_ = message_sizes(cfg_.sizes, cfg_.min_size, cfg_.max_size, 64);
  c.scheduler().spawn("hostcopy", c.at<nodes::FpgaNode>(cfg_.node).host(), [this, &c](ActorContext& ctx) {
    nodes::FpgaNode& n = c.at<nodes::FpgaNode>(cfg_.node);
    for (auto bytes : sizes_)
      for (unsigned it = 0; it < cfg_.iterations; ++it) {
        Record r{bytes, it, {}, {}};
        SimTime t0  = ctx.now();
        r.to_host   = n.driver_copy(ctx, bytes, true) - t0;
        SimTime t1  = ctx.now();
        r.to_device = n.driver_copy(ctx, bytes, false) - t1;
        records_.push_back(r);
      }
  });
}

void HostCopy::report(const nodes::Cluster&, results::ResultSink& sink, std::vector<std::string>& summary) const
{
  results::Table t("hostcopy", {"workload", "node", "bytes", "iteration", "to_host_us", "to_device_us"});
  std::map<std::uint64_t, std::pair<double, double>> first;
  for (auto const& r : records_) {
    t.row().add("hostcopy").add(cfg_.node).add(r.bytes).add(r.iteration).add(r.to_host.us(), 4).add(r.to_device.us(), 4);
    first.try_emplace(r.bytes, r.to_host.us(), r.to_device.us());
  }
  sink.add(std::move(t));
  summary.push_back(fmt::format("host-driver copies on node {} (FPGA -> host, host -> FPGA), the first iteration (hostcopy.csv has each):", cfg_.node));
  for (auto const& [b, v] : first)
    summary.push_back(fmt::format("  {:>9}: {:9.3f} us {:9.3f} us", format_bytes(Bytes{b}), v.first, v.second));
}

} // namespace nafsim::workloads
