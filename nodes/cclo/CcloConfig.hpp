#pragma once
// Parameters of the ACCL+ collective offload engine (CCLO), its firmware and its invocation paths.

#include "simcore/config/Schema.hpp"

namespace nafsim::nodes {

/// MicroBlaze cycles the firmware spends on each kind of control step (ccl_offload_control.c of
/// Xilinx/ACCL bdbe; see nodes/README.md for where each is charged).
struct FirmwareCosts {
  unsigned call     = 60;
  unsigned finalize = 10;
  unsigned move     = 14;
  unsigned notify   = 10;
  unsigned poll     = 16;
  unsigned entry    = 20;
  unsigned retry    = 200;
  unsigned step     = 8;
  template <class V> void describe(V& v)
  {
    v.field("call", call, "pick up a new call (wait_for_call, 15 argument words from CMD_CALL, dispatch); the cycle "
                          "counter starts here");
    v.field("finalize", finalize, "finalize_call: stop the counter, write the return value and the status");
    v.field("move", move, "start_move: one move instruction to the data mover (up to 14 words to CMD_DMA_MOVE)");
    v.field("notify", notify, "rendezvous_send_addr: an address notice (7 words to CMD_RNDZV)");
    v.field("poll", poll, "one rendezvous lookup that finds nothing new (rendezvous_get_*: the empty-queue test and "
                          "call overhead): the period of a busy-wait loop");
    v.field("entry", entry, "per notification a lookup touches (3 to 7 words read and re-queued to "
                            "STS_RNDZV_PENDING when it does not match)");
    v.field("retry", retry, "one trip of a NOT_READY call through the retry queue: 16 words to CMD_CALL_RETRY, "
                            "wait_for_call, 16 words back, dispatch; with the lookup, the period of the retry loop");
    v.field("step", step, "bookkeeping per function entry and per loop iteration (index arithmetic, register reads, "
                          "branches)");
  }
};

/// The data-movement processor and its datapath.
struct DmpConfig {
  unsigned issue_cycles    = 4;
  unsigned pipeline_cycles = 24;
  unsigned width_bytes     = 64;
  template <class V> void describe(V& v)
  {
    v.field("issue_cycles", issue_cycles, "cycles to decode a move and start its operand slots");
    v.field("pipeline_cycles", pipeline_cycles,
            "latency through the datapath (stream switch, plugins, FIFOs) from first operand byte to first result byte");
    v.field("width_bytes", width_bytes, "datapath width: bytes per cycle of every CCLO stream, plugin included "
                                        "(ACCL+ Listing 2: 64 B per cycle)",
            config::Limits::between(1, 1024));
  }
};

struct TxRxConfig {
  unsigned tx_cycles = 12;
  unsigned rx_cycles = 12;
  Bytes header{64};
  template <class V> void describe(V& v)
  {
    v.field("tx_cycles", tx_cycles, "Tx system: from a move's result to the command at the POE (signature insertion, "
                                    "segmentation FSM)");
    v.field("rx_cycles", rx_cycles, "Rx system: from a message's arrival to its notification or Rx-buffer entry "
                                    "(signature parsing)");
    v.field("header", header,
            "message signature carried before each eager payload and in each notification (ACCL: 64 B, one 512-bit "
            "datapath word; at most 4 KiB, a few words of a fixed-layout hardware header)",
            config::Limits::between(1, 4096));
  }
};

struct RxBufferConfig {
  unsigned count = 16;
  Bytes size{32 * 1024};
  unsigned seek_cycles = 8;
  template <class V> void describe(V& v)
  {
    v.field("count", count, "eager Rx buffers; when all hold unmatched messages, senders are back-pressured "
                            "(RNR NAK) until one is freed",
            config::Limits::between(1, 1 << 16));
    v.field("size", size, "bytes per Rx buffer; eager messages are segmented to this size",
            config::Limits::at_least(64));
    v.field("seek_cycles", seek_cycles, "cycles for the data mover to find a message in the Rx buffers");
  }
};

/// The firmware's protocol threshold and tuning registers (ACCL::configure_tuning_parameters).
struct TuningConfig {
  Bytes max_eager_size{32 * 1024};
  Bytes max_rendezvous_size{4 << 20};
  unsigned bcast_flat_tree_max_ranks  = 3;
  unsigned reduce_flat_tree_max_ranks = 4;
  Bytes reduce_flat_tree_max_count{0};
  unsigned gather_flat_tree_max_fanin = 2;
  Bytes gather_flat_tree_max_count{32 * 1024};
  template <class V> void describe(V& v)
  {
    v.field("max_eager_size", max_eager_size,
            "messages above this go rendezvous (unless compressed or streamed); 32 KiB is the firmware's built-in "
            "value (ccl_offload_control.c), which the host driver's ACCL::initialize overwrites (its default 1 KiB, "
            "with 16 Rx buffers of 1 KiB and 32 KiB rendezvous buffers; the presets set what their builds ran)");
    v.field("max_rendezvous_size", max_rendezvous_size, "size of the three rendezvous spare buffers");
    v.field("bcast_flat_tree_max_ranks", bcast_flat_tree_max_ranks, "rendezvous bcast is flat up to this many ranks, "
                                                                    "a binary tree above", config::Limits::at_least(1));
    v.field("reduce_flat_tree_max_ranks", reduce_flat_tree_max_ranks, "rendezvous reduce is flat up to this many "
                                                                      "ranks (or up to reduce_flat_tree_max_count)", config::Limits::at_least(1));
    v.field("reduce_flat_tree_max_count", reduce_flat_tree_max_count,
            "rendezvous reduce is flat up to this many bytes; 0 = the driver's min(max_rendezvous_size / 4, 32 KiB)");
    v.field("gather_flat_tree_max_fanin", gather_flat_tree_max_fanin,
            "rendezvous gather announces at most this many slots at once above gather_flat_tree_max_count",
            config::Limits::at_least(1));
    v.field("gather_flat_tree_max_count", gather_flat_tree_max_count, "see gather_flat_tree_max_fanin");
  }
};

/// Latency of a call's request and of its completion notice, per invocation path.
struct InvocationConfig {
  SimTime kernel_request  = SimTime::ns(8);
  SimTime kernel_response = SimTime::ns(8);
  SimTime coyote_request  = SimTime::ns(1700);
  SimTime coyote_response = SimTime::ns(1700);
  SimTime xrt_request     = SimTime::us(22.5);
  SimTime xrt_response    = SimTime::us(22.5);
  /// Host invocations vary from call to call (the measured NOP spread): each call's request + response is
  /// drawn, seeded, from a distribution with the measured minimum, median and maximum and the configured mean.
  bool jitter            = false;
  SimTime coyote_min     = SimTime::ns(3617);
  SimTime coyote_median  = SimTime::ns(3717);
  SimTime coyote_max     = SimTime::ns(5391);
  SimTime xrt_min        = SimTime::ns(30237);
  SimTime xrt_median     = SimTime::ns(44294);
  SimTime xrt_max        = SimTime::ns(63341);
  /// The host driver's safety warning (ACCL external_dma): before a gather or all-to-all whose
  /// ceil(count / Rx-buffer size) x ranks exceeds the Rx buffers, it writes a line to std::cerr and flushes it.
  SimTime safety_warning = SimTime{};
  template <class V> void describe(V& v)
  {
    v.field("kernel_request", kernel_request, "FPGA kernel: command stream into the CCLO");
    v.field("kernel_response", kernel_response, "FPGA kernel: status stream back");
    v.field("coyote_request", coyote_request, "Coyote host driver: the PCIe write that posts a call");
    v.field("coyote_response", coyote_response, "Coyote host driver: the PCIe read that sees the completion");
    v.field("xrt_request", xrt_request, "XRT host driver: starting the CCLO kernel");
    v.field("xrt_response", xrt_response, "XRT host driver: waiting for the kernel to finish");
    v.field("jitter", jitter,
            "draw each host invocation's NOP time (request + firmware call/finalize + response) per call, seeded, from "
            "a shifted log-normal with the path's measured minimum and median and the configured mean (request + "
            "response + call + finalize), cut at the measured maximum; false: every call takes the mean");
    v.field("coyote_min", coyote_min, "jitter: the Coyote NOP's measured minimum (host-invoked NOP, whole call)");
    v.field("coyote_median", coyote_median, "jitter: the Coyote NOP's measured median");
    v.field("coyote_max", coyote_max, "jitter: the Coyote NOP's measured maximum");
    v.field("xrt_min", xrt_min, "jitter: the XRT NOP's measured minimum");
    v.field("xrt_median", xrt_median, "jitter: the XRT NOP's measured median");
    v.field("xrt_max", xrt_max, "jitter: the XRT NOP's measured maximum");
    v.field("safety_warning", safety_warning,
            "host-invoked (coyote) gather and all-to-all: the cost of the driver's safety warning, written when "
            "ceil(count / rx_buffers.size) x ranks exceeds rx_buffers.count; 0: safety checks off");
  }
};

/// A named CCLO build: what the Rx-buffer pool and the protocol registers are set to when the design is built and
/// configured (CcloBuild.hpp: the ACCL+ benchmark's two builds), or custom (rx_buffers and tuning as given).
enum class CcloBuild : std::uint8_t { Custom, Eager, Rendezvous };

} // namespace nafsim::nodes

namespace nafsim::config {
template <> struct EnumNames<nodes::CcloBuild> {
  static constexpr std::array list{std::pair{nodes::CcloBuild::Custom, "custom"},
                                   std::pair{nodes::CcloBuild::Eager, "eager"},
                                   std::pair{nodes::CcloBuild::Rendezvous, "rendezvous"}};
};
} // namespace nafsim::config

namespace nafsim::nodes {

struct CcloConfig {
  CcloBuild build = CcloBuild::Custom;
  FirmwareCosts firmware;
  DmpConfig dmp;
  TxRxConfig txrx;
  RxBufferConfig rx_buffers;
  TuningConfig tuning;
  InvocationConfig invocation;
  template <class V> void describe(V& v)
  {
    v.field("build", build,
            "the CCLO build: eager (the ACCL+ benchmark's eager build: ranks + 2 Rx buffers of 4 MiB, max_eager_size 4 "
            "MiB, max_rendezvous_size 8 MiB), rendezvous (its rendezvous build: ranks Rx buffers of 64 B, "
            "max_eager_size 64 B, max_rendezvous_size 4 MiB) or custom (rx_buffers and tuning as given); a build sets "
            "those four values for the workload's rank count, over what rx_buffers and tuning say");
    v.field("firmware", firmware, "micro-controller costs, in CCLO clock cycles");
    v.field("dmp", dmp, "data-movement processor");
    v.field("txrx", txrx, "Tx and Rx systems");
    v.field("rx_buffers", rx_buffers, "eager Rx buffer pool (Rx-buffer manager)");
    v.field("tuning", tuning, "protocol threshold and algorithm tuning registers");
    v.field("invocation", invocation, "invocation paths");
  }
};

} // namespace nafsim::nodes
