// alltoallv_distance.cpp: an alltoallv whose block depends only on dst - src, priced under the fitted models over
// any number of ranks: each rank's messages counted per route and size over the runs of ranks that share its socket,
// node and leaf switch, instead of pair by pair. The round is alltoallv_rounds' (alltoallv.cpp) on the same blocks;
// tests/unit/mpi_alltoallv_distance_test.cpp compares the two.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "engines/mpi/pattern.h"
#include "engines/mpi/pattern_detail.h"

namespace gpm::mpi {

using detail::Accumulator;

namespace {

// Each group's first and last rank (groups numbered 0 .. n - 1 by `of`), or false when a group's ranks are not
// consecutive.
template <class Of>
bool runs(int64_t p, int64_t n, Of of, std::vector<std::pair<int64_t, int64_t>>& out) {
  out.assign(size_t(n), {-1, -1});
  std::vector<int64_t> count(size_t(n), 0);
  for (int64_t r = 0; r < p; ++r) {
    auto& [lo, hi] = out[size_t(of(r))];
    if (lo < 0) lo = r;
    hi = r;
    count[size_t(of(r))] += 1;
  }
  for (int64_t g = 0; g < n; ++g)
    if (count[size_t(g)] > 0 && out[size_t(g)].second - out[size_t(g)].first + 1 != count[size_t(g)]) return false;
  return true;
}

}  // namespace

std::optional<Round> alltoallv_distance_round(const Layout& l, std::span<const double> by_distance,
                                              std::string& why) {
  const int64_t p = l.ranks;
  if (p < 1 || by_distance.size() != size_t(2 * p - 1)) {
    why = "the blocks by distance do not match the rank count";
    return std::nullopt;
  }
  std::vector<std::pair<int64_t, int64_t>> socket_run, node_run, leaf_run;
  if (!runs(p, l.nodes * l.sockets_per_node, [&](int64_t r) { return l.socket[size_t(r)]; }, socket_run) ||
      !runs(p, l.nodes, [&](int64_t r) { return l.node[size_t(r)]; }, node_run) ||
      !runs(p, l.leaves(), [&](int64_t r) { return l.leaf_of(r); }, leaf_run)) {
    why = "the mapping does not give every socket, node and leaf switch a run of consecutive ranks";
    return std::nullopt;
  }
  // The distances d = dst - src in [-(p - 1), p - 1] (index d + p - 1); a block of 0 B, and d = 0, send nothing.
  // `sent[k]`: how many distances below index k send. The most frequent size is counted as what the others leave;
  // each other size keeps its sorted distances, counted by binary search.
  const size_t n = size_t(2 * p - 1), zero = size_t(p - 1);
  std::vector<int64_t> sent(n + 1, 0);
  std::map<double, std::vector<int64_t>> at;  // size -> its distances' indices, ascending
  for (size_t k = 0; k < n; ++k) {
    const bool sends = k != zero && by_distance[k] > 0;
    sent[k + 1] = sent[k] + (sends ? 1 : 0);
    if (sends) at[by_distance[k]].push_back(int64_t(k));
  }
  double common = 0;
  size_t most = 0;
  for (const auto& [size, where] : at)
    if (where.size() > most) {
      most = where.size();
      common = size;
    }
  std::vector<std::pair<double, const std::vector<int64_t>*>> others;
  for (const auto& [size, where] : at)
    if (size != common) others.emplace_back(size, &where);
  // The work: every rank counts each other size over up to eight runs of destinations.
  constexpr double kWork = 4e7;
  if (double(p) * double(others.size() + 1) > kWork) {
    why = fmt::format("its blocks take {} different sizes; over {} ranks gpmc counts at most {} (ranks x sizes at "
                      "most {:g})",
                      at.size(), p, int64_t(kWork / double(p)), kWork);
    return std::nullopt;
  }
  auto count_in = [](const std::vector<int64_t>& where, int64_t lo, int64_t hi) {
    return int64_t(std::upper_bound(where.begin(), where.end(), hi) - std::lower_bound(where.begin(), where.end(), lo));
  };
  Accumulator acc(l);
  std::set<SizedRow> rows;
  constexpr size_t kRowEntries = 2e7;  // what the distinct rows may hold in all
  size_t row_entries = 0;
  int64_t busiest = 0;
  std::vector<int64_t> counts(others.size());
  SizedRow row;  // this rank's, kept when no earlier rank sent the same
  for (int64_t r = 0; r < p; ++r) {
    const auto [s0, s1] = socket_run[size_t(l.socket[size_t(r)])];
    const auto [n0, n1] = node_run[size_t(l.node[size_t(r)])];
    const auto [f0, f1] = leaf_run[size_t(l.leaf_of(r))];
    // Each route's destinations: two runs of ranks around the narrower group (pattern.h, Layout::route).
    const std::pair<int64_t, int64_t> route_runs[kRoutes][2] = {
        {{s0, r - 1}, {r + 1, s1}}, {{n0, s0 - 1}, {s1 + 1, n1}}, {{f0, n0 - 1}, {n1 + 1, f1}}, {{0, f0 - 1}, {f1 + 1, p - 1}}};
    PatternStats::Signature sig{};
    row.clear();
    int64_t all = 0;
    for (int route = 0; route < kRoutes; ++route) {
      int64_t total = 0;
      std::fill(counts.begin(), counts.end(), 0);
      for (const auto& [lo, hi] : route_runs[route]) {
        if (lo > hi) continue;
        const int64_t a = lo - r + int64_t(zero), b = hi - r + int64_t(zero);  // distance indices
        total += sent[size_t(b) + 1] - sent[size_t(a)];
        for (size_t i = 0; i < others.size(); ++i) counts[i] += count_in(*others[i].second, a, b);
      }
      if (total == 0) continue;
      sig[size_t(route * kSizeKinds)] = total;
      all += total;
      // The row in (route, bytes) order, as alltoallv_rounds' map keeps it.
      int64_t rest = total;
      for (int64_t c : counts) rest -= c;
      bool common_placed = rest == 0;
      for (size_t i = 0; i < others.size(); ++i) {
        if (!common_placed && common < others[i].first) {
          row.emplace_back(route, common, rest);
          common_placed = true;
        }
        if (counts[i] > 0) row.emplace_back(route, others[i].first, counts[i]);
      }
      if (!common_placed) row.emplace_back(route, common, rest);
    }
    acc.add(r, sig);
    busiest = std::max(busiest, all);
    if (rows.find(row) == rows.end()) {
      row_entries += row.size();
      rows.insert(row);
    }
    if (row_entries > kRowEntries) {
      why = fmt::format("its ranks send more than {:g} different mixes of sizes and routes", double(kRowEntries));
      return std::nullopt;
    }
  }
  Round round;
  round.stats = acc.finish();
  round.what = "pairwise exchange";
  round.steps_each = double(busiest);
  round.sized_rows.assign(rows.begin(), rows.end());
  return round;
}

}  // namespace gpm::mpi
