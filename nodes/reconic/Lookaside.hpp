#pragma once
// RecoNIC's lookaside compute block with its example kernel (RecoNIC III-B1 and IV-C; Xilinx/RecoNIC
// shell/compute/lookside/mmult.cpp, after Vitis' systolic-array example): the host writes a control message
// (work id and the kernel's arguments) into the kernel's control FIFO over AXI4-Lite; the kernel reads A and B
// (int32, at most 16 x 16) from memory in two bursts on its one AXI port, runs a_col steps of a 16 x 16
// systolic array (one step per cycle once the pipeline is full), writes C in one burst and pushes the work
// id into its status FIFO, which the host polls through a register or takes as an interrupt.

#include "nodes/memory/MemoryImage.hpp"
#include "nodes/memory/MemorySystem.hpp"
#include "simcore/config/Schema.hpp"

#include <vector>

namespace nafsim::nodes {

struct LookasideConfig {
  unsigned array            = 16;
  unsigned pipeline_cycles  = 10;
  unsigned control_words    = 6;
  SimTime interrupt_latency = SimTime::us(5);
  template <class V> void describe(V& v)
  {
    v.field("array", array, "systolic array size: the largest matrix dimension (mmult.cpp MAX_SIZE 16)",
            config::Limits::between(1, 256));
    v.field("pipeline_cycles", pipeline_cycles,
            "cycles for the systolic loop's pipeline to fill and drain (ASSUMPTION: the HLS loop's depth)",
            config::Limits::between(0, 1 << 20));
    v.field("control_words", control_words,
            "32-bit words of one control message (RecoNIC's ctl_cmd_t, control_api.c issue_ctl_cmd: the command's "
            "size, the three arrays' base addresses, a_row | a_col, b_col | work_id)",
            config::Limits::between(1, 1024));
    v.field("interrupt_latency", interrupt_latency,
            "from the status FIFO's interrupt to the waiting host thread running (MSI-X, handler, wake-up)");
  }
};

/// What one kernel run did, and when.
struct MatmulRun {
  SimTime started, inputs_read, computed, finished;
};

class LookasideMatmul {
public:
  LookasideMatmul(const LookasideConfig& cfg, Hertz clock) : cfg_(cfg), clock_(clock) {}
  /// Run C = A (rows x inner) * B (inner x cols) with A, B, C at those addresses of `mem` (timing) and `image`
  /// (values: int32, row-major with a row stride of `array` elements, whole array x array tiles as mmult.cpp
  /// copies them; nullptr: timing only), starting at `start`.
  MatmulRun run(MemorySystem& mem, MemoryImage* image, SimTime start, std::uint64_t a, std::uint64_t b, std::uint64_t c,
                unsigned rows, unsigned inner, unsigned cols) const;
  /// Why these dimensions cannot run ("" if they can).
  std::string check(unsigned rows, unsigned inner, unsigned cols) const;
  const LookasideConfig& config() const { return cfg_; }

private:
  LookasideConfig cfg_;
  Hertz clock_;
};

} // namespace nafsim::nodes
