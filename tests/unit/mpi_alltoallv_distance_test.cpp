// mpi_alltoallv_distance_test.cpp: an alltoallv whose block depends only on dst - src, counted by runs of ranks
// (alltoallv_distance_round), gives the round the pair-by-pair count gives (alltoallv_rounds) for every layout and
// pattern tried; mappings that scatter a node's ranks are refused with the reason, as are too many sizes.
#include <doctest/doctest.h>

#include <functional>

#include "engines/mpi/pattern.h"

using namespace gpm;
using namespace gpm::mpi;

namespace {

using Blocks = std::function<double(int64_t)>;  // the block at distance d = dst - src

std::vector<double> by_distance(int64_t p, const Blocks& g) {
  std::vector<double> out(size_t(2 * p - 1), 0);
  for (int64_t d = 1 - p; d < p; ++d)
    if (d != 0) out[size_t(d + p - 1)] = g(d);
  return out;
}

std::vector<double> matrix(int64_t p, const Blocks& g) {
  std::vector<double> m(size_t(p * p), 0);
  for (int64_t i = 0; i < p; ++i)
    for (int64_t j = 0; j < p; ++j)
      if (i != j) m[size_t(i * p + j)] = g(j - i);
  return m;
}

void same_round(const Round& a, const Round& b) {
  CHECK(a.stats.signatures == b.stats.signatures);
  CHECK(a.stats.k_inter == b.stats.k_inter);
  CHECK(a.stats.k_total == b.stats.k_total);
  CHECK(a.stats.k_prime == b.stats.k_prime);
  CHECK(a.stats.k == b.stats.k);
  CHECK(a.stats.messages == b.stats.messages);
  CHECK(a.stats.k_leaf == b.stats.k_leaf);
  CHECK(a.stats.k_offleaf == b.stats.k_offleaf);
  CHECK(a.stats.k_leaf_total == b.stats.k_leaf_total);
  CHECK(a.stats.k_leaf_prime == b.stats.k_leaf_prime);
  CHECK(a.steps_each == b.steps_each);
  CHECK(a.what == b.what);
  CHECK(a.sized_rows == b.sized_rows);
  CHECK(a.messages.empty());
  CHECK(b.messages.empty());
}

}  // namespace

TEST_CASE("alltoallv by distance: the same round as pair by pair, for every layout and pattern tried") {
  const std::vector<std::pair<std::string, Blocks>> patterns = {
      {"one size", [](int64_t) { return 4096.0; }},
      {"a heavy next neighbour", [](int64_t d) { return d == 1 ? 4e6 : 1e6; }},
      {"neighbours only", [](int64_t d) { return d >= -2 && d <= 2 ? 262144.0 : 0.0; }},
      {"growing with distance", [](int64_t d) { return double(1024 * (d < 0 ? -d : d)); }},
      {"periodic", [](int64_t d) { return double(((d % 5) + 5) % 5) * 512.0; }},
      {"one direction", [](int64_t d) { return d > 0 ? 8192.0 : 16.0; }},
      {"nothing", [](int64_t) { return 0.0; }},
  };
  struct Shape {
    int64_t ranks, per_node, per_socket, nodes_per_leaf;
  };
  const Shape shapes[] = {{1, 1, 1, 0},  {2, 2, 1, 0},   {7, 7, 7, 0},  {24, 6, 3, 0},
                          {40, 8, 4, 2}, {45, 6, 2, 3},  {33, 4, 4, 1}, {64, 16, 8, 3}};
  for (const auto& sh : shapes) {
    Layout l = make_layout(sh.ranks, sh.per_node, sh.per_socket, Mapping{});
    REQUIRE(l.error.empty());
    l.nodes_per_leaf = sh.nodes_per_leaf;
    for (const auto& pattern : patterns) {
      const std::string& name = pattern.first;  // not a structured binding: CAPTURE takes it into a lambda
      const Blocks& g = pattern.second;
      CAPTURE(sh.ranks);
      CAPTURE(sh.per_node);
      CAPTURE(sh.nodes_per_leaf);
      CAPTURE(name);
      std::string why;
      auto fast = alltoallv_distance_round(l, by_distance(sh.ranks, g), why);
      REQUIRE(fast);
      auto rounds = alltoallv_rounds(l, matrix(sh.ranks, g), Algorithm::Pairwise, false);
      REQUIRE(rounds.size() == 1);
      same_round(*fast, rounds[0]);
    }
  }
}

TEST_CASE("alltoallv by distance: a node of scattered ranks, or too many sizes, is refused with the reason") {
  Mapping cyclic;
  cyclic.kind = Mapping::Kind::Cyclic;
  Layout l = make_layout(16, 4, 2, cyclic);
  REQUIRE(l.error.empty());
  std::string why;
  CHECK_FALSE(alltoallv_distance_round(l, by_distance(16, [](int64_t) { return 8.0; }), why));
  CHECK(why.find("consecutive ranks") != std::string::npos);

  // Every distance its own size over 10^4 ranks: 19,998 sizes, beyond what is counted.
  Layout big = make_layout(10000, 40, 20, Mapping{});
  why.clear();
  CHECK_FALSE(alltoallv_distance_round(big, by_distance(10000, [](int64_t d) { return double(d + 10000); }), why));
  CHECK(why.find("different sizes") != std::string::npos);

  why.clear();
  CHECK_FALSE(alltoallv_distance_round(big, std::vector<double>(5, 1.0), why));
  CHECK(!why.empty());
}

TEST_CASE("alltoallv by distance: a million ranks with a heavy neighbour") {
  const int64_t p = 1'000'000;
  Layout l = make_layout(p, 42, 21, Mapping{});
  REQUIRE(l.error.empty());
  std::string why;
  auto round = alltoallv_distance_round(l, by_distance(p, [](int64_t d) { return d == 1 || d == 1 - p ? 4e6 : 1e6; }),
                                        why);
  REQUIRE(round);
  CHECK(round->steps_each == double(p - 1));
  CHECK(round->stats.messages == p * (p - 1));
  // Each rank sends one heavy block (to r + 1, or rank p - 1 to rank 0), the rest light.
  for (const auto& row : round->sized_rows) {
    int64_t heavy = 0, all = 0;
    for (const auto& [route, bytes, n] : row) {
      heavy += bytes == 4e6 ? n : 0;
      all += n;
    }
    CHECK(heavy == 1);
    CHECK(all == p - 1);
  }
}
