#pragma once
// Bulk traffic: every node streams RDMA WRITEs to a partner chosen by a pattern, keeping `window`
// messages in flight. Used for background load, for the simulator benchmark (`nafsim bench`) and for the flow
// fidelity's accuracy under contention (python-free-tools/flow-accuracy.sh: permutation and incast).

#include "workloads/Workload.hpp"

#include <vector>

namespace nafsim::workloads {

enum class TrafficPattern { Shift, RandomPermutation, Neighbor, Incast };

} // namespace nafsim::workloads

namespace nafsim::config {
template <> struct EnumNames<workloads::TrafficPattern> {
  static constexpr std::array list{std::pair{workloads::TrafficPattern::Shift, "shift"},
                                   std::pair{workloads::TrafficPattern::RandomPermutation, "random-permutation"},
                                   std::pair{workloads::TrafficPattern::Neighbor, "neighbor"},
                                   std::pair{workloads::TrafficPattern::Incast, "incast"}};
};
} // namespace nafsim::config

namespace nafsim::workloads {

struct TrafficConfig {
  TrafficPattern pattern = TrafficPattern::Shift;
  Bytes message{1 << 20};
  unsigned messages = 8;
  unsigned window   = 4;
  template <class V> void describe(V& v)
  {
    v.field("pattern", pattern, "who sends to whom: shift (i -> i + n/2), random-permutation (seeded), "
                                "neighbor (i -> i + 1), incast (every node -> 0, and 0 -> 1)");
    v.field("message", message, "bytes per RDMA WRITE", config::Limits::at_least(1));
    v.field("messages", messages, "messages each node sends", config::Limits::between(1, 1 << 24));
    v.field("window", window, "messages each node keeps in flight", config::Limits::between(1, 1024));
  }
};

class Traffic final : public Workload {
public:
  explicit Traffic(const TrafficConfig& cfg) : cfg_(cfg) {}
  void start(nodes::Cluster& cluster) override;
  std::string unread_reason(std::string_view key) const override;
  void report(const nodes::Cluster& cluster, results::ResultSink& sink,
              std::vector<std::string>& summary) const override;

private:
  struct NodeResult {
    std::size_t partner = 0;
    SimTime started;
    SimTime finished;
    std::uint64_t received = 0;
  };
  TrafficConfig cfg_;
  std::vector<NodeResult> nodes_;
};

} // namespace nafsim::workloads
