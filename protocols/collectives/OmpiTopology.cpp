#include "protocols/collectives/OmpiTopology.hpp"

#include <stdexcept>

namespace nafsim::coll::ompi {

namespace {

int pown(int fanout, int num)
{
  int p = 1;
  for (int j = 0; j < num; ++j)
    p *= fanout;
  return num < 0 ? 0 : p;
}

/// The level of shifted rank `rank` in a `fanout`-ary tree filled level by level.
int level_of(int fanout, int rank)
{
  int level = 0;
  for (int num = 0; num <= rank; ++level)
    num += pown(fanout, level);
  return level - 1;
}

int nodes_up_to_level(int fanout, int level)
{
  return (pown(fanout, level) - 1) / (fanout - 1);
}

int shifted(int rank, int root, int size)
{
  return ((rank - root) % size + size) % size;
}

} // namespace

int next_power_of_two(int v)
{
  int p = 1;
  while (p <= v)
    p <<= 1;
  return p;
}

int floor_power_of_two(int v)
{
  return next_power_of_two(v) >> 1;
}

Tree build_tree(int fanout, int size, int rank, int root)
{
  if (fanout < 2)
    throw std::invalid_argument("an Open MPI n-ary tree needs a fanout of at least 2");
  Tree t;
  if (size < 2)
    return t;
  const int s     = shifted(rank, root, size);
  const int level = level_of(fanout, s);
  const int delta = pown(fanout, level);
  for (int i = 0; i < fanout; ++i) {
    const int child = s + delta * (i + 1);
    if (child >= size)
      break;
    t.children.push_back((child + root) % size);
  }
  if (s == 0)
    return t;
  int parent = s;
  if (parent < fanout) {
    parent = 0;
  } else {
    const int limit = nodes_up_to_level(fanout, level);
    while (parent >= limit)
      parent -= delta / fanout;
  }
  t.parent = (parent + root) % size;
  return t;
}

Tree build_bmtree(int size, int rank, int root)
{
  Tree t;
  const int index = shifted(rank, root, size);
  int mask        = next_power_of_two(index);
  if (index != 0)
    t.parent = ((index ^ (mask >> 1)) + root) % size;
  for (; mask < size; mask <<= 1) {
    const int remote = index ^ mask;
    if (remote >= size)
      break;
    t.children.push_back((remote + root) % size);
  }
  return t;
}

Tree build_in_order_bintree(int size, int rank)
{
  Tree t;
  int myrank = rank, parent = size - 1, delta = 0;
  for (;;) {
    const int rightsize = size >> 1;
    int lchild = -1, rchild = -1;
    if (size - 1 > 0) {
      lchild = parent - 1;
      if (lchild > 0)
        rchild = rightsize - 1;
    }
    if (myrank == parent) { // tree_next[0] the left child, tree_next[1] the right one
      if (lchild >= 0)
        t.children.push_back(lchild + delta);
      if (rchild >= 0)
        t.children.push_back(rchild + delta);
      return t;
    }
    if (myrank > rchild) { // the left subtree: shift its ranks down
      if (myrank == lchild)
        t.parent = parent + delta;
      size   = size - rightsize - 1;
      delta  = delta + rightsize;
      myrank = myrank - rightsize;
      parent = size - 1;
    } else { // the right subtree
      if (myrank == rchild)
        t.parent = parent + delta;
      size   = rightsize;
      parent = rchild;
    }
  }
}

Tree build_in_order_bmtree(int size, int rank, int root)
{
  Tree t;
  const int vrank = shifted(rank, root, size);
  for (int mask = 1; mask < size; mask <<= 1) {
    const int remote = vrank ^ mask;
    if (remote < vrank) {
      t.parent = (remote + root) % size;
      break;
    }
    if (remote < size)
      t.children.push_back((remote + root) % size);
  }
  return t;
}

Tree build_kmtree(int size, int rank, int root, int radix)
{
  if (radix < 2)
    throw std::invalid_argument("a k-nomial tree needs a radix of at least 2");
  Tree t;
  const int vrank = shifted(rank, root, size);
  int mask        = 1;
  while (mask < size) {
    if (vrank % (radix * mask) != 0) {
      t.parent = (vrank / (radix * mask) * (radix * mask) + root) % size;
      break;
    }
    mask *= radix;
  }
  for (mask /= radix; mask > 0; mask /= radix)
    for (int r = 1; r < radix; ++r)
      if (const int child = vrank + mask * r; child < size)
        t.children.push_back((child + root) % size);
  return t;
}

Tree build_chain(int fanout, int size, int rank, int root)
{
  Tree t;
  if (fanout < 1)
    fanout = 1;
  if (size - 1 < fanout)
    fanout = size - 1;
  const int s = shifted(rank, root, size);
  if (size == 1)
    return t;
  if (fanout == 1) {
    if (s != 0)
      t.parent = (s - 1 + root) % size;
    if (s + 1 < size)
      t.children.push_back((s + 1 + root) % size);
    return t;
  }
  int maxchainlen = (size - 1) / fanout;
  int mark        = fanout + 1;
  if ((size - 1) % fanout != 0) {
    ++maxchainlen;
    mark = (size - 1) % fanout;
  }
  if (s == 0) {
    int next = (root + 1) % size;
    t.children.push_back(next);
    for (int i = 1; i < fanout; ++i) {
      next = t.children.back() + maxchainlen;
      if (i > mark)
        --next;
      t.children.push_back(next % size);
    }
    return t;
  }
  int head = 0, len = 0;
  if (s - 1 < mark * maxchainlen) {
    const int column = (s - 1) / maxchainlen;
    head             = 1 + column * maxchainlen;
    len              = maxchainlen;
  } else {
    const int column = mark + (s - 1 - mark * maxchainlen) / (maxchainlen - 1);
    head             = mark * maxchainlen + 1 + (column - mark) * (maxchainlen - 1);
    len              = maxchainlen - 1;
  }
  t.parent = ((s == head ? 0 : s - 1) + root) % size;
  if (s != head + len - 1 && s + 1 < size)
    t.children.push_back((s + 1 + root) % size);
  return t;
}

} // namespace nafsim::coll::ompi
