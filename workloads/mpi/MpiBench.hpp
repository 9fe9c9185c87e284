#pragma once
// Software MPI micro-benchmarks on host CPUs (the ACCL+ baselines): a collective (or send/recv) vs
// message size on the first `ranks` host nodes of the platform, run by each host's MPI library
// over its RDMA NIC with the algorithm the library selects. Every iteration starts all ranks at
// the same instant; the latency is the longest over ranks from the start to the call's return.
// With `data: fpga` the operands live on an FPGA card attached to each host and are staged as the
// ACCL+ F2F baseline does (Fig. 9): FPGA -> host copy, the MPI collective, host -> FPGA copy, then
// the invocation of the next kernel.

#include "nodes/host/MpiProcess.hpp"
#include "workloads/StartLine.hpp"
#include "workloads/Workload.hpp"
#include "workloads/collective/CollectiveBench.hpp"

#include <map>

namespace nafsim::workloads {

enum class MpiData { Host, Fpga };
/// What runs before each timed call: nothing (every rank's call starts at the same instant), or the
/// library's MPI_Barrier, each rank timing its call from when it leaves the barrier (as the ACCL+ benchmark).
enum class MpiPreBarrier { None, Mpi };

} // namespace nafsim::workloads

namespace nafsim::config {
template <> struct EnumNames<workloads::MpiData> {
  static constexpr std::array list{std::pair{workloads::MpiData::Host, "host"},
                                   std::pair{workloads::MpiData::Fpga, "fpga"}};
};
template <> struct EnumNames<workloads::MpiPreBarrier> {
  static constexpr std::array list{std::pair{workloads::MpiPreBarrier::None, "none"},
                                   std::pair{workloads::MpiPreBarrier::Mpi, "mpi"}};
};
} // namespace nafsim::config

namespace nafsim::workloads {

struct MpiBenchConfig {
  BenchOp collective = BenchOp::SendRecv;
  unsigned ranks     = 2;
  unsigned root      = 0;
  Bytes min_size{512};
  Bytes max_size{256 * 1024};
  std::vector<Bytes> sizes;
  unsigned iterations   = 1;
  DataType dtype        = DataType::Float32;
  coll::ReduceFunc func = coll::ReduceFunc::Sum;
  AlgorithmChoice algorithm = AlgorithmChoice::Auto;
  std::string library_algorithm;
  Bytes segment_size{0};
  unsigned chain_fanout  = 4;
  unsigned knomial_radix = 4;
  MpiPreBarrier pre_barrier = MpiPreBarrier::None;
  MpiData data = MpiData::Host;
  bool verify  = false;
  template <class V> void describe(V& v)
  {
    v.field("collective", collective,
            "what every iteration runs (sendrecv: rank 0 sends to rank 1); nop, copy and combine are CCLO-only");
    v.field("ranks", ranks, "communicator size: the first `ranks` host (CPU) nodes of the platform",
            config::Limits::between(1, 1 << 16));
    v.field("root", root, "root of rooted collectives");
    v.field("min_size", min_size, "smallest message (bytes per rank, as the collective workload counts); sizes "
                                  "double up to max_size");
    v.field("max_size", max_size, "largest message", config::Limits::between(0, 1ULL << 34));
    v.field("sizes", sizes, "explicit message sizes (override min_size/max_size when not empty)");
    v.field("iterations", iterations, "repetitions per size", config::Limits::between(1, 100000));
    v.field("dtype", dtype, "element type (its size sets the element count)");
    v.field("func", func, "reduction function");
    v.field("algorithm", algorithm,
            "auto: the MPI library's choice (platform.node.host.mpi.library); or force a schedule");
    v.field("library_algorithm", library_algorithm,
            "empty: the library's decision; or force one of Open MPI's algorithms by coll/tuned's name, as "
            "coll_tuned_<collective>_algorithm does (bcast: basic_linear, chain, pipeline, binary_tree, binomial, "
            "knomial, scatter_allgather, scatter_allgather_ring; reduce: linear, chain, pipeline, binary, binomial; "
            "allreduce: basic_linear, nonoverlapping, recursive_doubling, ring, segmented_ring, rabenseifner; ... "
            "the error lists each collective's); Open MPI libraries only (openmpi, openmpi-2.0: without the "
            "algorithms added after 2.0, the k-nomial and scatter-allgather broadcasts, Rabenseifner, butterfly, "
            "linear_nb)");
    v.field("segment_size", segment_size,
            "with library_algorithm: the segment size of the tree and ring algorithms "
            "(coll_tuned_<collective>_algorithm_segmentsize); 0: unsegmented, as the 4.1 fixed rules run them (a "
            "composite's parts, the library's own decisions, run with their rules' segments whatever it says)",
            config::Limits::between(0, 1ULL << 34));
    v.field("chain_fanout", chain_fanout,
            "with library_algorithm chain: the number of chains (coll_tuned_<collective>_algorithm_chain_fanout, "
            "Open MPI's default 4; the fixed rules' choice of chain, and a composite's parts, run one)",
            config::Limits::between(1, 32));
    v.field("knomial_radix", knomial_radix,
            "the k-nomial broadcast's radix (coll_tuned_bcast_algorithm_knomial_radix: one MCA parameter for every "
            "k-nomial broadcast, those the fixed rules pick and a composite's broadcast part too)",
            config::Limits::between(2, 64));
    v.field("pre_barrier", pre_barrier,
            "before each timed call: none (every rank's call starts at the same instant) or mpi (the library's "
            "MPI_Barrier, with its own algorithm; each rank times its call from when it leaves the barrier, as the "
            "ACCL+ benchmark does)");
    v.field("data", data,
            "host: operands in host memory; fpga: on each host's FPGA card, staged through host memory around the "
            "MPI call (ACCL+ F2F baseline: FPGA -> host copy, MPI, host -> FPGA copy, next-kernel invocation)");
    v.field("verify", verify, "carry real bytes and check every output against the collective's definition");
  }
};

/// The platform's MPI library can run (an eager message fits a bounce buffer); throws config::ConfigError.
void check_mpi_platform(const nodes::Cluster& c);

class MpiBench final : public Workload {
public:
  explicit MpiBench(const MpiBenchConfig& cfg);
  void start(nodes::Cluster& cluster) override;
  void report(const nodes::Cluster& cluster, results::ResultSink& sink,
              std::vector<std::string>& summary) const override;
  std::string unread_reason(std::string_view key) const override;
  std::optional<double> progress() const override
  {
    const std::size_t all = times_.empty() ? 0 : times_.size() * times_.front().size();
    return all ? std::optional<double>(static_cast<double>(calls_done_) / static_cast<double>(all)) : std::nullopt;
  }

private:
  /// One rank's times in one iteration (from the common start).
  struct RankTimes {
    SimTime start;      ///< when this rank's timed call began (absolute; after the pre-call barrier)
    SimTime staged_in;  ///< its FPGA -> host copy done (the start if it has none)
    SimTime collective; ///< its MPI call returned
    SimTime staged_out; ///< its host -> FPGA copy done
    SimTime end;        ///< the next kernel invoked (F2F) / the call returned
    std::uint32_t end_cause = 0; ///< its end in the causal graph (critical paths)
  };
  /// critical_path.csv (each call's slowest rank, from its start) and each size's median breakdown.
  void report_critical_paths(const nodes::Cluster& c, results::ResultSink& sink, std::vector<std::string>& summary) const;
  /// mpi.csv (a row per call, its phases) and mpi_ranks.csv (a row per rank and call); returns each size's latencies.
  std::map<std::uint64_t, std::vector<double>> report_tables(results::ResultSink& sink) const;
  coll::CollectiveCall make_call(unsigned rank, std::uint64_t bytes) const;
  void run_rank(ActorContext& ctx, nodes::Cluster& c, unsigned rank);
  bool stages_in(const coll::CollectiveCall& cc, unsigned rank) const;
  bool stages_out(const coll::CollectiveCall& cc, unsigned rank) const;
  SimTime kernel_invocation(const nodes::Cluster& c) const;
  mpi::MpiPlan plan_for(const coll::CollectiveCall& call, std::size_t size_index) const;

  MpiBenchConfig cfg_;
  unsigned elem_bytes_;
  std::vector<std::uint64_t> sizes_;
  std::vector<net::HostId> comm_;
  mpi::Library library_ = mpi::Library::OpenMpi;
  /// Per size: the library's choice and the schedule that runs it (the same on every rank: the
  /// decision depends on sizes only); `library_algorithm` "forced" when the workload forces one.
  std::vector<mpi::MpiPlan> plans_;
  mpi::MpiPlan barrier_plan_; ///< the library's MPI_Barrier (pre_barrier mpi)
  std::vector<std::vector<RankTimes>> times_;   ///< per sample, per rank
  std::uint64_t calls_done_ = 0;                ///< calls finished so far, over the ranks (progress)
  SimTime invocation_;
  StartLine start_line_;
};

} // namespace nafsim::workloads
