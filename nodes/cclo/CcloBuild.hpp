#pragma once
// The CCLO builds the ACCL+ benchmark ran (platform.node.fpga.cclo.build): the Rx-buffer pool and the protocol
// registers are fixed when the design is built and configured, so "eager" and "rendezvous" are two systems, not a
// knob of one. Source: zhenhaohe/ACCL external_dma test/host/Coyote/test.cpp 1193-1202 (shared/reference/accl/
// coyote_memory_path.md section 1): eager runs had mpi_size + 2 Rx buffers of the segment size (4 MiB,
// shared/reference/README.md), max_eager_size = the segment size and max_rendezvous_size 8 MiB; rendezvous runs had
// mpi_size Rx buffers of 64 B and max_rendezvous_size = the segment size.

#include "nodes/cclo/CcloConfig.hpp"
#include "nodes/platform/TransportKind.hpp"

#include <string>

namespace nafsim::nodes {

/// The benchmark's segment size (its Rx buffers in the eager build, the rendezvous limit in the other).
inline constexpr std::uint64_t kBuildSegment = 4ULL << 20;

/// Set rx_buffers and the protocol registers as `cfg.build` says for a communicator of `ranks` (custom: unchanged).
void apply_build(CcloConfig& cfg, unsigned ranks);
/// One line saying what the build set ("" for custom), and whether the benchmark built it over `transport`.
std::string describe_build(const CcloConfig& cfg, Transport transport);
/// When eager messages of up to `largest` bytes ran through Rx buffers smaller than them: one line saying how many
/// Rx-buffer segments such a message took and which build runs it whole ("" when every eager message fit one Rx
/// buffer). `forced`: the workload forced the eager protocol (not the build's own choice).
std::string segmentation_note(const CcloConfig& cfg, std::uint64_t largest, bool forced);
/// Appended to advice that names rx_buffers or the protocol limits ("; ..."): on a named build, that the build sets them
/// whatever is given and that build custom gives them ("" on custom). Such advice had sent users to settings the build
/// overrode.
std::string build_sets_these(const CcloConfig& cfg);
/// When the workload forced the rendezvous protocol: one line if the build is the eager one ("" otherwise).
std::string forced_rendezvous_note(const CcloConfig& cfg);

} // namespace nafsim::nodes
