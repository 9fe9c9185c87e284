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
/// The tags of the messages between two nodes: nafsim's CCLO matches eager messages in order per peer and tag
/// (the hardware per peer only, the tag checked: workloads/dlrm/README.md's ASSUMPTION), and a node's kernels send
/// to (receive from) one peer through separate command streams.
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
