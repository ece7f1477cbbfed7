// pattern.cpp: the mapping of ranks to nodes and sockets, halo and collective patterns, and their statistics.
#include "engines/mpi/pattern.h"
#include "engines/mpi/pattern_detail.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

namespace gpm::mpi {

using namespace detail;

Layout make_layout(int64_t ranks, int64_t rpn, int64_t rps, const Mapping& m) {
  Layout l;
  l.ranks = ranks;
  l.ranks_per_node = rpn;
  l.ranks_per_socket = rps;
  if (ranks < 1 || ranks > kMaxRanks) {
    l.error = fmt::format("{} ranks: between 1 and {} are supported", ranks, kMaxRanks);
    return l;
  }
  if (rpn < 1 || rps < 1) {
    l.error = "ranks per node and per socket must be at least 1";
    return l;
  }
  l.sockets_per_node = (rpn + rps - 1) / rps;
  l.node.resize(size_t(ranks));
  l.socket.resize(size_t(ranks));
  std::vector<int64_t> local(static_cast<size_t>(ranks), 0);
  if (m.kind == Mapping::Kind::Explicit) {
    if (int64_t(m.nodes.size()) != ranks) {
      l.error = fmt::format("the explicit mapping lists {} nodes for {} ranks", m.nodes.size(), ranks);
      return l;
    }
    int64_t max_node = 0;
    for (int64_t n : m.nodes) max_node = std::max(max_node, n);
    std::vector<int64_t> filled(size_t(max_node + 1), 0);
    for (int64_t r = 0; r < ranks; ++r) {
      int64_t n = m.nodes[size_t(r)];
      l.node[size_t(r)] = int32_t(n);
      local[size_t(r)] = filled[size_t(n)]++;
    }
    l.nodes = max_node + 1;
  } else {
    // E2E section 4 and the GPUDirect paper: linear mapping by default (consecutive ranks fill a node).
    int64_t b = m.kind == Mapping::Kind::Linear ? rpn : m.kind == Mapping::Kind::Cyclic ? 1 : m.block;
    if (b < 1) {
      l.error = "a block mapping needs a block of at least 1 rank";
      return l;
    }
    l.nodes = (ranks + rpn - 1) / rpn;
    for (int64_t r = 0; r < ranks; ++r) {
      l.node[size_t(r)] = int32_t((r / b) % l.nodes);
      local[size_t(r)] = (r / (b * l.nodes)) * b + r % b;
    }
  }
  for (int64_t r = 0; r < ranks; ++r) {
    if (local[size_t(r)] >= rpn) {
      l.error = fmt::format("the mapping puts more than {} ranks (the ranks per node) on node {}", rpn,
                            l.node[size_t(r)]);
      return l;
    }
    l.socket[size_t(r)] = int32_t(l.node[size_t(r)] * l.sockets_per_node + local[size_t(r)] / rps);
  }
  return l;
}

std::array<int64_t, 3> balanced_extents(int64_t ranks, int dims) {
  std::vector<int64_t> primes;
  int64_t n = ranks;
  for (int64_t f = 2; f * f <= n; ++f)
    while (n % f == 0) {
      primes.push_back(f);
      n /= f;
    }
  if (n > 1) primes.push_back(n);
  std::sort(primes.rbegin(), primes.rend());
  std::array<int64_t, 3> e{1, 1, 1};
  for (int64_t p : primes) {
    size_t smallest = 0;
    for (size_t i = 1; i < size_t(dims); ++i)
      if (e[i] < e[smallest]) smallest = i;
    e[smallest] *= p;
  }
  for (int i = 0; i < dims; ++i)  // largest first (a hand-written sort: three elements at most)
    for (int j = i + 1; j < dims; ++j)
      if (e[size_t(j)] > e[size_t(i)]) std::swap(e[size_t(i)], e[size_t(j)]);
  return e;
}

namespace {

// Calls fn(r, to, kind) for every message of a halo exchange over `ranks` ranks, rank by rank, and fn(r, -1, -1)
// after each rank's; false (with `error`) when the grid does not hold `ranks` ranks.
template <class Fn>
bool visit_halo(const Grid& g, int64_t ranks, std::string& error, Fn fn) {
  int64_t px = g.extent[0], py = g.dims >= 2 ? g.extent[1] : 1, pz = g.dims >= 3 ? g.extent[2] : 1;
  if (px < 1 || py < 1 || pz < 1 || px * py * pz != ranks) {
    error = fmt::format("the grid {} has {} ranks, not {}",
                        g.dims == 3 ? fmt::format("{} x {} x {}", px, py, pz) : fmt::format("{} x {}", px, py),
                        px * py * pz, ranks);
    return false;
  }
  struct Offset {
    int dx, dy, dz, kind;
  };
  std::vector<Offset> offsets;
  bool faces_only = g.neighbours == 4 || g.neighbours == 6;
  for (int dz = g.dims == 3 ? -1 : 0; dz <= (g.dims == 3 ? 1 : 0); ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        int nz = (dx != 0) + (dy != 0) + (dz != 0);
        if (nz == 0 || (faces_only && nz > 1)) continue;
        offsets.push_back({dx, dy, dz, nz == 1 ? 0 : nz == g.dims ? 2 : 1});
      }
  auto wrap = [&](int64_t v, int64_t n, bool& ok) {
    if (v >= 0 && v < n) return v;
    ok = g.periodic;
    return (v + n) % n;
  };
  int64_t r = 0;
  for (int64_t z = 0; z < pz; ++z)
    for (int64_t y = 0; y < py; ++y)
      for (int64_t x = 0; x < px; ++x, ++r) {
        for (const Offset& o : offsets) {
          bool ok = true;
          int64_t nx = wrap(x + o.dx, px, ok), ny = wrap(y + o.dy, py, ok), nzv = wrap(z + o.dz, pz, ok);
          if (!ok) continue;
          int64_t to = nx + px * (ny + py * nzv);
          if (to == r) continue;  // a periodic dimension of extent 1: no message to oneself
          fn(r, to, o.kind);
        }
        fn(r, int64_t(-1), -1);
      }
  return true;
}

}  // namespace

PatternStats halo_pattern(const Layout& l, const Grid& g, std::string& error) {
  Accumulator acc(l);
  PatternStats::Signature sig{};
  bool ok = visit_halo(g, l.ranks, error, [&](int64_t r, int64_t to, int kind) {
    if (to < 0) {
      acc.add(r, sig);
      sig = {};
      return;
    }
    sig[size_t(l.route(r, to) * kSizeKinds + kind)] += 1;
  });
  return ok ? acc.finish() : PatternStats{};
}

std::vector<Round> p2p_rounds(const Layout& l, int64_t from, int64_t to, bool both, int64_t window,
                              bool keep_messages) {
  auto partner = [&](int64_t r) { return r == from ? to : both && r == to ? from : int64_t(-1); };
  Round round = one_message_round(l, 1, keep_messages ? 1 : double(window), both ? "sendrecv" : "send", partner,
                                  keep_messages);
  if (keep_messages) {
    std::vector<std::pair<int32_t, int32_t>> all;
    for (int64_t w = 0; w < window; ++w) all.insert(all.end(), round.messages.begin(), round.messages.end());
    round.messages = std::move(all);
  }
  round.steps_each = keep_messages ? double(window) : 1;
  return {std::move(round)};
}

std::vector<HaloMessage> halo_messages(const Grid& grid, int64_t ranks, std::string& error) {
  std::vector<HaloMessage> out;
  visit_halo(grid, ranks, error, [&](int64_t r, int64_t to, int kind) {
    if (to >= 0) out.push_back({int32_t(r), int32_t(to), kind});
  });
  return out;
}

void detail::fill_k_used(const PatternStats& s, const Choice& c, PatternTime& out) {
  for (int cls = 0; cls < kClasses; ++cls) out.k_used[cls] = double(s.k[size_t(cls)]);
  out.k_used[kOffLeaf] = double(s.k_leaf);
  if (c.model == CommModel::KModel) {
    out.k_used[int(Locality::InterNode)] = kmodel_k(double(s.k_inter), double(s.k_total), double(s.k_prime));
    // E2E eq. 4 applied to the leaf switch: the share of the leaf's messages that leave it, times the leaf's
    // sending ranks (this project's extension of the K-model to the fat tree's up-links).
    out.k_used[kOffLeaf] = kmodel_k(double(s.k_offleaf), double(s.k_leaf_total), double(s.k_leaf_prime));
  }
}

PatternTime pattern_time(const PatternStats& s, const Choice& c, std::span<const double> inputs,
                         std::span<const double> sizes) {
  PatternTime out;
  detail::fill_k_used(s, c, out);
  // Only the kinds of message some rank sends are priced (a halo within one node sends no inter-node ones).
  bool used[kRoutes * kSizeKinds]{};
  for (const auto& sig : s.signatures)
    for (size_t i = 0; i < sig.size(); ++i) used[i] = used[i] || sig[i] != 0;
  MessageTime mt[kRoutes * kSizeKinds];
  for (int route = 0; route < kRoutes; ++route)
    for (int k = 0; k < kSizeKinds; ++k) {
      if (!used[route * kSizeKinds + k]) continue;
      bool off_leaf = route == kOffLeaf;
      Locality l = off_leaf ? Locality::InterNode : Locality(route);
      mt[route * kSizeKinds + k] = message_time(c, inputs, l, sizes[size_t(k)], out.k_used[int(l)],
                                                off_leaf ? out.k_used[kOffLeaf] : 0);
    }
  out.time_s = 0;
  bool first = true;
  for (const auto& sig : s.signatures) {
    MessagePipeline pipeline;  // the rank's messages in order; staging copies and pinning overlap other messages
    for (size_t i = 0; i < sig.size(); ++i) {
      if (!sig[i]) continue;
      if (!mt[i].error.empty()) {
        out.error = mt[i].error;
        out.time_s = NAN;
        return out;
      }
      pipeline.add(mt[i], double(sig[i]));
    }
    double t = pipeline.end_s();
    if (first || t > out.time_s) {
      out.time_s = t;
      out.slowest = sig;
      first = false;
    }
  }
  for (size_t i = 0; i < out.slowest.size(); ++i) {
    out.protocol[i] = mt[i].protocol;
    if (out.slowest[i] && mt[i].fell_back_to_postal) out.fell_back = true;
  }
  return out;
}

}  // namespace gpm::mpi
