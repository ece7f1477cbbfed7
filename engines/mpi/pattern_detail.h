// pattern_detail.h: what pattern.cpp and collectives.cpp share to build rounds: per-node sums of a pattern and a
// round of one message per rank.
#pragma once
#include <set>
#include <utility>
#include <vector>

#include "engines/mpi/pattern.h"

namespace gpm::mpi::detail {

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
    // A signature like the previous rank's (the common case: neighbouring ranks send alike) reuses its sums.
    int64_t diff = 0;  // branch-free: every entry compared (a call to memcmp cost more than the sums it saves)
    for (size_t i = 0; i < sig.size(); ++i) diff |= sig[i] ^ last_[i];
    const bool same = have_last_ && diff == 0;
    if (!same) {
      last_all_ = 0;
      last_off_leaf_ = 0;
      for (int64_t& x : last_per_class_) x = 0;
      for (int c = 0; c < kRoutes; ++c)
        for (int k = 0; k < kSizeKinds; ++k) {
          int64_t n = sig[size_t(c * kSizeKinds + k)];
          last_per_class_[c == kOffLeaf ? int(Locality::InterNode) : c] += n;  // off-leaf messages are inter-node too
          if (c == kOffLeaf) last_off_leaf_ += n;
        }
      for (int64_t x : last_per_class_) last_all_ += x;
      last_ = sig;
      have_last_ = true;
      if (last_all_ != 0) seen_.insert(sig);
    }
    count(r);
  }

  // Adds rank r with the signature of the rank added last (the caller knows they are equal).
  void add_again(int64_t r) { count(r); }

  // Adds another accumulator's sums over other ranks of the same layout (a round built in parts, sized_round): the
  // per-node and per-leaf sums add, the signatures seen are the union, so the parts give what one pass gives.
  void merge(const Accumulator& o) {
    auto add = [](std::vector<int64_t>& a, const std::vector<int64_t>& b) {
      for (size_t i = 0; i < a.size(); ++i) a[i] += b[i];
    };
    add(inter_, o.inter_);
    add(total_, o.total_);
    add(senders_, o.senders_);
    add(leaf_offleaf_, o.leaf_offleaf_);
    add(leaf_total_, o.leaf_total_);
    add(leaf_senders_, o.leaf_senders_);
    add(leaf_offleaf_senders_, o.leaf_offleaf_senders_);
    for (int c = 0; c < kClasses; ++c) add(class_senders_[c], o.class_senders_[c]);
    seen_.insert(o.seen_.begin(), o.seen_.end());
    messages_ += o.messages_;
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
  void count(int64_t r) {
    const int64_t all = last_all_, off_leaf = last_off_leaf_;
    const int64_t* per_class = last_per_class_;
    if (all == 0) return;
    const int32_t node_of_r = l_.node[size_t(r)];
    if (node_of_r != leaf_node_) {  // the leaf of the previous sender's node (a division saved per rank)
      leaf_node_ = node_of_r;
      leaf_of_node_ = size_t(l_.leaf_of(r));
    }
    const size_t leaf = leaf_of_node_;
    leaf_offleaf_[leaf] += off_leaf;
    leaf_total_[leaf] += all;
    leaf_senders_[leaf] += 1;
    if (off_leaf) leaf_offleaf_senders_[leaf] += 1;
    const size_t node = size_t(node_of_r);
    inter_[node] += per_class[int(Locality::InterNode)];
    total_[node] += all;
    senders_[node] += 1;
    if (per_class[0]) class_senders_[0][size_t(l_.socket[size_t(r)])] += 1;
    if (per_class[1]) class_senders_[1][node] += 1;
    if (per_class[2]) class_senders_[2][node] += 1;
    messages_ += all;
  }

  const Layout& l_;
  std::vector<int64_t> inter_, total_, senders_;
  std::vector<int64_t> leaf_offleaf_, leaf_total_, leaf_senders_, leaf_offleaf_senders_;
  std::vector<int64_t> class_senders_[kClasses];
  std::set<PatternStats::Signature> seen_;
  PatternStats::Signature last_{};
  bool have_last_ = false;
  int64_t last_all_ = 0, last_off_leaf_ = 0, last_per_class_[kClasses]{};  // last_'s sums
  int64_t messages_ = 0;
  int32_t leaf_node_ = -1;  // the node whose leaf is leaf_of_node_
  size_t leaf_of_node_ = 0;
};

// A round where each rank sends at most one message, to partner(r) (or nowhere when it returns -1).
// With `keep`, the round also lists its messages.
template <class Partner>
Round one_message_round(const Layout& l, double size_factor, double repeat, std::string what, Partner partner,
                        bool keep = false) {
  Accumulator acc(l);
  std::vector<std::pair<int32_t, int32_t>> messages;
  int previous_route = -1;  // the route of the previous sender's message
  for (int64_t r = 0; r < l.ranks; ++r) {
    int64_t to = partner(r);
    if (to < 0 || to == r) continue;
    const int route = l.route(r, to);
    if (route == previous_route) {
      acc.add_again(r);  // the previous sender's signature: one message on this route
    } else {
      PatternStats::Signature sig{};
      sig[size_t(route * kSizeKinds)] = 1;
      acc.add(r, sig);
      previous_route = route;
    }
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

// A round of the given messages, a rank possibly sending several (one after another under the fitted models, in
// flight together under the fabric model), with their statistics (collectives.cpp).
Round messages_round(const Layout& l, std::vector<std::pair<int32_t, int32_t>> messages, double size, double repeat,
                     std::string what, bool keep);

// Open MPI's base algorithms (collectives_trees.cpp): whether `a` for `c` is one of them, and its rounds.
bool is_tree_algorithm(Collective c, Algorithm a);
std::vector<Round> tree_rounds(const Layout& l, Collective c, Algorithm a, bool keep, const Variant& v);
// Open MPI's bcast or reduce over the tree of `a` in segments (Variant::segmented); empty for another algorithm.
std::vector<Round> segmented_tree_rounds(const Layout& l, Collective c, Algorithm a, bool keep, const Variant& v);
// Open MPI's Bruck allgather of radix k > 2 (ompi_coll_base_allgather_intra_k_bruck): its steps, each a round whose
// messages differ in size (Round::sizes_relative).
std::vector<Round> k_bruck_rounds(const Layout& l, int64_t k, bool keep);
// Open MPI's scatter-allgather broadcast (ompi_coll_base_bcast_intra_scatter_allgather) over any number of ranks:
// the binomial scatter, then recursive doubling with recursive-halving hand-ons where p is not a power of two.
std::vector<Round> scatter_allgather_any_rounds(const Layout& l, bool keep);
// Open MPI's linear_sync gather with a first segment (`first`: its fraction of a block): go-aheads, first segments
// and the rests of the blocks overlapping the next rank's first segment.
std::vector<Round> linear_sync_segmented_rounds(const Layout& l, double first, bool keep);

// The k of each class a pattern's messages are priced with (the K-model's k for inter-node and off-leaf ones).
void fill_k_used(const PatternStats& s, const Choice& c, PatternTime& out);

inline int ceil_log2(int64_t p) {
  int k = 0;
  while ((int64_t(1) << k) < p) ++k;
  return k;
}

}  // namespace gpm::mpi::detail
