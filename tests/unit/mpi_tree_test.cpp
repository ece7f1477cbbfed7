// mpi_tree_test.cpp: the double binary tree (Sanders, Speck and Traeff 2009) as the MPI engines build it: its two
// trees read by hand for 8 ranks, its properties for every rank count up to 300, and its pipelined rounds.
#include <doctest/doctest.h>

#include <set>
#include <vector>

#include "engines/mpi/pattern.h"

using namespace gpm;
using namespace gpm::mpi;

TEST_CASE("mpi tree: the two trees of 8 ranks, read by hand") {
  // Tree 1, in order over positions 1..8 (rank = position - 1): root 8; 4 under 8; 2 and 6 under 4; 1, 3 under 2;
  // 5, 7 under 6. Tree 2 mirrors it (rank 8 - position): root rank 0; 4 under 0; 6, 2 under 4; 7, 5 under 6; 3, 1
  // under 2. Depth 3 in both.
  DoubleTree t = double_binary_tree(8);
  CHECK(t.parent[0] == std::vector<int64_t>{1, 3, 1, 7, 5, 3, 5, -1});
  CHECK(t.parent[1] == std::vector<int64_t>{-1, 2, 4, 2, 0, 6, 4, 6});
  CHECK(t.depth == 3);
}

TEST_CASE("mpi tree: every rank count up to 300 gives two spanning binary trees, interior in at most one") {
  for (int64_t p = 2; p <= 300; ++p) {
    CAPTURE(p);
    DoubleTree t = double_binary_tree(p);
    int lg = 0;
    while ((int64_t(1) << lg) < p) ++lg;
    CHECK(t.depth <= lg);
    std::vector<int> interior(size_t(p), 0);
    for (int k = 0; k < 2; ++k) {
      std::vector<int> children(size_t(p), 0);
      int roots = 0;
      for (int64_t r = 0; r < p; ++r) {
        int64_t up = t.parent[k][size_t(r)];
        if (up < 0) {
          ++roots;
          continue;
        }
        REQUIRE(up < p);
        ++children[size_t(up)];
        // Every rank reaches the root within the depth (no cycle).
        int64_t steps = 0;
        for (int64_t a = r; t.parent[k][size_t(a)] >= 0 && steps <= p; a = t.parent[k][size_t(a)]) ++steps;
        CHECK(steps <= t.depth);
      }
      CHECK(roots == 1);
      for (int64_t r = 0; r < p; ++r) {
        CHECK(children[size_t(r)] <= 2);
        if (children[size_t(r)] > 0) ++interior[size_t(r)];
      }
    }
    for (int64_t r = 0; r < p; ++r) CHECK(interior[size_t(r)] <= 1);
  }
}

TEST_CASE("mpi tree: one pipelined round over both trees, half the data each") {
  Layout l = make_layout(8, 8, 8, Mapping{});
  auto all = collective_rounds(l, Collective::Allreduce, Algorithm::DoubleBinaryTree, true);
  REQUIRE(all.size() == 1);
  CHECK(all[0].pipeline_hops == 6);  // up the depth of 3, then down
  CHECK(all[0].size_factor == 0.5);
  CHECK(all[0].messages.size() == 4 * 7);  // 7 edges per tree, each way
  CHECK(all[0].stats.messages == 4 * 7);
  auto bcast = collective_rounds(l, Collective::Bcast, Algorithm::DoubleBinaryTree, true);
  REQUIRE(bcast.size() == 1);
  CHECK(bcast[0].pipeline_hops == 3);
  CHECK(bcast[0].messages.size() == 2 * 7);
  // A broadcast sends from parents to children: rank 7, tree 1's root, to its one child 3 (in tree 2 it is a leaf);
  // rank 4 to 6 and 2 in tree 2 (a leaf of tree 1).
  std::set<int32_t> from7, from4;
  for (auto [a, b] : bcast[0].messages) {
    if (a == 7) from7.insert(b);
    if (a == 4) from4.insert(b);
  }
  CHECK(from7 == std::set<int32_t>{3});
  CHECK(from4 == std::set<int32_t>{2, 6});
}
