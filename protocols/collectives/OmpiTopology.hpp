#pragma once
// The communication trees of Open MPI's coll/base (ompi/mca/coll/base/coll_base_topo.c, 4.1), as
// one rank sees them: its parent and its children in the order the algorithms address them. The
// tree-based broadcasts and reductions (coll_base_bcast.c, coll_base_reduce.c) and the binomial
// gather / scatter run over these.

#include <vector>

namespace nafsim::coll::ompi {

struct Tree {
  int parent = -1;           ///< -1 at the root
  std::vector<int> children; ///< in tree_next[] order
};

/// ompi_coll_base_topo_build_tree: a `fanout`-ary tree level by level (fanout 2: "binary").
Tree build_tree(int fanout, int size, int rank, int root);
/// ompi_coll_base_topo_build_bmtree: binomial tree, children index ^ 1, 2, 4, ... (bcast binomial).
Tree build_bmtree(int size, int rank, int root);
/// ompi_coll_base_topo_build_in_order_bmtree: binomial tree, children vrank + 1, 2, 4, ...
/// (reduce binomial, gather and scatter binomial).
Tree build_in_order_bmtree(int size, int rank, int root);
/// ompi_coll_base_topo_build_in_order_bintree: a binary tree rooted at rank size - 1 whatever the operation's root,
/// its left subtree the ranks just below the parent, its right the lowest (reduce in-order_binary).
Tree build_in_order_bintree(int size, int rank);
/// ompi_coll_base_topo_build_kmtree: k-nomial tree of `radix` (bcast knomial).
Tree build_kmtree(int size, int rank, int root, int radix);
/// ompi_coll_base_topo_build_chain: `fanout` chains from the root (fanout < 1 is forced to 1, a
/// pipeline, as Open MPI does when the tuned fixed rules pass faninout 0).
Tree build_chain(int fanout, int size, int rank, int root);

/// opal_next_poweroftwo: the smallest power of two strictly greater than `v` (1 for 0).
int next_power_of_two(int v);
/// The largest power of two <= v (v >= 1).
int floor_power_of_two(int v);

} // namespace nafsim::coll::ompi
