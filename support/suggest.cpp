// suggest.cpp: edit distance between names, for suggestions in diagnostics.
#include "support/suggest.h"

#include <algorithm>

namespace gpm::support {

// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two adjacent letters
// (`rign` is one edit from `ring`), each costing one.
static size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

std::string closest_name(std::string_view name, const std::vector<std::string>& candidates) {
  if (name.empty()) return {};
  size_t limit = std::min<size_t>(2, (name.size() - 1) / 2);
  std::string best;
  size_t best_distance = limit + 1;
  for (const auto& candidate : candidates) {
    if (candidate == name) continue;
    // The distance is at least the difference in length: skip, without filling a table, what cannot be close.
    if (candidate.size() > name.size() + limit || name.size() > candidate.size() + limit) continue;
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
