#pragma once
#include "simcore/config/Schema.hpp"

namespace nafsim::topo {

enum class Kind { Star, LeafSpine, FatTree, Chain };

struct LeafSpineConfig {
  unsigned hosts_per_leaf = 16;
  unsigned spines         = 2;
  double oversubscription = 1.0;
  BitsPerSecond uplink_rate{100e9};
  template <class V> void describe(V& v)
  {
    v.field("hosts_per_leaf", hosts_per_leaf, "end hosts attached to each leaf switch", config::Limits::at_least(1));
    v.field("spines", spines, "number of spine switches; every leaf connects to every spine",
            config::Limits::between(1, 4096)); // beyond any leaf switch's radix
    v.field("oversubscription", oversubscription,
            "leaf downlink / uplink capacity ratio; sets the number of parallel leaf-spine links "
            "(hosts_per_leaf * link rate / (spines * uplink_rate * oversubscription)), which must be a whole number "
            "when there is more than one leaf (a ratio whole cables cannot give is refused, with the nearest that "
            "they can), or below 1 with a ratio of at most 1 (one cable per spine: non-blocking)",
            config::Limits::between(0.01, 1000));
    v.field("uplink_rate", uplink_rate, "rate of each leaf-spine link");
  }
};

struct FatTreeConfig {
  unsigned k = 4;
  template <class V> void describe(V& v)
  {
    v.field("k", k, "switch radix of the k-ary fat-tree (even); it holds k^3/4 hosts",
            config::Limits::between(2, 64));
  }
};

struct ChainConfig {
  unsigned switches = 1;
  template <class V> void describe(V& v)
  {
    v.field("switches", switches,
            "switches in a line between the two ends (0 = the two hosts joined by one cable); the first half of the "
            "hosts hangs off the first switch, the rest off the last, so a path between the halves crosses "
            "switches + 1 cables",
            config::Limits::between(0, 64));
  }
};

struct TopologyConfig {
  Kind kind      = Kind::Star;
  unsigned hosts = 2;
  LeafSpineConfig leaf_spine;
  FatTreeConfig fat_tree;
  ChainConfig chain;
  /// Whether the topology has a switch (all but a chain of none: two hosts on one cable).
  bool has_switches() const { return kind != Kind::Chain || chain.switches > 0; }
  template <class V> void describe(V& v)
  {
    v.field("kind", kind, "network topology");
    v.field("hosts", hosts,
            "number of end hosts (nodes); ranks are placed on hosts in order. In a scenario, \"ranks\" means as many "
            "as the workload's ranks (a sweep over workload.ranks then sizes its cluster)",
            config::Limits::between(1, 1 << 16));
    v.field("leaf_spine", leaf_spine, "leaf-spine parameters (kind = leaf-spine)");
    v.field("fat_tree", fat_tree, "fat-tree parameters (kind = fat-tree)");
    v.field("chain", chain, "chain parameters (kind = chain)");
  }
};

} // namespace nafsim::topo

namespace nafsim::config {
template <> struct EnumNames<topo::Kind> {
  static constexpr std::array list{std::pair{topo::Kind::Star, "star"}, std::pair{topo::Kind::LeafSpine, "leaf-spine"},
                                   std::pair{topo::Kind::FatTree, "fat-tree"},
                                   std::pair{topo::Kind::Chain, "chain"}};
};
} // namespace nafsim::config
