// collectives_sized.cpp: collective schedules whose rounds carry messages of different sizes (Round::sizes_relative:
// each message a factor of the operation's size): Open MPI's Bruck allgather of radix k, its scatter-allgather
// broadcast over any number of ranks and its linear_sync gather with a first segment. Facts from Open MPI's
// ompi/mca/coll/base, carried over, not code; root 0.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <thread>
#include <tuple>

#include "engines/mpi/pattern.h"
#include "engines/mpi/pattern_detail.h"

namespace gpm::mpi {

namespace detail {

namespace {

// (sender, receiver, factor of the operation's size)
using SizedMessage = std::tuple<int32_t, int32_t, double>;

// The rows and sums of the senders of messages[begin, end) (whole senders: no sender's messages cross `end`).
void sized_part(const Layout& l, const std::vector<SizedMessage>& messages, size_t begin, size_t end,
                Accumulator& acc, std::set<SizedRow>& rows) {
  SizedRow row, previous;
  std::vector<std::pair<int, double>> mine;
  int single_route = -1;  // the route of the previous sender's one message (-1: it sent several, or none yet)
  for (size_t i = begin; i < end;) {
    const int32_t r = std::get<0>(messages[i]);
    mine.clear();
    for (; i < end && std::get<0>(messages[i]) == r; ++i) {
      const auto& [from, to, factor] = messages[i];
      mine.emplace_back(l.route(from, to), factor);
    }
    if (mine.size() == 1 && mine[0].first == single_route) {
      acc.add_again(r);  // one message on the previous sender's route: its signature
    } else {
      PatternStats::Signature sig{};
      for (const auto& m : mine) sig[size_t(m.first * kSizeKinds)] += 1;
      acc.add(r, sig);
      single_route = mine.size() == 1 ? mine[0].first : -1;
    }
    // The rank's distinct (route, factor) with their counts; a row like the previous rank's is not looked up again
    // (neighbouring ranks mostly send alike, which keeps 10^6 ranks fast).
    if (mine.size() == 1 && previous.size() == 1 && std::get<0>(previous[0]) == mine[0].first &&
        std::get<1>(previous[0]) == mine[0].second && std::get<2>(previous[0]) == 1)
      continue;
    if (mine.size() > 1) std::sort(mine.begin(), mine.end());
    row.clear();
    for (const auto& [route, factor] : mine) {
      if (!row.empty() && std::get<0>(row.back()) == route && std::get<1>(row.back()) == factor)
        std::get<2>(row.back()) += 1;
      else
        row.emplace_back(route, factor, 1);
    }
    if (row == previous) continue;
    rows.insert(row);
    previous = row;
  }
}

// Rounds of this many messages and more are summed in parts on several threads (the sums add and the rows are a
// set, so the result is the same whatever the thread count; docs/performance.md).
constexpr size_t kPartedMessages = size_t(1) << 17;

// A round of messages of their own sizes, in flight together: kept (the fabric) each with its factor; otherwise
// (the fitted models) each rank's distinct (route, factor) counts, one after another.
Round sized_round(const Layout& l, const std::vector<SizedMessage>& given, std::string what, bool keep) {
  auto by_sender = [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); };
  std::vector<SizedMessage> sorted;
  const bool in_order = std::is_sorted(given.begin(), given.end(), by_sender);
  if (!in_order) {
    sorted = given;
    std::stable_sort(sorted.begin(), sorted.end(), by_sender);
  }
  const std::vector<SizedMessage>& messages = in_order ? given : sorted;
  Round round;
  round.what = std::move(what);
  round.sizes_relative = true;
  Accumulator acc(l);
  if (keep) {
    for (size_t i = 0; i < messages.size();) {
      const int32_t r = std::get<0>(messages[i]);
      PatternStats::Signature sig{};
      for (; i < messages.size() && std::get<0>(messages[i]) == r; ++i) {
        const auto& [from, to, factor] = messages[i];
        sig[size_t(l.route(from, to) * kSizeKinds)] += 1;
        round.messages.emplace_back(from, to);
        round.message_bytes.push_back(factor);
      }
      acc.add(r, sig);
    }
    round.stats = acc.finish();
    return round;
  }
  std::set<SizedRow> rows;
  size_t threads = messages.size() < kPartedMessages ? 1 : std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 4);
  // GPMC_ROUND_THREADS=n sums in n parts (1: one pass), to compare the two (tests/unit/mpi_trees_test.cpp).
  if (const char* env = std::getenv("GPMC_ROUND_THREADS"); env && messages.size() > 1)
    threads = std::clamp<size_t>(size_t(std::max(1L, std::strtol(env, nullptr, 10))), 1, 64);
  if (threads == 1) {
    sized_part(l, messages, 0, messages.size(), acc, rows);
  } else {
    // Parts of about equal size, each starting at a sender's first message.
    std::vector<size_t> bounds = {0};
    for (size_t t = 1; t < threads; ++t) {
      size_t at = std::max(bounds.back(), messages.size() * t / threads);
      while (at > 0 && at < messages.size() && std::get<0>(messages[at]) == std::get<0>(messages[at - 1])) ++at;
      bounds.push_back(at);
    }
    bounds.push_back(messages.size());
    std::vector<Accumulator> accs;
    std::vector<std::set<SizedRow>> part_rows(threads);
    accs.reserve(threads - 1);
    for (size_t t = 1; t < threads; ++t) accs.emplace_back(l);
    std::vector<std::thread> pool;
    for (size_t t = 1; t < threads; ++t)
      pool.emplace_back([&, t] { sized_part(l, messages, bounds[t], bounds[t + 1], accs[t - 1], part_rows[t]); });
    sized_part(l, messages, bounds[0], bounds[1], acc, rows);
    for (auto& th : pool) th.join();
    for (size_t t = 1; t < threads; ++t) {
      acc.merge(accs[t - 1]);
      rows.insert(part_rows[t].begin(), part_rows[t].end());
    }
  }
  round.stats = acc.finish();
  round.sized_rows.assign(rows.begin(), rows.end());
  return round;
}

}  // namespace

std::vector<Round> k_bruck_rounds(const Layout& l, int64_t k, bool keep) {
  // ompi_coll_base_allgather_intra_k_bruck (Bruck et al., "Efficient algorithms for all-to-all communications in
  // multiport message-passing systems", IEEE TPDS 8(11), 1997): for distance d = 1, k, k^2, .. below p, every rank
  // sends to r - j d, j = 1 .. k - 1 (while j d < p), the d blocks it holds -- in the last step, where d > p / k
  // (integer division), min(d, p - j d) -- all k - 1 at once. A step's messages are alike at every rank; under the
  // fitted models a rank's go one after another (the slowest rank's row), on the fabric they are flows together.
  const int64_t p = l.ranks;
  std::vector<Round> out;
  int step = 0;
  for (int64_t d = 1; d < p; d *= k) {
    std::vector<std::pair<int64_t, double>> shifts;  // (j d, blocks)
    for (int64_t j = 1; j < k && d * j < p; ++j)
      shifts.emplace_back(d * j, double(d <= p / k ? d : std::min(d, p - d * j)));
    std::vector<SizedMessage> messages;
    for (int64_t r = 0; r < p; ++r)
      for (const auto& [shift, blocks] : shifts) messages.emplace_back(int32_t(r), int32_t((r - shift + p) % p), blocks);
    Round round = sized_round(l, std::move(messages),
                              fmt::format("k-bruck step {} (radix {}: {} message{} to r - j x {})", ++step, k,
                                          shifts.size(), shifts.size() == 1 ? "" : "s", d),
                              keep);
    out.push_back(std::move(round));
  }
  return out;
}


std::vector<Round> scatter_allgather_any_rounds(const Layout& l, bool keep) {
  // ompi_coll_base_bcast_intra_scatter_allgather (Open MPI's bcast algorithm 8; the scheme of Thakur, Rabenseifner
  // and Gropp 2005, section 4.1) over any p, root 0. Each rank's share is ceil(count / p) elements, taken here as
  // n / p (the element count is not known here; the difference is under p elements). Shares are bounded by the buffer
  // (Open MPI's rectify_diff, max(0, a - b)).
  const int64_t p = l.ranks;
  const double share = 1.0 / double(p);
  auto rect = [](double a, double b) { return std::max(0.0, a - b); };
  int64_t top = 1;
  while (top < p) top <<= 1;
  std::vector<Round> out;
  // The binomial scatter: for mask = top / 2 .. 1, a rank r with r mod 2 mask = 0 that holds data sends r + mask
  // what lies beyond its own mask shares; the receiver holds what it got.
  std::vector<double> held(static_cast<size_t>(p), 0.0);
  held[0] = 1;
  int step = 0;
  std::vector<SizedMessage> messages;  // reused from round to round (10^6 ranks: 16 MB a round)
  for (int64_t mask = top >> 1; mask > 0; mask >>= 1) {
    messages.clear();
    for (int64_t r = 0; r + mask < p; r += 2 * mask) {
      const double send = rect(held[size_t(r)], share * double(mask));
      if (send <= 1e-12) continue;  // nothing left beyond its own shares (up to rounding of the fractions)
      messages.emplace_back(int32_t(r), int32_t(r + mask), send);
      held[size_t(r)] -= send;
      held[size_t(r + mask)] = send;
    }
    if (!messages.empty()) out.push_back(sized_round(l, messages, fmt::format("scatter step {}", ++step), keep));
  }
  // The allgather by recursive doubling: each rank starts from its own share; at mask m it exchanges what it holds
  // with r xor m (where that rank exists). Where the partner's subtree is cut short by p (its root + m > p), the
  // ranks of its subtree that hold the data send what they got last on, by recursive halving, to the ranks of the
  // subtree without it.
  std::vector<double> have(static_cast<size_t>(p)), last(static_cast<size_t>(p), 0.0);
  for (int64_t r = 0; r < p; ++r) have[size_t(r)] = std::min(share, rect(1, double(r) * share));
  step = 0;
  for (int64_t mask = 1; mask < p; mask <<= 1) {
    ++step;
    messages.clear();
    for (int64_t r = 0; r < p; ++r)
      if (int64_t partner = r ^ mask; partner < p) messages.emplace_back(int32_t(r), int32_t(partner), have[size_t(r)]);
    // Each pair r, r | mask (both ranks) exchanges what it holds; a rank whose partner is past p exchanges nothing.
    for (int64_t r = 0; r < p; ++r) {
      const int64_t partner = r | mask;
      if ((r & mask) || partner >= p) continue;
      const double a = have[size_t(r)], b = have[size_t(partner)];
      have[size_t(r)] = have[size_t(partner)] = a + b;
      last[size_t(r)] = b;
      last[size_t(partner)] = a;
    }
    out.push_back(sized_round(l, messages, fmt::format("allgather recursive doubling step {}", step), keep));
    // Only ranks whose partner's block of `mask` ranks is cut short by p pass shares on: those of the last two
    // blocks, from block p / mask - 1 on. In such a block (root, partner block cut, alldata = p - root - mask of
    // its ranks holding the data), a rank r passes on at distance `half` when r + half is a rank and, with `tree`
    // r's block of 2 half ranks, r - tree < half (r ^ half = r + half) and alldata - half <= r - tree < alldata.
    const int64_t first_cut = std::max<int64_t>(0, p / mask - 1) * mask;
    for (int64_t half = mask >> 1; half > 0; half >>= 1) {
      std::vector<SizedMessage>& sends = messages;
      sends.clear();
      for (int64_t root = first_cut; root < p; root += mask) {
        const int64_t partner_root = root ^ mask;
        if (partner_root + mask <= p) continue;  // the partner's subtree is whole: nothing to pass on
        const int64_t alldata = p - root - mask;
        if (alldata <= 0) continue;
        const int64_t lo = std::max<int64_t>(0, alldata - half), hi = std::min(half, alldata);
        const int64_t end = std::min(root + mask, p);
        for (int64_t tree = root; tree < end; tree += 2 * half)
          for (int64_t r = tree + lo; r < tree + hi && r + half < p; ++r)
            sends.emplace_back(int32_t(r), int32_t(r + half), last[size_t(r)]);
      }
      for (const auto& [from, to, factor] : sends) {
        have[size_t(to)] += factor;
        last[size_t(to)] = factor;
      }
      if (!sends.empty())
        out.push_back(sized_round(l, sends,
                                  fmt::format("allgather recursive doubling step {}, halving to {} away", step, half),
                                  keep));
    }
  }
  return out;
}

std::vector<Round> linear_sync_segmented_rounds(const Layout& l, double first, bool keep) {
  // ompi_coll_base_gather_intra_linear_sync with a first segment: for each rank i in turn the root posts the receive
  // of i's first segment, sends i a zero-byte go-ahead, posts the receive of the rest and waits for the first segment
  // only; rank i sends its first segment, then at once the rest of its block. So the rest of rank i - 1's block is
  // in flight while the root sends i its go-ahead and receives i's first segment; the root waits for every rest at
  // the end. As rounds: the go-ahead to i, then i's first segment beside i - 1's rest, and last the rest of the last
  // rank. Under the fitted models steps whose senders sit alike (routes, and whether i and i - 1 share a node,
  // socket, leaf) are one round repeated.
  const int64_t p = l.ranks;
  const double rest = std::max(0.0, 1 - first);
  std::vector<Round> out;
  std::map<std::vector<int64_t>, size_t> seen;
  auto add = [&](std::vector<SizedMessage> messages, std::string what) {
    if (!keep) {
      std::vector<int64_t> key;
      for (const auto& [from, to, factor] : messages) key.insert(key.end(), {from == 0 ? l.route(0, to) : l.route(from, 0),
                                                                           int64_t(factor == first), from == 0});
      if (messages.size() == 2) {
        const int64_t a = std::get<0>(messages[0]), b = std::get<0>(messages[1]);
        key.insert(key.end(), {l.node[size_t(a)] == l.node[size_t(b)], l.socket[size_t(a)] == l.socket[size_t(b)],
                               l.leaf_of(a) == l.leaf_of(b)});
      }
      if (auto it = seen.find(key); it != seen.end()) {
        out[it->second].repeat += 1;
        return;
      }
      seen.emplace(std::move(key), out.size());
    }
    out.push_back(sized_round(l, std::move(messages), std::move(what), keep));
  };
  for (int64_t i = 1; i < p; ++i) {
    add({{0, int32_t(i), 0.0}}, fmt::format("go-ahead to rank {}", i));
    std::vector<SizedMessage> both = {{int32_t(i), 0, first}};
    if (i > 1) both.emplace_back(int32_t(i - 1), 0, rest);
    add(std::move(both), i > 1 ? fmt::format("first segment of rank {}, rest of rank {}", i, i - 1)
                               : std::string("first segment of rank 1"));
  }
  if (p > 1) add({{int32_t(p - 1), 0, rest}}, fmt::format("rest of rank {}", p - 1));
  if (!keep)
    for (auto& r : out)
      if (r.repeat > 1) r.what += fmt::format(" (and {} more steps like it)", int64_t(r.repeat) - 1);
  return out;
}

}  // namespace detail

}  // namespace gpm::mpi
