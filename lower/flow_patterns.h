// flow_patterns.h: the built-in patterns of a `flows` block (all_to_all, ring, shift, pairs, permutation) as lists
// of (source, destination) positions among N endpoints.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpm::lower {

// How many flows `pattern` makes among n endpoints with argument `arg`, or nullopt with `why` set when the pattern
// does not fit (fewer than two endpoints, a shift by a multiple of n, pairs whose blocks do not divide n).
// `arg` is the shift's distance, the pairs' distance (1 when absent) or the permutation's seed; ignored otherwise.
std::optional<uint64_t> pattern_flow_count(const std::string& pattern, int64_t n, int64_t arg, std::string& why);

// The flows, as positions (0..n-1) of source and destination, in source order (then destination order for
// all_to_all). Call only after pattern_flow_count accepted the same arguments.
//   all_to_all      every ordered pair of distinct endpoints: n(n-1) flows
//   ring            i -> i+1 (mod n)
//   shift(k)        i -> i+k (mod n), k not a multiple of n
//   pairs(d)        in each block of 2d consecutive endpoints, i and i+d send to each other (d = 1: 0<->1, 2<->3)
//   permutation(s)  i -> p(i), p a permutation without fixed points drawn from seed s (the same on every machine)
std::vector<std::pair<int, int>> pattern_flows(const std::string& pattern, int64_t n, int64_t arg);

}  // namespace gpm::lower
