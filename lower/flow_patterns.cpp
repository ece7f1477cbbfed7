// flow_patterns.cpp: expands the built-in flow patterns into (source, destination) positions.
#include "lower/flow_patterns.h"

#include <fmt/format.h>

namespace gpm::lower {

namespace {

// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014): a fixed
// generator, so that a seed gives the same permutation with every compiler and standard library.
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, bound) without modulo bias (rejection of the incomplete last range).
  uint64_t below(uint64_t bound) {
    uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    for (;;) {
      uint64_t x = next();
      if (x < limit) return x % bound;
    }
  }
};

int64_t wrap(int64_t i, int64_t n) { return ((i % n) + n) % n; }

}  // namespace

std::optional<uint64_t> pattern_flow_count(const std::string& pattern, int64_t n, int64_t arg, std::string& why) {
  if (n < 2) {
    why = fmt::format("a `{}` pattern needs at least two endpoints, but this set has {}", pattern, n);
    return std::nullopt;
  }
  uint64_t u = uint64_t(n);
  if (pattern == "all_to_all") return u * (u - 1);
  if (pattern == "ring" || pattern == "permutation") return u;
  if (pattern == "shift") {
    if (wrap(arg, n) == 0) {
      why = fmt::format("a shift by {} among {} endpoints sends every endpoint to itself", arg, n);
      return std::nullopt;
    }
    return u;
  }
  if (pattern == "pairs") {
    if (arg < 1 || n % (2 * arg) != 0) {
      why = arg < 1 ? fmt::format("the distance of pairs must be at least 1, not {}", arg)
                    : fmt::format("pairs at distance {} group the endpoints in blocks of {}, which do not divide {}",
                                  arg, 2 * arg, n);
      return std::nullopt;
    }
    return u;
  }
  why = fmt::format("`{}` is not a flow pattern", pattern);
  return std::nullopt;
}

std::vector<std::pair<int, int>> pattern_flows(const std::string& pattern, int64_t n, int64_t arg) {
  std::vector<std::pair<int, int>> out;
  if (pattern == "all_to_all") {
    out.reserve(size_t(n) * size_t(n - 1));
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        if (i != j) out.push_back({int(i), int(j)});
  } else if (pattern == "ring" || pattern == "shift") {
    int64_t k = pattern == "ring" ? 1 : arg;
    for (int64_t i = 0; i < n; ++i) out.push_back({int(i), int(wrap(i + k, n))});
  } else if (pattern == "pairs") {
    for (int64_t i = 0; i < n; ++i) out.push_back({int(i), int((i / arg) % 2 == 0 ? i + arg : i - arg)});
  } else if (pattern == "permutation") {
    // Fisher-Yates, then each fixed point swapped with its successor's target (which never makes a new one).
    std::vector<int64_t> p(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) p[size_t(i)] = i;
    SplitMix64 rng{uint64_t(arg)};
    for (int64_t i = n - 1; i > 0; --i) std::swap(p[size_t(i)], p[size_t(rng.below(uint64_t(i) + 1))]);
    for (int64_t i = 0; i < n; ++i)
      if (p[size_t(i)] == i) std::swap(p[size_t(i)], p[size_t((i + 1) % n)]);
    for (int64_t i = 0; i < n; ++i) out.push_back({int(i), int(p[size_t(i)])});
  }
  return out;
}

}  // namespace gpm::lower
