#pragma once
// RecoNIC's host-driven RDMA engine (AMD ERNIC in the RecoNIC shell; RecoNIC
// paper section III-A and VI-C, Xilinx/RecoNIC lib/rdma_api.c): the host writes
// work queue elements (WQEs) into a send queue (SQ), rings the SQ
// producer-index doorbell (a register write over the PCIe AXI4-Lite interface),
// ERNIC fetches the WQEs, runs them on its RoCEv2 engine (nafsim's RDMA POE),
// writes a completion queue entry (CQE) per WQE and advances the CQ doorbell,
// which the host polls with register reads. Queues and buffers live in host
// memory or in the card's DDR4 (RecoNIC tells them apart by the 0xa35 address
// prefix).

#include "simcore/config/Schema.hpp"

namespace nafsim::nodes {

/// Where a queue or a buffer is: host memory (over PCIe) or the card's device
/// memory.
enum class MemPlace { Host, Device };

struct ErnicConfig {
  unsigned qps      = 32;
  unsigned sq_depth = 64;
  unsigned first_wqe_cycles = 170;
  unsigned next_wqe_cycles  = 10;
  unsigned wqe_cycles       = 68;
  SimTime doorbell_write    = SimTime::ns(300);
  SimTime doorbell_gap      = SimTime::ns(50);
  SimTime register_read     = SimTime::ns(1456);
  SimTime cqe_write         = SimTime::ns(100);
  template <class V> void describe(V& v)
  {
    v.field("qps", qps,
            "queue pairs the engine is built with (RecoNIC's design: 32); the reconic workload's queue_pairs is "
            "at most this",
            config::Limits::between(1, 256));
    v.field("sq_depth", sq_depth,
            "WQEs a send queue holds (rdma_test: qdepth 64); a batch is at "
            "most this",
            config::Limits::between(1, 65536));
    v.field("first_wqe_cycles", first_wqe_cycles,
            "cycles from the doorbell to the first WQE of a burst from host "
            "memory, through the PCIe slave bridge "
            "(RecoNIC VI-C: 170 cycles, 680 ns)",
            config::Limits::between(0, 1 << 20));
    v.field("next_wqe_cycles", next_wqe_cycles,
            "cycles between the following WQEs of the burst, fetched in a "
            "pipeline (RecoNIC VI-C: 10 cycles, 40 ns)",
            config::Limits::between(0, 1 << 20));
    v.field("wqe_cycles", wqe_cycles,
            "cycles the engine spends on one WQE before the next may start "
            "(decode, QP context, request set-up); "
            "calibrated on the batch of small READs (RecoNIC VI-C: about 400 "
            "ns per operation)",
            config::Limits::between(0, 1 << 20));
    v.field("doorbell_write", doorbell_write,
            "from the host's register write of the SQ doorbell to the engine "
            "seeing it (a posted PCIe write)");
    v.field("doorbell_gap", doorbell_gap,
            "between the host's SQ doorbell writes to several queue pairs, one after the other (posted writes)");
    v.field("register_read", register_read,
            "round trip of one host register read over the PCIe AXI4-Lite "
            "interface (the CQ doorbell poll); "
            "calibrated on the single 16 KiB READ (RecoNIC VI-C: 18 Gb/s); at least 1 ps (polls come one per "
            "round trip)",
            config::Limits::at_least(1e-12));
    v.field("cqe_write", cqe_write,
            "from a work request's completion to its CQE written and the CQ "
            "doorbell advanced (device memory; a CQ in "
            "host memory adds the PCIe write latency)");
  }
};

/// RecoNIC's QDMA subsystem: host-driven DMA between host and device memory (the reconic-mm character device,
/// examples/dma_test) and the slave bridge through which FPGA logic reaches host memory (RecoNIC VI-B).
struct QdmaConfig {
  BitsPerSecond h2c_rate{104.56e9};
  BitsPerSecond c2h_rate{104.0e9};
  SimTime call_overhead = SimTime::us(2);
  BitsPerSecond bridge_rate{45e9};
  Bytes descriptor_bytes{4096};
  template <class V> void describe(V& v)
  {
    v.field("h2c_rate", h2c_rate, "host-to-card DMA rate (writes to device memory; RecoNIC VI-B1: 13.07 GB/s)");
    v.field("c2h_rate", c2h_rate, "card-to-host DMA rate (reads of device memory; RecoNIC VI-B1: 13.00 GB/s)");
    v.field("call_overhead", call_overhead, "fixed cost of one host DMA call (system call, descriptors, completion)");
    v.field("bridge_rate", bridge_rate,
            "rate of one access of FPGA logic to host memory through the slave bridge, after the PCIe read latency "
            "(one request at a time); calibrated with pcie.read_latency on RecoNIC VI-B2 (600 ns to 964 ns up to "
            "2 KiB)");
    v.field("descriptor_bytes", descriptor_bytes,
            "bytes one DMA descriptor moves: a host DMA is issued descriptor by descriptor, each when the previous "
            "has crossed PCIe and the device-memory port, so other masters' accesses interleave with it",
            config::Limits::between(64, 1ULL << 30));
  }
};

} // namespace nafsim::nodes

namespace nafsim::config {
template <> struct EnumNames<nodes::MemPlace> {
  static constexpr std::array list{std::pair{nodes::MemPlace::Host, "host"},
                                   std::pair{nodes::MemPlace::Device, "device"}};
};
} // namespace nafsim::config
