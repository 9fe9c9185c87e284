#pragma once
// Buffer copies between an FPGA's memory and its host's memory through the host driver (what
// software staging FPGA data does: the software-MPI F2F baseline of ACCL+ Fig. 9): per size,
// FPGA -> host and host -> FPGA, each timed from the call to its return.

#include "workloads/Workload.hpp"

namespace nafsim::workloads {

struct HostCopyConfig {
  unsigned node = 0;
  Bytes min_size{512};
  Bytes max_size{4 * 1024 * 1024};
  std::vector<Bytes> sizes;
  unsigned iterations = 1;
  template <class V> void describe(V& v)
  {
    v.field("node", node, "the FPGA node (host index) whose host driver copies");
    v.field("min_size", min_size, "smallest buffer; sizes double from here to max_size", config::Limits::at_least(0));
    v.field("max_size", max_size, "largest buffer", config::Limits::between(0, 1ULL << 34));
    v.field("sizes", sizes, "explicit sizes (overrides min_size/max_size when not empty)");
    v.field("iterations", iterations, "copies per size and direction", config::Limits::between(1, 1000000));
  }
};

class HostCopy final : public Workload {
public:
  explicit HostCopy(const HostCopyConfig& cfg) : cfg_(cfg) {}
  void start(nodes::Cluster& cluster) override;
  std::string unread_reason(std::string_view key) const override;
  void report(const nodes::Cluster& cluster, results::ResultSink& sink,
              std::vector<std::string>& summary) const override;

private:
  struct Record {
    std::uint64_t bytes = 0;
    unsigned iteration  = 0;
    SimTime to_host, to_device;
  };
  HostCopyConfig cfg_;
  std::vector<std::uint64_t> sizes_;
  std::vector<Record> records_;
};

} // namespace nafsim::workloads
