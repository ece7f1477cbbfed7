// suggest.h: "did you mean" suggestions: the closest known name within a small edit distance.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace gpm::support {

// The candidate nearest to `name` (Levenshtein distance at most 2, and less than half its length), or
// empty. Ties go to the first candidate, so the result follows the order given.
std::string closest_name(std::string_view name, const std::vector<std::string>& candidates);

// `; did you mean `x`?` for a non-empty suggestion, else empty: ready to append to a message.
std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace gpm::support
