#pragma once
// Max-min fair sharing of link capacities between flows (the flow fidelity of
// DESIGN.md section 3): every flow crosses a set of links; each gets the
// largest rate such that no link is over its capacity and no flow could go
// faster without slowing one that is not faster than it (progressive filling:
// the most constrained link fixes the rates of its flows at its fair share,
// which leaves more for the others).
//
// Incremental: adding or removing a flow marks its links; solve() recomputes
// only the flows connected to a marked link through shared links (a connected
// component of the flow-link graph), since rates elsewhere cannot change, and
// reports the flows whose rate changed.

#include "simcore/net/IndexedHeap.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace nafsim::net {

class MaxMinSharing {
public:
  /// `capacity[l]` of link l, in any unit of amount per unit of time (rates
  /// come out in it).
  explicit MaxMinSharing(std::vector<double> capacity);
  MaxMinSharing(const MaxMinSharing&)            = delete; // its heap points into it
  MaxMinSharing& operator=(const MaxMinSharing&) = delete;

  /// A new flow over `links` (each link at most once); its rate is 0 until the
  /// next solve().
  std::uint32_t add(std::span<const std::uint32_t> links);
  /// The flow is gone; its id may be reused by a later add().
  void remove(std::uint32_t flow);
  /// Recompute the rates that may have changed since the last call; returns the
  /// flows (live ones only) whose rate changed, valid until the next call.
  const std::vector<std::uint32_t>& solve();
  bool dirty() const { return !seeds_.empty(); }

  double rate(std::uint32_t flow) const { return flows_[flow].rate; }
  std::span<const std::uint32_t> links(std::uint32_t flow) const { return flows_[flow].links; }
  std::size_t active() const { return active_; }
  std::size_t flows_on(std::uint32_t link) const { return on_link_[link].size(); }
  double capacity(std::uint32_t link) const { return capacity_[link]; }
  /// Flows whose rate was recomputed, in all (the cost of the incremental
  /// solves).
  std::uint64_t flows_solved() const { return flows_solved_; }

private:
  struct Flow {
    std::vector<std::uint32_t> links;
    double rate = 0;
    bool live   = false;
  };
  std::vector<double> capacity_;
  std::vector<std::vector<std::uint32_t>> on_link_; ///< live flows crossing each link
  std::vector<Flow> flows_;
  std::vector<std::uint32_t> free_;
  std::size_t active_ = 0;
  std::vector<std::uint32_t> seeds_; ///< links touched since the last solve
  // Solve scratch, stamped with the solve's epoch.
  std::uint32_t epoch_ = 0;
  std::vector<std::uint32_t> link_mark_, flow_mark_, flow_fixed_;
  std::vector<double> residual_, share_;
  std::vector<std::uint32_t> unfixed_;
  // The links of the component not yet fixed, by (fair share, link id).
  struct ShareBefore {
    const std::vector<double>* share;
    bool operator()(std::uint32_t a, std::uint32_t b) const
    {
      return (*share)[a] < (*share)[b] || ((*share)[a] == (*share)[b] && a < b);
    }
  };
  IndexedHeap<ShareBefore> heap_;
  std::vector<std::uint32_t> queued_, touch_mark_, touched_; ///< links re-keyed after a fixing step
  std::uint32_t touch_epoch_ = 1;
  std::vector<std::uint32_t> comp_links_, comp_flows_, changed_;
  std::uint64_t flows_solved_ = 0;
};

} // namespace nafsim::net
