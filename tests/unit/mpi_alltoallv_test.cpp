// mpi_alltoallv_test.cpp: the alltoallv (blocks of their own sizes): with one size for every pair it is the
// alltoall, under the fitted models and on the fabric; its rounds skip empty blocks; a heavy block costs what the
// models say by hand.
#include <doctest/doctest.h>

#include <cmath>

#include "engines/mpi/fabric_engine.h"
#include "engines/mpi/mpi_engine.h"
#include "test_support.h"

using namespace gpm;
using namespace gpm::mpi;
namespace cg = gpm::engines::congestion;

namespace {

bool near(double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(std::abs(a), std::abs(b)); }

// Postal and max-rate fits for every class, every message rendezvous (E2E Tables 2 and 4, Summit's; the intra-node
// classes take the inter-node max-rate fit, which is enough to tell the models apart).
std::vector<double> fits(Choice& c, double bytes) {
  std::vector<double> in(size_t(in::kMachineInputs) + 2, 0.0);
  const double postal[3][2] = {{2.18e-6, 5.37e-11}, {4.60e-6, 1.18e-10}, {7.59e-6, 8.70e-11}};
  for (int l = 0; l < kClasses; ++l) {
    int f = in::fit(Locality(l), Protocol::Rendezvous);
    in[size_t(f)] = postal[l][0];
    in[size_t(f + 1)] = postal[l][1];
    in[size_t(f + 2)] = 9.33e-6;
    in[size_t(f + 3)] = 1.23e10;
    in[size_t(f + 4)] = 2.58e7;
    int idx = FitTable::index(Locality(l), Protocol::Rendezvous);
    c.fits.postal[size_t(idx)] = true;
    c.fits.maxrate[size_t(idx)] = MaxRateForm::Full;
  }
  in[size_t(in::kMachineInputs)] = bytes;
  return in;
}

std::vector<double> matrix(int64_t p, const std::function<double(int64_t, int64_t)>& f) {
  std::vector<double> m(size_t(p * p), 0);
  for (int64_t i = 0; i < p; ++i)
    for (int64_t j = 0; j < p; ++j)
      if (i != j) m[size_t(i * p + j)] = f(i, j);
  return m;
}

}  // namespace

TEST_CASE("alltoallv: one size for every pair costs the alltoall under each fitted model") {
  Layout l = make_layout(24, 6, 3, Mapping{});  // 4 nodes of 6 ranks, 2 sockets each
  const double n = 256 * 1024;
  auto same = matrix(24, [&](int64_t, int64_t) { return n; });
  for (int m = 0; m < 3; ++m) {
    Choice c;
    auto in = fits(c, n);
    c.model = CommModel(m);
    auto a2a = CommEngine::collective(c, l, Collective::Alltoall, Algorithm::Pairwise);
    for (Algorithm a : {Algorithm::Pairwise, Algorithm::Scattered}) {
      auto v = CommEngine::alltoallv(c, l, a, alltoallv_rounds(l, same, a, false));
      CHECK(near(v->time(in), a2a->time(in)));
      CHECK(v->run(in).time_s == v->time(in));
    }
  }
}

TEST_CASE("alltoallv: a rank's messages one after another, the slowest rank's time (postal by hand)") {
  Layout l = make_layout(4, 4, 4, Mapping{});  // one socket: every message intra-socket
  Choice c;
  auto in = fits(c, 0);
  c.model = CommModel::Postal;
  // Rank 2 sends 1 MB to rank 3 and 1 KB to the others; every other rank sends 1 KB, and nothing to rank 0.
  auto m = matrix(4, [](int64_t i, int64_t j) { return j == 0 ? 0.0 : i == 2 && j == 3 ? 1e6 : 1e3; });
  auto rounds = alltoallv_rounds(l, m, Algorithm::Pairwise, false);
  CHECK(rounds[0].steps_each == 3);  // rank 0 sends three messages, every other rank two
  auto v = CommEngine::alltoallv(c, l, Algorithm::Pairwise, rounds);
  const double a = 2.18e-6, b = 5.37e-11;
  CHECK(near(v->time(in), (a + b * 1e6) + (a + b * 1e3)));
  auto r = v->run(in);
  REQUIRE(r.error.empty());
  const auto& slowest = r.detail["rounds"][0]["slowest_rank_messages"];
  REQUIRE(slowest.size() == 2);
  CHECK(slowest[0]["bytes"].get<double>() == 1e3);
  CHECK(slowest[1]["bytes"].get<double>() == 1e6);
}

TEST_CASE("alltoallv: kept messages are the alltoall's, empty blocks and steps are left out, scattered batches") {
  Layout l = make_layout(40, 8, 4, Mapping{});
  auto same = matrix(40, [](int64_t, int64_t) { return 64.0; });
  auto a2a = collective_rounds(l, Collective::Alltoall, Algorithm::Pairwise, true);
  auto v = alltoallv_rounds(l, same, Algorithm::Pairwise, true);
  REQUIRE(v.size() == a2a.size());
  for (size_t i = 0; i < v.size(); ++i) {
    CHECK(v[i].messages == a2a[i].messages);
    CHECK(v[i].what == a2a[i].what);
    CHECK(v[i].stats.k == a2a[i].stats.k);
    CHECK(v[i].message_bytes == std::vector<double>(v[i].messages.size(), 64.0));
  }
  // Only the ring's neighbours: one step of 40 messages.
  auto ring = matrix(40, [](int64_t i, int64_t j) { return j == (i + 1) % 40 ? 8.0 : 0.0; });
  auto r = alltoallv_rounds(l, ring, Algorithm::Pairwise, true);
  REQUIRE(r.size() == 1);
  CHECK(r[0].messages.size() == 40);
  CHECK(r[0].what == "pairwise step 1");
  auto sc = alltoallv_rounds(l, same, Algorithm::Scattered, true);
  REQUIRE(sc.size() == 2);
  CHECK(sc[0].messages.size() == size_t(40 * kAlltoallThrottle));
  CHECK(sc[1].messages.size() == size_t(40 * 7));
  CHECK(sc[1].steps_each == 7);
  auto sc_a2a = collective_rounds(l, Collective::Alltoall, Algorithm::Scattered, true);
  CHECK(sc[0].messages == sc_a2a[0].messages);
  // Nothing to send: no round.
  CHECK(alltoallv_rounds(l, std::vector<double>(40 * 40, 0.0), Algorithm::Pairwise, true).empty());
}

TEST_CASE("alltoallv on the fabric: uniform equals the alltoall, a heavy block shares the links (by hand)") {
  test::Net net;
  std::vector<int> gpus;
  int sw = net.add("switch", "sw");
  for (int i = 0; i < 8; ++i) {
    gpus.push_back(net.add("gpu", "g[" + std::to_string(i) + "]"));
    net.link(sw, gpus.back());
  }
  Layout l = make_layout(8, 8, 8, Mapping{});
  FabricPlacement placement{gpus, {}};
  auto build = [&](std::vector<Round> rounds, const char* what) {
    FabricCommEngine::Operation op;
    op.what = what;
    op.ranks = 8;
    op.nodes = 1;
    op.ranks_per_node = 8;
    std::string error;
    auto e = FabricCommEngine::build(net.t, cg::FabricMap{}, {}, op, placement, rounds, {}, error);
    REQUIRE_MESSAGE(e, error);
    return e;
  };
  const double n = 1 << 20, bw = 25e9;
  auto inputs = [&](const FabricCommEngine& e) {
    std::vector<double> in = {0, 0};  // no overhead, no staging chunk
    for (size_t i = 0; i < e.link_inputs().size(); ++i) in.push_back(bw);
    for (size_t i = 0; i < e.link_inputs().size(); ++i) in.push_back(0);
    in.push_back(n);
    in.push_back(0);
    return in;
  };
  auto a2a = build(collective_rounds(l, Collective::Alltoall, Algorithm::Pairwise, true), "alltoall");
  auto same = build(alltoallv_rounds(l, matrix(8, [&](int64_t, int64_t) { return n; }), Algorithm::Pairwise, true),
                    "alltoallv");
  CHECK(near(same->time(inputs(*same)), a2a->time(inputs(*a2a))));
  CHECK(near(a2a->time(inputs(*a2a)), 7 * n / bw));
  // Each rank sends 4n to the next and n to the others: its link carries 10n either way. Pairwise: a step of 4n,
  // six of n; scattered, all at once: the six n-flows end at 7n / bw, the 4n one has 3n left at full bandwidth.
  auto heavy = matrix(8, [&](int64_t i, int64_t j) { return j == (i + 1) % 8 ? 4 * n : n; });
  for (Algorithm a : {Algorithm::Pairwise, Algorithm::Scattered}) {
    auto e = build(alltoallv_rounds(l, heavy, a, true), "alltoallv");
    CHECK(near(e->time(inputs(*e)), 10 * n / bw));
    auto r = e->run(inputs(*e));
    REQUIRE(r.error.empty());
    CHECK(r.detail["steps"][0]["largest_message_bytes"].get<double>() == 4 * n);
    // Written out for a `par`: each step's flows with their own sizes.
    std::string why;
    auto phases = e->unrolled(1000, why);
    REQUIRE(!phases.empty());
    REQUIRE(phases[0].sizes);
    CHECK(phases[0].sizes->back() == 4 * n);
  }
}
