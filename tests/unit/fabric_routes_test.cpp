// fabric_routes_test.cpp: unit tests of mpi::MessageRouter: a message between nodes leaves through its GPU's nearest
// NIC and enters through the receiver's, equally near NICs are shared in turn, and within a node the plain route.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "engines/mpi/fabric_routes.h"
#include "ir/ir.h"
#include "ir/topology.h"

using namespace gpm;

namespace {

struct Graph {
  ir::Topology t;
  int add(const std::string& kind, const std::string& path) {
    t.components.push_back({kind, path, "", {}, {}});
    return int(t.components.size() - 1);
  }
  void link(int a, int b) {
    ir::Link l;
    l.a = a;
    l.b = b;
    l.bidirectional = true;
    t.links.push_back(l);
  }
};

std::vector<int> visited(const ir::Topology& t, int from, const std::vector<ir::Hop>& path) {
  std::vector<int> out = {from};
  for (const ir::Hop& h : path) {
    const ir::Link& l = t.links[size_t(h.link)];
    out.push_back(h.direction == 0 ? l.b : l.a);
  }
  return out;
}

bool contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// Two nodes of a rail fabric: each node's GPU i has NIC i on a PCIe switch with it, the switches under one root
// complex, NIC i on leaf i (rail i), the two leaves joined by a spine. From node 0's GPU 0 to node 1's GPU 1 two
// routes have eight links: up rail 0, over the spine, down rail 1; or into node 1 on rail 0 and across its root
// complex. The second is the one a fewest-links route takes by component order; the libraries take the first.
struct Rails {
  Graph g;
  int gpu[2][2], nic[2][2], leaf[2], spine;
  Rails() {
    for (int n = 0; n < 2; ++n) {
      std::string p = "node[" + std::to_string(n) + "].";
      int rc = g.add("root", p + "rc");
      for (int i = 0; i < 2; ++i) {
        int sw = g.add("switch", p + "pcie[" + std::to_string(i) + "]");
        gpu[n][i] = g.add("gpu", p + "g[" + std::to_string(i) + "]");
        nic[n][i] = g.add("nic", p + "nic[" + std::to_string(i) + "]");
        g.link(rc, sw);
        g.link(sw, gpu[n][i]);
        g.link(sw, nic[n][i]);
      }
    }
    for (int i = 0; i < 2; ++i) leaf[i] = g.add("switch", "leaf[" + std::to_string(i) + "]");
    spine = g.add("switch", "spine[0]");
    for (int n = 0; n < 2; ++n)
      for (int i = 0; i < 2; ++i) g.link(nic[n][i], leaf[i]);
    for (int i = 0; i < 2; ++i) g.link(leaf[i], spine);
  }
};

}  // namespace

TEST_CASE("fabric routes: a message between nodes leaves and enters through its GPUs' own NICs") {
  Rails r;
  ir::Router router(r.g.t);
  auto plain = router.route(r.gpu[0][0], r.gpu[1][1], "gpu");
  REQUIRE(plain);
  mpi::MessageRouter messages(r.g.t, router);
  CHECK(messages.nic_of(r.gpu[0][0]) == r.nic[0][0]);
  CHECK(messages.nic_of(r.gpu[1][1]) == r.nic[1][1]);
  auto route = messages.route(r.gpu[0][0], r.gpu[1][1]);
  REQUIRE(route);
  CHECK(route->size() == plain->size());  // as short as the plain route, which entered node 1 on rail 0
  CHECK(plain->size() == 8);
  auto at = visited(r.g.t, r.gpu[0][0], *route);
  CHECK(at.back() == r.gpu[1][1]);
  CHECK(contains(at, r.nic[0][0]));
  CHECK(contains(at, r.nic[1][1]));
  CHECK(contains(at, r.spine));
  CHECK(!contains(at, r.nic[1][0]));
  // Every pair on different rails goes over the spine between its own NICs; the plain routes do not all (the d-mod-k
  // choice sends some into the receiver's node on the sender's rail): the case this rule exists for.
  int plain_without_spine = 0;
  for (int n = 0; n < 2; ++n)
    for (int i = 0; i < 2; ++i) {
      int from = r.gpu[n][i], to = r.gpu[1 - n][1 - i];
      auto mine = messages.route(from, to);
      REQUIRE(mine);
      auto path = visited(r.g.t, from, *mine);
      CHECK(contains(path, r.nic[n][i]));
      CHECK(contains(path, r.nic[1 - n][1 - i]));
      CHECK(contains(path, r.spine));
      plain_without_spine += !contains(visited(r.g.t, from, *router.route(from, to, "gpu")), r.spine);
    }
  CHECK(plain_without_spine > 0);
  // Within a node, the plain route (no NIC).
  auto inside = messages.route(r.gpu[0][0], r.gpu[0][1]);
  REQUIRE(inside);
  CHECK(*inside == *router.route(r.gpu[0][0], r.gpu[0][1], "gpu"));
  CHECK(messages.route(r.gpu[1][0], r.gpu[1][0])->empty());
}

TEST_CASE("fabric routes: GPUs with the same nearest NICs take them in turn") {
  // One node's two GPUs and two NICs on one PCIe switch (a DGX A100's pairs): GPU 0 takes NIC 0, GPU 1 NIC 1.
  Graph g;
  int sw = g.add("switch", "node[0].pcie");
  int g0 = g.add("gpu", "node[0].g[0]"), g1 = g.add("gpu", "node[0].g[1]");
  int n0 = g.add("nic", "node[0].nic[0]"), n1 = g.add("nic", "node[0].nic[1]");
  for (int c : {g0, g1, n0, n1}) g.link(sw, c);
  ir::Router router(g.t);
  mpi::MessageRouter messages(g.t, router);
  CHECK(messages.nic_of(g1) == n1);
  CHECK(messages.nic_of(g0) == n0);
  // A GPU with no NIC: none.
  Graph lone;
  int a = lone.add("gpu", "node[0].g[0]");
  int b = lone.add("switch", "node[0].sw");
  lone.link(a, b);
  ir::Router r2(lone.t);
  mpi::MessageRouter m2(lone.t, r2);
  CHECK(m2.nic_of(a) == -1);
}

TEST_CASE("router: a tie rank spreads a leg over equal paths as its final destination would") {
  // Two equal paths from s to d (through x or y): the choice follows the number given, not d's rank.
  Graph g;
  int s = g.add("nic", "s"), x = g.add("switch", "x"), y = g.add("switch", "y"), d = g.add("nic", "d");
  g.link(s, x);
  g.link(s, y);
  g.link(x, d);
  g.link(y, d);
  ir::Router router(g.t);
  auto by0 = router.route(s, d, "gpu", 0), by1 = router.route(s, d, "gpu", 1);
  REQUIRE(by0);
  REQUIRE(by1);
  CHECK(visited(g.t, s, *by0)[1] != visited(g.t, s, *by1)[1]);
  CHECK(*router.route(s, d, "gpu", router.rank_of(d)) == *router.route(s, d, "gpu"));
}

TEST_CASE("fabric routes: on a rail fabric the GPUs behind one leaf are numbered in turn and spread over the spines") {
  // Four nodes of two GPUs, GPU i with NIC i on leaf i (rail i), both leaves under two spines. By rank the GPUs of
  // rail 0 (node n's GPU 0: ranks 0, 2, 4, 6) would all take the same spine into leaf 0; numbered leaf by leaf
  // (0, 1, 2, 3 behind leaf 0; 4 to 7 behind leaf 1) the messages into rail 0 take the two spines in turn.
  Graph g;
  int gpu[4][2], nic[4][2];
  for (int n = 0; n < 4; ++n) {
    std::string p = "node[" + std::to_string(n) + "].";
    int sw = g.add("switch", p + "pcie");
    for (int i = 0; i < 2; ++i) {
      gpu[n][i] = g.add("gpu", p + "g[" + std::to_string(i) + "]");
      nic[n][i] = g.add("nic", p + "nic[" + std::to_string(i) + "]");
      g.link(sw, gpu[n][i]);
    }
    g.link(gpu[n][0], nic[n][0]);
    g.link(gpu[n][1], nic[n][1]);
  }
  int leaf[2] = {g.add("switch", "leaf[0]"), g.add("switch", "leaf[1]")};
  int spine[2] = {g.add("switch", "spine[0]"), g.add("switch", "spine[1]")};
  for (int n = 0; n < 4; ++n)
    for (int i = 0; i < 2; ++i) g.link(nic[n][i], leaf[i]);
  for (int l : leaf)
    for (int s : spine) g.link(l, s);
  ir::Router router(g.t);
  mpi::MessageRouter messages(g.t, router);
  for (int n = 0; n < 4; ++n) {
    CHECK(messages.spread_number(gpu[n][0]) == n);
    CHECK(messages.spread_number(gpu[n][1]) == 4 + n);
  }
  // From node 0's GPU 1 (rail 1) to GPU 0 of nodes 1 to 3 (rail 0): up leaf 1, over a spine, down leaf 0.
  std::vector<int> spines;
  for (int n = 1; n < 4; ++n) {
    auto hops = messages.route(gpu[0][1], gpu[n][0]);
    REQUIRE(hops);
    auto at = visited(g.t, gpu[0][1], *hops);
    CHECK(contains(at, leaf[1]));
    CHECK(contains(at, leaf[0]));
    spines.push_back(contains(at, spine[0]) ? spine[0] : spine[1]);
  }
  CHECK(spines[0] != spines[1]);
  CHECK(spines[1] != spines[2]);
  // A GPU without a NIC keeps its rank.
  Graph lone;
  int a = lone.add("gpu", "node[0].g[0]");
  ir::Router r2(lone.t);
  mpi::MessageRouter m2(lone.t, r2);
  CHECK(m2.spread_number(a) == r2.rank_of(a));
}
