// collectives.cpp: the collectives' schedules (rounds of messages) by algorithm (docs/models.md section 9.3); their
// names, defaults and what each operation allows are in collective_names.cpp.
#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "engines/mpi/pattern.h"
#include "engines/mpi/pattern_detail.h"

namespace gpm::mpi {

using namespace detail;

// A round of the given messages (pattern_detail.h).
Round detail::messages_round(const Layout& l, std::vector<std::pair<int32_t, int32_t>> messages, double size,
                             double repeat, std::string what, bool keep) {
  std::stable_sort(messages.begin(), messages.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  Accumulator acc(l);
  for (size_t i = 0; i < messages.size();) {
    const int32_t r = messages[i].first;
    PatternStats::Signature sig{};
    for (; i < messages.size() && messages[i].first == r; ++i)
      sig[size_t(l.route(r, messages[i].second) * kSizeKinds)] += 1;
    acc.add(r, sig);
  }
  Round round;
  round.stats = acc.finish();
  round.size_factor = size;
  round.repeat = repeat;
  round.what = std::move(what);
  if (keep) round.messages = std::move(messages);
  return round;
}

namespace {

std::vector<Round> flat_rounds(const Layout& l, Collective c, Algorithm a, bool keep_messages, int64_t channels);

// Each node's ranks in rank order (the nodes in the order of their first ranks, empty nodes left out).
std::vector<std::vector<int32_t>> node_members(const Layout& l) {
  std::vector<std::vector<int32_t>> members(size_t(l.nodes));
  std::vector<int32_t> order;
  for (int64_t r = 0; r < l.ranks; ++r) {
    auto& m = members[size_t(l.node[size_t(r)])];
    if (m.empty()) order.push_back(l.node[size_t(r)]);
    m.push_back(int32_t(r));
  }
  std::vector<std::vector<int32_t>> out;
  for (int32_t n : order) out.push_back(std::move(members[size_t(n)]));
  return out;
}

// The hierarchical all-reduce of NCCL's multi-node rings and Horovod's hierarchical mode (Sergeev and Del Balso,
// arXiv:1802.05799; the "2D ring" of Ueno and Yokota, CCGrid 2019): a ring reduce-scatter within each node (g - 1
// steps of n / g, g ranks a node), then a ring all-reduce of each n / g share among the ranks at the same place in
// every node (one ring per rail, all at once: 2 (m - 1) steps of n / (g m), m nodes), then a ring allgather within
// each node (g - 1 steps of n / g). Every node must hold the same number of ranks (the lowering checks).
std::vector<Round> hierarchical_allreduce_rounds(const Layout& l, bool keep) {
  const auto members = node_members(l);
  const int64_t m = int64_t(members.size()), g = int64_t(members.front().size());
  std::vector<Round> out;
  auto round = [&](double size, double repeat, std::string what, auto partner) {
    std::vector<std::pair<int32_t, int32_t>> msgs;
    for (int64_t node = 0; node < m; ++node)
      for (int64_t k = 0; k < g; ++k)
        if (auto to = partner(node, k); to.first >= 0)
          msgs.emplace_back(members[size_t(node)][size_t(k)], members[size_t(to.first)][size_t(to.second)]);
    if (!msgs.empty()) out.push_back(messages_round(l, std::move(msgs), size, repeat, std::move(what), keep));
  };
  using Place = std::pair<int64_t, int64_t>;  // (node, place in the node)
  if (g > 1)
    round(1.0 / double(g), double(g - 1), "reduce-scatter ring step in each node",
          [&](int64_t node, int64_t k) { return Place{node, (k + 1) % g}; });
  if (m > 1)
    round(1.0 / double(g * m), double(2 * (m - 1)), "all-reduce ring step among the nodes, one ring per rail",
          [&](int64_t node, int64_t k) { return Place{(node + 1) % m, k}; });
  if (g > 1)
    round(1.0 / double(g), double(g - 1), "allgather ring step in each node",
          [&](int64_t node, int64_t k) { return Place{node, (k + 1) % g}; });
  return out;
}

// MPICH ch4's node-aware composition (pattern.h, NodeAware): the nodes' first ranks (MPICH's node_roots_comm, in
// the order of their first ranks) run `inter`; within each node a k-ary tree over the node's ranks in rank order
// (release_gather.c's `kary` tree: rank i's children are k i + 1 .. k i + k), all nodes at once.
std::vector<Round> node_aware_rounds(const Layout& l, Collective c, Algorithm inter, bool keep, NodeAware na) {
  const auto members = node_members(l);
  std::vector<int32_t> leaders;
  for (const auto& m : members) leaders.push_back(m.front());
  size_t most = 0;
  for (const auto& m : members) most = std::max(most, m.size());
  std::vector<Round> out;
  // A k-ary tree in each node: up (children to parents, the deepest level first) or down (parents to children).
  auto tree = [&](int64_t k, bool up, double size, const char* what) {
    std::vector<int> depth(most, 0);
    int deepest = 0;
    for (size_t i = 1; i < most; ++i) deepest = std::max(deepest, depth[i] = depth[(i - 1) / size_t(k)] + 1);
    for (int step = 0; step < deepest; ++step) {
      const int level = up ? deepest - step : step + 1;  // the level of the children of this step
      std::vector<std::pair<int32_t, int32_t>> msgs;
      for (const auto& m : members)
        for (size_t i = 1; i < m.size(); ++i)
          if (depth[i] == level) {
            const int32_t child = m[i], parent = m[(i - 1) / size_t(k)];
            msgs.emplace_back(up ? child : parent, up ? parent : child);
          }
      out.push_back(messages_round(l, std::move(msgs), size, 1, fmt::format("{} in each node, level {}", what, step + 1),
                                   keep));
    }
  };
  auto among_nodes = [&](Collective sub) {
    if (leaders.size() < 2) return;
    Layout nodes = make_layout(int64_t(leaders.size()), 1, 1, Mapping{});
    for (const Round& r : flat_rounds(nodes, sub, inter, true, 1)) {
      std::vector<std::pair<int32_t, int32_t>> msgs;
      msgs.reserve(r.messages.size());
      for (const auto& [a, b] : r.messages) msgs.emplace_back(leaders[size_t(a)], leaders[size_t(b)]);
      Round g = messages_round(l, std::move(msgs), r.size_factor, r.repeat, "among nodes: " + r.what, keep);
      g.pipeline_hops = r.pipeline_hops;
      g.steps_each = r.steps_each;
      out.push_back(std::move(g));
    }
  };
  switch (c) {
    case Collective::Allreduce:
      tree(na.reduce_k, true, 1, "reduce");
      among_nodes(Collective::Allreduce);
      tree(na.bcast_k, false, 1, "bcast");
      break;
    case Collective::Bcast:
      among_nodes(Collective::Bcast);
      tree(na.bcast_k, false, 1, "bcast");
      break;
    case Collective::Reduce:
      tree(na.reduce_k, true, 1, "reduce");
      among_nodes(Collective::Reduce);
      break;
    default:  // barrier: gather within each node, the nodes' barrier, release within each node (no bytes)
      tree(na.reduce_k, true, 0, "gather");
      among_nodes(Collective::Barrier);
      tree(na.bcast_k, false, 0, "release");
      break;
  }
  return out;
}

}  // namespace

bool balanced_nodes(const Layout& l) {
  const auto members = node_members(l);
  for (const auto& m : members)
    if (m.size() != members.front().size()) return false;
  return true;
}

uint64_t listed_messages(const Layout& l, Collective c, Algorithm a, int64_t channels, NodeAware node_aware,
                         Variant variant) {
  uint64_t n = 0;
  for (const Round& r : collective_rounds(l, c, a, false, 1, node_aware, variant)) n += uint64_t(r.stats.messages);
  return std::max(n, 2 * uint64_t(l.ranks)) * uint64_t(std::max<int64_t>(1, channels));
}

bool has_node_aware(Collective c) {
  return c == Collective::Allreduce || c == Collective::Bcast || c == Collective::Reduce || c == Collective::Barrier;
}

std::vector<Round> collective_rounds(const Layout& l, Collective c, Algorithm a, bool keep_messages,
                                     int64_t channels, NodeAware node_aware, Variant variant) {
  if (node_aware.on && has_node_aware(c) && node_aware.bcast_k >= 1 && node_aware.reduce_k >= 1)
    return node_aware_rounds(l, c, a, keep_messages, node_aware);
  if (l.ranks >= 2 && c == Collective::Allreduce && a == Algorithm::Ring && variant.ring_phases > 1) {
    // Open MPI's ompi_coll_base_allreduce_intra_ring_segmented: each rank's block of n / p is cut into `phases`
    // segments; phase after phase, a ring reduce-scatter of one segment of every block (p - 1 steps of n / (p
    // phases)), then the ring all-gather of the reduced blocks (p - 1 steps of n / p): (phases + 1)(p - 1) steps.
    const int64_t p = l.ranks, phases = variant.ring_phases;
    auto next = [&](int64_t r) { return (r + 1) % p; };
    std::vector<Round> out;
    out.push_back(one_message_round(l, 1.0 / double(p * phases), double(phases * (p - 1)),
                                    fmt::format("segmented ring reduce-scatter step ({} phases)", phases), next,
                                    keep_messages));
    out.push_back(one_message_round(l, 1.0 / double(p), double(p - 1), "ring allgather step", next, keep_messages));
    return out;
  }
  if (l.ranks >= 2 && c == Collective::Alltoall && a == Algorithm::Linear && variant.requests > 0 &&
      variant.requests < l.ranks - 1 && keep_messages) {
    // Open MPI's ompi_coll_base_alltoall_intra_linear_sync with max_outstanding_reqs = k: each rank keeps k sends in
    // flight, to r - 1, r - 2, ... (and k receives from r + 1, r + 2, ...), posting the next as one completes. On the
    // fabric every rank's messages are alike, so they complete together: batches of k shifts, one after another.
    // (The fitted models price every all-to-all's messages one after another, below.)
    const int64_t p = l.ranks, k = variant.requests;
    std::vector<Round> out;
    for (int64_t first = 1; first < p; first += k) {
      const int64_t last = std::min(p - 1, first + k - 1);
      Round round = one_message_round(l, 1, 1, "", [&](int64_t r) { return (r - first + p) % p; }, true);
      for (int64_t i = first + 1; i <= last; ++i) {
        Round shift = one_message_round(l, 1, 1, "", [&](int64_t r) { return (r - i + p) % p; }, true);
        round.messages.insert(round.messages.end(), shift.messages.begin(), shift.messages.end());
      }
      round.what = fmt::format("linear_sync batch {} (shifts -{} to -{})", (first - 1) / k + 1, first, last);
      round.steps_each = double(last - first + 1);
      out.push_back(std::move(round));
    }
    return out;
  }
  if (l.ranks >= 2 && c == Collective::Bcast && a == Algorithm::ScatterDoublingAllgather && (l.ranks & (l.ranks - 1)))
    return detail::scatter_allgather_any_rounds(l, keep_messages);  // Open MPI's, over other rank counts
  if (l.ranks >= 2 && c == Collective::Allgather && a == Algorithm::Bruck && variant.bruck_radix > 2)
    return detail::k_bruck_rounds(l, variant.bruck_radix, keep_messages);
  if (l.ranks >= 2 && variant.segmented)
    if (auto rounds = detail::segmented_tree_rounds(l, c, a, keep_messages, variant); !rounds.empty()) return rounds;
  if (l.ranks >= 2 && detail::is_tree_algorithm(c, a)) return detail::tree_rounds(l, c, a, keep_messages, variant);
  return flat_rounds(l, c, a, keep_messages, channels);
}

namespace {

std::vector<Round> flat_rounds(const Layout& l, Collective c, Algorithm a, bool keep_messages, int64_t channels) {
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
  // The double binary tree (Sanders, Speck and Traeff 2009; NCCL's `tree`): each tree carries half the data in S
  // segments, every tree edge handing one segment per step; a reduce runs the edges towards the roots, a broadcast
  // away from them, an all-reduce both at once (the broadcast of a segment starts when the root has reduced it), so
  // the step repeats depth + S - 1 times (twice the depth for an all-reduce) with messages of n / (2 S). A rank sends
  // at most one message per tree and direction in a step.
  auto double_tree = [&](bool up, bool down, const char* what) {
    DoubleTree t = double_binary_tree(p);
    // Each rank's children in each tree (at most two).
    std::vector<std::array<int64_t, 2>> children[2];
    for (int k = 0; k < 2; ++k) {
      children[k].assign(size_t(p), {-1, -1});
      for (int64_t c = 0; c < p; ++c)
        if (int64_t up_rank = t.parent[k][size_t(c)]; up_rank >= 0) {
          auto& slot = children[k][size_t(up_rank)];
          (slot[0] < 0 ? slot[0] : slot[1]) = c;
        }
    }
    Accumulator acc(l);
    Round round;
    for (int64_t r = 0; r < p; ++r) {
      PatternStats::Signature sig{};
      auto send = [&](int64_t to) {
        sig[size_t(l.route(r, to) * kSizeKinds)] += 1;
        if (keep_messages) round.messages.emplace_back(int32_t(r), int32_t(to));
      };
      for (int k = 0; k < 2; ++k) {
        if (up && t.parent[k][size_t(r)] >= 0) send(t.parent[k][size_t(r)]);
        if (down)
          for (int64_t c : children[k][size_t(r)])
            if (c >= 0) send(c);
      }
      acc.add(r, sig);
    }
    round.stats = acc.finish();
    round.size_factor = 0.5;
    round.what = what;
    round.pipeline_hops = (up && down ? 2 : 1) * t.depth;
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
    case Collective::Gather:
      // The binomial gather to rank 0 (MPICH's MPIR_Gather_intra_binomial, its only intra-communicator gather): in
      // step k a rank r with r mod 2^(k+1) = 2^k hands r - 2^k the blocks of n it holds, min(2^k, p - r) of them; a
      // step's messages are priced at its largest, min(2^k, p - 2^k) n: ceil(log2 p) alpha + (p - 1) n beta.
      for (int i = 0; i < steps; ++i) {
        int64_t d = int64_t(1) << i;
        out.push_back(one(double(std::min(d, p - d)), 1, fmt::format("binomial gather step {}", i + 1),
                          [&](int64_t r) { return r % (2 * d) == d ? r - d : -1; }));
      }
      break;
    case Collective::Scatter:
      // The binomial scatter from rank 0 (MPICH's MPIR_Scatter_intra_binomial): the gather's steps in reverse, a rank
      // r with r mod 2d = 0 handing r + d the blocks of ranks r + d .. r + 2d - 1 (those below p).
      for (int i = 0; i < steps; ++i) {
        int64_t d = int64_t(1) << (steps - 1 - i);
        out.push_back(one(double(std::min(d, p - d)), 1, fmt::format("binomial scatter step {}", i + 1),
                          [&](int64_t r) { return r % (2 * d) == 0 && r + d < p ? r + d : -1; }));
      }
      break;
    case Collective::Barrier:
      if (a == Algorithm::RecursiveDoubling) {
        // Open MPI's ompi_coll_base_barrier_intra_recursivedoubling: the all-reduce's exchanges with no bytes.
        fold_in(0);
        for (int i = 0; i < lg; ++i) {
          int64_t d = int64_t(1) << i;
          out.push_back(one(0, 1, fmt::format("recursive doubling step {}", i + 1),
                            [&](int64_t r) { return r < pp ? r ^ d : -1; }));
        }
        fold_out(0);
      } else if (a == Algorithm::BinomialTree) {
        // Open MPI's ompi_coll_base_barrier_intra_tree: a binomial fan-in to rank 0 (r sends r - d when
        // r mod 2d = d, d = 1, 2, 4, ...), then the fan-out back (r sends r + d when r mod 2d = 0, d decreasing).
        reduce_rounds("binomial fan-in");
        for (int i = steps - 1; i >= 0; --i) {
          int64_t d = int64_t(1) << i;
          out.push_back(one(0, 1, fmt::format("binomial fan-out step {}", steps - i),
                            [&](int64_t r) { return r % (2 * d) == 0 && r + d < p ? r + d : -1; }));
        }
      } else {
        for (int i = 0; i < steps; ++i) {
          int64_t d = int64_t(1) << i;
          out.push_back(one(0, 1, fmt::format("dissemination step {}", i + 1),
                                          [&](int64_t r) { return (r + d) % p; }));
        }
      }
      break;
    case Collective::Bcast:
      if (a == Algorithm::ScatterAllgather || a == Algorithm::ScatterDoublingAllgather) {
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
        if (a == Algorithm::ScatterAllgather) {
          ring(1.0 / double(p), double(p - 1), "allgather ring step");
        } else {
          // MPICH's MPIR_Bcast_intra_scatter_recursive_doubling_allgather (Thakur, Rabenseifner and Gropp 2005,
          // section 4.1, for power-of-two ranks): the scattered pieces gathered by recursive doubling, steps of
          // n 2^i / p to r xor 2^i: (2 log p) alpha + 2 (p - 1) / p n beta. The lowering refuses other rank counts.
          for (int i = 0; i < lg; ++i) {
            int64_t d = int64_t(1) << i;
            out.push_back(one(double(d) / double(p), 1, fmt::format("allgather recursive doubling step {}", i + 1),
                              [&](int64_t r) { return r < pp ? r ^ d : -1; }));
          }
        }
      } else if (a == Algorithm::Pipeline) {
        chain(false, "pipelined chain step");
      } else if (a == Algorithm::DoubleBinaryTree) {
        double_tree(false, true, "double binary tree step (broadcast)");
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
      } else if (a == Algorithm::DoubleBinaryTree) {
        double_tree(true, false, "double binary tree step (reduce)");
      } else {
        reduce_rounds("binomial reduce");
      }
      break;
    case Collective::Allreduce:
      if (a == Algorithm::Hierarchical) {
        out = hierarchical_allreduce_rounds(l, keep_messages);
      } else if (a == Algorithm::DoubleBinaryTree) {
        double_tree(true, true, "double binary tree step (reduce, then broadcast)");
      } else if (a == Algorithm::BinomialTree) {
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
      } else if (a == Algorithm::Bruck) {
        // Bruck's allgather (Bruck et al., IEEE TPDS 8(11), 1997; MPICH's MPIR_Allgather_intra_brucks): ceil(log2 p)
        // steps, in step k every rank sends the min(2^k, p - 2^k) blocks it holds to r - 2^k, then rotates its
        // buffer locally: ceil(log2 p) alpha + (p - 1) n beta for any p.
        for (int k = 0; k < steps; ++k) {
          int64_t d = int64_t(1) << k;
          out.push_back(one(double(std::min(d, p - d)), 1, fmt::format("bruck step {}", k + 1),
                            [&](int64_t r) { return (r - d + p) % p; }));
        }
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
      } else if (a == Algorithm::Pairwise) {
        // The long-message pairwise exchange (Thakur et al. 2005; MPICH's MPIR_Reduce_scatter_intra_pairwise): in
        // step i every rank sends the n / p share of rank r + i to it: the ring's cost, (p - 1) alpha + (p - 1) / p n
        // beta, over other routes.
        for (int64_t i = 1; i < p; ++i)
          out.push_back(one(1.0 / double(p), 1, fmt::format("pairwise step {}", i), [&](int64_t r) { return (r + i) % p; }));
      } else {
        // Ring (the reduce-scatter half of the ring all-reduce; the long-message pairwise exchange of Thakur et
        // al. 2005 has the same cost, (p - 1) alpha + (p - 1) / p n beta): p - 1 steps of n / p to r + 1.
        ring(1.0 / double(p), double(p - 1), "ring step");
      }
      break;
    case Collective::Alltoall: {
      if (a == Algorithm::Bruck) {
        // Bruck's all-to-all (Bruck et al. 1997; MPICH's MPIR_Alltoall_intra_brucks): after a local rotation,
        // ceil(log2 p) steps; in step k every rank sends to r + 2^k the blocks whose index has bit k set (about p / 2
        // blocks of n), then rotates back: ceil(log2 p) alpha + about (p / 2) ceil(log2 p) n beta.
        for (int k = 0; k < steps; ++k) {
          int64_t d = int64_t(1) << k, blocks = 0;
          for (int64_t j = 0; j < p; ++j) blocks += (j & d) != 0;
          out.push_back(one(double(blocks), 1, fmt::format("bruck step {}", k + 1),
                            [&](int64_t r) { return (r + d) % p; }));
        }
        break;
      }
      if ((a == Algorithm::Scattered || a == Algorithm::Linear) && keep_messages) {
        // MPICH's MPIR_Alltoall_intra_scattered: every rank posts its sends to r + i (and receives from r - i) for
        // a batch of kAlltoallThrottle shifts i at once and waits for them before the next batch; the fabric model
        // has each batch's messages in flight together. (The fitted models send a rank's messages one after another,
        // as for the pairwise exchange below.)
        // Open MPI's basic linear all-to-all (and its linear_sync with no request limit, the default) posts all
        // p - 1 at once: one batch.
        const int64_t batch = a == Algorithm::Linear ? p - 1 : kAlltoallThrottle;
        for (int64_t first = 1; first < p; first += batch) {
          const int64_t last = std::min(p - 1, first + batch - 1);
          Round round = one(1, 1, "", [&](int64_t r) { return (r + first) % p; });
          for (int64_t i = first + 1; i <= last; ++i) {
            Round shift = one(1, 1, "", [&](int64_t r) { return (r + i) % p; });
            round.messages.insert(round.messages.end(), shift.messages.begin(), shift.messages.end());
          }
          round.what = a == Algorithm::Linear ? fmt::format("linear: every rank's {} messages at once", p - 1)
                                              : fmt::format("scattered batch {} (shifts {} to {})",
                                                            (first - 1) / kAlltoallThrottle + 1, first, last);
          round.steps_each = double(last - first + 1);
          out.push_back(std::move(round));
        }
        break;
      }
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
      out.push_back(Round{acc.finish(), 1, 1, "pairwise exchange", 0, double(p - 1), {}, {}, {}, {}});
      break;
    }
  }
  return out;
}

}  // namespace

}  // namespace gpm::mpi
