// topology.cpp: routing over the topology graph: breadth-first layers, then the cheapest route through them.
#include "ir/topology.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>

namespace gpm::ir {

namespace {
int far_end(const Link& l, int direction) { return direction == 0 ? l.b : l.a; }
int near_end(const Link& l, int direction) { return direction == 0 ? l.a : l.b; }
bool same(double a, double b) { return a == b || std::fabs(a - b) <= 1e-12 * std::max(std::fabs(a), std::fabs(b)); }
}  // namespace

Router::Router(const Topology& t, LinkCostFn cost) : t_(t), cost_(std::move(cost)) {
  out_.resize(t.components.size());
  in_.resize(t.components.size());
  for (size_t i = 0; i < t.links.size(); ++i) {
    const Link& l = t.links[i];
    out_[size_t(l.a)].push_back({int(i), 0});
    in_[size_t(l.b)].push_back({int(i), 0});
    if (l.bidirectional) {
      out_[size_t(l.b)].push_back({int(i), 1});
      in_[size_t(l.a)].push_back({int(i), 1});
    }
  }
  costs_.assign(t.links.size(), std::vector<LinkCost>(2));
  std::map<std::string, int> seen;
  for (const Component& c : t.components) rank_.push_back(seen[c.kind]++);
  costed_.assign(t.links.size(), std::vector<bool>(2, false));
}

const LinkCost& Router::cost_of(const Hop& hop) {
  if (!costed_[size_t(hop.link)][size_t(hop.direction)]) {
    costs_[size_t(hop.link)][size_t(hop.direction)] = cost_(hop.link, hop.direction);
    costed_[size_t(hop.link)][size_t(hop.direction)] = true;
  }
  return costs_[size_t(hop.link)][size_t(hop.direction)];
}

std::optional<std::vector<Hop>> Router::route(int from, int to, const std::string& no_transit_kind) {
  size_t n = t_.components.size();
  auto transit = [&](int at) {
    return at == from || no_transit_kind.empty() || t_.components[size_t(at)].kind != no_transit_kind;
  };
  // 1. Breadth-first layers: the number of links from `from`, up to `to`'s layer.
  std::vector<int> dist(n, -1);
  std::vector<int> order;
  std::deque<int> queue = {from};
  dist[size_t(from)] = 0;
  while (!queue.empty()) {
    int at = queue.front();
    queue.pop_front();
    order.push_back(at);
    if (at == to || (dist[size_t(to)] >= 0 && dist[size_t(at)] >= dist[size_t(to)])) continue;
    if (!transit(at)) continue;
    for (const Hop& hop : out_[size_t(at)]) {
      int next = far_end(t_.links[size_t(hop.link)], hop.direction);
      if (dist[size_t(next)] >= 0) continue;
      dist[size_t(next)] = dist[size_t(at)] + 1;
      queue.push_back(next);
    }
  }
  if (dist[size_t(to)] < 0) return std::nullopt;
  // The hops that lie on some route with the fewest links: walked back from `to`.
  auto on_dag = [&](const Hop& hop, int v) {
    int u = near_end(t_.links[size_t(hop.link)], hop.direction);
    return dist[size_t(u)] >= 0 && dist[size_t(u)] + 1 == dist[size_t(v)] && transit(u);
  };
  std::vector<bool> useful(n, false);
  useful[size_t(to)] = true;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    int v = *it;
    if (!useful[size_t(v)] || v == from) continue;
    for (const Hop& hop : in_[size_t(v)])
      if (on_dag(hop, v)) useful[size_t(near_end(t_.links[size_t(hop.link)], hop.direction))] = true;
  }
  // Costs are asked only where there is a choice: some component on the way has two routes in.
  bool choice = false;
  for (int v : order) {
    if (v == from || !useful[size_t(v)]) continue;
    int in = 0;
    for (const Hop& hop : in_[size_t(v)])
      if (on_dag(hop, v) && useful[size_t(near_end(t_.links[size_t(hop.link)], hop.direction))]) ++in;
    choice = choice || in > 1;
  }
  bool costed = cost_ && choice;
  // 2-4. The best route to each useful component, layer by layer.
  std::vector<Hop> best(n, Hop{-1, -1});
  std::vector<double> latency(n, 0), bandwidth(n, INFINITY);
  auto chain = [&](int v) {  // the components of v's best route, from `from` to v
    std::vector<int> out = {v};
    while (v != from) {
      v = near_end(t_.links[size_t(best[size_t(v)].link)], best[size_t(v)].direction);
      out.push_back(v);
    }
    std::reverse(out.begin(), out.end());
    return out;
  };
  // Equal routes spread by destination (d-mod-k): where several ways into a component are equally good, the one
  // taken is number (the destination's rank among components of its kind) mod (how many), in component order.
  // On a fat tree this sends the traffic for different destinations up different spines, as d-mod-k routing does.
  struct Way {
    Hop hop;
    int u;
    double lat, bw;
  };
  std::vector<Way> ways;
  for (int v : order) {
    if (v == from || !useful[size_t(v)]) continue;
    ways.clear();
    for (const Hop& hop : in_[size_t(v)]) {
      if (!on_dag(hop, v)) continue;
      int u = near_end(t_.links[size_t(hop.link)], hop.direction);
      if (!useful[size_t(u)]) continue;
      double lat = latency[size_t(u)], bw = bandwidth[size_t(u)];
      if (costed) {
        const LinkCost& c = cost_of(hop);
        lat += c.latency;
        bw = std::min(bw, c.bandwidth);
      }
      ways.push_back({hop, u, lat, bw});
    }
    double best_lat = ways[0].lat;
    for (const Way& w : ways)
      if (w.lat < best_lat && !same(w.lat, best_lat)) best_lat = w.lat;
    double best_bw = -1;
    for (const Way& w : ways)
      if (same(w.lat, best_lat) && (best_bw < 0 || (w.bw > best_bw && !same(w.bw, best_bw)))) best_bw = w.bw;
    std::vector<Way> tied;
    for (const Way& w : ways)
      if (same(w.lat, best_lat) && same(w.bw, best_bw)) tied.push_back(w);
    if (tied.size() > 1)
      std::sort(tied.begin(), tied.end(), [&](const Way& a, const Way& b) {
        if (a.u != b.u) return chain(a.u) < chain(b.u);
        return a.hop.link < b.hop.link;
      });
    const Way& pick = tied[size_t(rank_[size_t(to)]) % tied.size()];
    best[size_t(v)] = pick.hop;
    latency[size_t(v)] = pick.lat;
    bandwidth[size_t(v)] = pick.bw;
  }
  std::vector<Hop> path;
  for (int at = to; at != from;) {
    path.push_back(best[size_t(at)]);
    at = near_end(t_.links[size_t(best[size_t(at)].link)], best[size_t(at)].direction);
  }
  std::reverse(path.begin(), path.end());
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
