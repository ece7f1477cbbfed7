// mpi_library_test.cpp: MPICH's choice of a collective's algorithm (engines/mpi/library_choice.h) against its
// selection trees (maint/tuning/coll/mpir/generic.json, ch4/generic.json) read by hand, the stdlib's `mpich` type
// against the schema, and the node-aware compositions' schedules.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "engines/mpi/library_choice.h"
#include "frontend/schema.h"

using namespace gpm;
using namespace gpm::mpi;

namespace {

// stdlib/mpi.gpm's `mpich`, in mpi_library_attributes() order.
const std::vector<double> kMpich = {8, 2048, 12288, 524288, 8, 81920, 524288, 524288, 256, 32768, 8, 64, 4, 2, 2048};

LibraryChoice choose(Collective c, int64_t ranks, int64_t per_node, double bytes, double element = 8) {
  return mpich_choice(kMpich, c, make_layout(ranks, per_node, per_node, Mapping{}), bytes, element);
}

}  // namespace

TEST_CASE("mpi library: the schema's attributes are the choice's, in a known order") {
  std::set<std::string> schema, engine;
  for (const auto& spec : *frontend::attribute_schema("mpi_library")) schema.insert(spec.name);
  for (const auto& name : mpi_library_attributes()) engine.insert(name);
  CHECK(schema == engine);
  CHECK(mpi_library_attributes().size() == kMpich.size());
}

TEST_CASE("mpi library: MPICH's flat choices (one rank per node), generic.json read by hand") {
  // allreduce: avg_msg_size <= 8 -> recursive doubling; count < pof2 -> recursive doubling; else Rabenseifner.
  CHECK(choose(Collective::Allreduce, 64, 1, 8).algorithm == Algorithm::RecursiveDoubling);
  CHECK(choose(Collective::Allreduce, 64, 1, 256).algorithm == Algorithm::RecursiveDoubling);  // 32 doubles < 64
  CHECK(choose(Collective::Allreduce, 64, 1, 256).counted);  // 4-byte elements would be 64: Rabenseifner
  CHECK(choose(Collective::Allreduce, 64, 1, 256, 4).algorithm == Algorithm::Rabenseifner);
  CHECK(choose(Collective::Allreduce, 64, 1, 1 << 20).algorithm == Algorithm::Rabenseifner);
  CHECK_FALSE(choose(Collective::Allreduce, 64, 1, 1 << 20).counted);
  CHECK_FALSE(choose(Collective::Allreduce, 64, 1, 1 << 20).node_aware.on);
  // bcast: fewer than 8 ranks or <= 12288 B binomial; a power of two <= 512 KiB scatter + recursive doubling.
  CHECK(choose(Collective::Bcast, 4, 1, 1 << 20).algorithm == Algorithm::BinomialTree);
  CHECK(choose(Collective::Bcast, 16, 1, 12288).algorithm == Algorithm::BinomialTree);
  CHECK(choose(Collective::Bcast, 16, 1, 12289).algorithm == Algorithm::ScatterDoublingAllgather);
  CHECK(choose(Collective::Bcast, 16, 1, 524289).algorithm == Algorithm::ScatterAllgather);
  CHECK(choose(Collective::Bcast, 12, 1, 12289).algorithm == Algorithm::ScatterAllgather);
  // allgather: power of two, output < 512 KiB recursive doubling; otherwise output < 80 KiB Bruck; else a ring.
  CHECK(choose(Collective::Allgather, 16, 1, 32767).algorithm == Algorithm::RecursiveDoubling);
  CHECK(choose(Collective::Allgather, 16, 1, 32768).algorithm == Algorithm::Ring);
  CHECK(choose(Collective::Allgather, 10, 1, 8191).algorithm == Algorithm::Bruck);
  CHECK(choose(Collective::Allgather, 10, 1, 8192).algorithm == Algorithm::Ring);
  // reduce_scatter (commutative): total < 512 KiB recursive halving, else pairwise.
  CHECK(choose(Collective::ReduceScatter, 16, 1, 524287).algorithm == Algorithm::RecursiveHalving);
  CHECK(choose(Collective::ReduceScatter, 16, 1, 524288).algorithm == Algorithm::Pairwise);
  // alltoall: from 8 ranks <= 256 B Bruck; <= 32 KiB scattered; else pairwise; under 8 ranks never Bruck.
  CHECK(choose(Collective::Alltoall, 8, 1, 256).algorithm == Algorithm::Bruck);
  CHECK(choose(Collective::Alltoall, 7, 1, 256).algorithm == Algorithm::Scattered);
  CHECK(choose(Collective::Alltoall, 8, 1, 32768).algorithm == Algorithm::Scattered);
  CHECK(choose(Collective::Alltoall, 8, 1, 32769).algorithm == Algorithm::Pairwise);
  // reduce: <= 2048 B binomial, else Rabenseifner.
  CHECK(choose(Collective::Reduce, 16, 1, 2048).algorithm == Algorithm::BinomialTree);
  CHECK(choose(Collective::Reduce, 16, 1, 1 << 20).algorithm == Algorithm::Rabenseifner);
  CHECK(choose(Collective::Barrier, 16, 1, 0).algorithm == Algorithm::Dissemination);
}

TEST_CASE("mpi library: ch4's node-aware compositions, and MPIR's choice among the nodes") {
  // 8 nodes of 4 ranks: allreduce composes; among the 8 nodes 1 MiB is Rabenseifner's; within a node the reduce's
  // tree has 2 children per rank above 2048 B, 4 below.
  auto big = choose(Collective::Allreduce, 32, 4, 1 << 20);
  CHECK(big.node_aware.on);
  CHECK(big.algorithm == Algorithm::Rabenseifner);
  CHECK(big.node_aware.reduce_k == 2);
  CHECK(big.node_aware.bcast_k == 64);
  CHECK(choose(Collective::Allreduce, 32, 4, 8).node_aware.reduce_k == 4);
  // 48 doubles among 8 nodes: count >= 8, Rabenseifner among them (flat over 32 ranks it would be recursive doubling).
  CHECK(choose(Collective::Allreduce, 32, 4, 384).algorithm == Algorithm::Rabenseifner);
  // One node, or one rank per node: flat.
  CHECK_FALSE(choose(Collective::Allreduce, 4, 4, 1 << 20).node_aware.on);
  CHECK_FALSE(choose(Collective::Allreduce, 8, 1, 1 << 20).node_aware.on);
  // bcast composes below 12288 B, or below 512 KiB over a power of two of ranks; flat above.
  CHECK(choose(Collective::Bcast, 32, 4, 12287).node_aware.on);
  CHECK(choose(Collective::Bcast, 32, 4, 524287).node_aware.on);
  CHECK_FALSE(choose(Collective::Bcast, 32, 4, 524288).node_aware.on);
  CHECK_FALSE(choose(Collective::Bcast, 24, 4, 12288).node_aware.on);
  // allgather, alltoall and reduce_scatter run flat.
  CHECK_FALSE(choose(Collective::Allgather, 32, 4, 1024).node_aware.on);
  CHECK(choose(Collective::Reduce, 32, 4, 1 << 20).node_aware.on);
  CHECK(choose(Collective::Barrier, 32, 4, 0).node_aware.on);
}

TEST_CASE("mpi library: a node-aware allreduce reduces up each node's tree, runs among the nodes, broadcasts down") {
  // 3 nodes of 4 ranks (0-3, 4-7, 8-11), the reduce's tree of 2 children (1, 2 under 0; 3 under 1), the bcast's of
  // 64 (every rank under the first): level 2 up, level 1 up, the nodes' recursive doubling (fold in, 1 step, fold
  // out over 3 nodes), then one broadcast step.
  Layout l = make_layout(12, 4, 4, Mapping{});
  NodeAware na{true, 64, 2};
  auto rounds = collective_rounds(l, Collective::Allreduce, Algorithm::RecursiveDoubling, true, 1, na);
  REQUIRE(rounds.size() == 2 + 3 + 1);
  CHECK(rounds[0].messages == std::vector<std::pair<int32_t, int32_t>>{{3, 1}, {7, 5}, {11, 9}});
  CHECK(rounds[1].messages.size() == 6);  // 1 -> 0, 2 -> 0 in each node
  CHECK(rounds[2].messages == std::vector<std::pair<int32_t, int32_t>>{{8, 0}});  // fold in: the third node's first
  CHECK(rounds[3].messages == std::vector<std::pair<int32_t, int32_t>>{{0, 4}, {4, 0}});
  CHECK(rounds[5].messages.size() == 9);  // 3 from each node's first rank
  CHECK(rounds[5].stats.k_total == 3);    // one sender per node, three messages each
  for (const auto& r : rounds) CHECK(r.size_factor == 1);
  // The fitted models count a sender's three messages one after another.
  auto stats = collective_rounds(l, Collective::Allreduce, Algorithm::RecursiveDoubling, false, 1, na);
  CHECK(stats[5].stats.messages == 9);
  CHECK(stats[5].messages.empty());
}
