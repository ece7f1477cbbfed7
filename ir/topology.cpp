// topology.cpp: breadth-first routing over the topology graph.
#include "ir/topology.h"

#include <algorithm>
#include <deque>

namespace gpm::ir {

namespace {
// Neighbours of each component: (link, direction) pairs in declaration order.
std::vector<std::vector<Hop>> adjacency(const Topology& t, bool respect_direction) {
  std::vector<std::vector<Hop>> adj(t.components.size());
  for (size_t i = 0; i < t.links.size(); ++i) {
    const Link& l = t.links[i];
    adj[size_t(l.a)].push_back({int(i), 0});
    if (l.bidirectional || !respect_direction) adj[size_t(l.b)].push_back({int(i), 1});
  }
  return adj;
}
int far_end(const Link& l, int direction) { return direction == 0 ? l.b : l.a; }
}  // namespace

std::optional<std::vector<Hop>> shortest_path(const Topology& t, int from, int to, const std::string& no_transit_kind) {
  auto adj = adjacency(t, true);
  std::vector<int> prev_link(t.components.size(), -1), prev_dir(t.components.size(), -1);
  std::vector<bool> seen(t.components.size(), false);
  std::deque<int> queue = {from};
  seen[size_t(from)] = true;
  while (!queue.empty()) {
    int at = queue.front();
    queue.pop_front();
    if (at == to) break;
    if (at != from && !no_transit_kind.empty() && t.components[size_t(at)].kind == no_transit_kind) continue;
    for (const Hop& hop : adj[size_t(at)]) {
      int next = far_end(t.links[size_t(hop.link)], hop.direction);
      if (seen[size_t(next)]) continue;
      seen[size_t(next)] = true;
      prev_link[size_t(next)] = hop.link;
      prev_dir[size_t(next)] = hop.direction;
      queue.push_back(next);
    }
  }
  if (!seen[size_t(to)]) return std::nullopt;
  std::vector<Hop> path;
  for (int at = to; at != from;) {
    Hop hop{prev_link[size_t(at)], prev_dir[size_t(at)]};
    path.push_back(hop);
    const Link& l = t.links[size_t(hop.link)];
    at = hop.direction == 0 ? l.a : l.b;
  }
  std::reverse(path.begin(), path.end());
  return path;
}

int nearest_of_kind(const Topology& t, int from, const std::string& kind) {
  auto adj = adjacency(t, false);
  std::vector<bool> seen(t.components.size(), false);
  std::deque<int> queue = {from};
  seen[size_t(from)] = true;
  while (!queue.empty()) {
    int at = queue.front();
    queue.pop_front();
    if (t.components[size_t(at)].kind == kind) return at;
    for (const Hop& hop : adj[size_t(at)]) {
      int next = far_end(t.links[size_t(hop.link)], hop.direction);
      if (!seen[size_t(next)]) {
        seen[size_t(next)] = true;
        queue.push_back(next);
      }
    }
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
