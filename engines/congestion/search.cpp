// search.cpp: evaluates every order in which the sources may send their flows (the product of the per-source
// permutations), or a range of them, on all threads; results depend only on the order index, so any thread count (or
// split over processes) gives the same answer.
#include <algorithm>
#include <cmath>
#include <thread>

#include "engines/congestion/engine.h"
#include "engines/congestion/simulator.h"

namespace gpm::engines::congestion {

namespace {

uint64_t factorial(size_t k) {
  uint64_t r = 1;
  for (size_t i = 2; i <= k; ++i) {
    if (r > UINT64_MAX / i) return UINT64_MAX;
    r *= i;
  }
  return r;
}

// Writes rank[f] for the flows of `list` under permutation `digit` (Lehmer code; 0 is the written order).
void decode(const std::vector<int>& list, uint64_t digit, std::vector<int>& pool, int* rank) {
  pool.assign(list.begin(), list.end());
  size_t k = list.size();
  for (size_t i = 0; i < k; ++i) {
    uint64_t f = factorial(k - 1 - i);
    size_t pick = size_t(digit / f);
    digit %= f;
    rank[pool[pick]] = int(i);
    pool.erase(pool.begin() + long(pick));
  }
}

}  // namespace

uint64_t CongestionEngine::order_count() const {
  if (!unordered_) return 1;
  uint64_t total = 1;
  for (const auto& list : by_source_) {
    uint64_t f = factorial(list.size());
    if (f == UINT64_MAX || total > UINT64_MAX / f) return UINT64_MAX;
    total *= f;
  }
  return total;
}

std::vector<std::vector<int>> CongestionEngine::order_of(uint64_t index) const {
  std::vector<int> rank(flows_.size(), 0), pool;
  std::vector<std::vector<int>> out;
  for (const auto& list : by_source_) {
    uint64_t radix = unordered_ ? factorial(list.size()) : 1;
    decode(list, index % radix, pool, rank.data());
    index /= radix;
    std::vector<int> ordered(list.size());
    for (int f : list) ordered[size_t(rank[size_t(f)])] = f;
    out.push_back(std::move(ordered));
  }
  return out;
}

uint64_t CongestionEngine::search_range(std::span<const double> inputs, uint64_t first, uint64_t last, int threads,
                                        std::atomic<uint64_t>* progress, double* makespan) const {
  constexpr uint64_t kChunk = 2048;
  std::atomic<uint64_t> next{first};
  std::vector<uint64_t> error_at(size_t(std::max(threads, 1)), UINT64_MAX);
  // With source arbitration and every flow issued at 0, an order is a queue per source (the fast path).
  bool queues = plan_.arbitration == Arbitration::Pcie;
  for (const auto& f : flows_) queues = queues && f.after < 0 && f.also_after.empty() && f.after_group < 0 && !f.has_start;
  auto work = [&](size_t id) {
    Simulator sim(*this, inputs, true);
    std::vector<int> rank(flows_.size(), 0), pool, queue(flows_.size(), 0);
    for (;;) {
      uint64_t begin = next.fetch_add(kChunk);
      if (begin >= last) break;
      uint64_t end = std::min(last, begin + kChunk);
      for (uint64_t i = begin; i < end; ++i) {
        uint64_t index = i;
        for (size_t s = 0; s < by_source_.size(); ++s) {
          const auto& list = by_source_[s];
          uint64_t radix = unordered_ ? factorial(list.size()) : 1;
          decode(list, index % radix, pool, rank.data());
          index /= radix;
          for (int f : list) queue[size_t(queue_begin_[s] + rank[size_t(f)])] = f;
        }
        double m = queues ? sim.run_queues(queue.data()) : sim.run(rank.data(), nullptr, nullptr);
        makespan[size_t(i - first)] = m;
        if (std::isnan(m) && i < error_at[id]) error_at[id] = i;
      }
      if (progress) progress->fetch_add(end - begin);
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work, size_t(t));
  work(0);
  for (auto& th : pool) th.join();
  return *std::min_element(error_at.begin(), error_at.end());
}

std::string CongestionEngine::order_error(std::span<const double> inputs, uint64_t index) const {
  std::vector<int> rank(flows_.size(), 0), pool;
  for (const auto& list : by_source_) {
    uint64_t radix = unordered_ ? factorial(list.size()) : 1;
    decode(list, index % radix, pool, rank.data());
    index /= radix;
  }
  std::string error;
  Simulator(*this, inputs, false).run(rank.data(), nullptr, &error);
  return error.empty() ? "an order has no result" : error;
}

CongestionEngine::SearchResult CongestionEngine::summarize(std::vector<double>& makespan, bool keep_makespans) const {
  SearchResult result;
  result.orders = makespan.size();
  result.source_names = source_names_;
  // The smallest index wins ties, so the answer does not depend on the thread count.
  for (uint64_t i = 0; i < result.orders; ++i) {
    if (makespan[size_t(i)] < makespan[size_t(result.fastest_index)]) result.fastest_index = i;
    if (makespan[size_t(i)] > makespan[size_t(result.slowest_index)]) result.slowest_index = i;
  }
  result.fastest_s = makespan[size_t(result.fastest_index)];
  result.slowest_s = makespan[size_t(result.slowest_index)];
  if (keep_makespans) result.makespans = makespan;  // before the median reorders them
  // The median: the middle value, or the mean of the two middle values for an even count.
  size_t mid = size_t(result.orders / 2);
  std::nth_element(makespan.begin(), makespan.begin() + long(mid), makespan.end());
  double upper = makespan[mid];
  if (result.orders % 2 == 0) {
    double lower = *std::max_element(makespan.begin(), makespan.begin() + long(mid));
    result.median_s = (lower + upper) / 2;
  } else {
    result.median_s = upper;
  }
  result.fastest_order = order_of(result.fastest_index);
  return result;
}

CongestionEngine::SearchResult CongestionEngine::search(std::span<const double> inputs, int threads,
                                                        std::atomic<uint64_t>* progress, bool keep_makespans) const {
  std::vector<double> makespan(static_cast<size_t>(order_count()));
  uint64_t first_error = search_range(inputs, 0, makespan.size(), threads, progress, makespan.data());
  if (first_error != UINT64_MAX) {
    SearchResult result;
    result.orders = makespan.size();
    result.source_names = source_names_;
    result.error = order_error(inputs, first_error);
    return result;
  }
  return summarize(makespan, keep_makespans);
}

}  // namespace gpm::engines::congestion
