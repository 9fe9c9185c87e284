#pragma once
// The distributed FC layer of ACCL+ section 6.2 (Fig. 16): y = W x on host CPUs with the weight
// matrix partitioned column-wise over the ranks. Each rank holds a block of W's columns and the
// matching slice of x, computes its partial product (Eigen's GEMV on the CPU model, nodes/compute)
// and the partial products are summed at rank 0 by a reduce: through ACCL+ (each host's FPGA CCLO,
// host-memory operands, invoked through the Coyote driver; optionally with the copy between Eigen's
// result buffer and the ACCL+ buffers that the paper's implementation makes) or through software
// MPI over the hosts' RDMA NICs. Computation and communication do not overlap. Every iteration
// starts all ranks together; the first runs with cold caches, later ones find what the previous
// iteration left in them (the MPI library's buffers included: that is the cache pressure the paper
// names).

#include "nodes/cclo/CcloCore.hpp"
#include "nodes/compute/CpuCompute.hpp"
#include "protocols/mpi/MpiPlan.hpp"
#include "workloads/StartLine.hpp"
#include "workloads/Workload.hpp"

namespace nafsim::workloads {

enum class FcReduction { Accl, Mpi };

} // namespace nafsim::workloads

namespace nafsim::config {
template <> struct EnumNames<workloads::FcReduction> {
  static constexpr std::array list{std::pair{workloads::FcReduction::Accl, "accl"},
                                   std::pair{workloads::FcReduction::Mpi, "mpi"}};
};
} // namespace nafsim::config

namespace nafsim::workloads {

struct FcLayerConfig {
  FcReduction reduction = FcReduction::Accl;
  unsigned ranks        = 4;
  std::vector<std::uint64_t> sizes{1024, 2048, 4096, 8192};
  std::uint64_t outputs = 0;
  unsigned iterations   = 5;
  unsigned threads      = 0;
  bool extra_copy       = true;
  template <class V> void describe(V& v)
  {
    v.field("reduction", reduction,
            "who sums the partial products at rank 0: accl (the CCLO of the FPGA beside each host; FPGA nodes) or "
            "mpi (the MPI library over the hosts' RDMA NICs; host nodes)");
    v.field("ranks", ranks, "ranks (one per node; the first `ranks` nodes of the kind the reduction needs)",
            config::Limits::between(1, 1 << 16));
    v.field("sizes", sizes, "FC sizes: each is the layer's input length N (columns of W, split over the ranks)");
    v.field("outputs", outputs, "output length M (rows of W, the length of the reduced vector); 0: square (M = N)");
    v.field("iterations", iterations, "layer evaluations per size (the first with cold caches)",
            config::Limits::between(1, 10000));
    v.field("threads", threads, "cores each rank's GEMV runs on; 0: all of platform.node.host.compute.cores");
    v.field("extra_copy", extra_copy,
            "accl: copy the partial product from the application's buffer into the ACCL+ buffer before the reduce, "
            "and the result back at the root (ACCL+ section 6.2: the copy its implementation makes)");
  }
};

class FcLayer final : public Workload {
public:
  explicit FcLayer(const FcLayerConfig& cfg);
  void start(nodes::Cluster& cluster) override;
  std::string unread_reason(std::string_view key) const override;
  void report(const nodes::Cluster& cluster, results::ResultSink& sink,
              std::vector<std::string>& summary) const override;

private:
  /// critical_path.csv (each sample's slowest rank, from the common start to its end) and each size's breakdown.
  void report_critical_paths(const nodes::Cluster& c, results::ResultSink& sink, std::vector<std::string>& summary) const;
  struct RankTimes {
    SimTime compute;   ///< its GEMV
    SimTime copies;    ///< its copies between application and ACCL+ buffers
    SimTime end;       ///< its reduce returned (and the root's copy back), from the common start
    std::string level; ///< where its weights came from (l2, l3, dram, or a mix)
    SimTime start;     ///< the common start (absolute)
    std::uint32_t end_cause = 0; ///< its end in the causal graph (critical paths)
  };
  struct Sample {
    std::uint64_t in = 0, out = 0;
    unsigned iteration = 0;
    SimTime single_node; ///< the whole layer on one node at this iteration (the model, no network)
    std::string single_level;
    std::vector<RankTimes> ranks;
    std::string algorithm; ///< what ran this iteration's reduce (rank 0's call: the library's or the CCLO's choice)
  };
  void run_rank(ActorContext& ctx, nodes::Cluster& c, unsigned rank);
  std::uint64_t columns(unsigned rank, std::uint64_t in) const;
  unsigned threads(const nodes::Cluster& c) const;
  coll::CollectiveCall reduce_call(std::uint64_t out) const;
  /// Rank `rank`'s CCLO call of the reduce of `out` outputs (host buffers, the Coyote invocation).
  nodes::CcloCall cclo_call(unsigned rank, std::uint64_t out) const;
  void pollute_with_mpi(nodes::CpuCache& cache, const coll::Schedule& s, std::uint64_t call_index,
                        std::uint64_t eager_threshold) const;

  FcLayerConfig cfg_;
  std::vector<net::HostId> comm_;
  std::vector<Sample> samples_;
  std::vector<mpi::MpiPlan> plans_; ///< per size (mpi)
  StartLine start_line_;
};

} // namespace nafsim::workloads
