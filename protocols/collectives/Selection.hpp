#pragma once
// How the ACCL+ firmware picks a protocol and an algorithm for a call (ccl_offload_control.c), with
// its tuning registers and the driver's defaults (ACCL::configure_tuning_parameters).

#include "protocols/collectives/Algorithms.hpp"

#include <optional>

namespace nafsim::coll {

struct CcloTuning {
  std::uint64_t max_eager_size          = 32 * 1024; ///< firmware default max_eager_size = 1 << 15
  std::uint64_t rx_buffer_size          = 32 * 1024; ///< eager segments are one Rx buffer
  std::uint64_t max_rendezvous_size     = 4 << 20;   ///< rendezvous spare buffer size
  unsigned bcast_flat_tree_max_ranks    = 3;
  unsigned reduce_flat_tree_max_ranks   = 4;
  std::uint64_t reduce_flat_tree_max_count = 32 * 1024; ///< min(max_rendezvous_size / 4, 32 KiB)
  unsigned gather_flat_tree_max_fanin   = 2;
  std::uint64_t gather_flat_tree_max_count = 32 * 1024;
};

struct Selection {
  Protocol protocol   = Protocol::Eager;
  Algorithm algorithm = Algorithm::Direct;
  AlgorithmOptions options;
};

/// The firmware's choice: rendezvous when bytes > max_eager_size and the call is neither compressed
/// nor streamed (all-to-all: whenever neither); then the algorithm of that protocol (ACCL+ Table 1).
/// `force_protocol` / `force_algorithm` override it ("what if the firmware did X"); a forced
/// algorithm that cannot run the call throws std::invalid_argument.
Selection cclo_select(const CollectiveCall& call, const CcloTuning& t, bool compressed, bool streamed,
                      std::optional<Protocol> force_protocol = std::nullopt,
                      std::optional<Algorithm> force_algorithm = std::nullopt);

} // namespace nafsim::coll
