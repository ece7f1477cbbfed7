// collectives_trees.cpp: Open MPI's base collective algorithms as rounds of messages (pattern.h): linear, linear
// with a go-ahead, chains, binary and in-order binary trees, the k-nomial trees, the neighbour exchange, sparbit,
// direct messaging, the double ring, the butterfly and the compositions (non-overlapping, the allgather's linear,
// allgather_reduce), each moving the whole message per hop (one segment, as Open MPI's
// fixed decisions run them: they pass a segment size of 0); and the bcast's and reduce's chains and trees in
// segments, as a user's rule with a seg_size runs them (segmented_tree_rounds). The shapes follow Open MPI's ompi/mca/coll/base
// (coll_base_topo.c: build_tree, build_in_order_bintree, build_kmtree, build_chain; coll_base_{bcast,reduce,gather,
// barrier,allgather,reduce_scatter}.c), facts carried over, not code; the root is rank 0.
#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "engines/mpi/pattern.h"
#include "engines/mpi/pattern_detail.h"

namespace gpm::mpi {

using namespace detail;

std::string variant_title(Algorithm a, const Variant& v, Collective c) {
  if (v.segmented) {
    Variant whole = v;
    whole.segmented = false;
    return variant_title(a, whole, c) + " in segments";
  }
  auto chains = [](int64_t n) { return n == 1 ? std::string("1 chain") : fmt::format("{} chains", n); };
  switch (a) {
    case Algorithm::Ring:
      if (c == Collective::Allreduce && v.ring_phases > 1) return fmt::format("ring (segmented, {} phases)", v.ring_phases);
      return "ring";
    case Algorithm::Knomial: return fmt::format("knomial (radix {})", v.radix);
    case Algorithm::Bruck:
      if (c == Collective::Allgather && v.bruck_radix > 2) return fmt::format("bruck (radix {})", v.bruck_radix);
      return "bruck";
    case Algorithm::Chain:
      if (c == Collective::Bcast || c == Collective::Reduce)
        return fmt::format("chain ({})", chains(c == Collective::Bcast ? v.bcast_chains : v.reduce_chains));
      return "chain";
    case Algorithm::Linear:
      if (c == Collective::Allgather)
        return fmt::format("linear ({} gather, then {} bcast)", algorithm_name(v.gather_part),
                           v.bcast_part == Algorithm::Chain
                               ? fmt::format("chain of {}", chains(v.bcast_part_chains))
                               : std::string(algorithm_name(v.bcast_part)));
      if (c == Collective::Alltoall && v.requests > 0) return fmt::format("linear_sync ({} requests)", v.requests);
      return "linear";
    case Algorithm::AllgatherReduce:
      return fmt::format("allgather_reduce ({} allgather)", variant_title(v.allgather_part, v, Collective::Allgather));
    case Algorithm::NonOverlapping: {
      auto part = [&](Algorithm p, int64_t n, const char* what, bool segmented) {
        return fmt::format("{} {}{}", p == Algorithm::Chain ? fmt::format("chain of {}", chains(n)) : algorithm_name(p),
                           what, segmented ? " in segments" : "");
      };
      const std::string reduce = part(v.reduce_part, v.reduce_part_chains, "reduce", v.reduce_part_segmented);
      if (c == Collective::ReduceScatter) return fmt::format("nonoverlapping ({}, then linear scatter)", reduce);
      return fmt::format("nonoverlapping ({}, then {})", reduce,
                         part(v.bcast_part, v.bcast_part_chains, "bcast", v.bcast_part_segmented));
    }
    default: return algorithm_name(a);
  }
}

namespace {

using Message = std::pair<int32_t, int32_t>;

// The split binary tree's last step (ompi_coll_base_bcast_intra_split_bintree): each odd rank r swaps halves with
// r + 1; with an even p the root sends the second half to rank p - 1, which has no partner.
std::vector<Message> split_swap(int64_t p) {
  std::vector<Message> swap;
  for (int64_t r = 1; r < p; r += 2) {
    if (r + 1 < p) {
      swap.emplace_back(int32_t(r), int32_t(r + 1));
      swap.emplace_back(int32_t(r + 1), int32_t(r));
    } else {
      swap.emplace_back(0, int32_t(r));
    }
  }
  return swap;
}

// The steps of an algorithm, each a set of messages in flight together (a rank's several messages one after another
// under the fitted models), emitted as rounds. Under the fitted models steps whose statistics must be equal -- the
// same size, routes and sharing of nodes, sockets and leaves among their senders -- become one round repeated, so
// that a chain or a linear gather over many ranks stays a handful of rounds; the fabric model gets every step.
class Steps {
 public:
  Steps(const Layout& l, bool keep) : l_(l), keep_(keep) {
    if (keep) return;
    seen_[0].resize(size_t(l.nodes));
    seen_[1].resize(size_t(l.nodes * l.sockets_per_node));
    seen_[2].resize(size_t(l.leaves()));
    seen_[3].resize(size_t(l.ranks));
  }

  void add(std::vector<Message> messages, double size, std::string what) {
    if (messages.empty()) return;
    if (keep_) {
      out_.push_back(messages_round(l_, std::move(messages), size, 1, std::move(what), true));
      return;
    }
    std::sort(messages.begin(), messages.end());
    // The key: the size, then per message its route and the first message whose sender shares its node, socket,
    // leaf and rank (the statistics count senders per node, socket and leaf, and messages per sender).
    std::vector<int64_t> key;
    key.reserve(messages.size() * 5 + 1);
    ++stamp_;
    for (size_t i = 0; i < messages.size(); ++i) {
      const int64_t from = messages[i].first, to = messages[i].second, at = int64_t(i);
      key.push_back(l_.route(from, to));
      key.push_back(first(seen_[0], l_.node[size_t(from)], at));
      key.push_back(first(seen_[1], l_.socket[size_t(from)], at));
      key.push_back(first(seen_[2], l_.leaf_of(from), at));
      key.push_back(first(seen_[3], from, at));
    }
    auto [it, added] = index_.try_emplace(std::make_pair(size, std::move(key)), out_.size());
    if (added) {
      out_.push_back(messages_round(l_, std::move(messages), size, 1, std::move(what), false));
      counts_.resize(out_.size());
    }
    counts_[it->second] += 1;
  }

  std::vector<Round> finish() && {
    for (size_t i = 0; i < counts_.size(); ++i)
      if (counts_[i] > 1) {
        out_[i].repeat = double(counts_[i]);
        out_[i].what += fmt::format(" (and {} more steps like it)", counts_[i] - 1);
      }
    return std::move(out_);
  }

 private:
  // The first message of this step whose sender has `what` (a node, socket, leaf or rank): `seen` holds, per value,
  // the step it was last seen in and that message.
  int64_t first(std::vector<std::pair<int64_t, int64_t>>& seen, int64_t what, int64_t i) const {
    auto& slot = seen[size_t(what)];
    if (slot.first != stamp_) slot = {stamp_, i};
    return slot.second;
  }

  const Layout& l_;
  bool keep_;
  int64_t stamp_ = 0;
  std::vector<std::pair<int64_t, int64_t>> seen_[4];
  std::vector<Round> out_;
  std::vector<int64_t> counts_;
  std::map<std::pair<double, std::vector<int64_t>>, size_t> index_;
};

// Open MPI's build_tree(fanout, root 0): level l holds ranks (f^l - 1) / (f - 1) onwards, f^l of them; a rank r on
// level l has children r + f^l, r + 2 f^l, .., r + f f^l (those below p). Children per rank, in that order.
std::vector<std::vector<int64_t>> kary_children(int64_t p, int64_t f) {
  std::vector<std::vector<int64_t>> children(static_cast<size_t>(p));
  int64_t level_start = 0, width = 1;
  while (level_start < p) {
    for (int64_t r = level_start; r < std::min(p, level_start + width); ++r)
      for (int64_t i = 1; i <= f; ++i)
        if (int64_t c = r + width * i; c < p) children[size_t(r)].push_back(c);
    level_start += width;
    width *= f;
  }
  return children;
}

// Open MPI's build_in_order_bintree: rooted at p - 1, a subtree of `size` ranks ending at `parent` (shifted by
// `delta`) has its left child at parent - 1 heading the left part and its right child at size / 2 - 1 heading the
// right part (ranks 0 .. size / 2 - 1 of the subtree). Children per rank (left, right).
std::vector<std::vector<int64_t>> in_order_children(int64_t p) {
  std::vector<std::vector<int64_t>> children(static_cast<size_t>(p));
  // Each subtree: (size, delta): its ranks are delta .. delta + size - 1, its root delta + size - 1.
  std::vector<std::pair<int64_t, int64_t>> todo = {{p, 0}};
  while (!todo.empty()) {
    auto [size, delta] = todo.back();
    todo.pop_back();
    if (size <= 1) continue;
    const int64_t parent = size - 1, right = size >> 1, lchild = parent - 1;
    children[size_t(parent + delta)].push_back(lchild + delta);
    todo.push_back({size - right - 1, delta + right});  // the left subtree: ranks right .. size - 2
    if (lchild > 0 && right > 0) {
      children[size_t(parent + delta)].push_back(right - 1 + delta);
      todo.push_back({right, delta});  // the right subtree: ranks 0 .. right - 1
    }
  }
  return children;
}

// The depth of every rank below `root` in a tree given by its children.
std::vector<int64_t> depths(const std::vector<std::vector<int64_t>>& children, int64_t root, int64_t& deepest) {
  std::vector<int64_t> depth(children.size(), 0);
  std::vector<int64_t> order = {root};
  deepest = 0;
  for (size_t i = 0; i < order.size(); ++i)
    for (int64_t c : children[size_t(order[i])]) {
      depth[size_t(c)] = depth[size_t(order[i])] + 1;
      deepest = std::max(deepest, depth[size_t(c)]);
      order.push_back(c);
    }
  return depth;
}

// A broadcast down a tree, level by level: each rank of a level sends to all its children (Open MPI's generic
// broadcast with one segment posts them together).
void tree_down(Steps& steps, const std::vector<std::vector<int64_t>>& children, int64_t root, double size,
               const char* what) {
  int64_t deepest = 0;
  auto depth = depths(children, root, deepest);
  std::vector<std::vector<Message>> level(static_cast<size_t>(deepest));
  for (size_t r = 0; r < children.size(); ++r)
    for (int64_t c : children[r]) level[size_t(depth[r])].emplace_back(int32_t(r), int32_t(c));
  for (size_t d = 0; d < level.size(); ++d) steps.add(std::move(level[d]), size, fmt::format("{} level {}", what, d + 1));
}

// A reduction up a tree, the deepest level first; a parent takes its children's messages in their order (Open
// MPI's generic reduce receives and reduces them one by one), so a level is a step per child place.
void tree_up(Steps& steps, const std::vector<std::vector<int64_t>>& children, int64_t root, double size,
             const char* what) {
  int64_t deepest = 0;
  auto depth = depths(children, root, deepest);
  size_t most = 0;
  for (const auto& c : children) most = std::max(most, c.size());
  for (int64_t d = deepest - 1; d >= 0; --d)
    for (size_t k = 0; k < most; ++k) {
      std::vector<Message> msgs;
      for (size_t r = 0; r < children.size(); ++r)
        if (depth[r] == d && k < children[r].size()) msgs.emplace_back(int32_t(children[r][k]), int32_t(r));
      steps.add(std::move(msgs), size, fmt::format("{} level {}, child {}", what, deepest - d, k + 1));
    }
}

// Open MPI's build_chain(fanout, root 0): ranks 1 .. p - 1 in `f` chains of consecutive ranks, the first
// (p - 1) mod f of them one longer; rank 0 feeds each chain's head.
std::vector<std::vector<int64_t>> chains_of(int64_t p, int64_t f) {
  f = std::max<int64_t>(1, std::min(f, p - 1));
  std::vector<std::vector<int64_t>> chains(static_cast<size_t>(f));
  const int64_t base = (p - 1) / f, longer = (p - 1) % f;
  int64_t r = 1;
  for (int64_t c = 0; c < f; ++c)
    for (int64_t i = 0; i < base + (c < longer ? 1 : 0); ++i) chains[size_t(c)].push_back(r++);
  return chains;
}

// The root's messages to (from) every other rank. A linear broadcast or scatter posts them together; a linear
// reduce, gather or barrier receives them in turn (Open MPI's basic linear receives from ranks p - 1 down to 1).
void linear_out(Steps& steps, int64_t p, double size, const char* what) {
  std::vector<Message> msgs;
  for (int64_t r = 1; r < p; ++r) msgs.emplace_back(0, int32_t(r));
  steps.add(std::move(msgs), size, what);
}
void linear_in(Steps& steps, int64_t p, double size, const char* what) {
  for (int64_t r = p - 1; r >= 1; --r) steps.add({{int32_t(r), 0}}, size, fmt::format("{} from rank {}", what, r));
}

void chain_rounds(Steps& steps, int64_t p, int64_t f, bool down, double size) {
  auto chains = chains_of(p, f);
  size_t longest = 0;
  for (const auto& c : chains) longest = std::max(longest, c.size());
  if (down) {
    std::vector<Message> heads;
    for (const auto& c : chains) heads.emplace_back(0, int32_t(c.front()));
    steps.add(std::move(heads), size, "chain heads");
    for (size_t i = 1; i < longest; ++i) {
      std::vector<Message> msgs;
      for (const auto& c : chains)
        if (i < c.size()) msgs.emplace_back(int32_t(c[i - 1]), int32_t(c[i]));
      steps.add(std::move(msgs), size, fmt::format("chain step {}", i + 1));
    }
    return;
  }
  // Towards the root: every chain from its tail (the longer chains start one step earlier), then the heads into
  // rank 0 one after another.
  for (size_t i = longest - 1; i >= 1; --i) {
    std::vector<Message> msgs;
    for (const auto& c : chains)
      if (i < c.size()) msgs.emplace_back(int32_t(c[i]), int32_t(c[i - 1]));
    steps.add(std::move(msgs), size, fmt::format("chain step {}", longest - i));
  }
  for (size_t k = 0; k < chains.size(); ++k)
    steps.add({{int32_t(chains[k].front()), 0}}, size, fmt::format("chain head {} to the root", k + 1));
}

void knomial_down(Steps& steps, int64_t p, int64_t k, double size) {
  int64_t top = 1;
  while (top * k < p) top *= k;  // the largest power of k below p
  int step = 0;
  for (int64_t mask = top; mask >= 1; mask /= k) {
    std::vector<Message> msgs;
    for (int64_t r = 0; r < p; r += k * mask)
      for (int64_t j = 1; j < k; ++j)
        if (r + j * mask < p) msgs.emplace_back(int32_t(r), int32_t(r + j * mask));
    steps.add(std::move(msgs), size, fmt::format("knomial step {}", ++step));
  }
}

// Open MPI's build_kmtree (root 0): rank r's parent is r less its lowest non-zero digit in base k times that
// digit's place value. Children per rank.
std::vector<std::vector<int64_t>> kmtree_children(int64_t p, int64_t k) {
  std::vector<std::vector<int64_t>> children(static_cast<size_t>(p));
  for (int64_t r = 1; r < p; ++r) {
    int64_t place = 1;
    while ((r / place) % k == 0) place *= k;
    children[size_t(r - ((r / place) % k) * place)].push_back(r);
  }
  return children;
}

// ompi_coll_base_reduce_intra_knomial: every rank posts its receives from all its children at once, waits for
// them, then sends its reduced buffer to its parent, so a rank whose subtree is h deep sends in step h + 1: the
// leaves first, then the ranks whose children are all leaves, and so on.
void knomial_up(Steps& steps, int64_t p, int64_t k, double size) {
  const auto children = kmtree_children(p, k);
  std::vector<int64_t> height(static_cast<size_t>(p), 0), parent(static_cast<size_t>(p), -1);
  int64_t highest = 0;
  for (int64_t r = p - 1; r >= 0; --r)  // a child is always above its parent in rank order
    for (int64_t c : children[size_t(r)]) {
      parent[size_t(c)] = r;
      height[size_t(r)] = std::max(height[size_t(r)], height[size_t(c)] + 1);
      highest = std::max(highest, height[size_t(r)]);
    }
  for (int64_t h = 0; h < highest; ++h) {
    std::vector<Message> msgs;
    for (int64_t r = 1; r < p; ++r)
      if (height[size_t(r)] == h) msgs.emplace_back(int32_t(r), int32_t(parent[size_t(r)]));
    steps.add(std::move(msgs), size, fmt::format("knomial reduce step {}", h + 1));
  }
}

// ompi_coll_base_allgather_intra_sparbit (Loch and Koslovski, "Sparbit: a new logarithmic-cost and data
// locality-aware MPI Allgather algorithm", SBAC-PAD 2021): ceil(log2 p) steps, the distance halving from
// 2^(ceil(log2 p) - 1) down to 1; in each step every rank sends to r + distance the blocks it holds but the one
// it got last when the distance is among those Open MPI skips (`ignore_steps`, from p's binary digits), one
// message per block, posted together. The blocks to one partner are priced as one message of their total, as
// Bruck's are; a step's count is the same at every rank.
std::vector<std::pair<int64_t, int64_t>> sparbit_steps(int64_t p) {
  std::vector<std::pair<int64_t, int64_t>> out;  // (distance, blocks)
  if (p < 2) return out;
  int log = 0;
  while ((int64_t(1) << log) < p) ++log;
  const uint32_t size = uint32_t(p);
  const int last_ignore = __builtin_ctz(size);
  const uint32_t ignore_steps = (~(size >> last_ignore) | 1u) << last_ignore;
  uint32_t distance = uint32_t(1) << (log - 1);
  int64_t expected = 1;
  for (int i = 0; i < log; ++i, distance >>= 1) {
    const int64_t exclusion = (distance & ignore_steps) == distance ? 1 : 0;
    out.emplace_back(int64_t(distance), expected - exclusion);
    expected = 2 * expected - exclusion;
  }
  return out;
}

}  // namespace

namespace detail {

bool is_tree_algorithm(Collective c, Algorithm a) {
  switch (a) {
    case Algorithm::Linear: return c != Collective::Alltoall;  // the all-to-all's is collectives.cpp's
    case Algorithm::LinearSync:
    case Algorithm::Chain:
    case Algorithm::BinaryTree:
    case Algorithm::InOrderBinaryTree:
    case Algorithm::SplitBinaryTree:
    case Algorithm::Knomial:
    case Algorithm::NeighborExchange:
    case Algorithm::Butterfly:
    case Algorithm::NonOverlapping:
    case Algorithm::Sparbit:
    case Algorithm::DirectMessaging:
    case Algorithm::DoubleRing:
    case Algorithm::AllgatherReduce: return true;
    default: return false;
  }
}

std::vector<Round> tree_rounds(const Layout& l, Collective c, Algorithm a, bool keep, const Variant& v) {
  const int64_t p = l.ranks;
  Steps steps(l, keep);
  std::vector<Round> prefix;  // rounds of another algorithm that come first (a non-overlapping composition)
  switch (a) {
    case Algorithm::Linear:
      // ompi_coll_base_{bcast,scatter,reduce,gather,barrier,allreduce}_intra_basic_linear.
      if (c == Collective::Bcast) linear_out(steps, p, 1, "linear bcast");
      if (c == Collective::Scatter) linear_out(steps, p, 1, "linear scatter (a block to each rank)");
      if (c == Collective::Reduce || c == Collective::Allreduce) linear_in(steps, p, 1, "linear reduce");
      if (c == Collective::Allreduce) linear_out(steps, p, 1, "linear bcast");
      if (c == Collective::Gather) linear_in(steps, p, 1, "linear gather");
      if (c == Collective::Barrier) {
        linear_in(steps, p, 0, "linear barrier: arrival");
        linear_out(steps, p, 0, "linear barrier: release");
      }
      if (c == Collective::Allgather) {
        // ompi_coll_base_allgather_intra_basic_linear: the communicator's gather of the blocks to rank 0, then its
        // bcast of the whole p n (each as the library chooses it, or the defaults when named).
        Variant part = v;
        part.bcast_chains = v.bcast_part_chains;
        prefix = collective_rounds(l, Collective::Gather, v.gather_part, keep, 1, {}, part);
        auto down = collective_rounds(l, Collective::Bcast, v.bcast_part, keep, 1, {}, part);
        for (auto& r : down) r.size_factor *= double(p);
        prefix.insert(prefix.end(), std::make_move_iterator(down.begin()), std::make_move_iterator(down.end()));
      }
      break;
    case Algorithm::LinearSync:
      // ompi_coll_base_gather_intra_linear_sync: the root sends each rank a zero-byte go-ahead, then receives its
      // block (with no segment size the whole block), rank after rank.
      if (v.first_segment > 0) return linear_sync_segmented_rounds(l, v.first_segment, keep);
      for (int64_t r = 1; r < p; ++r) {
        steps.add({{0, int32_t(r)}}, 0, fmt::format("go-ahead to rank {}", r));
        steps.add({{int32_t(r), 0}}, 1, fmt::format("block of rank {}", r));
      }
      break;
    case Algorithm::Chain:
      chain_rounds(steps, p, c == Collective::Bcast ? v.bcast_chains : v.reduce_chains, c == Collective::Bcast, 1);
      break;
    case Algorithm::BinaryTree:
      if (c == Collective::Bcast) tree_down(steps, kary_children(p, 2), 0, 1, "binary tree");
      else tree_up(steps, kary_children(p, 2), 0, 1, "binary tree");
      break;
    case Algorithm::InOrderBinaryTree:
      // ompi_coll_base_reduce_intra_in_order_binary: reduced to rank p - 1 along the in-order tree, which then
      // sends the result to the root.
      tree_up(steps, in_order_children(p), p - 1, 1, "in-order binary tree");
      steps.add({{int32_t(p - 1), 0}}, 1, "result to the root");
      break;
    case Algorithm::Knomial:
      if (c == Collective::Reduce) knomial_up(steps, p, std::max<int64_t>(2, v.radix), 1);
      else knomial_down(steps, p, std::max<int64_t>(2, v.radix), 1);
      break;
    case Algorithm::Sparbit: {
      std::vector<Round> out;
      int step = 0;
      for (auto [distance, blocks] : sparbit_steps(p)) {
        const int64_t d = distance;
        out.push_back(one_message_round(l, double(blocks), 1,
                                        fmt::format("sparbit step {} ({} block{} to r + {})", ++step, blocks,
                                                    blocks == 1 ? "" : "s", d),
                                        [&](int64_t r) { return (r + d) % p; }, keep));
      }
      return out;
    }
    case Algorithm::DirectMessaging: {
      // ompi_coll_base_allgather_direct_messaging: every rank posts its block to each other rank at once, as the
      // basic linear all-to-all posts its messages (the fitted models price a rank's messages one after another).
      auto out = collective_rounds(l, Collective::Alltoall, Algorithm::Linear, keep);
      for (auto& r : out) r.what = fmt::format("direct messaging: every rank's block to the {} others at once", p - 1);
      return out;
    }
    case Algorithm::DoubleRing:
      // ompi_coll_base_barrier_intra_doublering: a zero-byte token from rank 0 around the ring back to rank 0, then
      // a second time: 2 p messages, one after another.
      for (int pass = 1; pass <= 2; ++pass)
        for (int64_t r = 0; r < p; ++r)
          steps.add({{int32_t(r), int32_t((r + 1) % p)}}, 0,
                    fmt::format("double ring, pass {}: rank {} to rank {}", pass, r, (r + 1) % p));
      break;
    case Algorithm::AllgatherReduce:
      // ompi_coll_base_allreduce_intra_allgather_reduce: the communicator's allgather of every rank's whole buffer
      // (as the library chooses it), then each rank reduces the p buffers itself (not timed, as every reduction).
      return collective_rounds(l, Collective::Allgather, v.allgather_part, keep, 1, {}, v);
    case Algorithm::SplitBinaryTree: {
      // ompi_coll_base_bcast_intra_split_bintree: the root sends the first half of the message down its first
      // subtree (the odd ranks of the binary tree) and the second half down the other (the even ranks), each rank
      // forwarding its half to its children; then each odd rank r swaps halves with r + 1, and with an even p the
      // root sends the second half to rank p - 1, which has no partner.
      tree_down(steps, kary_children(p, 2), 0, 0.5, "split binary tree (half the message)");
      steps.add(split_swap(p), 0.5, "halves swapped between the subtrees");
      break;
    }
    case Algorithm::NeighborExchange: {
      // ompi_coll_base_allgather_intra_neighborexchange (Chen, Traeff et al., "Performance evaluation of allgather
      // algorithms on terascale Linux cluster with fast Ethernet", HPCAsia 2005): with an even p, each rank first
      // swaps its block with one neighbour, then p / 2 - 1 steps swap the two blocks it got last with its other
      // and its first neighbour in turn: (p / 2) alpha + (p - 1) n beta. Open MPI runs a ring for an odd p.
      if (p % 2 != 0) {
        Round ring = one_message_round(l, 1, double(p - 1), "ring step (odd ranks: no neighbour exchange)",
                                       [&](int64_t r) { return (r + 1) % p; }, keep);
        return {std::move(ring)};
      }
      auto neighbour = [&](int64_t r, int which) {
        const bool even = r % 2 == 0;
        return (which == 0) == even ? (r + 1) % p : (r - 1 + p) % p;
      };
      std::vector<Round> out;
      out.push_back(one_message_round(l, 1, 1, "neighbour exchange step 1",
                                      [&](int64_t r) { return neighbour(r, 0); }, keep));
      const int64_t rest = p / 2 - 1, odd = (rest + 1) / 2, even = rest / 2;
      if (odd > 0)
        out.push_back(one_message_round(l, 2, double(odd), "neighbour exchange, steps 2, 4, ..",
                                        [&](int64_t r) { return neighbour(r, 1); }, keep));
      if (even > 0)
        out.push_back(one_message_round(l, 2, double(even), "neighbour exchange, steps 3, 5, ..",
                                        [&](int64_t r) { return neighbour(r, 0); }, keep));
      return out;
    }
    case Algorithm::Butterfly: {
      // ompi_coll_base_reduce_scatter_intra_butterfly (Traeff, "An improved algorithm for (non-commutative)
      // reduce-scatter with an application", EuroPVM/MPI 2005): the p - p' ranks beyond the largest power of two p'
      // fold their buffer in, the p' others halve the vector with the partner distance doubling -- n / 2 to r xor
      // 1, n / 4 to r xor 2, .., n / p' to r xor p' / 2 -- then hand the folded ranks their share.
      int64_t pp = 1;
      while (pp * 2 <= p) pp *= 2;
      std::vector<Round> out;
      if (p > pp)
        out.push_back(one_message_round(l, 1, 1, "fold in", [&](int64_t r) { return r >= pp ? r - pp : -1; }, keep));
      int step = 0;
      for (int64_t d = 1; d < pp; d *= 2)
        out.push_back(one_message_round(l, double(pp / (2 * d)) / double(pp), 1,
                                        fmt::format("butterfly step {}", ++step),
                                        [&](int64_t r) { return r < pp ? r ^ d : -1; }, keep));
      if (p > pp)
        out.push_back(one_message_round(l, 1.0 / double(p), 1, "fold out",
                                        [&](int64_t r) { return r < p - pp ? r + pp : -1; }, keep));
      return out;
    }
    case Algorithm::NonOverlapping: {
      // ompi_coll_base_allreduce_intra_nonoverlapping: the communicator's reduce to rank 0, then its bcast (each as
      // the library chooses it); ompi_coll_base_reduce_scatter_intra_nonoverlapping: the reduce, then rank 0
      // scatters the shares (the basic module's linear scatterv).
      Variant part = v;
      part.reduce_chains = v.reduce_part_chains;
      part.bcast_chains = v.bcast_part_chains;
      part.segmented = v.reduce_part_segmented;
      prefix = collective_rounds(l, Collective::Reduce, v.reduce_part, keep, 1, {}, part);
      if (c == Collective::Allreduce) {
        part.segmented = v.bcast_part_segmented;
        auto down = collective_rounds(l, Collective::Bcast, v.bcast_part, keep, 1, {}, part);
        prefix.insert(prefix.end(), std::make_move_iterator(down.begin()), std::make_move_iterator(down.end()));
      } else {
        linear_out(steps, p, 1.0 / double(p), "linear scatter of the shares");
      }
      break;
    }
    default: break;
  }
  auto rest = std::move(steps).finish();
  prefix.insert(prefix.end(), std::make_move_iterator(rest.begin()), std::make_move_iterator(rest.end()));
  return prefix;
}

std::vector<Round> segmented_tree_rounds(const Layout& l, Collective c, Algorithm a, bool keep, const Variant& v) {
  // ompi_coll_base_bcast_intra_generic and ompi_coll_base_reduce_generic: every segment goes down (comes up) the
  // tree, each rank sending it to all its children (its parent) as soon as it has it, so in the steady state every
  // edge of the tree carries one segment a step: one round of all the edges, repeated depth + S - 1 times with
  // messages of n / S (the pipelined round of CommEngine, S from the segment size).
  const int64_t p = l.ranks;
  if (c != Collective::Bcast && c != Collective::Reduce) return {};
  std::vector<std::vector<int64_t>> children;
  int64_t root = 0;
  switch (a) {
    case Algorithm::Chain: {
      children.assign(size_t(p), {});
      for (const auto& chain : chains_of(p, c == Collective::Bcast ? v.bcast_chains : v.reduce_chains)) {
        children[0].push_back(chain.front());
        for (size_t i = 1; i < chain.size(); ++i) children[size_t(chain[i - 1])].push_back(chain[i]);
      }
      break;
    }
    case Algorithm::BinaryTree: children = kary_children(p, 2); break;
    case Algorithm::SplitBinaryTree:
      if (c != Collective::Bcast) return {};
      children = kary_children(p, 2);
      break;
    case Algorithm::InOrderBinaryTree:
      if (c != Collective::Reduce) return {};
      children = in_order_children(p);
      root = p - 1;
      break;
    case Algorithm::BinomialTree:
    case Algorithm::Knomial: {
      // build_bmtree and build_kmtree: rank r's parent is r less its lowest non-zero digit in base k (k = 2 for the
      // binomial tree), the digit times its place value.
      const int64_t k = a == Algorithm::Knomial ? std::max<int64_t>(2, v.radix) : 2;
      if (a == Algorithm::Knomial && c != Collective::Bcast) return {};
      children = kmtree_children(p, k);
      break;
    }
    default: return {};
  }
  // The edges and the tree's depth, breadth first from the root.
  std::vector<std::pair<int32_t, int32_t>> messages;
  std::vector<int64_t> level{root}, depth_of(size_t(p), 0);
  int64_t depth = 0;
  for (size_t i = 0; i < level.size(); ++i) {
    const int64_t r = level[i];
    for (int64_t child : children[size_t(r)]) {
      depth_of[size_t(child)] = depth_of[size_t(r)] + 1;
      depth = std::max(depth, depth_of[size_t(child)]);
      level.push_back(child);
      messages.emplace_back(c == Collective::Bcast ? std::make_pair(int32_t(r), int32_t(child))
                                                   : std::make_pair(int32_t(child), int32_t(r)));
    }
  }
  Variant shape = v;
  shape.segmented = false;
  std::vector<Round> out;
  if (a == Algorithm::SplitBinaryTree) {
    // ompi_coll_base_bcast_intra_split_bintree in segments: the root sends the segments of the first half down its
    // first subtree and those of the second half down the other, in turn; every rank forwards its half's segments
    // to its children as they come: one pipelined round of every edge with half the message, S its segments. Then
    // the halves are swapped whole, as without segments.
    out.push_back(messages_round(l, std::move(messages), 0.5, 1, "split binary tree in segments (every edge a step, "
                                 "half the message)", keep));
    out.back().pipeline_hops = depth;
    out.push_back(messages_round(l, split_swap(p), 0.5, 1, "halves swapped between the subtrees", keep));
    return out;
  }
  out.push_back(messages_round(l, std::move(messages), 1, 1,
                               fmt::format("{} in segments (every edge a step)", variant_title(a, shape, c)), keep));
  out.back().pipeline_hops = depth;
  if (root != 0)  // the in-order tree's root sends the result to rank 0, the whole message
    out.push_back(messages_round(l, {{int32_t(root), 0}}, 1, 1, "result to the root", keep));
  return out;
}

}  // namespace detail

}  // namespace gpm::mpi
