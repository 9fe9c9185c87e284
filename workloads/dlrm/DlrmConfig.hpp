#pragma once
// Configuration of the distributed DLRM inference workload (ACCL+ section 6, Table 2, Fig. 15, Fig. 17).

#include "nodes/compute/CpuCompute.hpp"
#include "nodes/compute/FpgaKernel.hpp"

#include <vector>

namespace nafsim::workloads {

/// The recommendation model (defaults: ACCL+ Table 2, the industrial model of its reference [51]).
struct DlrmModelConfig {
  unsigned tables        = 100;
  unsigned embedding_dim = 32;
  Bytes embedding_bytes{50'000'000'000ULL};
  std::vector<Bytes> table_bytes;
  std::vector<std::uint64_t> fc{2048, 512, 256};
  template <class V> void describe(V& v)
  {
    v.field("tables", tables, "embedding tables (Table 2: 100)", config::Limits::between(1, 100000));
    v.field("embedding_dim", embedding_dim,
            "elements per embedding vector (Table 2: concatenated vector 3200 = 100 tables x 32)",
            config::Limits::between(1, 1 << 20));
    v.field("embedding_bytes", embedding_bytes, "all tables together, split evenly (Table 2: 50 GB)");
    v.field("table_bytes", table_bytes, "per-table sizes (override embedding_bytes when not empty; one per table)");
    v.field("fc", fc,
            "output lengths of the FC layers (Table 2: 2048, 512, 256); FC1's input is the concatenated vector "
            "(tables x embedding_dim)",
            config::Limits::between(1, 1 << 24));
  }
};

/// How the model is spread over FPGAs (defaults: ACCL+ Fig. 15, 10 nodes).
struct DlrmPartitionConfig {
  unsigned embedding_nodes   = 4;
  unsigned fc1_column_blocks = 2;
  std::vector<unsigned> table_nodes;
  template <class V> void describe(V& v)
  {
    v.field("embedding_nodes", embedding_nodes,
            "FPGAs holding the embedding tables (Fig. 15: nodes 1-4); each also computes FC1 for its slice of the "
            "concatenated vector (the checkerboard's row blocks)",
            config::Limits::between(1, 1024));
    v.field("fc1_column_blocks", fc1_column_blocks,
            "column blocks of FC1's checkerboard: FC1 runs on embedding_nodes x fc1_column_blocks FPGAs; the last "
            "column's node of each row gathers the row's partial results and joins the reduction (Fig. 15: 2, nodes "
            "5-8)",
            config::Limits::between(1, 1024));
    v.field("table_nodes", table_nodes,
            "embedding node of each table (one entry per table); empty: contiguous even blocks");
  }
};

/// The CPU baseline: a TensorFlow-Serving-class server running the whole model per batch (ACCL+ section
/// 6.2: Xeon Platinum 8259CL, 2.5 GHz, 32 vCPUs, Cascade Lake with AVX-512).
struct DlrmCpuConfig {
  nodes::CpuComputeConfig cpu = xeon_8259cl();
  std::vector<unsigned> batch_sizes{1, 4, 16, 64, 256, 1024};
  SimTime request_overhead = SimTime::us(100);
  SimTime op_overhead      = SimTime::us(5);
  template <class V> void describe(V& v)
  {
    v.field("cpu", cpu, "the server's CPU (defaults: Xeon Platinum 8259CL, 16 cores with AVX-512)");
    v.field("batch_sizes", batch_sizes, "batch sizes of the baseline (Fig. 17's x axis)",
            config::Limits::between(1, 1 << 24));
    v.field("request_overhead", request_overhead,
            "per batch: receiving the request, TensorFlow Serving's session set-up, returning the result "
            "(ASSUMPTION: 100 us, the order of a local gRPC Predict round trip)");
    v.field("op_overhead", op_overhead,
            "per operator on the critical path: TensorFlow's executor dispatching one kernel (ASSUMPTION: 5 us)");
  }
  static nodes::CpuComputeConfig xeon_8259cl()
  {
    nodes::CpuComputeConfig c;
    c.cores                   = 16;
    c.frequency               = Hertz{2.5e9};
    c.simd_flops_per_cycle    = 64;                   // two AVX-512 FMA units x 16 lanes x 2
    c.l2                      = Bytes{16ULL << 20};   // 1 MiB per core
    c.l2_bytes_per_cycle      = 64;
    c.l3                      = Bytes{36608ULL << 10}; // 35.75 MiB
    c.l3_bytes_per_cycle      = 16;                   // mesh L3 (ASSUMPTION: ~16 B/cycle/core on Cascade Lake)
    c.dram_bandwidth          = BitsPerSecond{140.8e9 * 8}; // 6 channels DDR4-2933
    c.dram_bandwidth_per_core = BitsPerSecond{12e9 * 8};    // ASSUMPTION: single-core STREAM on Skylake-SP class
    return c;
  }
};

struct DlrmConfig {
  DlrmModelConfig model;
  DlrmPartitionConfig partition;
  nodes::FpgaKernelConfig kernel;
  std::vector<unsigned> dsps{6544, 7680, 1453};
  unsigned inferences     = 200;
  unsigned latency_probes = 10;
  unsigned stream_depth   = 2;
  unsigned credits        = 4;
  DlrmCpuConfig cpu_baseline;
  template <class V> void describe(V& v)
  {
    v.field("model", model, "the recommendation model (Table 2)");
    v.field("partition", partition, "how the model is spread over the FPGAs (Fig. 15)");
    v.field("kernel", kernel, "the application kernels' build (clock, DSPs per multiply-add, II, pipeline depth); "
                              "kernel.dsps is ignored: see dsps");
    v.field("dsps", dsps,
            "DSP slices of each FC layer's kernel on one FPGA (one per layer; defaults from ACCL+ Table 3: FC1 580.1 % "
            "of 9024 over 8 FPGAs = 6544 each, ASSUMPTION: split evenly; FC2 85.1 % = 7680, FC3 16.1 % = 1453)");
    v.field("inferences", inferences, "inferences streamed back to back (throughput)",
            config::Limits::between(2, 1000000));
    v.field("latency_probes", latency_probes,
            "inferences issued one at a time, each after the previous one left, before the stream (latency)",
            config::Limits::between(1, 100000));
    v.field("stream_depth", stream_depth,
            "results a kernel may run ahead of its consumers on the same FPGA (the depth of the streams between "
            "kernels; ASSUMPTION: 2, a double buffer, the paper gives none)",
            config::Limits::between(1, 1024));
    v.field("credits", credits,
            "messages a sending kernel may have in flight to a receiving kernel on another FPGA that it has not taken "
            "yet (a reduce: ahead of the root); bounds what waits in the receiver's Rx buffers (ASSUMPTION: 4, a "
            "quarter of the XRT preset's 16 Rx buffers; the credit returns are not modeled as messages)",
            config::Limits::between(1, 1024));
    v.field("cpu_baseline", cpu_baseline, "the CPU baseline (Fig. 17)");
  }
};

} // namespace nafsim::workloads
