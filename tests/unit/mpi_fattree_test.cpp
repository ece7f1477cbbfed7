// mpi_fattree_test.cpp: unit tests of the fat tree in the communication engine: leaves from the mapping, off-leaf
// routes and counts, and the up-link share and switch hops of a message, against hand-computed values.
#include <doctest/doctest.h>

#include <vector>

#include "engines/mpi/mpi_engine.h"
#include "test_support.h"

using namespace gpm::mpi;
using gpm::test::approx;

namespace {

// The machine inputs with the Summit inter-node rendezvous max-rate and postal fits (E2E Tables 2 and 4) and the
// GPUDirect paper's fat tree (section IV-a): EDR links of 12.5 GB/s, 1.5:1 taper, 90 ns switches.
std::vector<double> summit_on_edr_tree(Choice& c) {
  std::vector<double> in(size_t(in::kMachineInputs) + 3, 0.0);
  in[in::kShortMax] = 0;
  in[in::kEagerMax] = 0;
  in[in::kLinkBw] = 12.5e9;
  in[in::kTaper] = 1.5;
  in[in::kSwitchLatency] = 90e-9;
  int at = in::fit(Locality::InterNode, Protocol::Rendezvous);
  in[size_t(at)] = 7.59e-6;
  in[size_t(at) + 1] = 8.70e-11;
  in[size_t(at) + 2] = 9.33e-6;
  in[size_t(at) + 3] = 1.23e10;
  in[size_t(at) + 4] = 2.58e7;
  int f = FitTable::index(Locality::InterNode, Protocol::Rendezvous);
  c.fits.postal[size_t(f)] = true;
  c.fits.maxrate[size_t(f)] = MaxRateForm::Full;
  c.tree.present = true;
  c.tree.nodes_per_leaf = 18;
  c.tree.levels = 3;
  return in;
}

}  // namespace

TEST_CASE("fat tree: an off-leaf message takes the longer of its NIC and up-link shares, plus 4 switch hops") {
  Choice c;
  c.model = CommModel::MaxRate;
  auto in = summit_on_edr_tree(c);
  const double n = 1048576;
  // Up-links of a leaf: 18 x 12.5 GB/s / 1.5 = 150 GB/s. 72 ranks sending off-leaf: 72 x 1 MiB / 150 GB/s =
  // 503.316 us, more than the NIC's 1 MiB / 12.3 GB/s = 85.25 us (k = 1). 3 levels: 4 more switches, 0.36 us.
  MessageTime up = message_time(c, in, Locality::InterNode, n, 1, 72);
  CHECK(up.time_s == approx(9.33e-6 + 72 * n / 150e9 + 4 * 90e-9));
  // 10 ranks: 69.9 us on the up-links, less than the NIC's share, which then decides.
  MessageTime nic = message_time(c, in, Locality::InterNode, n, 1, 10);
  CHECK(nic.time_s == approx(9.33e-6 + n / 1.23e10 + 4 * 90e-9));
  // Within the leaf (k_leaf 0): the plain max-rate time (Table 4: 94.58 us).
  CHECK(message_time(c, in, Locality::InterNode, n, 1, 0).time_s == doctest::Approx(94.58e-6).epsilon(1e-3));
  // Postal has no contention: only the hops.
  c.model = CommModel::Postal;
  CHECK(message_time(c, in, Locality::InterNode, n, 1, 72).time_s == approx(7.59e-6 + 8.70e-11 * n + 4 * 90e-9));
  // Two levels: leaf, spine, leaf: 2 more switches.
  c.tree.levels = 2;
  CHECK(message_time(c, in, Locality::InterNode, n, 1, 72).time_s == approx(7.59e-6 + 8.70e-11 * n + 2 * 90e-9));
}

TEST_CASE("fat tree: leaves from the mapping, off-leaf routes and the leaf's K counts") {
  // 32 ranks, 4 per node (2 per socket), 2 nodes per leaf: ranks 0-7 under leaf 0, 8-15 under leaf 1, ...
  Layout l = make_layout(32, 4, 2, Mapping{});
  REQUIRE(l.error.empty());
  l.nodes_per_leaf = 2;
  CHECK(l.leaves() == 4);
  CHECK(l.leaf_of(7) == 0);
  CHECK(l.leaf_of(8) == 1);
  CHECK(l.route(0, 1) == int(Locality::IntraSocket));
  CHECK(l.route(0, 4) == int(Locality::InterNode));
  CHECK(l.route(0, 8) == kOffLeaf);
  // A periodic 4 x 8 halo: a node is a grid row, a leaf two rows. Each rank sends one message to the other row of
  // its leaf and one to a row of another leaf: the leaf sends 32 messages, 8 of them off-leaf, from all 8 ranks.
  Grid g;
  g.extent = {4, 8, 1};
  std::string error;
  PatternStats s = halo_pattern(l, g, error);
  REQUIRE(error.empty());
  CHECK(s.k_offleaf == 8);
  CHECK(s.k_leaf_total == 32);
  CHECK(s.k_leaf_prime == 8);
  CHECK(s.k_leaf == 8);
  CHECK(s.k_inter == 8);  // per node: 4 ranks x 2 inter-node messages (same leaf or not)
  CHECK(s.k_total == 16);
  REQUIRE(s.signatures.size() == 1);
  const auto& sig = s.signatures[0];
  CHECK(sig[size_t(int(Locality::InterNode) * kSizeKinds)] == 1);
  CHECK(sig[size_t(kOffLeaf * kSizeKinds)] == 1);
  // Without a tree the same pattern has no off-leaf route.
  Layout flat = make_layout(32, 4, 2, Mapping{});
  PatternStats f = halo_pattern(flat, g, error);
  CHECK(f.k_offleaf == 0);
  CHECK(f.signatures[0][size_t(int(Locality::InterNode) * kSizeKinds)] == 2);
}
