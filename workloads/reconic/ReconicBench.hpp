#pragma once
// RecoNIC's RDMA test (RecoNIC paper section VI-C; Xilinx/RecoNIC
// examples/rdma_test): the client's host drives the card's RDMA engine through
// its queues (nodes/reconic/Ernic.hpp) to READ from or WRITE to the server's
// memory. Single: one WQE per SQ doorbell and one CQ polling loop per operation
// (read.c, write.c: rdma_post_send). Batch: `batch` WQEs, prepared beforehand,
// behind one doorbell and one polling loop until all have completed
// (read_batch.c, write_batch.c: rdma_post_batch_send). The time of an operation
// is the host's: from ringing the doorbell to seeing the completion in the CQ
// doorbell.

#include "nodes/reconic/Ernic.hpp"
#include "nodes/reconic/ErnicConfig.hpp"
#include "protocols/roce/Actions.hpp"
#include "protocols/roce/Wire.hpp"
#include "workloads/Workload.hpp"
#include "workloads/sendrecv/SendRecv.hpp" // EnumNames<roce::Verb>

#include <functional>

namespace nafsim::workloads {

enum class ReconicMode { Single, Batch };
enum class ReconicTest { Rdma, Dma, HostAccess, LookasideMm, Classifier };
enum class Completion { Poll, Interrupt };
enum class BackgroundDma { None, H2c, C2h };
/// What the tests time: RecoNIC's READs or WRITEs (its tests time no SEND; `nafsim params` had listed send, which
/// every test refused).
enum class ReconicOp { Read, Write };

struct ReconicBenchConfig {
  unsigned client  = 0;
  unsigned server  = 1;
  ReconicOp op     = ReconicOp::Read;
  ReconicTest test = ReconicTest::Rdma;
  ReconicMode mode = ReconicMode::Batch;
  unsigned batch   = 50;
  Bytes min_size{64};
  Bytes max_size{1 << 20};
  std::vector<Bytes> sizes;
  unsigned iterations     = 1;
  nodes::MemPlace queues  = nodes::MemPlace::Host;
  nodes::MemPlace buffers = nodes::MemPlace::Device;
  unsigned mm_rows        = 16;
  unsigned mm_inner       = 16;
  unsigned mm_cols        = 16;
  Completion completion   = Completion::Poll;
  unsigned queue_pairs    = 1;
  BackgroundDma background_dma = BackgroundDma::None;
  template <class V> void describe(V& v)
  {
    v.field("client", client, "node whose host drives the RDMA engine (host index)");
    v.field("server", server, "node whose memory is read or written (host index)");
    v.field("op", op,
            "read (the client READs the server's buffer) or write (the client "
            "WRITEs it)");
    v.field("test", test,
            "rdma: the client's host drives RDMA READs or WRITEs through the engine's queues (RecoNIC VI-C); dma: the "
            "client's host copies between host and device memory through the QDMA (op write: host to card, read: card "
            "to host; VI-B1); host_access: the client's FPGA logic reads (op read) or writes host memory through the "
            "slave bridge (VI-B2); lookaside_mm: the client READs matrices A and B from the server's memory, runs the "
            "lookaside block's systolic matrix multiply on them and checks C (IV-C, Fig. 6); classifier: the rdma test "
            "and, at the same time, the server's host sends the client's host messages of the same sizes through "
            "its software network stack (non-RDMA datagrams, one at a time), which the client's packet classifier "
            "passes to the host instead of the RDMA engine (III-C, IV-D; needs classifier.enabled)");
    v.field("mm_rows", mm_rows, "lookaside_mm: rows of A and C", config::Limits::between(1, 4096));
    v.field("mm_inner", mm_inner, "lookaside_mm: columns of A, rows of B", config::Limits::between(1, 4096));
    v.field("mm_cols", mm_cols, "lookaside_mm: columns of B and C", config::Limits::between(1, 4096));
    v.field("completion", completion,
            "lookaside_mm: how the host learns the kernel is done: poll (a status register) or "
            "interrupt");
    v.field("queue_pairs", queue_pairs,
            "rdma, classifier: queue pairs from the client to the server the WQEs are spread over, in turn (at most "
            "the engine's ernic.qps): the host rings each one's SQ doorbell and polls their CQ doorbells in turn",
            config::Limits::between(1, 4096));
    v.field("background_dma", background_dma,
            "rdma: a host DMA on the client's card running back to back for the whole test, none, h2c (host to "
            "device memory) or c2h (device memory to host): it shares the device-memory channel "
            "(device_memory.channel_bandwidth, through the mem_crossbar) and a PCIe direction with the RDMA engine");
    v.field("mode", mode,
            "single: one WQE per doorbell and per polling loop; batch: `batch` "
            "WQEs behind one doorbell "
            "and one polling loop");
    v.field("batch", batch,
            "WQEs per doorbell in batch mode (RecoNIC VI-C: 50); at most the "
            "engine's sq_depth",
            config::Limits::between(1, 65536));
    v.field("min_size", min_size, "smallest payload; sizes double from here to max_size", config::Limits::at_least(1));
    v.field("max_size", max_size, "largest payload", config::Limits::between(1, 1ULL << 31));
    v.field("sizes", sizes, "explicit payload sizes (overrides min_size/max_size when not empty)");
    v.field("iterations", iterations, "measurements per size (single: operations; batch: batches)",
            config::Limits::between(1, 100000));
    v.field("queues", queues,
            "where the queue pairs (SQ, CQ) are: host or device memory "
            "(rdma_test -l host_mem / dev_mem)");
    v.field("buffers", buffers,
            "where both sides' payload buffers are: device (rdma_test's "
            "dev_mem) or host memory");
  }
};

class ReconicBench final : public Workload {
public:
  explicit ReconicBench(const ReconicBenchConfig& cfg);
  void start(nodes::Cluster& cluster) override;
  std::string unread_reason(std::string_view key) const override;
  void report(const nodes::Cluster& cluster, results::ResultSink& sink,
              std::vector<std::string>& summary) const override;

private:
  /// The classifier test's host stream (reconic_host_stream.csv), the classifiers' counts (reconic_classifier.csv).
  void report_classifier(const nodes::Cluster& c, results::ResultSink& sink, std::vector<std::string>& summary) const;
  /// The background DMA beside the test (reconic_background.csv).
  void report_background(results::ResultSink& sink, std::vector<std::string>& summary) const;
  struct Record {
    std::uint64_t bytes = 0;
    unsigned iteration  = 0;
    unsigned ops        = 0;
    SimTime rung; ///< the doorbell written
    SimTime seen; ///< the last completion seen by the host's poll
    SimTime first_posted, last_completed;
    bool verified = false;
  };
  /// The client's host copies `b` bytes between host and device memory through the QDMA (to the card or from
  /// it), descriptor by descriptor; returns when the last byte is in. With `stop`, copies again and again until
  /// *stop is true, counting the bytes in `moved`.
  void dma_copy(ActorContext& ctx, nodes::Cluster& c, bool to_card, Bytes b, const bool* stop = nullptr,
                std::uint64_t* moved = nullptr) const;
  /// When a burst of work requests went: doorbell, first handed to the RoCE engine, last completed, seen.
  struct Burst {
    SimTime rung, first_posted, last_completed, seen;
  };
  /// The host rings the SQ doorbells for `wrs` (already in the SQs: request i on queue pair i mod n), the engine
  /// fetches and starts them, the host polls the CQ doorbells until every one has completed (`done(i,
  /// completion)` runs as request i completes); the calling actor continues when the host sees the last.
  Burst run_burst(ActorContext& ctx, nodes::Cluster& c, const nodes::ErnicTiming& t,
                  const std::vector<roce::WorkRequest>& wrs,
                  const std::function<void(std::size_t, const roce::Completion&)>& done);
  /// The tests in which the client's host drives RDMA operations (rdma, classifier).
  bool drives_rdma() const { return cfg_.test == ReconicTest::Rdma || cfg_.test == ReconicTest::Classifier; }
  void run_client(ActorContext& ctx, nodes::Cluster& c);
  void run_memory(ActorContext& ctx, nodes::Cluster& c);
  void run_lookaside(ActorContext& ctx, nodes::Cluster& c);
  void run_host_stream(ActorContext& ctx, nodes::Cluster& c);
  /// A message of the non-RDMA stream (test classifier).
  struct HostRecord {
    std::uint64_t bytes = 0;
    unsigned iteration  = 0;
    SimTime posted, received;
  };
  std::vector<HostRecord> host_records_;

  ReconicBenchConfig cfg_;
  std::vector<std::uint64_t> sizes_;
  std::vector<Record> records_;
  std::vector<nodes::QpId> qps_; ///< the client's queue pairs to the server
  bool client_done_ = false;
  std::uint64_t background_bytes_ = 0; ///< moved by the background DMA
  SimTime background_time_;            ///< how long the background DMA ran
};

} // namespace nafsim::workloads

namespace nafsim::config {
template <> struct EnumNames<workloads::ReconicTest> {
  static constexpr std::array list{std::pair{workloads::ReconicTest::Rdma, "rdma"},
                                   std::pair{workloads::ReconicTest::Dma, "dma"},
                                   std::pair{workloads::ReconicTest::HostAccess, "host_access"},
                                   std::pair{workloads::ReconicTest::LookasideMm, "lookaside_mm"},
                                   std::pair{workloads::ReconicTest::Classifier, "classifier"}};
};
template <> struct EnumNames<workloads::Completion> {
  static constexpr std::array list{std::pair{workloads::Completion::Poll, "poll"},
                                   std::pair{workloads::Completion::Interrupt, "interrupt"}};
};
template <> struct EnumNames<workloads::BackgroundDma> {
  static constexpr std::array list{std::pair{workloads::BackgroundDma::None, "none"},
                                   std::pair{workloads::BackgroundDma::H2c, "h2c"},
                                   std::pair{workloads::BackgroundDma::C2h, "c2h"}};
};
template <> struct EnumNames<workloads::ReconicOp> {
  static constexpr std::array list{std::pair{workloads::ReconicOp::Read, "read"},
                                   std::pair{workloads::ReconicOp::Write, "write"}};
};
template <> struct EnumNames<workloads::ReconicMode> {
  static constexpr std::array list{std::pair{workloads::ReconicMode::Single, "single"},
                                   std::pair{workloads::ReconicMode::Batch, "batch"}};
};
} // namespace nafsim::config
