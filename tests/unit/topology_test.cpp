// topology_test.cpp: unit tests of routing on hand-built and random topology graphs: shortest_path (fewest links,
// direction, deterministic ties), nearest_of_kind and components_of_kind.
#include <doctest/doctest.h>

#include <string>
#include <map>
#include <random>
#include <vector>

#include "ir/ir.h"
#include "ir/topology.h"

using namespace gpm::ir;

namespace {

// Builds a topology from component kinds and links; link values are irrelevant to routing.
struct Graph {
  Topology t;
  int add(const std::string& kind, const std::string& path) {
    t.components.push_back({kind, path, "", {}, {}});
    return int(t.components.size() - 1);
  }
  int link(int a, int b, bool bidirectional = true) {
    Link l;
    l.a = a;
    l.b = b;
    l.bidirectional = bidirectional;
    t.links.push_back(l);
    return int(t.links.size() - 1);
  }
};

// The components a path visits, starting at `from`.
std::vector<int> visited(const Topology& t, int from, const std::vector<Hop>& path) {
  std::vector<int> out = {from};
  for (const Hop& h : path) {
    const Link& l = t.links[size_t(h.link)];
    int at = out.back();
    CHECK((h.direction == 0 ? l.a : l.b) == at);  // each hop starts where the last ended
    out.push_back(h.direction == 0 ? l.b : l.a);
  }
  return out;
}

}  // namespace

TEST_CASE("topology: shortest_path takes the route with the fewest links") {
  Graph g;
  int mem = g.add("memory", "mem"), cpu = g.add("cpu", "cpu"), sw = g.add("switch", "sw"), gpu = g.add("gpu", "gpu");
  g.link(mem, cpu);
  g.link(cpu, sw);
  g.link(sw, gpu);
  int direct = g.link(cpu, gpu);  // declared last, but shorter
  auto path = shortest_path(g.t, mem, gpu);
  REQUIRE(path);
  REQUIRE(path->size() == 2);
  CHECK((*path)[1].link == direct);
  CHECK(visited(g.t, mem, *path) == std::vector<int>{mem, cpu, gpu});
}

TEST_CASE("topology: shortest_path traverses bidirectional links backwards with direction 1") {
  Graph g;
  int a = g.add("cpu", "a"), b = g.add("gpu", "b");
  int l = g.link(a, b);
  auto fwd = shortest_path(g.t, a, b);
  REQUIRE(fwd);
  REQUIRE(fwd->size() == 1);
  CHECK((*fwd)[0].link == l);
  CHECK((*fwd)[0].direction == 0);
  auto rev = shortest_path(g.t, b, a);
  REQUIRE(rev);
  REQUIRE(rev->size() == 1);
  CHECK((*rev)[0].direction == 1);
}

TEST_CASE("topology: shortest_path respects one-way links") {
  Graph g;
  int a = g.add("cpu", "a"), b = g.add("gpu", "b"), c = g.add("switch", "c");
  g.link(a, b, false);  // a -> b only
  auto there = shortest_path(g.t, a, b);
  REQUIRE(there);
  CHECK(there->size() == 1);
  CHECK_FALSE(shortest_path(g.t, b, a));
  // A longer way back through c is taken when the short link points the wrong way.
  g.link(b, c);
  g.link(c, a);
  auto back = shortest_path(g.t, b, a);
  REQUIRE(back);
  CHECK(back->size() == 2);
  CHECK(visited(g.t, b, *back) == std::vector<int>{b, c, a});
  // And the forward route still uses the one-way link.
  auto again = shortest_path(g.t, a, b);
  REQUIRE(again);
  CHECK(again->size() == 1);
}

TEST_CASE("topology: shortest_path from a component to itself is empty") {
  Graph g;
  int a = g.add("cpu", "a");
  g.add("gpu", "b");
  auto path = shortest_path(g.t, a, a);
  REQUIRE(path);
  CHECK(path->empty());
}

TEST_CASE("topology: shortest_path between disconnected components is empty-handed") {
  Graph g;
  int a = g.add("cpu", "a"), b = g.add("gpu", "b"), c = g.add("gpu", "c");
  g.link(a, b);
  CHECK_FALSE(shortest_path(g.t, a, c));
  CHECK_FALSE(shortest_path(g.t, c, a));
}

TEST_CASE("topology: among equally short paths, component order decides, never link order") {
  for (bool right_first : {true, false}) {
    Graph g;
    int src = g.add("memory", "src"), left = g.add("switch", "left"), right = g.add("switch", "right"),
        dst = g.add("gpu", "dst");
    if (right_first) g.link(src, right);
    g.link(src, left);
    if (!right_first) g.link(src, right);
    g.link(left, dst);
    g.link(right, dst);
    for (int i = 0; i < 3; ++i) {  // and it is the same every time
      auto path = shortest_path(g.t, src, dst);
      REQUIRE(path);
      CHECK(visited(g.t, src, *path) == std::vector<int>{src, left, dst});  // `left` is declared first
    }
  }
}

TEST_CASE("topology: among equally short paths, the least latency wins, then the largest bottleneck bandwidth") {
  Graph g;
  int src = g.add("memory", "src"), left = g.add("switch", "left"), right = g.add("switch", "right"),
      dst = g.add("gpu", "dst");
  int sl = g.link(src, left), sr = g.link(src, right), ld = g.link(left, dst), rd = g.link(right, dst);
  std::map<int, LinkCost> cost = {{sl, {0, 10}}, {ld, {0, 100}}, {sr, {0, 20}}, {rd, {0, 30}}};
  int asked = 0;
  auto fn = [&](int link, int) { ++asked; return cost.at(link); };
  CHECK(visited(g.t, src, *shortest_path(g.t, src, dst, {}, fn)) == std::vector<int>{src, right, dst});  // 20 > 10
  CHECK(asked == 4);
  cost[rd].latency = 1e-6;  // now `right` costs a microsecond more: latency comes before bandwidth
  CHECK(visited(g.t, src, *shortest_path(g.t, src, dst, {}, fn)) == std::vector<int>{src, left, dst});
  // A longer route is never taken for its speed: a direct link beats two faster ones.
  int direct = g.link(src, dst);
  cost[direct] = {1, 1};
  asked = 0;
  CHECK(visited(g.t, src, *shortest_path(g.t, src, dst, {}, fn)) == std::vector<int>{src, dst});
  CHECK(asked == 0);  // a single shortest route asks for no cost
}

TEST_CASE("topology: a router routes many pairs over one adjacency, respecting link direction") {
  Graph g;
  int a = g.add("gpu", "a"), s = g.add("switch", "s"), b = g.add("gpu", "b");
  g.link(a, s, false);  // a -> s only
  g.link(s, b);
  Router router(g.t);
  CHECK(router.route(a, b));
  CHECK_FALSE(router.route(b, a));
  CHECK(router.route(b, s));
}

TEST_CASE("topology: the search from both ends gives the routes of the search from the source alone") {
  // Random graphs: some links one-way, GPUs that routes may not pass through, costs with ties, many pairs routed
  // by one router (its search from a source kept between routes) and by one that searches from the source alone.
  std::mt19937 rng(7);
  for (int trial = 0; trial < 60; ++trial) {
    Graph g;
    const int n = 4 + int(rng() % 40);
    for (int i = 0; i < n; ++i) g.add(rng() % 3 == 0 ? "gpu" : "switch", "c" + std::to_string(i));
    const int m = n + int(rng() % size_t(3 * n));
    std::vector<LinkCost> cost;
    auto link = [&](int a, int b) {
      g.link(a, b, rng() % 4 != 0);
      cost.push_back({double(rng() % 3) * 1e-6, double(1 + rng() % 3) * 1e9});
      cost.push_back({cost.back().latency, double(1 + rng() % 3) * 1e9});
    };
    for (int i = 0; i < m; ++i) link(int(rng() % size_t(n)), int(rng() % size_t(n)));
    // In every other graph, hubs linked to most components (spines): the DAG's hops are then found from the side
    // with fewer links to scan.
    if (trial % 2 == 1)
      for (int h = 0; h < 2; ++h) {
        int hub = g.add("switch", "hub" + std::to_string(h));
        for (int i = 0; i < n; ++i)
          if (rng() % 4 != 0) link(rng() % 2 ? hub : i, rng() % 2 ? i : hub);
      }
    LinkCostFn fn = [&](int link, int direction) { return cost[size_t(2 * link + direction)]; };
    for (const std::string kind : {"", "gpu"}) {
      Router both(g.t, fn), one(g.t, fn);
      one.set_one_sided(true);
      const int all = int(g.t.components.size());
      for (int from = 0; from < all; ++from)
        for (int k = 0; k < all; ++k) {
          int to = (from + k * 7) % all;
          auto x = both.route(from, to, kind), y = one.route(from, to, kind);
          REQUIRE(x.has_value() == y.has_value());
          if (!x) continue;
          REQUIRE(x->size() == y->size());
          for (size_t h = 0; h < x->size(); ++h) {
            CHECK((*x)[h].link == (*y)[h].link);
            CHECK((*x)[h].direction == (*y)[h].direction);
          }
        }
    }
  }
}

TEST_CASE("topology: nearest_of_kind finds the closest component of a kind") {
  Graph g;
  int gpu = g.add("gpu", "gpu"), cpu = g.add("cpu", "cpu"), far_mem = g.add("memory", "far"),
      sw = g.add("switch", "sw"), near_mem = g.add("memory", "near");
  g.link(gpu, cpu);
  g.link(cpu, sw);
  g.link(sw, far_mem);  // three links from the gpu
  g.link(cpu, near_mem);  // two links from the gpu
  CHECK(nearest_of_kind(g.t, gpu, "memory") == near_mem);
  CHECK(nearest_of_kind(g.t, gpu, "switch") == sw);
  CHECK(nearest_of_kind(g.t, gpu, "gpu") == gpu);  // the start itself counts
  CHECK(nearest_of_kind(g.t, gpu, "nic") == -1);
  (void)far_mem;
}

TEST_CASE("topology: nearest_of_kind breaks ties by component order, not link order") {
  for (bool m0_first : {true, false}) {
    Graph g;
    int gpu = g.add("gpu", "gpu"), cpu = g.add("cpu", "cpu"), m1 = g.add("memory", "m1"), m0 = g.add("memory", "m0");
    g.link(gpu, cpu);
    if (m0_first) g.link(cpu, m0);
    g.link(cpu, m1);
    if (!m0_first) g.link(cpu, m0);
    CHECK(nearest_of_kind(g.t, gpu, "memory") == m1);  // m1 is the component declared first
    (void)m0;
  }
}

TEST_CASE("topology: nearest_of_kind ignores link direction") {
  Graph g;
  int mem = g.add("memory", "mem"), gpu = g.add("gpu", "gpu");
  g.link(mem, gpu, false);  // mem -> gpu only
  CHECK(nearest_of_kind(g.t, gpu, "memory") == mem);
}

TEST_CASE("topology: components_of_kind lists components in declaration order") {
  Graph g;
  int g0 = g.add("gpu", "g[0]");
  g.add("cpu", "c");
  int g1 = g.add("gpu", "g[1]");
  CHECK(components_of_kind(g.t, "gpu") == std::vector<int>{g0, g1});
  CHECK(components_of_kind(g.t, "nic").empty());
  CHECK(g.t.find("g[1]") == g1);
  CHECK(g.t.find("g[2]") == -1);
}

TEST_CASE("topology: shortest_path with no_transit_kind never passes through a component of that kind") {
  // g0 - g1 - g2 is two links through a GPU; g0 - sw - cpu - sw2 - g2 is four links through no GPU.
  Graph g;
  int g0 = g.add("gpu", "g[0]"), g1 = g.add("gpu", "g[1]"), g2 = g.add("gpu", "g[2]");
  int sw = g.add("switch", "sw"), cpu = g.add("cpu", "cpu"), sw2 = g.add("switch", "sw2");
  g.link(g0, g1);
  g.link(g1, g2);
  g.link(g0, sw);
  g.link(sw, cpu);
  g.link(cpu, sw2);
  g.link(sw2, g2);
  auto through_gpu = shortest_path(g.t, g0, g2);
  REQUIRE(through_gpu);
  CHECK(visited(g.t, g0, *through_gpu) == std::vector<int>{g0, g1, g2});
  auto avoiding = shortest_path(g.t, g0, g2, "gpu");
  REQUIRE(avoiding);
  CHECK(visited(g.t, g0, *avoiding) == std::vector<int>{g0, sw, cpu, sw2, g2});
  // The ends may be of that kind; a direct link is still taken.
  auto direct = shortest_path(g.t, g0, g1, "gpu");
  REQUIRE(direct);
  CHECK(direct->size() == 1);
  // Without the detour there is no route that avoids g[1].
  Graph h;
  int a = h.add("gpu", "a"), b = h.add("gpu", "b"), c = h.add("gpu", "c");
  h.link(a, b);
  h.link(b, c);
  CHECK_FALSE(shortest_path(h.t, a, c, "gpu"));
  CHECK(shortest_path(h.t, a, c));
}
