// double_tree.cpp: the two binary trees of the double binary tree algorithm (pattern.h, DoubleTree).
#include <algorithm>

#include "engines/mpi/pattern.h"

namespace gpm::mpi {

DoubleTree double_binary_tree(int64_t p) {
  // Tree 1 is the in-order binary tree over positions 1 .. p (rank r at position r + 1): a position x whose lowest
  // set bit is h hangs below x - h or x + h, whichever has 2h as its lowest set bit, or below the first ancestor of
  // that one within 1 .. p; the root is the largest power of two <= p. Interior nodes are the even positions, leaves
  // the odd ones. Tree 2 is tree 1 mirrored (rank r at position p - r) for an even p, shifted by one (rank r at
  // position (r + 1) mod p + 1) for an odd p, so that a rank is interior in at most one of the two trees.
  DoubleTree t;
  if (p < 1) return t;
  int64_t root = 1;
  while (root * 2 <= p) root *= 2;
  auto parent_position = [&](int64_t x) -> int64_t {
    if (x == root) return 0;
    int64_t h = x & -x;
    for (;;) {
      int64_t y = (x / (2 * h)) % 2 == 1 ? x - h : x + h;
      if (y <= p) return y;
      x = y;
      h *= 2;
    }
  };
  for (int k = 0; k < 2; ++k) {
    auto position = [&](int64_t r) {
      if (k == 0) return r + 1;
      return p % 2 == 0 ? p - r : (r + 1) % p + 1;
    };
    std::vector<int64_t> rank_at(size_t(p) + 1, -1);
    for (int64_t r = 0; r < p; ++r) rank_at[size_t(position(r))] = r;
    t.parent[k].assign(size_t(p), -1);
    for (int64_t r = 0; r < p; ++r) {
      int64_t up = parent_position(position(r));
      t.parent[k][size_t(r)] = up == 0 ? -1 : rank_at[size_t(up)];
    }
    for (int64_t r = 0; r < p; ++r) {
      int64_t d = 0;
      for (int64_t a = t.parent[k][size_t(r)]; a >= 0; a = t.parent[k][size_t(a)]) ++d;
      t.depth = std::max(t.depth, d);
    }
  }
  return t;
}

}  // namespace gpm::mpi
