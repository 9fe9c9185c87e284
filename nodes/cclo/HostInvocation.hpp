#pragma once
// The host side of a CCLO call, as ACCL's host drivers run it (driver/xrt/src/accl.cpp):
//   - how long posting the call and seeing its completion take, per invocation path (FPGA kernel, Coyote or
//     XRT host driver), the same for every call or (jitter) drawn per call from the measured NOP spread;
//   - XRT's buffer syncs: with partitioned memory the driver syncs each host buffer the call reads to the
//     card before posting it and each buffer it writes back after it, collective by collective as the
//     driver's functions do (bcast: the root's buffer in, every rank's buffer out; reduce: every operand in,
//     the root's result out; ...);
//   - the driver's safety warning before a host-invoked gather or all-to-all (external_dma).

#include "nodes/cclo/CcloConfig.hpp"
#include "protocols/collectives/Schedule.hpp"
#include "simcore/engine/Rng.hpp"
#include "simcore/engine/Scheduler.hpp"

#include <array>
#include <functional>
#include <map>
#include <utility>
#include <vector>

namespace nafsim::nodes {

enum class InvocationPath { Kernel, Coyote, Xrt };

class HostInvocation {
public:
  /// One buffer sync by the host driver: `bytes` to the card (to_host false) or back.
  using Sync = std::function<void(ActorContext& ctx, std::uint64_t bytes, bool to_host)>;
  /// `nop_cycles`: the firmware's own part of a NOP (call + finalize), at `clock`; `rng`: this node's stream.
  HostInvocation(const InvocationConfig& cfg, const RxBufferConfig& rx, std::uint64_t nop_cycles, Hertz clock, Rng rng);

  void set_sync(Sync s) { sync_ = std::move(s); }

  /// The request and response latencies of `call` on `path`. With jitter, the k-th call of the same signature
  /// (collective, ranks, root, count, element type and function, path) on this node draws from a stream of its own,
  /// so a call's draw does not depend on which other calls the node made before it (a size's row of a benchmark
  /// does not move when another size joins the list).
  /// `key`: the caller's name for the call's place (CcloCall::invocation_key), part of the signature.
  std::pair<SimTime, SimTime> latencies(InvocationPath path, const coll::CollectiveCall& call, std::uint64_t key = 0);
  /// The sizes of the syncs XRT's driver makes around a call on host buffers: to the card before, back after.
  struct Syncs {
    std::vector<std::uint64_t> to_device, to_host;
  };
  static Syncs xrt_syncs(const coll::CollectiveCall& call, int rank);
  /// Run syncs of one direction (each a driver call: its fixed cost, then the copy).
  void run_syncs(ActorContext& ctx, const std::vector<std::uint64_t>& bytes, bool to_host) const;
  /// The driver's safety warning before `call` on `path`: its cost, or zero when it does not write one.
  SimTime safety_warning(InvocationPath path, const coll::CollectiveCall& call) const;

  /// Empty if the jitter distributions are consistent (min < median < mean <= max); otherwise what is wrong,
  /// naming the parameter.
  static std::string check(const InvocationConfig& cfg, std::uint64_t nop_cycles, Hertz clock);

private:
  /// A draw of a whole NOP (request + firmware + response) on a path with the given spread and mean, from `rng`.
  static SimTime draw(Rng& rng, SimTime min, SimTime median, SimTime mean, SimTime max);
  /// The stream of the next call of `call`'s signature on `path`.
  Rng stream(InvocationPath path, const coll::CollectiveCall& call, std::uint64_t key);

  InvocationConfig cfg_;
  RxBufferConfig rx_;
  SimTime nop_fw_;
  std::uint64_t seed_; ///< drawn from this node's stream: the streams of its call signatures derive from it
  std::map<std::array<std::uint64_t, 8>, std::uint64_t> calls_; ///< per signature: the calls drawn so far
  Sync sync_;
};

} // namespace nafsim::nodes
