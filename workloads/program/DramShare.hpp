#pragma once
// The host's DRAM shared by the compute phases one rank runs side by side (engine mpi, `compute.threads` below the
// cores: compute_slots > 1). A phase takes one of the rank's slots of `threads` cores, in the order phases come; its
// arithmetic runs on those cores alone, its bytes stream from DRAM at up to its cores' rate, and the phases streaming
// at once share the socket's bandwidth max-min (water-filling: a phase below its share keeps its own rate, the others
// split what is left), re-shared at every start and end. It ends when both its arithmetic and its bytes are done, plus
// the parallel region's fork and join: alone, exactly the roofline of nodes/compute/CpuCompute (its cores' rate or the
// socket's); three phases of 5 of 16 cores at once stream the socket's 204.8 GB/s between them, not 100 GB/s each.

#include "simcore/engine/Scheduler.hpp"

#include <deque>
#include <list>
#include <set>

namespace nafsim::workloads {

class DramShare {
public:
  /// `socket`: the socket's DRAM bandwidth, bytes per second; `slots`: phases at once.
  DramShare(Scheduler& sched, double socket, unsigned slots) : sched_(sched), socket_(socket), slots_(slots) {}

  struct Phase {
    SimTime compute;  ///< the arithmetic on the phase's cores
    double bytes = 0; ///< streamed from DRAM
    double cap   = 0; ///< the phase's own cores' DRAM rate, bytes per second (<= the socket's)
    SimTime extra;    ///< the fork and join
  };
  /// Run `p` on ctx's actor from `start` (>= now): wait for a slot, then until it is done (the actor's waits carry
  /// `busy`, the phase's cause on critical paths).
  void run(ActorContext& ctx, SimTime start, const Phase& p, const CauseLabel& busy);

private:
  struct Streaming {
    ActorId who;
    double left = 0, cap = 0, rate = 0;
    bool done   = false;
  };
  void advance(SimTime now);
  void reshare();
  void arm(SimTime now);
  void check(std::uint64_t generation);

  Scheduler& sched_;
  double socket_;
  unsigned slots_;
  unsigned busy_ = 0;
  std::deque<ActorId> waiting_; ///< phases waiting for a slot, in the order they came
  std::set<ActorId> granted_;   ///< waiting phases handed a slot by one that ended
  std::list<Streaming> streaming_;
  SimTime last_;
  std::uint64_t generation_ = 0; ///< of the armed check (an older one finds nothing to do)
  CauseLabel busy_label_;        ///< the phases' cause (the rank's compute), for the checks that end their streams
};

} // namespace nafsim::workloads
