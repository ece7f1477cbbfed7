// alltoallv.cpp: an all-to-all whose blocks differ (MPI_Alltoallv): its rounds under the fitted models (each rank's
// messages one after another) and on the fabric (pairwise steps or scattered batches, every message its own size),
// and the time of a pattern whose messages have sizes of their own.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "engines/mpi/pattern.h"
#include "engines/mpi/pattern_detail.h"

namespace gpm::mpi {

using detail::Accumulator;

std::vector<Round> alltoallv_rounds(const Layout& l, std::span<const double> bytes, Algorithm a, bool keep_messages) {
  const int64_t p = l.ranks;
  auto block = [&](int64_t src, int64_t dst) { return bytes[size_t(src * p + dst)]; };
  std::vector<Round> out;
  if (!keep_messages) {
    // As the fitted models price an all-to-all (collectives.cpp): each rank sends its messages one after another,
    // every k taken from the whole pattern.
    Accumulator acc(l);
    std::set<SizedRow> rows;
    int64_t most = 0;  // the most messages one rank sends: the exchange's steps
    for (int64_t r = 0; r < p; ++r) {
      PatternStats::Signature sig{};
      std::map<std::pair<int, double>, int64_t> mine;
      for (int64_t i = 1; i < p; ++i) {
        const int64_t to = (r + i) % p;
        const double b = block(r, to);
        if (!(b > 0)) continue;
        const int route = l.route(r, to);
        sig[size_t(route * kSizeKinds)] += 1;
        mine[{route, b}] += 1;
      }
      acc.add(r, sig);
      int64_t sent = 0;
      for (const auto& [key, n] : mine) sent += n;
      most = std::max(most, sent);
      SizedRow row;
      for (const auto& [key, n] : mine) row.emplace_back(key.first, key.second, n);
      rows.insert(std::move(row));
    }
    Round round;
    round.stats = acc.finish();
    round.what = "pairwise exchange";
    round.steps_each = double(most);
    round.sized_rows.assign(rows.begin(), rows.end());
    out.push_back(std::move(round));
    return out;
  }
  // MPICH's MPIR_Alltoallv_intra_scattered posts the sends to r + i (and the receives from r - i) for a batch of
  // MPIR_CVAR_ALLTOALL_THROTTLE shifts at once, skipping empty blocks; Open MPI's basic linear alltoallv posts
  // every one at once; the pairwise exchange takes one shift a step.
  const int64_t batch = a == Algorithm::Scattered ? kAlltoallThrottle
                        : a == Algorithm::Linear  ? std::max<int64_t>(1, p - 1)
                                                  : 1;
  for (int64_t first = 1; first < p; first += batch) {
    const int64_t last = std::min(p - 1, first + batch - 1);
    Round round;
    for (int64_t i = first; i <= last; ++i)
      for (int64_t r = 0; r < p; ++r) {
        const int64_t to = (r + i) % p;
        const double b = block(r, to);
        if (!(b > 0)) continue;
        round.messages.emplace_back(int32_t(r), int32_t(to));
        round.message_bytes.push_back(b);
      }
    if (round.messages.empty()) continue;
    Accumulator acc(l);
    for (int64_t r = 0; r < p; ++r) {
      PatternStats::Signature sig{};
      for (int64_t i = first; i <= last; ++i) {
        const int64_t to = (r + i) % p;
        if (block(r, to) > 0) sig[size_t(l.route(r, to) * kSizeKinds)] += 1;
      }
      acc.add(r, sig);
    }
    round.stats = acc.finish();
    round.what = batch == 1                ? fmt::format("pairwise step {}", first)
                 : a == Algorithm::Linear ? std::string("linear: every rank's messages at once")
                                          : fmt::format("scattered batch {} (shifts {} to {})", (first - 1) / batch + 1,
                                                        first, last);
    round.steps_each = double(last - first + 1);
    out.push_back(std::move(round));
  }
  return out;
}

PatternTime sized_pattern_time(const PatternStats& s, const std::vector<SizedRow>& rows, const Choice& c,
                               std::span<const double> inputs) {
  PatternTime out;
  detail::fill_k_used(s, c, out);
  std::map<std::pair<int, double>, MessageTime> priced;
  auto price = [&](int route, double bytes) -> const MessageTime& {
    auto [it, fresh] = priced.try_emplace({route, bytes});
    if (fresh) {
      const bool off_leaf = route == kOffLeaf;
      const Locality l = off_leaf ? Locality::InterNode : Locality(route);
      it->second = message_time(c, inputs, l, bytes, out.k_used[int(l)], off_leaf ? out.k_used[kOffLeaf] : 0);
    }
    return it->second;
  };
  out.time_s = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    MessagePipeline pipeline;  // the rank's messages in order; staging copies and pinning overlap other messages
    for (const auto& [route, bytes, count] : rows[i]) {
      const MessageTime& mt = price(route, bytes);
      if (!mt.error.empty()) {
        out.error = mt.error;
        out.time_s = NAN;
        return out;
      }
      pipeline.add(mt, double(count));
    }
    const double t = pipeline.end_s();
    if (out.slowest_row < 0 || t > out.time_s) {
      out.time_s = t;
      out.slowest_row = int64_t(i);
    }
  }
  if (out.slowest_row >= 0)
    for (const auto& [route, bytes, count] : rows[size_t(out.slowest_row)]) {
      const MessageTime& mt = price(route, bytes);
      out.row_protocol.push_back(mt.protocol);
      out.fell_back = out.fell_back || mt.fell_back_to_postal;
    }
  return out;
}

}  // namespace gpm::mpi
