// suggest.cpp: edit distance between names, for suggestions in diagnostics.
#include "support/suggest.h"

#include <algorithm>

namespace gpm::support {

static size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string closest_name(std::string_view name, const std::vector<std::string>& candidates) {
  if (name.empty()) return {};
  size_t limit = std::min<size_t>(2, (name.size() - 1) / 2);
  std::string best;
  size_t best_distance = limit + 1;
  for (const auto& candidate : candidates) {
    if (candidate == name) continue;
    size_t d = edit_distance(name, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates) {
  std::string best = closest_name(name, candidates);
  return best.empty() ? std::string() : "; did you mean `" + best + "`?";
}

}  // namespace gpm::support
