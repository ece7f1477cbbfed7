// topology.h: routes on the node's component graph: fewest links, then least latency, then most bandwidth, then a
// tie-break by component order that never depends on the order links were declared in.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/ir.h"

namespace gpm::ir {

// One hop: a link, traversed in direction 0 (a -> b) or 1 (b -> a).
struct Hop {
  int link;
  int direction;
  bool operator==(const Hop&) const = default;
};

// A link's latency (s) and bandwidth (B/s) in one direction, at the values the model is lowered with.
struct LinkCost {
  double latency = 0;
  double bandwidth = 0;
};
using LinkCostFn = std::function<LinkCost(int link, int direction)>;

// Routes between components of one topology; the adjacency is built once, so routing many flows is cheap.
//
// The route from `from` to `to` is, among the paths that respect link directions (and, with `no_transit_kind`,
// pass through no component of that kind between their ends: a copy between two GPUs is not forwarded by a third):
//   1. one with the fewest links, and among those the fewest global links (Link::global: a dragonfly's links
//      between groups, so that its routes are minimal: a local hop, one global link, a local hop);
//   2. among those, the least total latency (sums within a relative 1e-12 are equal);
//   3. then the largest bottleneck bandwidth (the slowest link of the route, equal within 1e-12);
//   4. then, among routes still equal, number (the destination's rank among components of its kind) mod (their
//      count), taken where the routes part, in component declaration order: traffic to different destinations
//      spreads over equal paths (d-mod-k on a fat tree), and one destination always gets the same route.
// Steps 2 and 3 use `cost` (asked only for the links of the fewest-link routes, and only when there are two or more
// of them) and are skipped without one. Link declaration order never decides a route.
//
// The fewest-link routes are found by a breadth-first search from both ends that stops where the two meet (on a
// cluster, near the spines), so a route costs the neighbourhoods of its ends, not the whole fabric.
class Router {
 public:
  explicit Router(const Topology& topology, LinkCostFn cost = {});
  std::optional<std::vector<Hop>> route(int from, int to, const std::string& no_transit_kind = {});
  // The same with step 4's number given (`tie_rank`, instead of `to`'s rank among its kind): a leg of a longer route
  // spreads over equal paths as the route's final destination would (mpi::MessageRouter's legs through NICs).
  std::optional<std::vector<Hop>> route(int from, int to, const std::string& no_transit_kind, int tie_rank);
  // A component's rank among the components of its kind (declaration order).
  int rank_of(int component) const { return rank_[size_t(component)]; }
  // Searches from the source alone (the plain breadth-first search); the same routes, for tests to compare.
  void set_one_sided(bool one_sided) { one_sided_ = one_sided; }
  // Keeps the first `limit` routes found and answers the same question again from them (a lowering whose
  // statements exchange among the same ranks asks for the same routes once per statement).
  void keep_routes(size_t limit) { memo_limit_ = limit; }

 private:
  std::optional<std::vector<Hop>> find(int from, int to, const std::string& no_transit_kind, int tie_rank);
  const LinkCost& cost_of(const Hop& hop);
  void layers_from(int from, const std::string& no_transit_kind);
  // One more layer of the search from the source, then from the destination `to`; both note where they meet.
  void expand_forward(int to);
  void expand_backward(int to);
  void meet(int v, int to);
  bool transit(int at) const { return at == bfs_from_ || !blocked_[size_t(at)]; }
  // The directed hops leaving and entering component c: out_hops_[out_begin_[c] .. out_begin_[c + 1]), likewise in.
  std::span<const Hop> out_of(int c) const {
    return {out_hops_.data() + out_begin_[size_t(c)], size_t(out_begin_[size_t(c) + 1] - out_begin_[size_t(c)])};
  }
  std::span<const Hop> in_of(int c) const {
    return {in_hops_.data() + in_begin_[size_t(c)], size_t(in_begin_[size_t(c) + 1] - in_begin_[size_t(c)])};
  }
  const Topology& t_;
  LinkCostFn cost_;
  std::vector<Hop> out_hops_, in_hops_;
  std::vector<int> out_begin_, in_begin_;
  std::vector<LinkCost> costs_;   // per link and direction (2 link + direction), filled on demand
  std::vector<uint8_t> costed_;
  std::vector<int> rank_;  // each component's rank among the components of its kind
  // The breadth-first search from the last source routed from (and the kind it may not pass through), carried only
  // as far as the routes asked so far needed: the distances found, the queue of components still to expand.
  int bfs_from_ = -1;
  std::string bfs_kind_;
  std::vector<uint8_t> blocked_;  // per component: of the kind routes may not pass through
  std::vector<int> dist_;
  std::vector<int> queue_;
  size_t head_ = 0;
  // The search from the destination, per route: links to the destination, the queue, and the fewest links of a
  // route through a component both searches have labelled (INT_MAX: none yet).
  std::vector<int> bdist_;
  std::vector<int> bqueue_;
  size_t bhead_ = 0;
  int64_t meet_ = 0;
  bool one_sided_ = false;
  std::vector<int> level_;  // per component of the route's shortest-path DAG: links from the source
  std::vector<int> edge_first_, edge_count_;  // per component of the DAG: its hops in, in the route's list of them
  // Routes kept (keep_routes): per kind not passed through, by (from, to).
  size_t memo_limit_ = 0, memo_size_ = 0;
  std::map<std::string, std::unordered_map<uint64_t, std::optional<std::vector<Hop>>>> memo_;
  // Routes with a tie rank given, by (from, to) and then the rank.
  std::map<std::string, std::unordered_map<uint64_t, std::unordered_map<int, std::optional<std::vector<Hop>>>>> memo_tie_;
  // Scratch per route, reset after each: on the shortest-path DAG, best hop in, latency and bandwidth so far.
  std::vector<uint8_t> useful_;
  std::vector<Hop> best_;
  std::vector<double> latency_, bandwidth_;
  std::vector<int> globals_;  // global links (ir::Link::global) on the best route so far
};

// One route with a router made for it (see Router for the rule).
std::optional<std::vector<Hop>> shortest_path(const Topology& topology, int from, int to,
                                              const std::string& no_transit_kind = {}, const LinkCostFn& cost = {});

// The component of `kind` nearest to `from` (fewest links, then component declaration order), or -1.
int nearest_of_kind(const Topology& topology, int from, const std::string& kind);

// Components of a kind, in declaration order.
std::vector<int> components_of_kind(const Topology& topology, const std::string& kind);

}  // namespace gpm::ir
