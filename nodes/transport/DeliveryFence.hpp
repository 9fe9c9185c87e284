#pragma once
// Which of an engine's messages each peer has not yet acknowledged, for callers that must wait until what was posted
// to a peer so far is delivered (a Chakra trace's send completes at delivery, as ASTRA-sim's callback:
// workloads/program/SendDelivery.hpp). Ids grow as messages are posted; a wait covers every message posted to the
// peer before it (not those posted later) whatever order the acknowledgements come in; a completion wakes only the
// callers waiting on its peer. Used by the CCLO and the hosts' MPI library, each keeping one when a workload asks.

#include "simcore/engine/Scheduler.hpp"

#include <cstdint>
#include <fmt/format.h>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace nafsim::nodes {

class DeliveryFence {
public:
  /// Message `id` posted to `peer`.
  void posted(std::uint32_t peer, std::uint64_t id)
  {
    Peer& p = peers_[peer];
    p.unacked.insert(id);
    p.last = id;
    peer_of_.emplace(id, peer);
  }
  /// Message `id` completed (`ok`: acknowledged; a failure wakes no one: it fails the run). Not one of ours: ignored.
  void completed(Scheduler& sched, std::uint64_t id, bool ok)
  {
    auto it = peer_of_.find(id);
    if (it == peer_of_.end())
      return;
    Peer& p = peers_[it->second];
    p.unacked.erase(id);
    peer_of_.erase(it);
    if (ok)
      for (auto a : std::exchange(p.waiters, {}))
        sched.wake(a);
  }
  /// Wait until every message posted to `peer` so far is acknowledged (`who`: the engine, for a deadlock report).
  void wait(ActorContext& ctx, std::uint32_t peer, const std::string& who)
  {
    auto it = peers_.find(peer);
    if (it == peers_.end())
      return;
    Peer& p                  = it->second;
    const std::uint64_t last = p.last;
    while (!p.unacked.empty() && *p.unacked.begin() <= last) {
      p.waiters.push_back(ctx.id());
      ctx.block(WaitReason([who, peer] {
        return fmt::format("{}: a send waits for its delivery (its last message's acknowledgement from host {})", who,
                           peer);
      }));
    }
  }

private:
  struct Peer {
    std::set<std::uint64_t> unacked;
    std::uint64_t last = 0;
    std::vector<ActorId> waiters;
  };
  std::unordered_map<std::uint32_t, Peer> peers_;
  std::unordered_map<std::uint64_t, std::uint32_t> peer_of_;
};

} // namespace nafsim::nodes
