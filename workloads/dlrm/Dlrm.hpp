#pragma once
// Distributed DLRM inference on FPGAs (ACCL+ section 6, Fig. 15 and Fig. 17). The plan (DlrmPlan)
// gives every FPGA its kernels and CCLO calls per inference; here each kernel and each reduce is a
// process of its own, as are a node's sends to one peer and its receives from one peer (one command
// stream each; the HLS dataflow design: kernels run concurrently, connected by streams `stream_depth`
// deep). The CCLO calls of one node queue in its CCLO, which runs one at a time; message kinds between
// the same two nodes travel under their own tags (ACCL's send/recv tag) through one command stream per
// direction, so the receiver takes them in the order they were sent, as the hardware must. First
// `latency_probes` inferences run one at a time (each issued when the previous one left the last layer:
// its latency), then `inferences` stream back to back (throughput). The CPU baseline
// (TensorFlow-Serving-class, batched) comes from the CPU model.

#include "nodes/cclo/CcloCore.hpp"
#include "workloads/Workload.hpp"
#include "workloads/dlrm/DlrmPlan.hpp"

#include <deque>

namespace nafsim::workloads {

class Dlrm final : public Workload {
public:
  explicit Dlrm(const DlrmConfig& cfg);
  void start(nodes::Cluster& cluster) override;
  std::string unread_reason(std::string_view key) const override;
  void report(const nodes::Cluster& cluster, results::ResultSink& sink,
              std::vector<std::string>& summary) const override;

private:
  struct OpStats {
    std::uint64_t done = 0;      ///< inferences this op has finished (in order)
    SimTime busy;                ///< time it ran during the stream (kernels: compute; calls: in the CCLO)
    SimTime shortest = SimTime::max(); ///< calls: the shortest run in the CCLO during the stream
  };
  /// A command stream's process: its ops in order, inference after inference.
  void run_stream(ActorContext& ctx, nodes::Cluster& c, unsigned node, const std::vector<unsigned>& stream);
  /// Op `j` of inference `k`, once ready.
  void run_op(ActorContext& ctx, nodes::Cluster& c, unsigned node, unsigned j, std::uint64_t k,
              const nodes::CcloCall& call, const CauseLabel& kernel);
  void run_driver(ActorContext& ctx);
  /// A failure note for the CCLO's Rx-buffer deadlock: the nodes whose senders' credits may fill their Rx buffers.
  void note_rx_buffers(nodes::Cluster& c);
  bool ready(unsigned node, unsigned op, std::uint64_t k) const;
  void notify();
  nodes::CcloCall make_call(unsigned node, const DlrmOp& op) const;
  std::uint64_t total() const { return std::uint64_t{cfg_.latency_probes} + cfg_.inferences; }

  DlrmConfig cfg_;
  DlrmPlan plan_;
  std::vector<net::HostId> hosts_;                   ///< FPGA of each plan node
  std::vector<std::vector<OpStats>> stats_;          ///< per node, per op
  std::vector<std::vector<std::vector<unsigned>>> consumers_; ///< per node, per op: ops that depend on it
  std::vector<std::vector<std::pair<unsigned, int>>> receiver_; ///< per node, per op: whose progress gives it credit (send: the peer's recv; reduce: the root's reduce; -1: none)
  std::uint64_t released_ = 0;
  std::vector<SimTime> released_at_, done_at_;
  std::vector<std::uint32_t> done_cause_; ///< per inference: its last op's end in the causal graph (critical paths)
  /// critical_path.csv (an inference's latency, release to its last op's end) and the median probe's breakdown.
  void report_critical_paths(const nodes::Cluster& c, results::ResultSink& sink, std::vector<std::string>& summary) const;
  /// dlrm.csv (a row per inference); returns the probes' mean latency (us).
  double report_inferences(results::ResultSink& sink) const;
  /// The largest demand per inference of one stage (a kernel, or a node's CCLO calls together), in us.
  struct Bottleneck {
    std::string what;
    double us = -1;
  };
  /// dlrm_stages.csv (per op its demand per inference and its occupancy over the stream, `elapsed`); returns the
  /// bottleneck.
  Bottleneck report_stages(results::ResultSink& sink, SimTime elapsed) const;
  /// The busiest cable direction's time per inference (its wire bytes over all inferences, at its rate).
  Bottleneck link_demand(const nodes::Cluster& c) const;
  /// dlrm_systems.csv (the FPGA system and the CPU baseline per batch size); returns the CPU baseline's batches.
  std::vector<DlrmCpuBatch> report_systems(results::ResultSink& sink, double latency_us, double throughput,
                                           const Bottleneck& worst, double bound) const;
  std::deque<std::vector<unsigned>> streams_; ///< every node's command streams (dlrm_streams); never moved
  std::vector<ActorId> waiters_;
  Scheduler* sched_ = nullptr;
  SimTime stream_start_;
};

} // namespace nafsim::workloads
