#pragma once
// The distributed DLRM as a dataflow program per FPGA (ACCL+ Fig. 15): embedding lookups on the
// embedding nodes, FC1 as a checkerboard over embedding_nodes x fc1_column_blocks FPGAs (row block r =
// embedding node r's slice of the concatenated vector; column block c = a slice of FC1's outputs), the
// partial results of each row gathered on its last column's node and summed by a reduce on the FC2
// node, then every further layer on its own FPGA, each sending its output to the next.
// Every op is a kernel (lookup, compute) or a CCLO call (send, recv, reduce) of one inference; ops of
// a node name the ops of the same inference they need (deps). Pure: no simulation here.

#include "workloads/dlrm/DlrmConfig.hpp"

#include <string>
#include <vector>

namespace nafsim::workloads {

enum class DlrmOpKind { Lookup, Compute, Send, Recv, Reduce };
/// The tags of the messages between two nodes. The hardware matches a peer's eager messages in the order they were
/// sent and checks the tag (workloads/dlrm/README.md), so the sends to one peer go through one command stream and
/// the receives from it through another, in the same order (dlrm_streams).
enum DlrmTag : std::uint32_t { kTagCollective = 0, kTagSlice = 1, kTagPartial = 2, kTagLayer = 3 };

struct DlrmOp {
  DlrmOpKind kind = DlrmOpKind::Compute;
  std::string name;
  SimTime duration;             ///< Lookup, Compute: the kernel's time per inference
  unsigned peer       = 0;      ///< Send, Recv: the other node
  std::uint64_t bytes = 0;      ///< Send, Recv, Reduce: message size
  std::vector<unsigned> group;  ///< Reduce: the nodes taking part (root last)
  std::vector<unsigned> deps;   ///< ops of this node, same inference, that must be done first
  std::uint32_t tag  = 0;       ///< Send, Recv: the ACCL tag of this kind of message (DlrmTag); Reduce: 0
};

struct DlrmNode {
  std::string role; ///< "embedding 0", "fc1 r0 c1", "fc2", ...
  std::vector<DlrmOp> ops;
  std::uint64_t hbm_bytes    = 0; ///< embedding tables in HBM
  std::uint64_t onchip_bytes = 0; ///< embedding tables and weights on chip
  unsigned tables            = 0;
};

struct DlrmPlan {
  std::vector<DlrmNode> nodes;
  unsigned final_node = 0; ///< the last layer's node; its last op ends an inference
  unsigned final_op   = 0;
};

/// Build the plan; throws config::ConfigError (JSON paths under /workload) when the model does not fit.
DlrmPlan make_dlrm_plan(const DlrmConfig& cfg, const nodes::FpgaFabricConfig& fabric);

/// A node's command streams: the ops one process runs, inference after inference, each stream's ops in plan order.
/// A node's sends to one peer form one stream and its receives from one peer another, as a design must issue them
/// for the hardware, which takes a peer's eager messages in the order they were sent whatever their tags; every
/// other op (kernels, reduces) is a stream of its own.
std::vector<std::vector<unsigned>> dlrm_streams(const DlrmNode& node);

/// The tags of node `from`'s messages to node `to` in the order its send stream issues them (empty: none).
std::vector<std::uint32_t> dlrm_send_order(const DlrmPlan& plan, unsigned from, unsigned to);
/// The tags `to`'s receive stream from `from` expects, in its order.
std::vector<std::uint32_t> dlrm_receive_order(const DlrmPlan& plan, unsigned from, unsigned to);

/// The CPU baseline's time for one batch (TensorFlow-Serving-class, nodes/compute/CpuCompute).
struct DlrmCpuBatch {
  unsigned batch = 1;
  SimTime overhead; ///< request + operator dispatch
  SimTime lookups;  ///< the embedding gathers
  SimTime fc;       ///< the FC layers
  SimTime total;
  double throughput = 0; ///< inferences per second, one batch after another
};
DlrmCpuBatch dlrm_cpu_batch(const DlrmConfig& cfg, unsigned batch);

} // namespace nafsim::workloads
