// maxmin_events_test.cpp: the max-min event loop that solves each event's component alone (maxmin_sim.cpp) against
// the loop that solves the whole problem at every event, on random fabrics, sizes, starts, flows waiting for one or
// several others, and queues; a queue's flows moving one at a time, kernels' timed flows taking turns, and a flow
// waiting for two, computed by hand.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "engines/congestion/engine.h"
#include "test_support.h"

using namespace gpm;
using namespace gpm::engines::congestion;

namespace {

struct Rng {
  uint64_t state;
  int next(int n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return int((state >> 33) % uint64_t(n));
  }
};

// Three GPUs h0, h1, h2 under one switch, one link each.
struct Star {
  test::Net net;
  int h0, h1, h2;
  Star() {
    int sw = net.add("switch", "sw");
    h0 = net.add("gpu", "h0");
    h1 = net.add("gpu", "h1");
    h2 = net.add("gpu", "h2");
    net.link(h0, sw);
    net.link(sw, h1);
    net.link(sw, h2);
  }
};

bool close(double a, double b) { return a == b || std::abs(a - b) <= 1e-12 * std::max(std::abs(a), std::abs(b)); }

// The engine of these flows on the net, run by the loop that solves each event's component (incremental) or by the
// one that solves every flow at every event.
std::shared_ptr<CongestionEngine> built(const test::Net& net, const FabricMap& fabric, const std::vector<FlowSpec>& flows,
                                        bool incremental) {
  BuildError error;
  auto e = CongestionEngine::build(net.t, fabric, flows, false, error);
  REQUIRE(e);
  e->set_incremental(incremental);
  return e;
}

}  // namespace

TEST_CASE("max-min events: solving each event's component gives the times of solving every flow at every event") {
  Rng rng{2026};
  int compared = 0, split = 0;
  for (int trial = 0; trial < 120; ++trial) {
    // A two-level tree of switches with hosts under the leaves, some hosts also linked to a second leaf, and a few
    // links between leaves: several routes share links, some do not (components of their own).
    test::Net net;
    const int spines = 1 + rng.next(3), leaves = 2 + rng.next(4), per_leaf = 1 + rng.next(4);
    std::vector<int> spine, leaf, host, host_leaf;
    for (int s = 0; s < spines; ++s) spine.push_back(net.add("switch", "spine[" + std::to_string(s) + "]"));
    for (int l = 0; l < leaves; ++l) {
      leaf.push_back(net.add("switch", "leaf[" + std::to_string(l) + "]"));
      if (trial % 4 != 0)  // every fourth fabric has no spines linked: each leaf's hosts are a component of their own
        for (int s : spine) net.link(leaf.back(), s);
      for (int h = 0; h < per_leaf; ++h) {
        host.push_back(net.add("gpu", "h[" + std::to_string(host.size()) + "]"));
        host_leaf.push_back(l);
        net.link(host.back(), leaf.back());
        if (rng.next(4) == 0 && l > 0 && trial % 4 != 0) net.link(host.back(), leaf[size_t(rng.next(l))]);
      }
    }
    if (per_leaf < 2) continue;
    std::vector<FlowSpec> flows;
    const int count = 2 + rng.next(60);
    for (int f = 0; f < count; ++f) {
      int a = rng.next(int(host.size())), b = rng.next(int(host.size()));
      if (trial % 4 == 0) b = host_leaf[size_t(a)] * per_leaf + rng.next(per_leaf);  // within the leaf
      if (a == b) b = host_leaf[size_t(a)] * per_leaf + (b + 1 - host_leaf[size_t(a)] * per_leaf) % per_leaf;
      FlowSpec spec{"f" + std::to_string(f), host[size_t(a)], host[size_t(b)]};
      if (f > 0 && rng.next(5) == 0) {
        spec.after = rng.next(f);
        for (int k = rng.next(3); k > 0; --k) spec.also_after.push_back(rng.next(f));  // waits for the last to end
      }
      spec.has_start = rng.next(3) == 0;
      if (trial % 3 == 1) spec.queue = rng.next(3) - 1;  // two queues (copy engines) and flows of none
      // Groups of ten flows in order; a flow may wait for a group that ends before it.
      spec.group = f / 10;
      if (f >= 10 && rng.next(4) == 0) spec.after_group = rng.next(f / 10);
      flows.push_back(spec);
    }
    BuildError error;
    FabricMap maxmin{std::vector<int>(net.t.links.size(), -1)};
    auto inc = CongestionEngine::build(net.t, maxmin, flows, false, error);
    auto whole = CongestionEngine::build(net.t, maxmin, flows, false, error);
    INFO(error.message);
    REQUIRE(inc);
    REQUIRE(whole);
    whole->set_incremental(false);
    std::vector<double> in;
    for (size_t k = 0; k < inc->link_inputs().size(); ++k) in.push_back(double(1 + rng.next(4)) * 12.5e9);  // ties
    const double sizes[] = {8, 1600, 320e3, 1e6, 0};
    for (int k = 0; k < inc->size_input_count(); ++k) in.push_back(sizes[rng.next(5)] * (1 + rng.next(3)));
    for (int k = 0; k < inc->start_input_count(); ++k) in.push_back(rng.next(3) * 1e-6);
    auto a = inc->simulate(in, inc->written_rank());
    auto b = whole->simulate(in, whole->written_rank());
    REQUIRE(a.error.empty());
    REQUIRE(b.error.empty());
    CAPTURE(trial);
    CHECK(close(a.makespan, b.makespan));
    for (size_t f = 0; f < flows.size(); ++f) {
      CAPTURE(f);
      CHECK(close(a.start[f], b.start[f]));
      CHECK(close(a.end[f], b.end[f]));
    }
    // The steps and their factors (each step lists its flows in flow order in both).
    REQUIRE(a.steps.size() == b.steps.size());
    for (size_t s = 0; s < a.steps.size(); ++s) {
      REQUIRE(a.steps[s].factors.size() == b.steps[s].factors.size());
      for (size_t k = 0; k < a.steps[s].factors.size(); ++k) {
        CHECK(a.steps[s].factors[k].first == b.steps[s].factors[k].first);
        CHECK(close(a.steps[s].factors[k].second, b.steps[s].factors[k].second));
      }
    }
    ++compared;
    split += trial % 4 == 0;
  }
  CHECK(compared > 60);
  CHECK(split > 15);
}

TEST_CASE("max-min events: a queue's flows move one at a time, the first issued first, in both loops") {
  // Three GPUs under one switch (20 GB/s links), 20 MB from h0 each: x (queue 0) and z (no queue) start at 0 and
  // share h0's link at 10 GB/s, ending at 2 ms; y (queue 0), issued at 1 ms, waits for x, then moves alone.
  Star star;
  auto& [net, h0, h1, h2] = star;
  FlowSpec x{"x", h0, h1}, y{"y", h0, h2}, z{"z", h0, h2};
  x.queue = y.queue = 0;
  y.has_start = true;
  std::vector<FlowSpec> flows{x, y, z};
  FabricMap maxmin{std::vector<int>(net.t.links.size(), -1)};
  for (bool incremental : {true, false}) {
    CAPTURE(incremental);
    auto e = built(net, maxmin, flows, incremental);
    std::vector<double> in(e->link_inputs().size(), 20e9);
    in.insert(in.end(), {20e6, 20e6, 20e6});  // sizes
    in.push_back(1e-3);                       // y issued at 1 ms
    auto s = e->simulate(in, e->written_rank());
    REQUIRE(s.error.empty());
    // 0-2 ms: x and z at 10 GB/s each on h0's link, 20 MB each: both end at 2 ms. y (issued at 1 ms) starts then,
    // alone: 20 MB at 20 GB/s, ending at 3 ms.
    CHECK(s.end[0] == doctest::Approx(2e-3));
    CHECK(s.end[2] == doctest::Approx(2e-3));
    CHECK(s.issued[1] == doctest::Approx(1e-3));
    CHECK(s.start[1] == doctest::Approx(2e-3));
    CHECK(s.end[1] == doctest::Approx(3e-3));
  }
}

TEST_CASE("max-min events: kernels' flows (timed) take turns on their GPU's queue and hold no link, in both loops") {
  // h1 runs two kernels of 1 ms, both issued at 0, in one queue: the first 0-1 ms, the second 1-2 ms. A copy x of
  // 20 MB h0 -> h1 at 20 GB/s beside them is not slowed (a kernel crosses no link): 0-1 ms. y (20 MB h0 -> h2) waits
  // for the second kernel: 2-3 ms. A kernel's flow to a component other than itself, or over a link, is refused.
  Star star;
  auto& [net, h0, h1, h2] = star;
  FlowSpec k1{"k1", h1, h1}, k2{"k2", h1, h1}, x{"x", h0, h1}, y{"y", h0, h2};
  k1.timed = k2.timed = true;
  k1.queue = k2.queue = 0;
  y.after = 1;
  std::vector<FlowSpec> flows{k1, k2, x, y};
  FabricMap maxmin{std::vector<int>(net.t.links.size(), -1)};
  for (bool incremental : {true, false}) {
    CAPTURE(incremental);
    auto e = built(net, maxmin, flows, incremental);
    std::vector<double> in(e->link_inputs().size(), 20e9);
    in.insert(in.end(), {1e-3, 1e-3, 20e6, 20e6});  // the kernels' times, then the copies' sizes
    auto s = e->simulate(in, e->written_rank());
    REQUIRE(s.error.empty());
    CHECK(s.start[0] == 0);
    CHECK(s.end[0] == doctest::Approx(1e-3));
    CHECK(s.issued[1] == 0);
    CHECK(s.start[1] == doctest::Approx(1e-3));
    CHECK(s.end[1] == doctest::Approx(2e-3));
    CHECK(s.end[2] == doctest::Approx(1e-3));
    CHECK(s.start[3] == doctest::Approx(2e-3));
    CHECK(s.end[3] == doctest::Approx(3e-3));
    CHECK(s.makespan == doctest::Approx(3e-3));
  }
  BuildError error;
  FlowSpec bad{"bad", h0, h1};
  bad.timed = true;
  CHECK_FALSE(CongestionEngine::build(net.t, maxmin, {bad}, false, error));
  CHECK(error.message == "a kernel's flow crosses no link");
}

TEST_CASE("max-min events: a flow that waits for several starts when the last of them ends, in both loops") {
  // x (10 MB) and y (30 MB) from h0 to h1 and h2 at 0, sharing nothing but h0's 40 GB/s link (20 GB/s each, their
  // 20 GB/s links): x ends at 0.5 ms, y at 1.5 ms; z waits for both, then moves 20 MB alone: 1.5 to 2.5 ms.
  Star star;
  auto& [net, h0, h1, h2] = star;
  FlowSpec x{"x", h0, h1}, y{"y", h0, h2}, z{"z", h0, h1};
  z.after = 0;
  z.also_after = {1};
  FabricMap maxmin{std::vector<int>(net.t.links.size(), -1)};
  for (bool incremental : {true, false}) {
    CAPTURE(incremental);
    auto e = built(net, maxmin, {x, y, z}, incremental);
    std::vector<double> in;
    for (auto [link, dir] : e->link_inputs()) in.push_back(net.t.links[size_t(link)].a == h0 ? 40e9 : 20e9);
    in.insert(in.end(), {10e6, 30e6, 20e6});
    auto s = e->simulate(in, e->written_rank());
    REQUIRE(s.error.empty());
    CHECK(s.end[0] == doctest::Approx(0.5e-3));
    CHECK(s.end[1] == doctest::Approx(1.5e-3));
    CHECK(s.start[2] == doctest::Approx(1.5e-3));
    CHECK(s.end[2] == doctest::Approx(2.5e-3));
  }
  // A flow may wait only for flows before it.
  FlowSpec bad{"bad", h0, h1};
  bad.also_after = {1};
  BuildError error;
  CHECK_FALSE(CongestionEngine::build(net.t, maxmin, {bad, x}, false, error));
  CHECK(error.message.find("flows before it") != std::string::npos);
}

TEST_CASE("max-min events: a flow waiting for a group starts when the group's last flow ends, in both loops") {
  // As above, with x and y a group and z waiting for the group (one gate instead of two waits); w waits for z's
  // group of one and a delay of 0.25 ms: 2.75 to 3.25 ms (10 MB alone at 20 GB/s).
  Star star;
  auto& [net, h0, h1, h2] = star;
  FlowSpec x{"x", h0, h1}, y{"y", h0, h2}, z{"z", h0, h1}, w{"w", h0, h2};
  x.group = y.group = 7;
  z.after_group = 7;
  z.group = 3;
  w.after_group = 3;
  w.has_start = true;
  FabricMap maxmin{std::vector<int>(net.t.links.size(), -1)};
  for (bool incremental : {true, false}) {
    CAPTURE(incremental);
    auto e = built(net, maxmin, {x, y, z, w}, incremental);
    std::vector<double> in;
    for (auto [link, dir] : e->link_inputs()) in.push_back(net.t.links[size_t(link)].a == h0 ? 40e9 : 20e9);
    in.insert(in.end(), {10e6, 30e6, 20e6, 10e6, 0.25e-3});
    auto s = e->simulate(in, e->written_rank());
    REQUIRE(s.error.empty());
    CHECK(s.end[1] == doctest::Approx(1.5e-3));
    CHECK(s.start[2] == doctest::Approx(1.5e-3));
    CHECK(s.end[2] == doctest::Approx(2.5e-3));
    CHECK(s.start[3] == doctest::Approx(2.75e-3));
    CHECK(s.end[3] == doctest::Approx(3.25e-3));
  }
  // A flow may wait only for a group whose flows all come before it.
  FlowSpec early{"early", h0, h1};
  early.after_group = 7;
  BuildError error;
  x.group = 7;
  CHECK_FALSE(CongestionEngine::build(net.t, maxmin, {early, x}, false, error));
  CHECK(error.message.find("groups of flows before it") != std::string::npos);
}

TEST_CASE("max-min events: a duplex link's direction has its duplex bandwidth while the other carries a flow") {
  // h0 -> h1 (x, 30 MB) and h1 -> h0 (y, 10 MB, issued at 0.5 ms) on a star whose links carry 20 GB/s each way, h0's
  // link 15 GB/s each way while both directions carry flows. x alone to 0.5 ms (10 MB), then both at 15 GB/s: y ends
  // at 0.5 + 10/15 ms, x has then 10 MB left at 20 GB/s: it ends 0.5 ms later. Both loops, and the same engine run
  // twice (the capacities start plain again).
  Star star;
  auto& [net, h0, h1, h2] = star;
  FlowSpec x{"x", h0, h1}, y{"y", h1, h0};
  y.has_start = true;
  FabricMap maxmin{std::vector<int>(net.t.links.size(), -1)};
  for (bool incremental : {true, false}) {
    CAPTURE(incremental);
    auto e = built(net, maxmin, {x, y}, incremental);
    std::vector<CongestionEngine::Duplex> duplex;
    std::vector<double> duplex_bw;
    const auto& links = e->link_inputs();
    for (size_t k = 0; k < links.size(); ++k)
      for (size_t r = 0; r < links.size(); ++r)
        if (links[k].first == links[r].first && links[k].second != links[r].second &&
            net.t.links[size_t(links[k].first)].a == h0) {
          duplex.push_back({int(k), int(r)});
          duplex_bw.push_back(15e9);
        }
    REQUIRE(duplex.size() == 2);
    e->set_duplex(duplex);
    std::vector<double> in(links.size(), 20e9);
    in.insert(in.end(), {30e6, 10e6, 0.5e-3});
    in.insert(in.end(), duplex_bw.begin(), duplex_bw.end());
    REQUIRE(in.size() == e->input_count());
    for (int run = 0; run < 2; ++run) {
      auto s = e->simulate(in, e->written_rank());
      REQUIRE(s.error.empty());
      const double y_end = 0.5e-3 + 10e6 / 15e9;
      CHECK(s.end[1] == doctest::Approx(y_end).epsilon(1e-12));
      CHECK(s.end[0] == doctest::Approx(y_end + 10e6 / 20e9).epsilon(1e-12));
    }
  }
}
