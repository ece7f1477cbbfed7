// flow_patterns_test.cpp: the built-in flow patterns' (source, destination) lists and their refusals.
#include <doctest/doctest.h>

#include <set>

#include "lower/flow_patterns.h"

using namespace gpm::lower;

namespace {
std::vector<std::pair<int, int>> flows(const std::string& pattern, int64_t n, int64_t arg = 1) {
  std::string why;
  auto count = pattern_flow_count(pattern, n, arg, why);
  REQUIRE_MESSAGE(count, why);
  auto out = pattern_flows(pattern, n, arg);
  CHECK(out.size() == *count);
  return out;
}
using Pairs = std::vector<std::pair<int, int>>;
}  // namespace

TEST_CASE("flow patterns: all_to_all, ring, shift and pairs list their flows in source order") {
  CHECK(flows("all_to_all", 3) == Pairs{{0, 1}, {0, 2}, {1, 0}, {1, 2}, {2, 0}, {2, 1}});
  CHECK(flows("ring", 4) == Pairs{{0, 1}, {1, 2}, {2, 3}, {3, 0}});
  CHECK(flows("shift", 4, 3) == Pairs{{0, 3}, {1, 0}, {2, 1}, {3, 2}});
  CHECK(flows("shift", 4, -1) == flows("shift", 4, 3));
  CHECK(flows("pairs", 4, 1) == Pairs{{0, 1}, {1, 0}, {2, 3}, {3, 2}});
  CHECK(flows("pairs", 6, 3) == Pairs{{0, 3}, {1, 4}, {2, 5}, {3, 0}, {4, 1}, {5, 2}});
  CHECK(flows("all_to_all", 1000).size() == 999'000);
}

TEST_CASE("flow patterns: a permutation has no fixed point, is the same for a seed, and differs between seeds") {
  for (int64_t n : {2, 3, 7, 64, 1000}) {
    for (int64_t seed : {0, 1, 42}) {
      auto p = flows("permutation", n, seed);
      std::set<int> targets;
      for (auto [a, b] : p) {
        CHECK(a != b);
        targets.insert(b);
      }
      CHECK(targets.size() == size_t(n));
      CHECK(p == flows("permutation", n, seed));
    }
  }
  CHECK(flows("permutation", 64, 1) != flows("permutation", 64, 2));
  // The generator is fixed (SplitMix64), so a seed names one permutation everywhere.
  CHECK(flows("permutation", 5, 7) == flows("permutation", 5, 7));
}

TEST_CASE("flow patterns: too few endpoints, a null shift and pairs that do not divide are refused") {
  std::string why;
  CHECK_FALSE(pattern_flow_count("all_to_all", 1, 1, why));
  CHECK(why.find("at least two endpoints") != std::string::npos);
  CHECK_FALSE(pattern_flow_count("shift", 4, 8, why));
  CHECK(why.find("every endpoint to itself") != std::string::npos);
  CHECK_FALSE(pattern_flow_count("pairs", 6, 2, why));
  CHECK(why.find("blocks of 4") != std::string::npos);
  CHECK_FALSE(pattern_flow_count("pairs", 6, 0, why));
  CHECK(pattern_flow_count("all_to_all", 100000, 1, why) == uint64_t(100000) * 99999);
}
