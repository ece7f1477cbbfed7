// topology.cpp: routing over the topology graph: breadth-first layers, then the cheapest route through them.
#include "ir/topology.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <unordered_map>

namespace gpm::ir {

namespace {
int far_end(const Link& l, int direction) { return direction == 0 ? l.b : l.a; }
int near_end(const Link& l, int direction) { return direction == 0 ? l.a : l.b; }
bool same(double a, double b) { return a == b || std::fabs(a - b) <= 1e-12 * std::max(std::fabs(a), std::fabs(b)); }
}  // namespace

Router::Router(const Topology& t, LinkCostFn cost) : t_(t), cost_(std::move(cost)) {
  // Adjacency in two passes (count, then fill), each component's hops in link order as they were pushed before.
  const size_t n = t.components.size();
  out_begin_.assign(n + 1, 0);
  in_begin_.assign(n + 1, 0);
  for (const Link& l : t.links) {
    ++out_begin_[size_t(l.a) + 1];
    ++in_begin_[size_t(l.b) + 1];
    if (l.bidirectional) {
      ++out_begin_[size_t(l.b) + 1];
      ++in_begin_[size_t(l.a) + 1];
    }
  }
  for (size_t c = 0; c < n; ++c) {
    out_begin_[c + 1] += out_begin_[c];
    in_begin_[c + 1] += in_begin_[c];
  }
  out_hops_.resize(size_t(out_begin_[n]));
  in_hops_.resize(size_t(in_begin_[n]));
  std::vector<int> out_fill(out_begin_.begin(), out_begin_.end() - 1), in_fill(in_begin_.begin(), in_begin_.end() - 1);
  for (size_t i = 0; i < t.links.size(); ++i) {
    const Link& l = t.links[i];
    out_hops_[size_t(out_fill[size_t(l.a)]++)] = {int(i), 0};
    in_hops_[size_t(in_fill[size_t(l.b)]++)] = {int(i), 0};
    if (l.bidirectional) {
      out_hops_[size_t(out_fill[size_t(l.b)]++)] = {int(i), 1};
      in_hops_[size_t(in_fill[size_t(l.a)]++)] = {int(i), 1};
    }
  }
  costs_.resize(2 * t.links.size());
  costed_.assign(2 * t.links.size(), 0);
  std::unordered_map<std::string_view, int> seen;
  rank_.reserve(n);
  for (const Component& c : t.components) rank_.push_back(seen[c.kind]++);
}

const LinkCost& Router::cost_of(const Hop& hop) {
  const size_t k = 2 * size_t(hop.link) + size_t(hop.direction);
  if (!costed_[k]) {
    costs_[k] = cost_(hop.link, hop.direction);
    costed_[k] = 1;
  }
  return costs_[k];
}

// Breadth-first distances from `from` over every component (GPUs of `no_transit_kind` are reached but not passed
// through). Kept for the next route from the same source: a pattern's flows come grouped by source. The search is
// carried only as far as a route needs it (expand_forward), so a route to a near destination does not pay for the whole
// fabric of a large cluster.
void Router::layers_from(int from, const std::string& no_transit_kind) {
  size_t n = t_.components.size();
  if (blocked_.size() != n || bfs_kind_ != no_transit_kind) {
    blocked_.assign(n, 0);
    if (!no_transit_kind.empty())
      for (size_t c = 0; c < n; ++c) blocked_[c] = t_.components[c].kind == no_transit_kind;
  } else if (bfs_from_ == from) {
    return;
  }
  bfs_from_ = from;
  bfs_kind_ = no_transit_kind;
  if (dist_.size() != n)
    dist_.assign(n, -1);
  else
    for (int v : queue_) dist_[size_t(v)] = -1;  // the queue holds every component the last search labelled
  queue_.assign(1, from);
  head_ = 0;
  dist_[size_t(from)] = 0;
}

constexpr int64_t kUnbounded = int64_t(1) << 40;  // a search's radius once it has labelled all it can reach

// A component labelled by both searches joins a route of the links counted from each end, if a route may pass
// through it (or it is an end).
void Router::meet(int v, int to) {
  if (v == bfs_from_ || v == to || !blocked_[size_t(v)]) meet_ = std::min(meet_, int64_t(dist_[size_t(v)]) + bdist_[size_t(v)]);
}

// Every component queued at the radius (the links from the source of the first one still queued, within which every
// component is labelled) is expanded, which labels the next layer in full.
void Router::expand_forward(int to) {
  const int r = dist_[size_t(queue_[head_])];
  while (head_ < queue_.size() && dist_[size_t(queue_[head_])] == r) {
    int at = queue_[head_++];
    if (!transit(at)) continue;
    for (const Hop& hop : out_of(at)) {
      int next = far_end(t_.links[size_t(hop.link)], hop.direction);
      if (dist_[size_t(next)] >= 0) continue;
      dist_[size_t(next)] = r + 1;
      queue_.push_back(next);
      if (bdist_[size_t(next)] >= 0) meet(next, to);
    }
  }
}

// Likewise towards the destination over the links into each component; a component is passed through only if it
// may be (the destination itself always is the end, the source never passed through).
void Router::expand_backward(int to) {
  const int r = bdist_[size_t(bqueue_[bhead_])];
  while (bhead_ < bqueue_.size() && bdist_[size_t(bqueue_[bhead_])] == r) {
    int v = bqueue_[bhead_++];
    if (v != to && (v == bfs_from_ || blocked_[size_t(v)])) continue;
    for (const Hop& hop : in_of(v)) {
      int u = near_end(t_.links[size_t(hop.link)], hop.direction);
      if (bdist_[size_t(u)] >= 0) continue;
      bdist_[size_t(u)] = r + 1;
      bqueue_.push_back(u);
      if (dist_[size_t(u)] >= 0) meet(u, to);
    }
  }
}

std::optional<std::vector<Hop>> Router::route(int from, int to, const std::string& no_transit_kind) {
  if (memo_limit_ == 0) return find(from, to, no_transit_kind, -1);
  auto& kept = memo_[no_transit_kind];
  const uint64_t key = uint64_t(uint32_t(from)) << 32 | uint32_t(to);
  if (auto it = kept.find(key); it != kept.end()) return it->second;
  auto found = find(from, to, no_transit_kind, -1);
  if (memo_size_ < memo_limit_) {
    kept.emplace(key, found);
    ++memo_size_;
  }
  return found;
}

std::optional<std::vector<Hop>> Router::route(int from, int to, const std::string& no_transit_kind, int tie_rank) {
  if (tie_rank < 0 || tie_rank == rank_[size_t(to)]) return route(from, to, no_transit_kind);
  if (memo_limit_ == 0) return find(from, to, no_transit_kind, tie_rank);
  auto& by_pair = memo_tie_[no_transit_kind];
  const uint64_t key = uint64_t(uint32_t(from)) << 32 | uint32_t(to);
  if (auto pair = by_pair.find(key); pair != by_pair.end())
    if (auto it = pair->second.find(tie_rank); it != pair->second.end()) return it->second;
  auto found = find(from, to, no_transit_kind, tie_rank);
  if (memo_size_ < memo_limit_) {
    by_pair[key].emplace(tie_rank, found);
    ++memo_size_;
  }
  return found;
}

std::optional<std::vector<Hop>> Router::find(int from, int to, const std::string& no_transit_kind, int tie_rank) {
  // 1. The fewest links: breadth-first layers from both ends (the one with fewer components waiting goes on) until
  // a component labelled by both closes a route no longer than the two radii allow (the first such meeting is then
  // the shortest: a shortest route of d links has, at a links from the source, a component labelled by both once
  // a + b >= d, a and b the radii within which each search has labelled everything).
  layers_from(from, no_transit_kind);
  if (from == to) return std::vector<Hop>{};
  size_t n = t_.components.size();
  if (bdist_.size() != n) {
    bdist_.assign(n, -1);
    useful_.assign(n, 0);
    level_.assign(n, 0);
    edge_first_.assign(n, 0);
    edge_count_.assign(n, 0);
    best_.assign(n, Hop{-1, -1});
    latency_.assign(n, 0);
    bandwidth_.assign(n, INFINITY);
    globals_.assign(n, 0);
  }
  bqueue_.assign(1, to);
  bhead_ = 0;
  bdist_[size_t(to)] = 0;
  meet_ = kUnbounded;
  if (dist_[size_t(to)] >= 0) meet(to, to);
  auto radius_forward = [&] { return head_ < queue_.size() ? int64_t(dist_[size_t(queue_[head_])]) : kUnbounded; };
  auto radius_backward = [&] { return bhead_ < bqueue_.size() ? int64_t(bdist_[size_t(bqueue_[bhead_])]) : kUnbounded; };
  auto clear_backward = [&] {
    for (int v : bqueue_) bdist_[size_t(v)] = -1;
  };
  for (;;) {
    int64_t a = radius_forward(), b = radius_backward();
    if (meet_ < kUnbounded && meet_ <= a + b) break;
    if (a == kUnbounded || b == kUnbounded) {  // one side has labelled all it can reach, and the other end is not
      clear_backward();
      return std::nullopt;
    }
    if (one_sided_ || queue_.size() - head_ <= bqueue_.size() - bhead_)
      expand_forward(to);
    else
      expand_backward(to);
  }
  const int depth = int(meet_);
  // The components of the shortest-path DAG (on some route of `depth` links): those labelled by both searches at
  // `mid` links from the source and depth - mid from the destination, then from them back to the source and on
  // to the destination, layer by layer, each layer as found.
  const int mid = int(std::min<int64_t>(radius_forward(), depth));
  static thread_local std::vector<std::vector<int>> layers;
  if (layers.size() < size_t(depth) + 1) layers.resize(size_t(depth) + 1);
  for (int d = 0; d <= depth; ++d) layers[size_t(d)].clear();
  auto add = [&](int v, int d) {
    useful_[size_t(v)] = 1;
    level_[size_t(v)] = d;
    layers[size_t(d)].push_back(v);
  };
  for (int v : bqueue_)
    if (bdist_[size_t(v)] == depth - mid && dist_[size_t(v)] == mid && (v == from || v == to || !blocked_[size_t(v)]))
      add(v, mid);
  // Each layer's hops of the DAG are found from whichever side has fewer links to scan: from the DAG's layer, or
  // from the other search's layer next to it (a spine's thousands of links are not scanned from the spine's side).
  // Every hop of the DAG is kept as (component it enters, hop).
  static thread_local std::vector<std::pair<int, Hop>> edges;
  edges.clear();
  auto degree_in = [&](int v) { return in_begin_[size_t(v) + 1] - in_begin_[size_t(v)]; };
  auto degree_out = [&](int v) { return out_begin_[size_t(v) + 1] - out_begin_[size_t(v)]; };
  // The components a search labelled k links from its end: a range of its queue (queues are in order of links).
  auto search_layer = [](const std::vector<int>& queue, const std::vector<int>& dist, int k) {
    auto by = [&](int v, int key) { return dist[size_t(v)] < key; };
    auto lo = std::lower_bound(queue.begin(), queue.end(), k, by);
    auto hi = std::lower_bound(lo, queue.end(), k + 1, by);
    return std::span<const int>(queue.data() + (lo - queue.begin()), size_t(hi - lo));
  };
  // True when scanning `side` (its components' links, counted by `degree`) costs less than `limit` links.
  auto cheaper = [](std::span<const int> side, auto degree, int64_t limit) {
    int64_t sum = 0;
    for (int v : side)
      if ((sum += degree(v)) >= limit) return false;
    return true;
  };
  for (int d = mid; d > 0; --d) {  // towards the source: layer d - 1 from layer d
    const std::vector<int>& layer = layers[size_t(d)];
    int64_t scan = 0;
    for (int v : layer) scan += degree_in(v);
    std::span<const int> before = search_layer(queue_, dist_, d - 1);
    if (cheaper(before, degree_out, scan)) {
      for (int u : before) {
        if (!transit(u)) continue;
        for (const Hop& hop : out_of(u)) {
          int v = far_end(t_.links[size_t(hop.link)], hop.direction);
          if (!useful_[size_t(v)] || level_[size_t(v)] != d) continue;
          edges.emplace_back(v, hop);
          if (!useful_[size_t(u)]) add(u, d - 1);
        }
      }
    } else {
      for (size_t i = 0; i < layer.size(); ++i)
        for (const Hop& hop : in_of(layer[i])) {
          int u = near_end(t_.links[size_t(hop.link)], hop.direction);
          if (dist_[size_t(u)] != d - 1 || !transit(u)) continue;
          edges.emplace_back(layer[i], hop);
          if (!useful_[size_t(u)]) add(u, d - 1);
        }
    }
  }
  for (int d = mid; d < depth; ++d) {  // towards the destination: layer d + 1 from layer d
    const std::vector<int>& layer = layers[size_t(d)];
    int64_t scan = 0;
    for (int v : layer) scan += degree_out(v);
    auto enters = [&](int w) { return w == to || !blocked_[size_t(w)]; };
    std::span<const int> after = search_layer(bqueue_, bdist_, depth - d - 1);
    if (cheaper(after, degree_in, scan)) {
      for (int w : after) {
        if (!enters(w)) continue;
        for (const Hop& hop : in_of(w)) {
          int u = near_end(t_.links[size_t(hop.link)], hop.direction);
          if (!useful_[size_t(u)] || level_[size_t(u)] != d || !transit(u)) continue;
          edges.emplace_back(w, hop);
          if (!useful_[size_t(w)]) add(w, d + 1);
        }
      }
    } else {
      for (size_t i = 0; i < layer.size(); ++i)
        for (const Hop& hop : out_of(layer[i])) {
          int w = far_end(t_.links[size_t(hop.link)], hop.direction);
          if (bdist_[size_t(w)] != depth - d - 1 || !enters(w)) continue;
          edges.emplace_back(w, hop);
          if (!useful_[size_t(w)]) add(w, d + 1);
        }
    }
  }
  clear_backward();
  // Each component's hops in, in the order of its links (as the adjacency lists them).
  std::sort(edges.begin(), edges.end(), [](const auto& x, const auto& y) {
    if (x.first != y.first) return x.first < y.first;
    if (x.second.link != y.second.link) return x.second.link < y.second.link;
    return x.second.direction < y.second.direction;
  });
  for (size_t i = 0; i < edges.size(); ++i) {
    int v = edges[i].first;
    if (i == 0 || edges[i - 1].first != v) {
      edge_first_[size_t(v)] = int(i);
      edge_count_[size_t(v)] = 0;
    }
    ++edge_count_[size_t(v)];
  }
  auto ins = [&](int v) {
    return std::span<const std::pair<int, Hop>>(edges.data() + edge_first_[size_t(v)], size_t(edge_count_[size_t(v)]));
  };
  // The DAG's components in one list, the deepest layer first: layer d is touched[layer_begin[d] .. layer_end(d)).
  // (Scratch lists kept between routes, per thread: a route then allocates only the path it returns.)
  static thread_local std::vector<int> touched;
  static thread_local std::vector<size_t> layer_begin;
  touched.clear();
  layer_begin.assign(size_t(depth) + 1, 0);
  for (int d = depth; d >= 0; --d) {
    layer_begin[size_t(d)] = touched.size();
    touched.insert(touched.end(), layers[size_t(d)].begin(), layers[size_t(d)].end());
  }
  // Costs are asked only where there is a choice: some component on the way has two routes in.
  bool choice = false;
  for (int d = depth; d > 0 && !choice; --d)
    for (int v : layers[size_t(d)])
      if (edge_count_[size_t(v)] > 1) {
        choice = true;
        break;
      }
  auto layer_end = [&](int d) { return d > 0 ? layer_begin[size_t(d - 1)] : touched.size(); };
  bool costed = cost_ && choice;
  // 2-4. The best route to each useful component, layer by layer (a component's best depends only on the layer
  // before it).
  latency_[size_t(from)] = 0;
  bandwidth_[size_t(from)] = INFINITY;
  globals_[size_t(from)] = 0;
  auto chain = [&](int v, std::vector<int>& out) {  // the components of v's best route, from `from` to v
    out.assign(1, v);
    while (v != from) {
      v = near_end(t_.links[size_t(best_[size_t(v)].link)], best_[size_t(v)].direction);
      out.push_back(v);
    }
    std::reverse(out.begin(), out.end());
  };
  // Equal routes spread by destination (d-mod-k): where several ways into a component are equally good, the one
  // taken is number (the destination's rank among components of its kind) mod (how many), in component order.
  // On a fat tree this sends the traffic for different destinations up different spines, as d-mod-k routing does.
  struct Way {
    Hop hop;
    int u;
    int globals;  // a dragonfly's global links on the way: the fewest win before latency and bandwidth
    double lat, bw;
  };
  static thread_local std::vector<Way> ways, tied;
  static thread_local std::vector<std::vector<int>> chains;  // per tied way: chain(way.u), computed once per choice
  static thread_local std::vector<size_t> order;
  for (int d = 1; d <= depth; ++d)
    for (size_t i = layer_begin[size_t(d)]; i < layer_end(d); ++i) {
      int v = touched[i];
      ways.clear();
      for (const auto& edge : ins(v)) {
        const Hop& hop = edge.second;
        int u = near_end(t_.links[size_t(hop.link)], hop.direction);
        double lat = latency_[size_t(u)], bw = bandwidth_[size_t(u)];
        int globals = globals_[size_t(u)] + (t_.links[size_t(hop.link)].global ? 1 : 0);
        if (costed) {
          const LinkCost& c = cost_of(hop);
          lat += c.latency;
          bw = std::min(bw, c.bandwidth);
        }
        ways.push_back({hop, u, globals, lat, bw});
      }
      int fewest = ways[0].globals;
      for (const Way& w : ways) fewest = std::min(fewest, w.globals);
      ways.erase(std::remove_if(ways.begin(), ways.end(), [&](const Way& w) { return w.globals > fewest; }), ways.end());
      double best_lat = ways[0].lat;
      for (const Way& w : ways)
        if (w.lat < best_lat && !same(w.lat, best_lat)) best_lat = w.lat;
      double best_bw = -1;
      for (const Way& w : ways)
        if (same(w.lat, best_lat) && (best_bw < 0 || (w.bw > best_bw && !same(w.bw, best_bw)))) best_bw = w.bw;
      tied.clear();
      for (const Way& w : ways)
        if (same(w.lat, best_lat) && same(w.bw, best_bw)) tied.push_back(w);
      size_t picked = size_t(tie_rank >= 0 ? tie_rank : rank_[size_t(to)]) % tied.size();
      if (tied.size() > 1) {
        if (chains.size() < tied.size()) chains.resize(tied.size());
        order.resize(tied.size());
        for (size_t k = 0; k < tied.size(); ++k) {
          chain(tied[k].u, chains[k]);
          order[k] = k;
        }
        std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
          if (tied[a].u != tied[b].u) return chains[a] < chains[b];
          return tied[a].hop.link < tied[b].hop.link;
        });
        picked = order[picked];
      }
      const Way& pick = tied[picked];
      best_[size_t(v)] = pick.hop;
      latency_[size_t(v)] = pick.lat;
      bandwidth_[size_t(v)] = pick.bw;
      globals_[size_t(v)] = pick.globals;
    }
  std::vector<Hop> path;
  for (int at = to; at != from;) {
    path.push_back(best_[size_t(at)]);
    at = near_end(t_.links[size_t(best_[size_t(at)].link)], best_[size_t(at)].direction);
  }
  std::reverse(path.begin(), path.end());
  for (int v : touched) useful_[size_t(v)] = 0;
  return path;
}

std::optional<std::vector<Hop>> shortest_path(const Topology& t, int from, int to, const std::string& no_transit_kind,
                                              const LinkCostFn& cost) {
  Router router(t, cost);
  return router.route(from, to, no_transit_kind);
}

int nearest_of_kind(const Topology& t, int from, const std::string& kind) {
  std::vector<std::vector<int>> adj(t.components.size());
  for (const Link& l : t.links) {
    adj[size_t(l.a)].push_back(l.b);
    adj[size_t(l.b)].push_back(l.a);
  }
  std::vector<bool> seen(t.components.size(), false);
  std::vector<int> layer = {from};
  seen[size_t(from)] = true;
  while (!layer.empty()) {
    int found = -1;
    for (int at : layer)
      if (t.components[size_t(at)].kind == kind && (found < 0 || at < found)) found = at;
    if (found >= 0) return found;
    std::vector<int> next;
    for (int at : layer)
      for (int b : adj[size_t(at)])
        if (!seen[size_t(b)]) {
          seen[size_t(b)] = true;
          next.push_back(b);
        }
    layer = std::move(next);
  }
  return -1;
}

std::vector<int> components_of_kind(const Topology& t, const std::string& kind) {
  std::vector<int> out;
  for (size_t i = 0; i < t.components.size(); ++i)
    if (t.components[i].kind == kind) out.push_back(int(i));
  return out;
}

}  // namespace gpm::ir
