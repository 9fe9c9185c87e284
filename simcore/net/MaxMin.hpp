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
// reports the flows whose rate changed. When that component holds nearly every
// flow (an all-to-all), unweighted solves take every link with flows rather than
// walk the flows to find it (the same rates; a walk every 16th solve re-checks).
// Within the component, an unweighted solve after few changes starts from the
// level of the change (`floor_`): the filling below the lowest of the removed
// flows' rates and of the levels at which the added flows' links would fill (the
// flows from before holding their rates) is the one the last solve did, so the
// flows fixed below it keep their rates and only the others are filled again (the
// proof: keep_below_floor). The kept flows' rates come off
// their links in the order the solve found them, so a whole-links solve and a walk
// may differ in the last bits of a residual (the tests: within 1e-9 of a solve from
// scratch).
//
// Weights::InputPorts (opt-in, the flow fabric's `flow_sharing: input-ports`): weighted max-min, with weights
// that split each link between the links the flows come in on (its input ports) rather than between the flows.
// A lossless switch serves a congested output by its input ports: the ones it paused take turns, one packet each
// (Fabric::wake_blocked), whatever the number of flows behind each; the sender's RoCE engine takes its queue
// pairs in turn. So a flow weighs 1 / the flows its sender's link carries from it, divided at every link of its
// path by the number of input links that bring flows there. Where flows converge along a tree (an incast, a
// gather) this is exactly the two-level sharing: each input port of a full link gets an equal part, split again
// at the switch before it (the root's neighbours are served before flows that share an uplink). ASSUMPTION:
// elsewhere a flow's weight is the product along its whole path (a weight per flow and link has no consistent
// max-min: a flow has one rate), so what a flow held elsewhere leaves goes to all in proportion, not first to
// its own input port's other flows, and a sender's cable is not shared equally between its flows that travel
// different paths (simcore/net/README.md: why a 16-rank all-to-all misses by 6 %).

#include "simcore/net/IndexedHeap.hpp"

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

namespace nafsim::net {

class MaxMinSharing {
public:
  enum class Weights { Equal, InputPorts };
  /// `capacity[l]` of link l, in any unit of amount per unit of time (rates
  /// come out in it).
  explicit MaxMinSharing(std::vector<double> capacity, Weights weights = Weights::Equal);
  MaxMinSharing(const MaxMinSharing&)            = delete; // its heap points into it
  MaxMinSharing& operator=(const MaxMinSharing&) = delete;

  /// A new flow over `links` (each link at most once, in path order: InputPorts weighs a flow by the links
  /// before each); its rate is 0 until the next solve().
  std::uint32_t add(std::span<const std::uint32_t> links);
  /// The flow is gone; its id may be reused by a later add().
  void remove(std::uint32_t flow);
  /// Recompute the rates that may have changed since the last call; returns the
  /// flows (live ones only) whose rate changed, valid until the next call.
  const std::vector<std::uint32_t>& solve();

  double rate(std::uint32_t flow) const { return hot_[flow].rate; }
  /// A rate set until the next solve() (which reports the flow as changed if it finds another).
  void set_rate(std::uint32_t flow, double r) { hot_[flow].rate = r; }
  /// The flow's equal share of its most loaded link: what it would get if every link's flows were held there.
  double equal_share(std::uint32_t flow) const;
  /// The flow's weight: 1, or (InputPorts) 1 / the flows its sender's link carries from it, divided at every
  /// link of its path by the number of input links that bring flows there.
  double weight(std::uint32_t flow) const;
  std::span<const std::uint32_t> links(std::uint32_t flow) const
  {
    const Hot& h = hot_[flow];
    return h.n <= Hot::kInline ? std::span<const std::uint32_t>(h.link, h.n)
                               : std::span<const std::uint32_t>(cold_[flow].long_path);
  }
  std::size_t active() const { return active_; }
  std::size_t flows_on(std::uint32_t link) const { return on_link_[link].size(); }
  double capacity(std::uint32_t link) const { return capacity_[link]; }
  /// Flows whose rate was recomputed, in all (the cost of the incremental
  /// solves).
  std::uint64_t flows_solved() const { return flows_solved_; }
  /// Flows in the components the solves took, in all (those recomputed and those kept below the change's level).
  std::uint64_t flows_in_components() const { return flows_in_components_; }

private:
  // What a solve reads of a flow, in one cache line: the solves walk tens of thousands of flows in the order
  // links list them, and a flow's rate and links in separate heap blocks cost two cache misses per flow
  // visited (about 40 % of an all-to-all's filling).
  struct alignas(64) Hot {
    static constexpr std::uint32_t kInline = 11; ///< links kept here; a longer path (a long chain) lives in Cold
    double rate         = 0;
    std::uint32_t mark  = 0; ///< solve(): the epoch that put it in the component
    std::uint32_t fixed = 0; ///< fill(): the epoch that fixed its rate
    std::uint32_t n     = 0; ///< its links
    std::uint32_t link[kInline];
  };
  static_assert(sizeof(Hot) == 64);
  struct Cold {
    std::vector<std::uint32_t> long_path; ///< its links when more than Hot::kInline
    std::vector<std::uint32_t> at;        ///< its index in on_link_ of each of its links (remove() in O(path))
    std::vector<std::uint32_t> groups;    ///< InputPorts: its (link, input link) pair at each hop
    bool live = false;
  };
  Weights weights_;
  std::unordered_map<std::uint64_t, std::uint32_t> group_id_; ///< InputPorts: (link << 32 | input link) -> group
  std::vector<std::uint32_t> group_flows_;                    ///< ... and its live flows
  std::vector<std::uint32_t> inputs_;                         ///< per link: its groups with live flows
  std::vector<double> weight_sum_;                            ///< fill<true>(): unfixed flows' weights per link
  std::vector<double> weight_of_;                             ///< ... and each flow's weight in this solve
  template <bool Weighted> void fill(bool whole); ///< progressive filling (Weighted: with the flows' weights)
  template <bool Weighted> double level_of(std::uint32_t link) const; ///< fill(): the link's level
  template <bool Weighted> void start_fill(bool whole); ///< fill(): the component's links in the heap
  template <bool Weighted> void fix_link(std::uint32_t link, double level); ///< fill(): one step
  std::vector<double> capacity_;
  std::vector<std::vector<std::uint32_t>> on_link_; ///< live flows crossing each link
  std::vector<Hot> hot_;
  static constexpr std::size_t kPrefetch = 8; ///< fill(): flows ahead of the one filled whose records it prefetches
  std::vector<Cold> cold_;
  std::vector<std::uint32_t> free_;
  std::size_t active_ = 0;
  std::vector<std::uint32_t> seeds_; ///< links touched since the last solve
  // Solve scratch, stamped with the solve's epoch.
  std::uint32_t epoch_ = 0;
  std::vector<std::uint32_t> link_mark_;
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
  void next_touch_epoch(); ///< a new stamp for touch_mark_ (cleared when the count wraps)
  std::vector<std::uint32_t> comp_links_, comp_flows_, changed_;
  // solve(): the last traversal found at least 90 % of the (at least kWholeFrom) flows in one component.
  static constexpr std::size_t kWholeFrom = 512;
  bool whole_                           = false;
  std::uint32_t solves_since_walk_      = 0;
  std::uint64_t flows_solved_ = 0, flows_in_components_ = 0;
  // Where the next unweighted solve starts filling (see the top): the lowest rate of a flow removed since the last
  // solve (a flow fixed at that rate; every link on its path has a level at least that) and of the levels at which
  // the added flows' links would fill (lower_floor_to_starts). The flows added since the last solve have no solved
  // rate yet (`fresh_`).
  double floor_ = 0;                     ///< 0 before the first solve: fill everything
  std::vector<std::uint8_t> fresh_;      ///< per flow id: added since the last solve
  std::vector<std::uint32_t> fresh_ids_; ///< ... those flows
  std::size_t changes_ = 0;              ///< starts and ends since the last solve
  std::vector<double> rates_scratch_;    ///< lower_floor_to_starts(): one link's solved rates
  /// fill<false>(): floor_ down to where the started flows' links would fill.
  void lower_floor_to_starts();
  /// fill<false>(): fixes the flows below floor_ at their rates, off their links' capacities; returns how many.
  std::size_t keep_below_floor(bool whole);
};

} // namespace nafsim::net
