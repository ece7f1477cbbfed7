// pattern.cpp: the mapping of ranks to nodes and sockets, halo and collective patterns, and their statistics.
#include "engines/mpi/pattern.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

namespace gpm::mpi {

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

// Per-node sums of one pattern, built rank by rank.
class Accumulator {
 public:
  explicit Accumulator(const Layout& l)
      : l_(l),
        inter_(size_t(l.nodes)),
        total_(size_t(l.nodes)),
        senders_(size_t(l.nodes)),
        leaf_offleaf_(size_t(l.leaves())),
        leaf_total_(size_t(l.leaves())),
        leaf_senders_(size_t(l.leaves())),
        leaf_offleaf_senders_(size_t(l.leaves())),
        class_senders_{std::vector<int64_t>(size_t(l.nodes * l.sockets_per_node)), std::vector<int64_t>(size_t(l.nodes)),
                       std::vector<int64_t>(size_t(l.nodes))} {}

  void add(int64_t r, const PatternStats::Signature& sig) {
    int64_t all = 0, per_class[kClasses]{}, off_leaf = 0;
    for (int c = 0; c < kRoutes; ++c)
      for (int k = 0; k < kSizeKinds; ++k) {
        int64_t n = sig[size_t(c * kSizeKinds + k)];
        per_class[c == kOffLeaf ? int(Locality::InterNode) : c] += n;  // off-leaf messages are inter-node too
        if (c == kOffLeaf) off_leaf += n;
      }
    for (int64_t x : per_class) all += x;
    if (all == 0) return;
    size_t leaf = size_t(l_.leaf_of(r));
    leaf_offleaf_[leaf] += off_leaf;
    leaf_total_[leaf] += all;
    leaf_senders_[leaf] += 1;
    if (off_leaf) leaf_offleaf_senders_[leaf] += 1;
    size_t node = size_t(l_.node[size_t(r)]);
    inter_[node] += per_class[int(Locality::InterNode)];
    total_[node] += all;
    senders_[node] += 1;
    if (per_class[0]) class_senders_[0][size_t(l_.socket[size_t(r)])] += 1;
    if (per_class[1]) class_senders_[1][node] += 1;
    if (per_class[2]) class_senders_[2][node] += 1;
    messages_ += all;
    if (!have_last_ || sig != last_) {
      seen_.insert(sig);
      last_ = sig;
      have_last_ = true;
    }
  }

  PatternStats finish() {
    PatternStats s;
    s.signatures.assign(seen_.begin(), seen_.end());
    s.messages = messages_;
    for (size_t n = 0; n < inter_.size(); ++n) {
      s.k_inter = std::max(s.k_inter, inter_[n]);
      s.k_total = std::max(s.k_total, total_[n]);
      s.k_prime = std::max(s.k_prime, senders_[n]);
    }
    for (int c = 0; c < kClasses; ++c)
      for (int64_t x : class_senders_[c]) s.k[size_t(c)] = std::max(s.k[size_t(c)], x);
    for (size_t f = 0; f < leaf_total_.size(); ++f) {
      s.k_leaf = std::max(s.k_leaf, leaf_offleaf_senders_[f]);
      s.k_offleaf = std::max(s.k_offleaf, leaf_offleaf_[f]);
      s.k_leaf_total = std::max(s.k_leaf_total, leaf_total_[f]);
      s.k_leaf_prime = std::max(s.k_leaf_prime, leaf_senders_[f]);
    }
    return s;
  }

 private:
  const Layout& l_;
  std::vector<int64_t> inter_, total_, senders_;
  std::vector<int64_t> leaf_offleaf_, leaf_total_, leaf_senders_, leaf_offleaf_senders_;
  std::vector<int64_t> class_senders_[kClasses];
  std::set<PatternStats::Signature> seen_;
  PatternStats::Signature last_{};
  bool have_last_ = false;
  int64_t messages_ = 0;
};

// A round where each rank sends at most one message, to partner(r) (or nowhere when it returns -1).
// With `keep`, the round also lists its messages.
template <class Partner>
Round one_message_round(const Layout& l, double size_factor, double repeat, std::string what, Partner partner,
                        bool keep = false) {
  Accumulator acc(l);
  std::vector<std::pair<int32_t, int32_t>> messages;
  for (int64_t r = 0; r < l.ranks; ++r) {
    int64_t to = partner(r);
    if (to < 0 || to == r) continue;
    PatternStats::Signature sig{};
    sig[size_t(l.route(r, to) * kSizeKinds)] = 1;
    acc.add(r, sig);
    if (keep) messages.emplace_back(int32_t(r), int32_t(to));
  }
  Round round;
  round.stats = acc.finish();
  round.size_factor = size_factor;
  round.repeat = repeat;
  round.what = std::move(what);
  round.messages = std::move(messages);
  return round;
}

int ceil_log2(int64_t p) {
  int k = 0;
  while ((int64_t(1) << k) < p) ++k;
  return k;
}

}  // namespace

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

const char* collective_name(Collective c) {
  switch (c) {
    case Collective::Allreduce: return "allreduce";
    case Collective::Reduce: return "reduce";
    case Collective::Bcast: return "bcast";
    case Collective::Allgather: return "allgather";
    case Collective::Alltoall: return "alltoall";
    case Collective::ReduceScatter: return "reduce_scatter";
    default: return "barrier";
  }
}

const char* algorithm_name(Algorithm a) {
  switch (a) {
    case Algorithm::BinomialTree: return "binomial_tree";
    case Algorithm::RecursiveDoubling: return "recursive_doubling";
    case Algorithm::Ring: return "ring";
    case Algorithm::Rabenseifner: return "rabenseifner";
    case Algorithm::Pairwise: return "pairwise";
    case Algorithm::ScatterAllgather: return "scatter_allgather";
    case Algorithm::Pipeline: return "pipeline";
    case Algorithm::RecursiveHalving: return "recursive_halving";
    default: return "dissemination";
  }
}

Algorithm default_algorithm(Collective c) {
  switch (c) {
    case Collective::Allreduce: return Algorithm::RecursiveDoubling;
    case Collective::Reduce:
    case Collective::Bcast: return Algorithm::BinomialTree;
    case Collective::Allgather: return Algorithm::Ring;
    case Collective::Alltoall: return Algorithm::Pairwise;
    case Collective::ReduceScatter: return Algorithm::Ring;
    default: return Algorithm::Dissemination;
  }
}

bool algorithm_allowed(Collective c, Algorithm a) {
  switch (c) {
    case Collective::Allreduce:
      return a == Algorithm::BinomialTree || a == Algorithm::RecursiveDoubling || a == Algorithm::Ring ||
             a == Algorithm::Rabenseifner;
    case Collective::Reduce:
      return a == Algorithm::BinomialTree || a == Algorithm::Rabenseifner || a == Algorithm::Pipeline;
    case Collective::Bcast:
      return a == Algorithm::BinomialTree || a == Algorithm::ScatterAllgather || a == Algorithm::Pipeline;
    case Collective::Allgather: return a == Algorithm::Ring || a == Algorithm::RecursiveDoubling;
    case Collective::Alltoall: return a == Algorithm::Pairwise;
    case Collective::ReduceScatter: return a == Algorithm::Ring || a == Algorithm::RecursiveHalving;
    default: return a == Algorithm::Dissemination;
  }
}

std::vector<Round> collective_rounds(const Layout& l, Collective c, Algorithm a, bool keep_messages,
                                     int64_t channels) {
  auto one = [&](double size, double repeat, std::string what, auto partner) {
    return one_message_round(l, size, repeat, std::move(what), partner, keep_messages);
  };
  std::vector<Round> out;
  const int64_t p = l.ranks;
  if (p < 2) return out;
  const int steps = ceil_log2(p);
  int lg = 0;
  while ((int64_t(2) << lg) <= p) ++lg;  // pp = 2^lg, the largest power of two <= p
  const int64_t pp = int64_t(1) << lg, rem = p - pp;
  auto reduce_rounds = [&](const char* what) {
    for (int i = 0; i < steps; ++i) {
      int64_t d = int64_t(1) << i;
      out.push_back(one(1, 1, fmt::format("{} step {}", what, i + 1),
                                      [&](int64_t r) { return r % (2 * d) == d ? r - d : -1; }));
    }
  };
  auto bcast_rounds = [&](const char* what) {
    for (int i = 0; i < steps; ++i) {
      int64_t d = int64_t(1) << i;
      out.push_back(one(1, 1, fmt::format("{} step {}", what, i + 1),
                                      [&](int64_t r) { return r < d && r + d < p ? r + d : -1; }));
    }
  };
  // Ranks beyond the largest power of two first hand their data to a partner below it and get the result back.
  auto fold_in = [&](double size) {
    if (rem > 0)
      out.push_back(one(size, 1, "fold in", [&](int64_t r) { return r >= pp ? r - pp : -1; }));
  };
  auto fold_out = [&](double size) {
    if (rem > 0)
      out.push_back(one(size, 1, "fold out", [&](int64_t r) { return r < rem ? r + pp : -1; }));
  };
  // Recursive halving over the largest power of two p' <= p: steps of n/2, n/4, .. n/p' to r xor p'/2, .., r xor 1.
  auto halving_rounds = [&](const char* what) {
    for (int i = 0; i < lg; ++i) {
      int64_t d = pp >> (i + 1);
      out.push_back(one(double(d) / double(pp), 1, fmt::format("{} step {}", what, i + 1),
                                      [&](int64_t r) { return r < pp ? r ^ d : -1; }));
    }
  };
  auto ring = [&](double size, double repeat, const char* what) {
    Round round = one(size, repeat, what, [&](int64_t r) { return (r + 1) % p; });
    if (keep_messages && channels > 1) {
      // Each node's ranks in rank order, the nodes in the order of their first ranks.
      std::vector<std::vector<int64_t>> node_ranks(size_t(l.nodes));
      std::vector<int64_t> node_order;
      for (int64_t r = 0; r < p; ++r) {
        auto& list = node_ranks[size_t(l.node[size_t(r)])];
        if (list.empty()) node_order.push_back(l.node[size_t(r)]);
        list.push_back(r);
      }
      round.messages.clear();
      std::vector<int64_t> sequence;
      for (int64_t k = 0; k < channels; ++k) {
        // Channel k enters the nodes in turn at their ranks k and k + 1 (mod a node's ranks) and leaves by the
        // other, so that the ring goes from node to node between ranks of the same place in their nodes (the same
        // NIC rail on a rail-optimised cluster); only an odd number of nodes leaves one crossing off it.
        sequence.clear();
        for (size_t j = 0; j < node_order.size(); ++j) {
          const auto& list = node_ranks[size_t(node_order[j])];
          size_t g = list.size(), first = size_t(k) % g, last = (size_t(k) + 1) % g;
          if (j % 2 == 1) std::swap(first, last);
          sequence.push_back(list[first]);
          for (size_t i = 1; i < g; ++i)
            if (size_t at = (first + i) % g; at != last) sequence.push_back(list[at]);
          if (last != first) sequence.push_back(list[last]);
        }
        for (size_t i = 0; i < sequence.size(); ++i)
          round.messages.emplace_back(int32_t(sequence[i]), int32_t(sequence[(i + 1) % sequence.size()]));
      }
      round.size_factor = size / double(channels);
      round.what = fmt::format("{}, {} channels", what, channels);
    }
    out.push_back(std::move(round));
  };
  // Pipelined (segmented) chain, the "pipeline" broadcast of Pjesivac-Grbovic, Angskun, Bosilca, Fagg, Gabriel and
  // Dongarra, "Performance analysis of MPI collective operations", Cluster Computing 10(2), 2007, whose Hockney
  // time is (p + S - 2)(alpha + beta n / S): ranks 0 .. p - 1 in a line, each of S segments handed one hop per
  // step, every rank forwarding one segment while it receives the next. The reduce runs the same chain towards
  // rank 0. The step's repeat and message size follow from S at run time (CommEngine).
  auto chain = [&](bool towards_root, const char* what) {
    Round round = one(1, 1, what, [&](int64_t r) {
      return towards_root ? (r > 0 ? r - 1 : -1) : (r + 1 < p ? r + 1 : -1);
    });
    round.pipeline_hops = p - 1;
    out.push_back(std::move(round));
  };
  switch (c) {
    case Collective::Barrier:
      for (int i = 0; i < steps; ++i) {
        int64_t d = int64_t(1) << i;
        out.push_back(one(0, 1, fmt::format("dissemination step {}", i + 1),
                                        [&](int64_t r) { return (r + d) % p; }));
      }
      break;
    case Collective::Bcast:
      if (a == Algorithm::ScatterAllgather) {
        // Long-message broadcast (van de Geijn; Thakur, Rabenseifner and Gropp 2005, section 4.1): a binomial
        // scatter from rank 0, where a rank r with r mod 2d = 0 hands r + d the share of ranks r + d .. r + 2d - 1
        // (those below p), then a ring allgather, p - 1 steps of n / p: (log p + p - 1) alpha + 2 (p - 1) / p n beta.
        // A step's messages are priced at its largest share (they differ only when p is not a power of two).
        for (int i = 0; i < steps; ++i) {
          int64_t d = int64_t(1) << (steps - 1 - i), largest = 0;
          for (int64_t r = 0; r + d < p; r += 2 * d) largest = std::max(largest, std::min(d, p - r - d));
          out.push_back(one(double(largest) / double(p), 1, fmt::format("scatter step {}", i + 1),
                                          [&](int64_t r) { return r % (2 * d) == 0 && r + d < p ? r + d : -1; }));
        }
        ring(1.0 / double(p), double(p - 1), "allgather ring step");
      } else if (a == Algorithm::Pipeline) {
        chain(false, "pipelined chain step");
      } else {
        bcast_rounds("binomial bcast");
      }
      break;
    case Collective::Reduce:
      if (a == Algorithm::Rabenseifner) {
        // Rabenseifner's reduce (Thakur, Rabenseifner and Gropp 2005, section 4.4): fold in, reduce-scatter by
        // recursive halving, then a binomial gather of the reduced pieces to rank 0:
        // 2 log p alpha + 2 (p - 1) / p n beta.
        fold_in(1);
        halving_rounds("reduce-scatter");
        for (int i = 0; i < lg; ++i) {
          int64_t d = int64_t(1) << i;
          out.push_back(one(double(d) / double(pp), 1, fmt::format("gather step {}", i + 1),
                                          [&](int64_t r) { return r < pp && r % (2 * d) == d ? r - d : -1; }));
        }
      } else if (a == Algorithm::Pipeline) {
        chain(true, "pipelined chain step");
      } else {
        reduce_rounds("binomial reduce");
      }
      break;
    case Collective::Allreduce:
      if (a == Algorithm::BinomialTree) {
        reduce_rounds("binomial reduce");
        bcast_rounds("binomial bcast");
      } else if (a == Algorithm::Ring) {
        ring(1.0 / double(p), double(2 * (p - 1)), "ring step (reduce-scatter, then allgather)");
      } else if (a == Algorithm::Rabenseifner) {
        fold_in(1);
        halving_rounds("reduce-scatter");
        for (int i = 0; i < lg; ++i) {
          int64_t d = int64_t(1) << i;
          out.push_back(one(double(d) / double(pp), 1, fmt::format("allgather step {}", i + 1),
                                          [&](int64_t r) { return r < pp ? r ^ d : -1; }));
        }
        fold_out(1);
      } else {
        fold_in(1);
        for (int i = 0; i < lg; ++i) {
          int64_t d = int64_t(1) << i;
          out.push_back(one(1, 1, fmt::format("recursive doubling step {}", i + 1),
                                          [&](int64_t r) { return r < pp ? r ^ d : -1; }));
        }
        fold_out(1);
      }
      break;
    case Collective::Allgather:
      if (a == Algorithm::RecursiveDoubling) {
        fold_in(1);
        for (int i = 0; i < lg; ++i) {
          int64_t d = int64_t(1) << i;
          out.push_back(one(double(d), 1, fmt::format("recursive doubling step {}", i + 1),
                                          [&](int64_t r) { return r < pp ? r ^ d : -1; }));
        }
        fold_out(double(p));
      } else {
        ring(1, double(p - 1), "ring step");
      }
      break;
    case Collective::ReduceScatter:
      // Each rank holds n bytes and ends with its n / p share reduced over all ranks (MPI_Reduce_scatter_block).
      if (a == Algorithm::RecursiveHalving) {
        // Recursive halving (Thakur, Rabenseifner and Gropp 2005, reduce-scatter: log p alpha + (p - 1) / p n beta):
        // the p - p' ranks beyond the largest power of two fold their whole buffer in, the p' others exchange
        // n/2, n/4, .. n/p' with partners r xor p'/2, .., r xor 1, then hand the folded ranks their share.
        fold_in(1);
        halving_rounds("recursive halving");
        fold_out(1.0 / double(p));
      } else {
        // Ring (the reduce-scatter half of the ring all-reduce; the long-message pairwise exchange of Thakur et
        // al. 2005 has the same cost, (p - 1) alpha + (p - 1) / p n beta): p - 1 steps of n / p to r + 1.
        ring(1.0 / double(p), double(p - 1), "ring step");
      }
      break;
    case Collective::Alltoall: {
      // Pairwise exchange: every rank sends one message to each other rank, one after another. The fabric model
      // routes them: in round i every rank r sends to r + i mod p.
      if (keep_messages) {
        for (int64_t i = 1; i < p; ++i)
          out.push_back(one(1, 1, fmt::format("pairwise step {}", i), [&](int64_t r) { return (r + i) % p; }));
        break;
      }
      Accumulator acc(l);
      std::vector<int64_t> on_node(size_t(l.nodes)), on_socket(size_t(l.nodes * l.sockets_per_node));
      for (int64_t r = 0; r < p; ++r) {
        on_node[size_t(l.node[size_t(r)])] += 1;
        on_socket[size_t(l.socket[size_t(r)])] += 1;
      }
      for (int64_t r = 0; r < p; ++r) {
        PatternStats::Signature sig{};
        int64_t n = on_node[size_t(l.node[size_t(r)])], s = on_socket[size_t(l.socket[size_t(r)])];
        sig[0] = s - 1;
        sig[size_t(kSizeKinds)] = n - s;
        sig[size_t(2 * kSizeKinds)] = p - n;
        acc.add(r, sig);
      }
      out.push_back(Round{acc.finish(), 1, 1, "pairwise exchange", 0, double(p - 1), {}});
      break;
    }
  }
  return out;
}

PatternTime pattern_time(const PatternStats& s, const Choice& c, std::span<const double> inputs,
                         std::span<const double> sizes) {
  PatternTime out;
  for (int cls = 0; cls < kClasses; ++cls) out.k_used[cls] = double(s.k[size_t(cls)]);
  out.k_used[kOffLeaf] = double(s.k_leaf);
  if (c.model == CommModel::KModel) {
    out.k_used[int(Locality::InterNode)] = kmodel_k(double(s.k_inter), double(s.k_total), double(s.k_prime));
    // E2E eq. 4 applied to the leaf switch: the share of the leaf's messages that leave it, times the leaf's
    // sending ranks (this project's extension of the K-model to the fat tree's up-links).
    out.k_used[kOffLeaf] = kmodel_k(double(s.k_offleaf), double(s.k_leaf_total), double(s.k_leaf_prime));
  }
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
