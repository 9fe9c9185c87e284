#pragma once
// One MPI rank over Portals (PAC paper 3.3.1, "MPI functions"): runs a collective's schedule
// (protocols/collectives, the algorithm OpenMPI's tuned rules pick: the paper's MPI collectives follow
// OpenMPI) with MPI_Irecv / MPI_Isend on the node's Portals interface (PortalsNi), and Global Arrays'
// one-sided gets on windows. Receives are posted as MPI code posts them (irecv before the
// matching isend's wait); local combines and copies run on the host CPU. Carries no data.

#include "nodes/pac/PortalsNi.hpp"
#include "protocols/collectives/Schedule.hpp"

#include <map>

namespace nafsim::nodes {

class PortalsMpi {
public:
  /// `combine_rate` / `copy_rate`: the host CPU's local reductions and copies.
  /// `clock`: the node's (its host's steps are dated on it); `s` wakes the rank's actor.
  PortalsMpi(int rank, PortalsNi& ni, Scheduler& s, NodeClock& clock, BitsPerSecond combine_rate,
             BitsPerSecond copy_rate);

  /// This rank's part of a collective (its schedule; ranks are node numbers); blocks until done.
  void run(ActorContext& ctx, const coll::Schedule& s);
  /// The same on a sub-communicator: rank i of the schedule is node `comm[i]`.
  void run(ActorContext& ctx, const coll::Schedule& s, const std::vector<int>& comm);
  /// MPI_Send / MPI_Recv (blocking) of `bytes` with `peer`.
  void send(ActorContext& ctx, int peer, std::uint64_t bytes);
  void recv(ActorContext& ctx, int peer, std::uint64_t bytes);
  /// GA_Get of `bytes` at `offset` of node `owner`'s block of a global array (window `bits`); blocks.
  void ga_get(ActorContext& ctx, int owner, portals::MatchBits bits, std::uint64_t offset, std::uint64_t bytes);

  PortalsNi& ni() { return ni_; }

private:
  struct Call;
  void issue(Call& call, std::uint32_t i);
  void op_done(Call& call, std::uint32_t i);
  void send_posted(Call& call, std::uint32_t i);
  void local(SimTime cost, std::function<void()> then);
  /// Start an operation (`start` hands the interface its completion) and block until it completes.
  void blocking(ActorContext& ctx, const char* what, const std::function<void(PortalsNi::Done)>& start);
  portals::MatchBits bits(int peer, std::uint64_t seq) const;

  int rank_;
  PortalsNi& ni_;
  Scheduler& sched_;
  NodeClock& clock_;
  BitsPerSecond combine_rate_, copy_rate_;
  SimTime cpu_free_;
  std::map<int, std::uint64_t> out_seq_, in_seq_;
};

} // namespace nafsim::nodes
