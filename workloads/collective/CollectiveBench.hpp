#pragma once
// The CCLO micro-benchmarks: a collective (or send/recv, or NOP) vs message size on the first `ranks`
// hosts, issued through an invocation path with data in device memory, host memory or kernel
// streams. Every iteration starts all ranks at the same instant; the recorded latency is the CCLO
// cycle counter (firmware pick-up to finalize, as the ACCL+ measurements), the longest over ranks.

#include "nodes/cclo/Cclo.hpp"
#include "workloads/StartLine.hpp"
#include "workloads/Workload.hpp"
#include "workloads/collective/Verify.hpp"

#include <map>

namespace nafsim::workloads {

enum class BenchOp { SendRecv, Nop, Bcast, Scatter, Gather, AllGather, Reduce, AllReduce, ReduceScatter, AllToAll,
                     Barrier, Copy, Combine };
using nodes::DataType;
enum class ProtocolChoice { Auto, Eager, Rendezvous };
enum class AlgorithmChoice { Auto, Flat, Binomial, Ring, ReduceBcast, ReduceScatterComposite, RecursiveDoubling,
                             Rabenseifner, Pairwise };
/// What runs before each timed call (the ACCL+ benchmark: MPI_Barrier, then the CCLO's barrier()).
enum class PreBarrier { None, Mpi, Cclo };
/// Which FPGA positions the ranks take.
enum class Placement { Packed, RoundRobin };

} // namespace nafsim::workloads

namespace nafsim::config {
template <> struct EnumNames<workloads::BenchOp> {
  static constexpr std::array list{
      std::pair{workloads::BenchOp::SendRecv, "sendrecv"},   std::pair{workloads::BenchOp::Nop, "nop"},
      std::pair{workloads::BenchOp::Bcast, "bcast"},         std::pair{workloads::BenchOp::Scatter, "scatter"},
      std::pair{workloads::BenchOp::Gather, "gather"},       std::pair{workloads::BenchOp::AllGather, "allgather"},
      std::pair{workloads::BenchOp::Reduce, "reduce"},       std::pair{workloads::BenchOp::AllReduce, "allreduce"},
      std::pair{workloads::BenchOp::ReduceScatter, "reduce-scatter"},
      std::pair{workloads::BenchOp::AllToAll, "alltoall"},   std::pair{workloads::BenchOp::Barrier, "barrier"},
      std::pair{workloads::BenchOp::Copy, "copy"},           std::pair{workloads::BenchOp::Combine, "combine"}};
};
template <> struct EnumNames<nodes::DataType> {
  static constexpr std::array list{std::pair{nodes::DataType::Float16, "float16"},
                                   std::pair{nodes::DataType::Float32, "float32"},
                                   std::pair{nodes::DataType::Float64, "float64"},
                                   std::pair{nodes::DataType::Int32, "int32"},
                                   std::pair{nodes::DataType::Int64, "int64"}};
};
template <> struct EnumNames<workloads::ProtocolChoice> {
  static constexpr std::array list{std::pair{workloads::ProtocolChoice::Auto, "auto"},
                                   std::pair{workloads::ProtocolChoice::Eager, "eager"},
                                   std::pair{workloads::ProtocolChoice::Rendezvous, "rendezvous"}};
};
template <> struct EnumNames<workloads::AlgorithmChoice> {
  static constexpr std::array list{
      std::pair{workloads::AlgorithmChoice::Auto, "auto"},
      std::pair{workloads::AlgorithmChoice::Flat, "flat"},
      std::pair{workloads::AlgorithmChoice::Binomial, "binomial"},
      std::pair{workloads::AlgorithmChoice::Ring, "ring"},
      std::pair{workloads::AlgorithmChoice::ReduceBcast, "reduce-bcast"},
      std::pair{workloads::AlgorithmChoice::ReduceScatterComposite, "reduce-scatter-composite"},
      std::pair{workloads::AlgorithmChoice::RecursiveDoubling, "recursive-doubling"},
      std::pair{workloads::AlgorithmChoice::Rabenseifner, "rabenseifner"},
      std::pair{workloads::AlgorithmChoice::Pairwise, "pairwise"}};
};
template <> struct EnumNames<workloads::PreBarrier> {
  static constexpr std::array list{std::pair{workloads::PreBarrier::None, "none"},
                                   std::pair{workloads::PreBarrier::Mpi, "mpi"},
                                   std::pair{workloads::PreBarrier::Cclo, "cclo"}};
};
template <> struct EnumNames<workloads::Placement> {
  static constexpr std::array list{std::pair{workloads::Placement::Packed, "packed"},
                                   std::pair{workloads::Placement::RoundRobin, "round-robin"}};
};
template <> struct EnumNames<coll::ReduceFunc> {
  static constexpr std::array list{std::pair{coll::ReduceFunc::Sum, "sum"}, std::pair{coll::ReduceFunc::Max, "max"}};
};
template <> struct EnumNames<nodes::DataLocation> {
  static constexpr std::array list{std::pair{nodes::DataLocation::Device, "device"},
                                   std::pair{nodes::DataLocation::Host, "host"},
                                   std::pair{nodes::DataLocation::Stream, "stream"}};
};
template <> struct EnumNames<nodes::InvocationPath> {
  static constexpr std::array list{std::pair{nodes::InvocationPath::Kernel, "kernel"},
                                   std::pair{nodes::InvocationPath::Coyote, "coyote"},
                                   std::pair{nodes::InvocationPath::Xrt, "xrt"}};
};
} // namespace nafsim::config

namespace nafsim::workloads {

/// The collective `rank` runs for benchmark operation `op` (send/recv: rank 0 sends, rank 1 receives).
coll::Collective collective_of(BenchOp op, unsigned rank);
/// The forced algorithm, if any.
std::optional<coll::Algorithm> algorithm_of(AlgorithmChoice a);
/// What rank `rank` is in a benchmark of `op` rooted at `root` (the role column of the per-rank tables).
std::string bench_role(BenchOp op, unsigned rank, unsigned root);
/// Why a benchmark of `op` over the sizes `sizes` (empty: min_size doubling to max_size) reads nothing of its
/// setting `key` (func, sizes, min_size or max_size; a root is always read: the tables' root_latency_us is its
/// rank's), or "" (Workload::unread_reason).
std::string bench_unread_reason(BenchOp op, const std::vector<Bytes>& sizes, std::string_view key);

struct CollectiveBenchConfig {
  BenchOp collective = BenchOp::SendRecv;
  unsigned ranks     = 2;
  unsigned root      = 0;
  Bytes min_size{512};
  Bytes max_size{256 * 1024};
  std::vector<Bytes> sizes;
  unsigned iterations = 1;
  DataType dtype      = DataType::Float32;
  coll::ReduceFunc func = coll::ReduceFunc::Sum;
  ProtocolChoice protocol   = ProtocolChoice::Auto;
  AlgorithmChoice algorithm = AlgorithmChoice::Auto;
  nodes::DataLocation location   = nodes::DataLocation::Device;
  nodes::InvocationPath invocation = nodes::InvocationPath::Kernel;
  bool compress = false;
  bool verify   = false;
  PreBarrier pre_barrier = PreBarrier::None;
  SimTime mpi_message_latency = SimTime::ns(5300);
  Placement placement = Placement::Packed;
  std::vector<unsigned> positions;
  template <class V> void describe(V& v)
  {
    v.field("collective", collective, "what every iteration runs (sendrecv: rank 0 sends to rank 1; copy and combine: "
                                      "local moves on every rank, combine = output func= input)");
    v.field("ranks", ranks, "communicator size: `ranks` FPGA positions of the platform (see placement)",
            config::Limits::between(1, 1 << 16));
    v.field("pre_barrier", pre_barrier,
            "before each timed call: none (every rank's call issued at the same instant), mpi (the hosts leave an "
            "MPI_Barrier: OpenMPI's recursive doubling releases the ranks beyond the largest power of two one host "
            "message later) or cclo (MPI_Barrier, then the CCLO's own barrier(), as the ACCL+ benchmark does: ranks "
            "start skewed by its release order, rank 0 first)");
    v.field("mpi_message_latency", mpi_message_latency,
            "pre_barrier mpi/cclo: one MPI message between hosts (default: the 512 B OpenMPI-over-RDMA send/recv of "
            "shared/reference/accl/sendrecv_throughput_gbps.csv, 512 B / 0.773 Gb/s)");
    v.field("placement", placement, "which FPGA positions the ranks take: packed (in order, filling each leaf "
                                    "switch) or round-robin (rank i on the i-th leaf switch in turn)");
    v.field("positions", positions, "explicit FPGA positions (0-based, one per rank; overrides placement)");
    v.field("root", root, "root of rooted collectives");
    v.field("min_size", min_size, "smallest message (bytes per rank, as ACCL counts); sizes double up to max_size");
    v.field("max_size", max_size, "largest message", config::Limits::between(0, 1ULL << 34));
    v.field("sizes", sizes, "explicit message sizes (override min_size/max_size when not empty)");
    v.field("iterations", iterations, "repetitions per size", config::Limits::between(1, 100000));
    v.field("dtype", dtype, "element type (its size sets the element count)");
    v.field("func", func, "reduction function");
    v.field("protocol", protocol, "auto: the firmware's choice; eager / rendezvous: forced");
    v.field("algorithm", algorithm, "auto: the firmware's choice; or force one (errors if it cannot run the call)");
    v.field("location", location, "operands in device memory, host memory (over PCIe) or kernel streams (sendrecv and reduce, "
                                   "as ACCL streams them, or a forced algorithm)");
    v.field("invocation", invocation, "who calls the CCLO: an FPGA kernel, the Coyote host driver, or the XRT driver");
    v.field("compress", compress, "float32 data travels as float16 (the CCLO's compression plugins); eager only");
    v.field("verify", verify, "carry real bytes: fill every input with a known pattern, check every output against "
                              "the collective's definition after each call (slower; for correctness, not timing)");
  }
};

class CollectiveBench final : public Workload {
public:
  explicit CollectiveBench(const CollectiveBenchConfig& cfg);
  void start(nodes::Cluster& cluster) override;
  void report(const nodes::Cluster& cluster, results::ResultSink& sink,
              std::vector<std::string>& summary) const override;
  std::optional<unsigned> rank_count() const override { return cfg_.ranks; }
  std::string unread_reason(std::string_view key) const override;
  std::optional<double> progress() const override
  {
    const std::size_t all = results_.empty() ? 0 : results_.size() * results_.front().size();
    return all ? std::optional<double>(static_cast<double>(calls_done_) / static_cast<double>(all)) : std::nullopt;
  }

private:
  struct Sample {
    std::uint64_t bytes = 0;
    unsigned iteration  = 0;
    SimTime cclo;  ///< longest CCLO counter over ranks
    SimTime host;  ///< longest invocation-to-return over ranks
    coll::Protocol protocol;
    coll::Algorithm algorithm;
  };
  void run_rank(ActorContext& ctx, nodes::Cluster& c, unsigned rank);
  /// The ranks' FPGA positions (positions, or placement over the platform's FPGAs `fpgas`).
  std::vector<net::HostId> place(const nodes::Cluster& c, const std::vector<std::size_t>& fpgas) const;
  /// What each size's calls took, over iterations (us): the fastest, mean and slowest rank's CCLO counter, the slowest
  /// host latency; and which protocol/algorithm ran.
  struct SizeStats {
    std::vector<double> min, mean, max, host;
    std::string how;
  };
  using BySize = std::map<std::uint64_t, SizeStats>;
  /// collective.csv (a row per call) and collective_ranks.csv (a row per rank and call); returns each size's stats.
  BySize report_tables(results::ResultSink& sink) const;
  /// The summary's per-size lines (medians over iterations), the segmentation note, the host latencies' spread.
  void report_summary(const nodes::Cluster& c, const BySize& by_size, std::vector<std::string>& summary) const;
  /// critical_path.csv and a summary line per size (runs that record causes: --critical-path).
  void report_critical_paths(const nodes::Cluster& c, results::ResultSink& sink, std::vector<std::string>& summary) const;
  /// When `rank` leaves the MPI barrier, after the first rank.
  SimTime mpi_barrier_exit(unsigned rank) const;
  /// What runs between the start line and the timed call (pre_barrier).
  /// The barrier before each call of `bytes` (pre_barrier).
  void pre_barrier(ActorContext& ctx, nodes::Cluster& c, unsigned rank, std::uint64_t bytes) const;
  nodes::CcloCall make_call(unsigned rank, std::uint64_t bytes) const;
  /// Real data: write rank's input pattern and poison its output before the call of `iteration`.
  /// Refuse sizes whose buffers overlap in the fixed layout or, with verify, exceed kVerifyBudget.
  void check_buffers(const nodes::Cluster& c) const;
  void prepare_data(nodes::Cluster& c, const nodes::CcloCall& call, unsigned iteration) const;
  /// Real data: check rank's output after its call returned; throws on the first wrong element.
  void check_data(nodes::Cluster& c, const nodes::CcloCall& call, unsigned iteration) const;
  DataPattern pattern() const;

  CollectiveBenchConfig cfg_;
  std::uint64_t calls_done_ = 0; ///< calls finished so far, over the ranks (progress)
  std::vector<std::uint64_t> sizes_;
  unsigned elem_bytes_;
  std::vector<net::HostId> comm_;
  nodes::Communicator shared_comm_; ///< comm_, shared by the calls
  std::vector<Sample> samples_;
  StartLine start_line_; ///< every rank of an iteration starts at the same instant
  std::vector<std::vector<nodes::CcloResult>> results_; ///< per sample, per rank
};

} // namespace nafsim::workloads
