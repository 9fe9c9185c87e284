#pragma once
// Micro-benchmarks of Lant et al.'s connectionless transport (nodes run transport = connectionless).
//
// latency: node `src` posts one RDMA command at a time to `dst`, for every size and each way the
//   receiver learns of it (unregistered: the sender's notification after the last ACK; registered:
//   the receiver's own table). Per operation: send (post -> the sender sees "all data pushed", the
//   paper's non-blocking send), recv (post -> the receiver sees the notification: Fig 5 and 7) and
//   complete (post -> the sender sees every packet acknowledged). Optional background load from the
//   other nodes to `dst` (Poisson arrivals) loads the path the measurement uses.
// stream: senders keep `window` commands each in flight, `operations` in all, sizes drawn from
//   [min_size, max_size] (or `sizes`), to one receiver (many-to-one) or to random peers; reports
//   throughput, table stalls, escape-channel drops and retransmissions. Every operation is checked:
//   delivered exactly once, with its own data in every packet slot; no table entry may be left over.

#include "nodes/lant/LantNi.hpp"
#include "protocols/lant/Actions.hpp"
#include "protocols/lant/AreaModel.hpp"
#include "workloads/Workload.hpp"

#include <map>

namespace nafsim::workloads {

enum class ClMode { Latency, Stream };
enum class ClPattern { ManyToOne, Random };
enum class ClPoster { Cpu, Accelerator };

} // namespace nafsim::workloads

namespace nafsim::config {
template <> struct EnumNames<workloads::ClMode> {
  static constexpr std::array list{std::pair{workloads::ClMode::Latency, "latency"},
                                   std::pair{workloads::ClMode::Stream, "stream"}};
};
template <> struct EnumNames<workloads::ClPattern> {
  static constexpr std::array list{std::pair{workloads::ClPattern::ManyToOne, "many-to-one"},
                                   std::pair{workloads::ClPattern::Random, "random"}};
};
template <> struct EnumNames<workloads::ClPoster> {
  static constexpr std::array list{std::pair{workloads::ClPoster::Cpu, "cpu"},
                                   std::pair{workloads::ClPoster::Accelerator, "accelerator"}};
};
} // namespace nafsim::config

namespace nafsim::workloads {

struct ClBackgroundConfig {
  double load = 0;
  Bytes size{32 * 1024};
  template <class V> void describe(V& v)
  {
    v.field("load", load,
            "latency mode: offered background load into dst, as a fraction of the link rate counted in wire bytes "
            "(payload, transport header and Ethernet framing of every packet), shared by every node other than src "
            "and dst (Poisson arrivals; 0 = none); the summary gives the share actually posted",
            config::Limits::between(0, 0.95));
    v.field("size", size, "bytes per background operation", config::Limits::at_least(1));
  }
};

struct ConnectionlessConfig {
  ClMode mode  = ClMode::Latency;
  unsigned src = 0;
  unsigned dst = 1;
  Bytes min_size{64};
  Bytes max_size{64 * 1024};
  std::vector<Bytes> sizes;
  unsigned iterations = 5;
  std::vector<lant::Notify> notify{lant::Notify::Sender, lant::Notify::Receiver};
  SimTime gap = SimTime::us(2);
  ClBackgroundConfig background;
  unsigned operations = 1000;
  unsigned window     = 4;
  ClPattern pattern   = ClPattern::ManyToOne;
  ClPoster poster     = ClPoster::Cpu;
  lant::Notify stream_notify = lant::Notify::Auto;

  template <class V> void describe(V& v)
  {
    v.field("mode", mode, "latency (one operation at a time, per size) or stream (many concurrent operations)");
    v.field("src", src, "latency mode: sending node");
    v.field("dst", dst, "latency mode: receiving node; stream many-to-one: the receiver");
    v.field("min_size", min_size, "latency: sizes double from here to max_size; stream: smallest random size",
            config::Limits::at_least(1));
    v.field("max_size", max_size, "latency: largest size; stream: largest random size",
            config::Limits::between(1, 1ULL << 32));
    v.field("sizes", sizes, "explicit sizes (latency: the list; stream: drawn uniformly from it)");
    v.field("iterations", iterations, "latency: operations per size and notification kind",
            config::Limits::between(1, 100000));
    v.field("notify", notify,
            "latency: notification kinds to measure: sender (unregistered), receiver (registered; sizes beyond the "
            "registration range are skipped), auto");
    v.field("gap", gap, "latency: idle time between one operation's end and the next post");
    v.field("background", background, "latency: background load on the measured path");
    v.field("operations", operations, "stream: commands in all", config::Limits::between(1, 10000000));
    v.field("window", window, "stream: commands each sender keeps in flight", config::Limits::between(1, 1 << 16));
    v.field("pattern", pattern, "stream: many-to-one (every other node sends to dst) or random (each command to a "
                                "random other node)");
    v.field("poster", poster, "stream: who posts: cpu (software post cost, CPU queue) or accelerator (no software "
                              "cost, accelerator queue)");
    v.field("stream_notify", stream_notify, "stream: who notifies the receiver (auto = registered when in range)");
  }
};

class Connectionless final : public Workload {
public:
  explicit Connectionless(const ConnectionlessConfig& cfg);
  void start(nodes::Cluster& cluster) override;
  std::string unread_reason(std::string_view key) const override;
  void report(const nodes::Cluster& cluster, results::ResultSink& sink,
              std::vector<std::string>& summary) const override;

private:
  struct Op { // one command
    std::uint32_t src = 0, dst = 0;
    std::uint64_t bytes = 0;
    std::uint64_t remote = 0;
    lant::Notify notify  = lant::Notify::Auto;
    unsigned iteration   = 0;
    SimTime posted, pushed, received, completed;
    std::uint32_t received_cause = 0; ///< the delivery's step in the causal graph (critical paths)
    unsigned segments_expected = 1;
    std::map<std::uint64_t, unsigned> delivered; ///< segment base -> deliveries
    bool registered = false;
    bool verified   = true;
    bool done       = false; ///< stream: the sender saw it complete
  };
  /// Stream: a command as drawn up front (its full record is made when it is posted, and folded into
  /// the totals once it is delivered and complete, so memory follows the operations in flight).
  struct Draw {
    std::uint32_t src = 0, dst = 0;
    std::uint64_t bytes = 0, remote = 0;
  };
  /// Latency mode: critical_path.csv (each operation from its post to its delivery) and each size's breakdown.
  void report_critical_paths(const nodes::Cluster& c, results::ResultSink& sink, std::vector<std::string>& summary) const;
  /// Every operation delivered exactly once, with its own data, and (without background traffic) nothing held at the end;
  /// else a SimulationError naming the first few.
  void check_delivered(const nodes::Cluster& c) const;
  /// Latency mode: connectionless.csv (a row per operation), each size's mean receive latency, the critical paths.
  void report_latency(const nodes::Cluster& c, results::ResultSink& sink, std::vector<std::string>& summary) const;
  /// Stream mode: connectionless.csv (one row: throughput, the tables' stalls, the transport's counters) and its lines.
  void report_stream(const nodes::Cluster& c, const lant::AreaEstimate& area, results::ResultSink& sink,
                     std::vector<std::string>& summary) const;
  /// Every size makes a command the transport accepts, and (receiver notification) one it can register.
  void check_sizes() const;
  /// Latency mode: the source and sink actors (and the background load's); stream mode: every command drawn up
  /// front (seeded), each sender and receiver an actor.
  void start_latency(nodes::Cluster& c);
  void start_stream(nodes::Cluster& c);
  void run_latency_source(ActorContext& ctx, nodes::Cluster& c);
  void run_latency_sink(ActorContext& ctx, nodes::Cluster& c);
  void run_background(ActorContext& ctx, nodes::Cluster& c, std::uint32_t node, double rate_ops);
  void run_stream_sender(ActorContext& ctx, nodes::Cluster& c, std::uint32_t node, std::vector<std::uint64_t> mine);
  void run_stream_receiver(ActorContext& ctx, nodes::Cluster& c, std::uint32_t node, std::uint64_t expected);
  void record_delivery(const nodes::ReceiveNotice& n, std::uint32_t at);
  void finish_stream_op(std::map<std::uint64_t, Op>::iterator it);
  /// Why `o` failed the exactly-once checks (empty: it passed).
  static std::string op_problem(const Op& o);
  unsigned segments_of(std::uint64_t bytes) const;
  /// Bytes on the wire of the data packets of a command of `bytes` (every segment's packets, framed).
  std::uint64_t wire_bytes_of(std::uint64_t bytes, const net::EthernetConfig& eth) const;
  /// Latency mode: whether operations of `bytes` are measured with notification `kind` (a registered receive needs
  /// registrable operations: the command's own size, or every segment's when it is segmented, its last one too, as
  /// the sender checks).
  bool measured(std::uint64_t bytes, lant::Notify kind) const
  {
    return kind != lant::Notify::Receiver || transport_.registrable_command(bytes);
  }

  ConnectionlessConfig cfg_;
  std::vector<std::uint64_t> sizes_;
  lant::LantConfig transport_;
  /// When the network may hold a packet back longer than the receiver keeps a completed operation in its filter:
  /// why a late copy of it may register it again (else "").
  std::string late_copy_;
  std::map<std::uint64_t, Op> ops_; ///< by command id (= content id)
  std::vector<Draw> draws_;      ///< stream: by command id - 1
  std::vector<bool> finished_;   ///< stream: by command id - 1
  std::uint64_t stream_bytes_ = 0, stream_registered_ = 0;
  std::vector<std::string> stream_bad_; ///< stream: the first few operations that failed their checks
  std::uint64_t stream_bad_count_ = 0;
  std::uint64_t background_ops_ = 0;
  std::uint64_t background_skipped_ = 0; ///< arrivals that found the command queue full
  SimTime measured_until_;                ///< when the latency source posted its last command's wait
  bool measuring_ = true;
  ActorId source_actor_ = 0;
  std::uint64_t delivered_ops_ = 0;
  SimTime first_post_ = SimTime::max(), last_delivery_;
};

} // namespace nafsim::workloads
