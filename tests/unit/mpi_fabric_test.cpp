// mpi_fabric_test.cpp: the fabric model of MPI operations: steps' messages as flows on hand-built topologies, against
// times computed by hand and against the postal model on a non-blocking switch; the kept messages of every
// collective and halo against their statistics.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>

#include <cmath>

#include "engines/mpi/fabric_engine.h"
#include "engines/mpi/mpi_engine.h"
#include "test_support.h"

using namespace gpm;
using namespace gpm::mpi;
namespace cg = gpm::engines::congestion;

namespace {

bool near(double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(std::abs(a), std::abs(b)); }

using test::Net;

// p GPUs on one switch (a non-blocking crossbar, as a DGX's NVSwitch is modelled).
Net star(int p, std::vector<int>& gpus) {
  Net n;
  int sw = n.add("switch", "sw");
  for (int i = 0; i < p; ++i) {
    gpus.push_back(n.add("gpu", "g[" + std::to_string(i) + "]"));
    n.link(sw, gpus.back());
  }
  return n;
}

// The engine's inputs: overhead, staging chunk, every link input's bandwidth, then its latency, then the sizes.
std::vector<double> inputs_for(const FabricCommEngine& e, double bw, double latency, std::vector<double> sizes,
                               double overhead = 0, double staging_chunk = 0) {
  std::vector<double> in = {overhead, staging_chunk};
  for (size_t i = 0; i < e.link_inputs().size(); ++i) in.push_back(bw);
  for (size_t i = 0; i < e.link_inputs().size(); ++i) in.push_back(latency);
  in.insert(in.end(), sizes.begin(), sizes.end());
  return in;
}

std::shared_ptr<FabricCommEngine> collective_on(const Net& n, const std::vector<int>& gpus, Collective c,
                                                Algorithm a, Transport transport = Transport::GpuDirect,
                                                std::vector<int> memory = {}, bool staging_chunks = false) {
  Layout layout = make_layout(int64_t(gpus.size()), int64_t(gpus.size()), int64_t(gpus.size()), Mapping{});
  FabricCommEngine::Operation op;
  op.what = collective_name(c);
  op.algorithm = algorithm_name(a);
  op.transport = transport;
  op.staging_chunks = staging_chunks;
  op.ranks = layout.ranks;
  op.nodes = 1;
  op.ranks_per_node = layout.ranks;
  FabricPlacement placement{gpus, memory};
  std::string error;
  auto e = FabricCommEngine::build(n.t, cg::FabricMap{}, {}, op, placement, collective_rounds(layout, c, a, true), {},
                                   error);
  REQUIRE_MESSAGE(e, error);
  return e;
}

// Two GPUs, each with its own host memory, the memories joined by a network link: (m0, m1, g0, g1).
std::array<int, 4> two_hosts(Net& n) {
  int m0 = n.add("memory", "m0"), m1 = n.add("memory", "m1");
  int g0 = n.add("gpu", "g0"), g1 = n.add("gpu", "g1");
  n.link(m0, g0);
  n.link(m1, g1);
  n.link(m0, m1);
  return {m0, m1, g0, g1};
}

}  // namespace

TEST_CASE("fabric: a ring all-reduce on a switch takes 2 (p - 1) steps of n / p over a GPU's link") {
  std::vector<int> gpus;
  Net n = star(8, gpus);
  auto e = collective_on(n, gpus, Collective::Allreduce, Algorithm::Ring);
  const double bytes = double(1 << 30), bw = 300e9, latency = 1e-6;
  double t = e->time(inputs_for(*e, bw, latency, {bytes, 0}));
  // Each step: every GPU sends n / p to the next, one flow on each direction of each GPU link: no sharing.
  CHECK(near(t, 14 * (2 * latency + bytes / 8 / bw)));
  CHECK(near(e->run(inputs_for(*e, bw, latency, {bytes, 0})).time_s, t));
}

TEST_CASE("fabric: on a non-blocking switch the model equals the postal model of the route") {
  std::vector<int> gpus;
  Net n = star(8, gpus);
  const double bw = 100e9, latency = 2e-6, bytes = 3e6;
  // (not a structured binding: clang 14 cannot capture one in CAPTURE's lambda)
  for (auto operation : {std::pair{Collective::Allreduce, Algorithm::RecursiveDoubling},
                         std::pair{Collective::Bcast, Algorithm::BinomialTree},
                         std::pair{Collective::Reduce, Algorithm::Rabenseifner},
                         std::pair{Collective::Allgather, Algorithm::Ring},
                         std::pair{Collective::Alltoall, Algorithm::Pairwise},
                         std::pair{Collective::ReduceScatter, Algorithm::RecursiveHalving}}) {
    Collective c = operation.first;
    Algorithm a = operation.second;
    CAPTURE(collective_name(c));
    auto fabric = collective_on(n, gpus, c, a);
    Choice postal;
    postal.model = CommModel::Postal;
    postal.fits.postal[size_t(FitTable::index(Locality::IntraSocket, Protocol::Rendezvous))] = true;
    Layout layout = make_layout(8, 8, 8, Mapping{});
    auto reference = CommEngine::collective(postal, layout, c, a);
    std::vector<double> in(size_t(in::kMachineInputs), 0);
    in[size_t(in::fit(Locality::IntraSocket, Protocol::Rendezvous))] = 2 * latency;  // two links on every route
    in[size_t(in::fit(Locality::IntraSocket, Protocol::Rendezvous)) + 1] = 1 / bw;
    in[size_t(in::kTaper)] = 1;
    in.push_back(bytes);
    in.push_back(0);
    // Every rank sends at most one message a step, so the links carry one flow each way.
    CHECK(near(fabric->time(inputs_for(*fabric, bw, latency, {bytes, 0})), reference->time(in)));
  }
}

TEST_CASE("fabric: messages that share an up-link share its bandwidth") {
  // Two pairs of GPUs under two leaf switches joined by one link: a ring of four crosses it once each way.
  Net n;
  int a = n.add("switch", "a"), b = n.add("switch", "b");
  std::vector<int> gpus;
  for (int i = 0; i < 4; ++i) gpus.push_back(n.add("gpu", "g[" + std::to_string(i) + "]"));
  n.link(a, gpus[0]);
  n.link(a, gpus[1]);
  n.link(b, gpus[2]);
  n.link(b, gpus[3]);
  n.link(a, b);
  // Recursive doubling, step 2: 0 <-> 2 and 1 <-> 3 both cross a <-> b, two flows each way.
  auto e = collective_on(n, gpus, Collective::Allreduce, Algorithm::RecursiveDoubling);
  const double bw = 10e9, bytes = 1e9;
  double t = e->time(inputs_for(*e, bw, 0, {bytes, 0}));
  CHECK(near(t, bytes / bw + 2 * bytes / bw));  // step 1 alone on its links; step 2 at half the link each
  auto r = e->run(inputs_for(*e, bw, 0, {bytes, 0}));
  CHECK(r.detail["steps"][1]["busiest_link"].get<std::string>().find("a -> b") != std::string::npos);
  CHECK(near(r.detail["steps"][1]["busiest_link_s"].get<double>(), 2 * bytes / bw));
}

TEST_CASE("fabric: host staging is three phases through each GPU's memory") {
  Net n;
  auto [m0, m1, g0, g1] = two_hosts(n);
  auto e = collective_on(n, {g0, g1}, Collective::Bcast, Algorithm::BinomialTree, Transport::Staged, {m0, m1});
  const double bw = 10e9, latency = 1e-6, bytes = 1e8, overhead = 3e-6;
  double t = e->time(inputs_for(*e, bw, latency, {bytes, 0}, overhead));
  // device to host, host to host, host to device: one link each, one after another.
  CHECK(near(t, overhead + 3 * (latency + bytes / bw)));
}

TEST_CASE("fabric: host staging in pieces pipelines the three phases (a flow shop of equal pieces)") {
  Net n;
  auto [m0, m1, g0, g1] = two_hosts(n);
  auto e = collective_on(n, {g0, g1}, Collective::Bcast, Algorithm::BinomialTree, Transport::Staged, {m0, m1}, true);
  const double bw = 10e9, latency = 1e-6, bytes = 1e8, overhead = 3e-6;
  // 1e8 B in pieces of at most 3e7 B: 4 pieces of 2.5e7 B; each phase of a piece is latency + 2.5e7 / bw, all alike:
  // the first piece through the three phases, then three more, one phase apart.
  const double piece = latency + 2.5e7 / bw;
  CHECK(near(e->time(inputs_for(*e, bw, latency, {bytes, 0}, overhead, 3e7)), overhead + 3 * piece + 3 * piece));
  auto r = e->run(inputs_for(*e, bw, latency, {bytes, 0}, overhead, 3e7));
  CHECK(r.detail["staging_chunk_bytes"] == 3e7);
  CHECK(r.detail["steps"][0]["staging_pieces"] == 4);
  CHECK(near(r.detail["steps"][0]["latency_s"].get<double>(), 6 * latency));
  // The host-to-host link at a tenth of the bandwidth bounds every piece after the first.
  std::vector<double> in = inputs_for(*e, bw, latency, {bytes, 0}, overhead, 3e7);
  const auto& links = e->link_inputs();
  for (size_t i = 0; i < links.size(); ++i)
    if (n.t.links[size_t(links[i].first)].a == m0 && n.t.links[size_t(links[i].first)].b == m1)
      in[size_t(e->latency_input(0)) - links.size() + i] = bw / 10;
  const double slow = latency + 2.5e7 / (bw / 10);
  CHECK(near(e->time(in), overhead + 2 * piece + slow + 3 * slow));
  // A chunk of 0, or one the message fits in: the whole message, as without pieces.
  CHECK(near(e->time(inputs_for(*e, bw, latency, {bytes, 0}, overhead, 0)), overhead + 3 * (latency + bytes / bw)));
  CHECK(near(e->time(inputs_for(*e, bw, latency, {bytes, 0}, overhead, 2e8)), overhead + 3 * (latency + bytes / bw)));
  // Pieces cannot be written out as a `par`'s flows (their count is an input).
  std::string why;
  CHECK(e->unrolled(1000, why).empty());
  CHECK(why.find("pieces") != std::string::npos);
}

TEST_CASE("fabric: the kept messages of every collective match their statistics") {
  for (int64_t p : {2, 5, 8, 12}) {
    Layout layout = make_layout(p, 4, 2, Mapping{});
    for (auto c : {Collective::Allreduce, Collective::Reduce, Collective::Bcast, Collective::Allgather,
                   Collective::ReduceScatter, Collective::Barrier, Collective::Alltoall})
      for (int a = 0; a <= int(Algorithm::RecursiveHalving); ++a) {
        if (!algorithm_allowed(c, Algorithm(a))) continue;
        CAPTURE(p);
        CAPTURE(collective_name(c));
        CAPTURE(algorithm_name(Algorithm(a)));
        auto kept = collective_rounds(layout, c, Algorithm(a), true);
        int64_t messages = 0, expected = 0;
        for (const auto& r : kept) {
          CHECK(int64_t(r.messages.size()) == r.stats.messages);
          messages += int64_t(r.messages.size()) * int64_t(r.repeat);
        }
        for (const auto& r : collective_rounds(layout, c, Algorithm(a)))
          expected += r.stats.messages * int64_t(r.repeat);
        CHECK(messages == expected);
      }
  }
  Grid grid;
  grid.dims = 3;
  grid.extent = {4, 3, 2};
  grid.neighbours = 26;
  grid.periodic = false;
  std::string error;
  Layout layout = make_layout(24, 8, 4, Mapping{});
  auto messages = halo_messages(grid, 24, error);
  CHECK(error.empty());
  CHECK(int64_t(messages.size()) == halo_pattern(layout, grid, error).messages);
  halo_messages(grid, 25, error);
  CHECK(error.find("has 24 ranks, not 25") != std::string::npos);
}

TEST_CASE("fabric: listed_messages counts the messages a collective lists before they are listed") {
  // An upper bound for every algorithm (the guard on memory before the list is made), exact for those whose lists
  // grow as p^2 (the all-to-alls and the allgather's direct messaging), within 2 p for the rest.
  for (int64_t p : {2, 5, 8, 12, 33, 64}) {
    Layout layout = make_layout(p, 4, 2, Mapping{});
    for (int c = 0; c <= int(Collective::Scatter); ++c)
      for (int a = 0; a <= int(kLastAlgorithm); ++a) {
        const Collective coll = Collective(c);
        const Algorithm alg = Algorithm(a);
        if (!algorithm_allowed(coll, alg) || alg == Algorithm::InNetwork) continue;
        if (alg == Algorithm::Hierarchical && !balanced_nodes(layout)) continue;
        for (bool aware : {false, true}) {
          if (aware && !has_node_aware(coll)) continue;
          for (int64_t channels : {1, 3}) {
            if (channels > 1 && alg != Algorithm::Ring) continue;
            CAPTURE(p);
            CAPTURE(collective_name(coll));
            CAPTURE(algorithm_name(alg));
            CAPTURE(aware);
            CAPTURE(channels);
            NodeAware na;
            na.on = aware;
            uint64_t kept = 0;
            for (const auto& r : collective_rounds(layout, coll, alg, true, channels, na)) kept += r.messages.size();
            const uint64_t listed = listed_messages(layout, coll, alg, channels, na);
            CHECK(kept <= listed);
            CHECK(listed <= std::max(kept, 2 * uint64_t(p) * uint64_t(channels)));
            if (p >= 3 && (coll == Collective::Alltoall && alg != Algorithm::Bruck))
              CHECK(listed == uint64_t(p * (p - 1)));
            if (p >= 3 && alg == Algorithm::DirectMessaging) CHECK(listed == uint64_t(p * (p - 1)));
          }
        }
      }
  }
}

TEST_CASE("fabric: a message between unconnected GPUs is an error naming the step") {
  Net n;
  int a = n.add("switch", "a"), b = n.add("switch", "b");
  int g0 = n.add("gpu", "g0"), g1 = n.add("gpu", "g1");
  n.link(a, g0);
  n.link(b, g1);
  Layout layout = make_layout(2, 2, 2, Mapping{});
  FabricCommEngine::Operation op;
  op.what = "bcast";
  FabricPlacement placement{{g0, g1}, {}};
  std::string error;
  auto e = FabricCommEngine::build(n.t, cg::FabricMap{}, {}, op, placement,
                                   collective_rounds(layout, Collective::Bcast, Algorithm::BinomialTree, true), {},
                                   error);
  CHECK(!e);
  CHECK(error.find("binomial bcast step 1") == 0);
  CHECK(error.find("no path") != std::string::npos);
}

TEST_CASE("fabric: the channels of a ring are cycles over every rank, joining nodes at the same place") {
  for (int64_t nodes : {1, 2, 3, 4}) {
    Layout layout = make_layout(8 * nodes, 8, 4, Mapping{});
    auto rounds = collective_rounds(layout, Collective::Allreduce, Algorithm::Ring, true, 8);
    REQUIRE(rounds.size() == 1);
    CHECK(rounds[0].size_factor == doctest::Approx(1.0 / double(8 * nodes) / 8));
    const auto& messages = rounds[0].messages;
    REQUIRE(messages.size() == size_t(8 * 8 * nodes));
    int64_t off_place = 0;
    for (int64_t k = 0; k < 8; ++k) {
      // Channel k's messages follow one another: every rank sends once and receives once.
      std::vector<int> sends(size_t(8 * nodes)), receives(size_t(8 * nodes));
      for (int64_t i = 0; i < 8 * nodes; ++i) {
        auto [from, to] = messages[size_t(k * 8 * nodes + i)];
        sends[size_t(from)] += 1;
        receives[size_t(to)] += 1;
        if (layout.node[size_t(from)] != layout.node[size_t(to)] && from % 8 != to % 8) ++off_place;
      }
      for (int64_t r = 0; r < 8 * nodes; ++r) {
        CHECK(sends[size_t(r)] == 1);
        CHECK(receives[size_t(r)] == 1);
      }
    }
    // Between nodes the channels go from a rank to the rank of the same place in the next node, except, with an odd
    // number of nodes, the wrap from the last to the first.
    CHECK(off_place == (nodes % 2 == 1 && nodes > 1 ? 8 : 0));
  }
}

TEST_CASE("fabric: a phase's makespans kept by scaled sizes are the bits of simulating the sizes as given") {
  // Eight GPUs under two switches joined by one link: a 2 x 2 x 2 halo with 26 neighbours, whose faces, edges and
  // corners share the links unevenly (several events, rates that change as messages end).
  Net n;
  int a = n.add("switch", "a"), b = n.add("switch", "b");
  std::vector<int> gpus;
  for (int i = 0; i < 8; ++i) {
    gpus.push_back(n.add("gpu", "g[" + std::to_string(i) + "]"));
    n.link(i % 2 == 0 ? a : b, gpus.back());
  }
  n.link(a, b);
  Layout layout = make_layout(8, 8, 8, Mapping{});
  FabricCommEngine::Operation op;
  op.what = "halo";
  op.ranks = 8;
  op.nodes = 1;
  op.ranks_per_node = 8;
  op.halo = true;
  op.grid.dims = 3;
  op.grid.extent = {2, 2, 2};
  op.grid.periodic = false;
  op.grid.neighbours = 26;
  std::string error;
  auto halo = halo_messages(op.grid, 8, error);
  REQUIRE(error.empty());
  auto make = [&] {
    auto e = FabricCommEngine::build(n.t, cg::FabricMap{}, {}, op, FabricPlacement{gpus, {}}, {}, halo, error);
    REQUIRE_MESSAGE(e, error);
    return e;
  };
  auto shared = make();
  const std::vector<double> base = {3.1e6, 7.7e4, 13};
  auto scaled = [&](double k) {
    std::vector<double> s;
    for (double v : base) s.push_back(v * k);
    return s;
  };
  for (double bw : {12.5e9, 3.3e9}) {
    CAPTURE(bw);
    double first = shared->time(inputs_for(*shared, bw, 1e-7, base));
    for (double k : {8.0, 0.25, 3.0, 1.0}) {
      CAPTURE(k);
      double kept = shared->time(inputs_for(*shared, bw, 0, scaled(k)));
      auto fresh = make();
      fresh->keep_makespans(false);
      CHECK(kept == fresh->time(inputs_for(*fresh, bw, 0, scaled(k))));
      if (k == 1.0) CHECK(near(kept + 3e-7, first));  // three links of 100 ns, added outside the kept makespan
    }
  }
  // The sharing is uneven: the ratio of the kept makespans is not the ratio of any one size class.
  double t1 = shared->time(inputs_for(*shared, 12.5e9, 0, base));
  double t2 = shared->time(inputs_for(*shared, 12.5e9, 0, {base[0], base[1] * 64, base[2]}));
  CHECK(t2 != t1);
}
