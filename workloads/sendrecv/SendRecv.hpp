#pragma once
// The send/recv micro-benchmark at the transport level: node `src` moves messages of each size
// to node `dst` with an RDMA WRITE (or SEND, or READs them back) and the run records, per message,
// the one-way latency (post -> last byte in the destination's memory), the requester's completion
// time (post -> ACK) and the throughput bytes / latency. Every message is checked on arrival:
// exactly the bytes that were sent, with the right simulated checksum.

#include "protocols/roce/Wire.hpp"
#include "workloads/Workload.hpp"

#include <map>

namespace nafsim::config {
template <> struct EnumNames<roce::Verb> {
  static constexpr std::array list{std::pair{roce::Verb::Write, "write"}, std::pair{roce::Verb::Send, "send"},
                                   std::pair{roce::Verb::Read, "read"}};
};
} // namespace nafsim::config

namespace nafsim::workloads {

struct SendRecvConfig {
  unsigned src = 0;
  unsigned dst = 1;
  roce::Verb op = roce::Verb::Write;
  Bytes min_size{512};
  Bytes max_size{4 * 1024 * 1024};
  std::vector<Bytes> sizes;
  unsigned iterations = 1;
  SimTime gap;
  template <class V> void describe(V& v)
  {
    v.field("src", src, "sending node (host index)");
    v.field("dst", dst, "receiving node (host index)");
    v.field("op", op, "RDMA operation: write (one-sided), send (two-sided, consumes a posted receive), read "
                      "(dst's data is read back to src)");
    v.field("min_size", min_size, "smallest message; sizes double from here to max_size", config::Limits::at_least(0));
    v.field("max_size", max_size, "largest message", config::Limits::between(0, 1ULL << 34));
    v.field("sizes", sizes, "explicit message sizes (overrides min_size/max_size when not empty)");
    v.field("iterations", iterations, "messages per size", config::Limits::between(1, 1000000));
    v.field("gap", gap, "idle time between a message's completion and the next post");
  }
};

class SendRecv final : public Workload {
public:
  explicit SendRecv(const SendRecvConfig& cfg);
  void start(nodes::Cluster& cluster) override;
  std::string unread_reason(std::string_view key) const override;
  void report(const nodes::Cluster& cluster, results::ResultSink& sink,
              std::vector<std::string>& summary) const override;

private:
  /// critical_path.csv (each message from its post to its landing) and each size's median breakdown.
  void report_critical_paths(const nodes::Cluster& c, results::ResultSink& sink, std::vector<std::string>& summary) const;
  struct Record {
    std::uint64_t bytes = 0;
    unsigned iteration  = 0;
    SimTime posted;
    SimTime landed;
    std::uint32_t landed_cause = 0; ///< the landing in the causal graph (critical paths)
    SimTime completed;
    bool arrived = false;
    std::uint64_t requests_sent = 0;
    std::uint64_t retransmitted = 0;
  };
  void run_source(ActorContext& ctx, nodes::Cluster& c);
  void run_destination(ActorContext& ctx, nodes::Cluster& c);

  SendRecvConfig cfg_;
  std::vector<std::uint64_t> sizes_;
  std::map<std::uint64_t, Record> records_; ///< by message id
};

} // namespace nafsim::workloads
