#pragma once
// The worst-case unexpected-queue benchmark (Brightwell and Underwood 2004, as the PAC paper runs it in
// section 5.2): every other node sends node 0 messages with tags in descending order, all of which arrive
// before node 0 posts any receive; node 0 then posts its receives with tags in ascending order, so each
// receive matches the last header on the unexpected list. The time is node 0's Portals processing: the
// arrivals (priority and overflow searches, the header appended to UM) and the receives (the UM search),
// on the platform's Portals engine (node.portals: PAC, or software on an ARM A9 or an E8400), with or
// without hashing on the source.

#include "nodes/pac/PortalsProcessor.hpp"
#include "workloads/Workload.hpp"

namespace nafsim::workloads {

struct UnexpectedQueueConfig {
  std::uint64_t min_messages = 1;
  std::uint64_t max_messages = 32768;
  std::vector<std::uint64_t> messages;
  Bytes payload{8};
  template <class V> void describe(V& v)
  {
    v.field("min_messages", min_messages, "shortest queue; lengths double from here to max_messages",
            config::Limits::between(1, 1 << 20));
    v.field("max_messages", max_messages, "longest queue", config::Limits::between(1, 1 << 20));
    v.field("messages", messages, "explicit queue lengths (overrides min_messages / max_messages when not empty)");
    v.field("payload", payload, "bytes each message carries, kept in its sender's overflow buffer while unexpected "
                               "(sized to hold them all); the benchmark times the matching alone, as Brightwell and "
                               "Underwood's does, so a payload moves no time: 0 sends headers only, which skip the "
                               "overflow list",
            config::Limits::between(0, 8192));
  }
};

class UnexpectedQueue final : public Workload {
public:
  explicit UnexpectedQueue(const UnexpectedQueueConfig& cfg);
  void start(nodes::Cluster& cluster) override;
  std::string unread_reason(std::string_view key) const override;
  void report(const nodes::Cluster& cluster, results::ResultSink& sink,
              std::vector<std::string>& summary) const override;

private:
  struct Record {
    std::uint64_t messages = 0;
    SimTime arrivals, receives;
    std::uint64_t visited = 0, missed = 0;
  };
  void run(ActorContext& ctx, const nodes::PortalsConfig& pc, unsigned senders);
  UnexpectedQueueConfig cfg_;
  std::vector<std::uint64_t> lengths_;
  std::vector<Record> records_;
};

} // namespace nafsim::workloads
