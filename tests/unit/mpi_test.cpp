// mpi_test.cpp: unit tests of the communication models: the E2E paper's max-rate and K-model worked examples,
// mappings, halo patterns and collective schedules.
#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "engines/mpi/mpi_engine.h"

using namespace gpm::mpi;

namespace {

// K_inter / K_total of a periodic 2D halo (4 neighbours) over a grid of px x py ranks (x fastest), linear mapping.
PatternStats halo2d(int64_t px, int64_t py, int64_t per_node, int64_t per_socket, bool periodic = true) {
  Layout l = make_layout(px * py, per_node, per_socket, Mapping{});
  REQUIRE(l.error.empty());
  Grid g;
  g.extent = {px, py, 1};
  g.periodic = periodic;
  std::string error;
  PatternStats s = halo_pattern(l, g, error);
  REQUIRE(error.empty());
  return s;
}

// The machine inputs with only the Summit inter-node rendezvous max-rate fit set (E2E Table 4).
std::vector<double> summit_internode_rendezvous(Choice& c) {
  std::vector<double> in(size_t(in::kMachineInputs) + 3, 0.0);
  in[in::kShortMax] = 0;
  in[in::kEagerMax] = 0;  // every message of more than 0 B is rendezvous
  int f = in::fit(Locality::InterNode, Protocol::Rendezvous);
  in[size_t(f)] = 7.59e-6;     // E2E Table 2, Summit inter-node rendezvous postal alpha (s)
  in[size_t(f + 1)] = 8.70e-11;  // E2E Table 2, beta (s/B)
  in[size_t(f + 2)] = 9.33e-6;   // E2E Table 4, alpha (s)
  in[size_t(f + 3)] = 1.23e10;   // E2E Table 4, R_Cb (B/s)
  in[size_t(f + 4)] = 2.58e7;    // E2E Table 4, R_Ci (B/s)
  int idx = FitTable::index(Locality::InterNode, Protocol::Rendezvous);
  c.fits.postal[size_t(idx)] = true;
  c.fits.maxrate[size_t(idx)] = MaxRateForm::Full;
  return in;
}

// The share of the operation's bytes a schedule's rounds send from a rank, all steps together.
double moved(const std::vector<Round>& rounds) {
  double sum = 0;
  for (const auto& r : rounds) sum += r.size_factor * r.repeat;
  return sum;
}

}  // namespace

TEST_CASE("E2E section 3.1: 48 ranks in a 6 x 8 grid, one node per column of 6 -> K = 12/24, k = 3") {
  // Figure 1: ranks 0-5 form a column and share a node; x (fastest) runs along the column.
  PatternStats s = halo2d(6, 8, 6, 3);
  CHECK(s.k_inter == 12);
  CHECK(s.k_total == 24);
  CHECK(s.k_prime == 6);
  CHECK(kmodel_k(double(s.k_inter), double(s.k_total), double(s.k_prime)) == doctest::Approx(3.0));
}

TEST_CASE("E2E Table 5, Summit Jacobi2D: 6 ranks per node along rows of 48, periodic -> 14/24, k = 3.5") {
  PatternStats s = halo2d(48, 32, 6, 3);
  CHECK(s.k_inter == 14);
  CHECK(s.k_total == 24);
  CHECK(kmodel_k(double(s.k_inter), double(s.k_total), double(s.k_prime)) == doctest::Approx(3.5));
  CHECK(s.k[int(Locality::InterNode)] == 6);  // every rank has an off-node neighbour: max-rate k = 6
}

TEST_CASE("E2E Table 5, Lassen Jacobi2D: 4 ranks per node along rows -> 10/16, k = 2.5") {
  PatternStats s = halo2d(32, 24, 4, 2);
  CHECK(s.k_inter == 10);
  CHECK(s.k_total == 16);
  CHECK(kmodel_k(double(s.k_inter), double(s.k_total), double(s.k_prime)) == doctest::Approx(2.5));
}

TEST_CASE("E2E Table 5, Bridges Jacobi2D: 6 ranks in a 3 x 2 grid, 2 per node -> 4/8, k = 1") {
  // Two ranks per node along the fastest dimension, of extent 2: both x neighbours are the node's other rank.
  PatternStats s = halo2d(2, 3, 2, 1);
  CHECK(s.k_inter == 4);
  CHECK(s.k_total == 8);
  CHECK(kmodel_k(double(s.k_inter), double(s.k_total), double(s.k_prime)) == doctest::Approx(1.0));
}

TEST_CASE("E2E Table 4: Summit inter-node rendezvous max-rate, 1 MiB: k = 1 -> 94.58 us, k = 6 -> 515.5 us") {
  CHECK(maxrate_time(9.33e-6, 1.23e10, 2.58e7, 1, 1048576) * 1e6 == doctest::Approx(94.58).epsilon(1e-4));
  CHECK(maxrate_time(9.33e-6, 1.23e10, 2.58e7, 6, 1048576) * 1e6 == doctest::Approx(515.5).epsilon(1e-4));
  // The same through the engine's message pricing.
  Choice c;
  c.model = CommModel::MaxRate;
  auto in = summit_internode_rendezvous(c);
  CHECK(message_time(c, in, Locality::InterNode, 1048576, 1).time_s * 1e6 == doctest::Approx(94.58).epsilon(1e-4));
  CHECK(message_time(c, in, Locality::InterNode, 1048576, 6).time_s * 1e6 == doctest::Approx(515.5).epsilon(1e-4));
  c.model = CommModel::Postal;  // E2E eq. 1 with Table 2: 7.59 us + 1 MiB x 8.70e-11 s/B
  CHECK(message_time(c, in, Locality::InterNode, 1048576, 6).time_s * 1e6 ==
        doctest::Approx(7.59 + 1048576 * 8.70e-5).epsilon(1e-9));
}

TEST_CASE("a missing fit is an error, and max-rate falls back to postal where the paper says N/A") {
  Choice c;
  c.model = CommModel::MaxRate;
  auto in = summit_internode_rendezvous(c);
  MessageTime t = message_time(c, in, Locality::InterSocket, 1048576, 3);
  CHECK_FALSE(t.error.empty());
  c.fits.maxrate[size_t(FitTable::index(Locality::InterNode, Protocol::Rendezvous))] = MaxRateForm::None;
  t = message_time(c, in, Locality::InterNode, 1048576, 6);
  CHECK(t.error.empty());
  CHECK(t.fell_back_to_postal);
}

TEST_CASE("GPUDirect paper Table I: staged adds two copies, GPUDirect the pinning delay and rendezvous only") {
  Choice c;
  c.model = CommModel::Postal;
  auto in = summit_internode_rendezvous(c);
  in[in::kShortMax] = 64;
  in[in::kEagerMax] = 1 << 20;
  in[in::kCopyLatency] = 2000e-9;
  in[in::kCopyPerByte] = 0.07e-9;
  in[in::kPinDelay] = 4000e-9;
  double base = 7.59e-6 + 2e6 * 8.70e-11;
  c.transport = Transport::Staged;
  CHECK(message_time(c, in, Locality::InterNode, 2e6, 1).time_s == doctest::Approx(base + 2 * (2e-6 + 2e6 * 0.07e-9)));
  c.transport = Transport::GpuDirect;
  CHECK(message_time(c, in, Locality::InterNode, 2e6, 1).time_s == doctest::Approx(base + 4e-6));
  MessageTime small = message_time(c, in, Locality::InterNode, 1000, 1);
  CHECK(small.protocol == Protocol::Rendezvous);
}

TEST_CASE("staging in pieces: a staged message larger than the chunk goes as equal pieces, pipelined") {
  Choice c;
  c.model = CommModel::Postal;
  c.transport = Transport::Staged;
  auto in = summit_internode_rendezvous(c);  // every message rendezvous
  in[in::kCopyLatency] = 2000e-9;
  in[in::kCopyPerByte] = 0.07e-9;
  in[in::kStagingChunk] = 262144;  // MVAPICH2's MV2_CUDA_BLOCK_SIZE default
  // 2e6 B in ceil(2e6 / 262144) = 8 pieces of 250,000 B, each copied (2 us + 250,000 x 0.07 ns = 19.5 us), sent
  // (postal: 7.59 us + 250,000 x 0.087 ns = 29.34 us) and copied back: network-bound, so
  // 19.5 + 8 x 29.34 + 19.5 us.
  MessageTime m = message_time(c, in, Locality::InterNode, 2e6, 1);
  CHECK(m.chunks == 8);
  const double copy = 2e-6 + 250000 * 0.07e-9, net = 7.59e-6 + 250000 * 8.70e-11;
  CHECK(m.before_s == doctest::Approx(copy));
  CHECK(m.after_s == doctest::Approx(copy));
  CHECK(m.network_s == doctest::Approx(net));
  CHECK(m.time_s == doctest::Approx(2 * copy + 8 * net));
  // The rank's pipeline takes the pieces as messages: one message of 8 pieces is the flow shop of 8 pieces.
  MessagePipeline p;
  p.add(m, 1);
  CHECK(p.end_s() == doctest::Approx(m.time_s));
  // A message no larger than the chunk, or a chunk of 0: whole, as the GPUDirect paper stages it (the serial sum).
  CHECK(message_time(c, in, Locality::InterNode, 262144, 1).chunks == 1);
  in[in::kStagingChunk] = 0;
  MessageTime whole = message_time(c, in, Locality::InterNode, 2e6, 1);
  CHECK(whole.chunks == 1);
  CHECK(whole.time_s == doctest::Approx(2 * (2e-6 + 2e6 * 0.07e-9) + 7.59e-6 + 2e6 * 8.70e-11));
  CHECK(m.time_s < whole.time_s);
  // Only staged messages are split.
  in[in::kStagingChunk] = 262144;
  c.transport = Transport::GpuDirect;
  in[in::kPinDelay] = 4000e-9;
  CHECK(message_time(c, in, Locality::InterNode, 2e6, 1).chunks == 1);
}

namespace {
MessageTime staged_message(double before, double network, double after) {
  MessageTime m;
  m.before_s = before;
  m.network_s = network;
  m.after_s = after;
  m.time_s = before + network + after;
  return m;
}
}  // namespace

TEST_CASE("staging pipeline: copies overlap the rank's other messages (GPUDirect paper III-c, flow shop)") {
  // Four 8 MB messages, Table I copies: c = 2 us + 8e6 x 0.07 ns = 562 us each side; network 800 us each.
  // Network-bound: the first copy, four transfers, the last copy: 562 + 4 x 800 + 562 = 4324 us.
  MessagePipeline net_bound;
  net_bound.add(staged_message(562e-6, 800e-6, 562e-6), 4);
  CHECK(net_bound.end_s() == doctest::Approx(4324e-6));
  // Copy-bound (network 100 us): the four sender copies, the last transfer, the last receiver copy:
  // 4 x 562 + 100 + 562 = 2910 us.
  MessagePipeline copy_bound;
  copy_bound.add(staged_message(562e-6, 100e-6, 562e-6), 4);
  CHECK(copy_bound.end_s() == doctest::Approx(2910e-6));
  // One message alone: the serial sum.
  MessagePipeline one;
  one.add(staged_message(2e-6, 5e-6, 3e-6), 1);
  CHECK(one.end_s() == doctest::Approx(10e-6));
  // No delays: the plain sum of network times.
  MessagePipeline plain;
  plain.add(staged_message(0, 7e-6, 0), 3);
  plain.add(staged_message(0, 1e-6, 0), 2);
  CHECK(plain.end_s() == doctest::Approx(23e-6));
  // Runs of different messages equal the recurrence applied message by message.
  struct Job { double a, b, c; int n; };
  std::vector<Job> jobs = {{3, 1, 2, 3}, {1, 5, 1, 2}, {4, 2, 6, 4}, {0.5, 0.5, 0.5, 1}};
  MessagePipeline runs;
  double s1 = 0, s2 = 0, s3 = 0;
  for (const Job& j : jobs) {
    runs.add(staged_message(j.a, j.b, j.c), j.n);
    for (int i = 0; i < j.n; ++i) {
      s1 += j.a;
      s2 = std::max(s2, s1) + j.b;
      s3 = std::max(s3, s2) + j.c;
    }
  }
  CHECK(runs.end_s() == doctest::Approx(s3));
}

TEST_CASE("mappings: linear, cyclic, block and explicit place ranks on nodes and sockets") {
  Layout lin = make_layout(12, 6, 3, Mapping{});
  CHECK(lin.nodes == 2);
  CHECK(lin.node[5] == 0);
  CHECK(lin.node[6] == 1);
  CHECK(lin.locality(0, 2) == Locality::IntraSocket);
  CHECK(lin.locality(0, 3) == Locality::InterSocket);
  CHECK(lin.locality(0, 6) == Locality::InterNode);
  Layout cyc = make_layout(12, 6, 3, Mapping{Mapping::Kind::Cyclic, 1, {}});
  CHECK(cyc.node[0] == 0);
  CHECK(cyc.node[1] == 1);
  CHECK(cyc.locality(0, 2) == Locality::IntraSocket);
  CHECK(cyc.locality(0, 6) == Locality::InterSocket);
  Layout blk = make_layout(12, 6, 3, Mapping{Mapping::Kind::Block, 2, {}});
  CHECK(blk.node[1] == 0);
  CHECK(blk.node[2] == 1);
  CHECK(blk.node[4] == 0);
  Layout ex = make_layout(4, 2, 1, Mapping{Mapping::Kind::Explicit, 1, {1, 0, 1, 0}});
  CHECK(ex.error.empty());
  CHECK(ex.locality(0, 2) == Locality::InterSocket);
  CHECK(ex.locality(0, 1) == Locality::InterNode);
  CHECK_FALSE(make_layout(4, 1, 1, Mapping{Mapping::Kind::Explicit, 1, {0, 0, 1, 1}}).error.empty());
  CHECK_FALSE(make_layout(4, 2, 1, Mapping{Mapping::Kind::Explicit, 1, {0, 1}}).error.empty());
}

TEST_CASE("halo neighbourhoods: 8 in 2D, 6 and 26 in 3D; non-periodic edges send less") {
  Layout l = make_layout(27, 27, 27, Mapping{});
  Grid g;
  g.dims = 3;
  g.extent = {3, 3, 3};
  g.neighbours = 26;
  std::string error;
  PatternStats s = halo_pattern(l, g, error);
  REQUIRE(error.empty());
  CHECK(s.messages == 27 * 26);
  g.neighbours = 6;
  g.periodic = false;
  s = halo_pattern(l, g, error);
  CHECK(s.messages == 6 * 9 * 2);  // 3 directions x 9 lines x 2 messages per line of 3
  Layout l2 = make_layout(16, 4, 4, Mapping{});
  Grid g2;
  g2.extent = {4, 4, 1};
  g2.neighbours = 8;
  s = halo_pattern(l2, g2, error);
  CHECK(s.messages == 16 * 8);
  g2.extent = {4, 3, 1};
  s = halo_pattern(l2, g2, error);
  CHECK_FALSE(error.empty());
}

TEST_CASE("balanced extents put the largest factor along x") {
  CHECK(balanced_extents(1536, 2) == std::array<int64_t, 3>{48, 32, 1});
  CHECK(balanced_extents(768, 2) == std::array<int64_t, 3>{32, 24, 1});
  CHECK(balanced_extents(64, 3) == std::array<int64_t, 3>{4, 4, 4});
  CHECK(balanced_extents(7, 2) == std::array<int64_t, 3>{7, 1, 1});
}

TEST_CASE("collectives: step counts of each algorithm") {
  Layout l = make_layout(16, 4, 2, Mapping{});
  CHECK(collective_rounds(l, Collective::Allreduce, Algorithm::RecursiveDoubling).size() == 4);
  CHECK(collective_rounds(l, Collective::Allreduce, Algorithm::BinomialTree).size() == 8);
  auto ring = collective_rounds(l, Collective::Allreduce, Algorithm::Ring);
  REQUIRE(ring.size() == 1);
  CHECK(ring[0].repeat == 30);
  CHECK(ring[0].size_factor == doctest::Approx(1.0 / 16));
  auto rab = collective_rounds(l, Collective::Allreduce, Algorithm::Rabenseifner);
  REQUIRE(rab.size() == 8);
  CHECK(rab[0].size_factor == doctest::Approx(0.5));
  CHECK(rab[7].size_factor == doctest::Approx(0.5));
  Layout odd = make_layout(6, 2, 1, Mapping{});
  CHECK(collective_rounds(odd, Collective::Allreduce, Algorithm::RecursiveDoubling).size() == 4);  // fold in/out
  CHECK(collective_rounds(odd, Collective::Barrier, Algorithm::Dissemination).size() == 3);
  auto a2a = collective_rounds(l, Collective::Alltoall, Algorithm::Pairwise);
  REQUIRE(a2a.size() == 1);
  CHECK(a2a[0].stats.messages == 16 * 15);
  CHECK(a2a[0].stats.k_inter == 4 * 12);
}

TEST_CASE("collectives: the long-message bcast and reduce move 2 (p - 1) / p of the buffer (Thakur et al. 2005)") {
  Layout l = make_layout(16, 4, 2, Mapping{});
  auto bcast = collective_rounds(l, Collective::Bcast, Algorithm::ScatterAllgather);
  REQUIRE(bcast.size() == 5);  // 4 scatter steps, then the ring's 15 steps as one repeated round
  CHECK(bcast[0].size_factor == doctest::Approx(0.5));
  CHECK(bcast[3].size_factor == doctest::Approx(1.0 / 16));
  CHECK(bcast[4].repeat == 15);
  CHECK(moved(bcast) == doctest::Approx(2.0 * 15 / 16));
  CHECK(bcast[0].stats.messages == 1);  // rank 0 -> 8
  auto reduce = collective_rounds(l, Collective::Reduce, Algorithm::Rabenseifner);
  REQUIRE(reduce.size() == 8);  // 4 halving steps, 4 gather steps
  CHECK(moved(reduce) == doctest::Approx(2.0 * 15 / 16));
  CHECK(reduce[7].stats.messages == 1);  // the last gather step: 8 -> 0
  // Six ranks: the scatter's first step hands ranks 4 and 5 their share (2/6), not 4/6.
  Layout six = make_layout(6, 2, 1, Mapping{});
  auto bcast6 = collective_rounds(six, Collective::Bcast, Algorithm::ScatterAllgather);
  REQUIRE(bcast6.size() == 4);
  CHECK(bcast6[0].size_factor == doctest::Approx(2.0 / 6));
  CHECK(bcast6[2].size_factor == doctest::Approx(1.0 / 6));
  CHECK(algorithm_allowed(Collective::Bcast, Algorithm::ScatterAllgather));
  CHECK_FALSE(algorithm_allowed(Collective::Reduce, Algorithm::ScatterAllgather));
}

TEST_CASE("collectives: Bruck, scattered and the recursive-doubling broadcast (MPICH's algorithms)") {
  // Bruck's allgather over 6 ranks: steps of 1, 2 and 3 blocks to r - 1, r - 2, r - 4: p - 1 = 5 blocks in all.
  Layout six = make_layout(6, 2, 1, Mapping{});
  auto ag = collective_rounds(six, Collective::Allgather, Algorithm::Bruck, true);
  REQUIRE(ag.size() == 3);
  CHECK(ag[0].size_factor == 1);
  CHECK(ag[1].size_factor == 2);
  CHECK(ag[2].size_factor == 2);  // min(4, 6 - 4)
  CHECK(moved(ag) == 5);
  REQUIRE(ag[2].messages.size() == 6);
  CHECK(ag[2].messages[0] == std::pair<int32_t, int32_t>{0, 2});  // 0 - 4 mod 6
  // Bruck's all-to-all over 8 ranks: 3 steps of the 4 blocks whose index has the step's bit set, to r + 2^k.
  Layout l = make_layout(8, 4, 2, Mapping{});
  auto a2a = collective_rounds(l, Collective::Alltoall, Algorithm::Bruck, true);
  REQUIRE(a2a.size() == 3);
  for (const auto& round : a2a) CHECK(round.size_factor == 4);
  CHECK(a2a[1].messages[0] == std::pair<int32_t, int32_t>{0, 2});
  // Scattered over 40 ranks: 39 shifts in batches of 32 and 7, every message of a batch in flight together.
  Layout forty = make_layout(40, 8, 4, Mapping{});
  auto sc = collective_rounds(forty, Collective::Alltoall, Algorithm::Scattered, true);
  REQUIRE(sc.size() == 2);
  CHECK(sc[0].messages.size() == 40 * 32);
  CHECK(sc[1].messages.size() == 40 * 7);
  CHECK(sc[0].steps_each + sc[1].steps_each == 39);
  // Without kept messages (the fitted models) it is the pairwise exchange's statistics.
  auto sc_stats = collective_rounds(forty, Collective::Alltoall, Algorithm::Scattered);
  auto pw_stats = collective_rounds(forty, Collective::Alltoall, Algorithm::Pairwise);
  REQUIRE(sc_stats.size() == 1);
  CHECK(sc_stats[0].stats.messages == pw_stats[0].stats.messages);
  // The broadcast: 4 scatter steps, then 4 recursive-doubling steps of n / 16 .. n / 2: 2 (p - 1) / p of n.
  Layout sixteen = make_layout(16, 4, 2, Mapping{});
  auto bc = collective_rounds(sixteen, Collective::Bcast, Algorithm::ScatterDoublingAllgather);
  REQUIRE(bc.size() == 8);
  CHECK(bc[4].size_factor == doctest::Approx(1.0 / 16));
  CHECK(bc[7].size_factor == doctest::Approx(0.5));
  CHECK(bc[7].stats.messages == 16);
  CHECK(moved(bc) == doctest::Approx(2.0 * 15 / 16));
  CHECK(algorithm_allowed(Collective::Bcast, Algorithm::ScatterDoublingAllgather));
  CHECK(algorithm_allowed(Collective::Allgather, Algorithm::Bruck));
  CHECK_FALSE(algorithm_allowed(Collective::Allreduce, Algorithm::Bruck));
}

TEST_CASE("collectives: the hierarchical all-reduce moves 2 (p - 1) / p of the buffer, in three rings") {
  // 3 nodes of 4 ranks: a ring reduce-scatter in each node (3 steps of n / 4), one ring per rail among the nodes
  // (4 steps of n / 12), a ring allgather in each node (3 steps of n / 4).
  Layout l = make_layout(12, 4, 2, Mapping{});
  auto h = collective_rounds(l, Collective::Allreduce, Algorithm::Hierarchical, true);
  REQUIRE(h.size() == 3);
  CHECK(h[0].repeat == 3);
  CHECK(h[0].size_factor == doctest::Approx(0.25));
  CHECK(h[1].repeat == 4);
  CHECK(h[1].size_factor == doctest::Approx(1.0 / 12));
  CHECK(moved(h) == doctest::Approx(2.0 * 11 / 12));
  REQUIRE(h[1].messages.size() == 12);
  CHECK(h[1].messages[1] == std::pair<int32_t, int32_t>{1, 5});  // place 1 of node 0 to place 1 of node 1
  CHECK(h[1].stats.k_inter == 4);                                // every rank of a node sends off the node
  CHECK(h[0].stats.k_inter == 0);
  CHECK(balanced_nodes(l));
  CHECK_FALSE(balanced_nodes(make_layout(10, 4, 2, Mapping{})));
  // One rank per node: only the rings among the nodes.
  CHECK(collective_rounds(make_layout(4, 1, 1, Mapping{}), Collective::Allreduce, Algorithm::Hierarchical).size() == 1);
}

TEST_CASE("collectives: binomial gather and scatter move p - 1 blocks to or from rank 0") {
  // 6 ranks: the gather's steps hand 1 block (1 -> 0, 3 -> 2, 5 -> 4), 2 blocks (2 -> 0), 2 blocks (4 -> 0).
  Layout six = make_layout(6, 2, 1, Mapping{});
  auto gather = collective_rounds(six, Collective::Gather, Algorithm::BinomialTree, true);
  REQUIRE(gather.size() == 3);
  CHECK(gather[0].messages.size() == 3);
  CHECK(gather[2].messages == std::vector<std::pair<int32_t, int32_t>>{{4, 0}});
  CHECK(moved(gather) == 5);
  auto scatter = collective_rounds(six, Collective::Scatter, Algorithm::BinomialTree, true);
  REQUIRE(scatter.size() == 3);
  CHECK(scatter[0].messages == std::vector<std::pair<int32_t, int32_t>>{{0, 4}});
  CHECK(scatter[0].size_factor == 2);
  CHECK(moved(scatter) == 5);
  CHECK(default_algorithm(Collective::Gather) == Algorithm::BinomialTree);
  CHECK_FALSE(algorithm_allowed(Collective::Scatter, Algorithm::Ring));
}

TEST_CASE("collectives: a reduce-scatter moves (p - 1) / p of the buffer from each rank") {
  Layout l = make_layout(16, 4, 2, Mapping{});
  CHECK(default_algorithm(Collective::ReduceScatter) == Algorithm::Ring);
  auto ring = collective_rounds(l, Collective::ReduceScatter, Algorithm::Ring);
  REQUIRE(ring.size() == 1);
  CHECK(ring[0].repeat == 15);
  CHECK(moved(ring) == doctest::Approx(15.0 / 16));
  auto halving = collective_rounds(l, Collective::ReduceScatter, Algorithm::RecursiveHalving);
  REQUIRE(halving.size() == 4);  // n/2, n/4, n/8, n/16
  CHECK(halving[0].size_factor == doctest::Approx(0.5));
  CHECK(moved(halving) == doctest::Approx(15.0 / 16));
  CHECK(halving[0].stats.messages == 16);  // every rank sends in every step
  // Six ranks: 2 fold in their whole buffer, 4 halve (n/2, n/4), then the 2 get their n / 6 share back.
  auto six = collective_rounds(make_layout(6, 2, 1, Mapping{}), Collective::ReduceScatter, Algorithm::RecursiveHalving);
  REQUIRE(six.size() == 4);
  CHECK(six[0].size_factor == 1);
  CHECK(six[0].stats.messages == 2);
  CHECK(six[3].size_factor == doctest::Approx(1.0 / 6));
  CHECK_FALSE(algorithm_allowed(Collective::ReduceScatter, Algorithm::Pipeline));
}

TEST_CASE("collectives: a pipelined chain takes p + S - 2 steps of n / S, S the fastest power of two") {
  // Summit's inter-node rendezvous postal fit only (7.59 us, 8.70e-11 s/B), one rank per node, so every hop of
  // the chain is inter-node: T(S) = (p + S - 2)(alpha + beta n / S) (Pjesivac-Grbovic et al. 2007).
  Choice c;
  c.model = CommModel::Postal;
  auto in = summit_internode_rendezvous(c);
  const double alpha = 7.59e-6, beta = 8.70e-11, n = 64.0 * 1024 * 1024;
  const int64_t p = 8;
  in[size_t(in::kMachineInputs)] = n;
  Layout l = make_layout(p, 1, 1, Mapping{});
  for (Collective op : {Collective::Bcast, Collective::Reduce}) {
    CHECK(algorithm_allowed(op, Algorithm::Pipeline));
    auto rounds = collective_rounds(l, op, Algorithm::Pipeline);
    REQUIRE(rounds.size() == 1);
    CHECK(rounds[0].pipeline_hops == p - 1);
    CHECK(rounds[0].stats.messages == p - 1);
    auto e = CommEngine::collective(c, l, op, Algorithm::Pipeline);
    auto hockney = [&](double s) { return (double(p) + s - 2) * (alpha + beta * n / s); };
    // A given segment: 1 MiB -> S = 64.
    in[size_t(in::kMachineInputs) + 1] = 1024.0 * 1024;
    CHECK(e->time(in) == doctest::Approx(hockney(64)));
    // A segment that does not divide the buffer rounds the count up: 3 MB -> S = ceil(22.4) = 23.
    in[size_t(in::kMachineInputs) + 1] = 3e6;
    CHECK(e->time(in) == doctest::Approx(hockney(23)));
    // No segment: the best power of two, here near the continuous optimum sqrt((p - 2) beta n / alpha) = 68.
    in[size_t(in::kMachineInputs) + 1] = 0;
    double best = hockney(1), best_s = 1;
    for (double s = 2; s <= n; s *= 2)
      if (hockney(s) < best) best = hockney(s), best_s = s;
    CHECK(best_s == 64);
    auto r = e->run(in);
    REQUIRE(r.error.empty());
    CHECK(r.time_s == doctest::Approx(best));
    CHECK(r.time_s == e->time(in));
    CHECK(r.detail["rounds"][0]["segments"] == 64.0);
    CHECK(r.detail["rounds"][0]["repeat"] == double(p - 1 + 64 - 1));
    // Pipelining beats the binomial tree's 3 full-size steps at this size.
    CHECK(r.time_s < CommEngine::collective(c, l, op, Algorithm::BinomialTree)->time(in));
  }
  CHECK_FALSE(algorithm_allowed(Collective::Allreduce, Algorithm::Pipeline));
}

TEST_CASE("the halo engine orders postal < K-model < max-rate when nodes share their messages") {
  Choice c;
  auto in = summit_internode_rendezvous(c);
  c.fits.postal[size_t(FitTable::index(Locality::IntraSocket, Protocol::Rendezvous))] = true;
  c.fits.postal[size_t(FitTable::index(Locality::InterSocket, Protocol::Rendezvous))] = true;
  in[size_t(in::fit(Locality::IntraSocket, Protocol::Rendezvous))] = 2.18e-6;  // E2E Table 2, Summit
  in[size_t(in::fit(Locality::IntraSocket, Protocol::Rendezvous) + 1)] = 5.37e-11;
  in[size_t(in::fit(Locality::InterSocket, Protocol::Rendezvous))] = 4.60e-6;
  in[size_t(in::fit(Locality::InterSocket, Protocol::Rendezvous) + 1)] = 1.18e-10;
  in[size_t(in::kMachineInputs)] = 131072;  // face: 16384 doubles
  Layout l = make_layout(1536, 6, 3, Mapping{});
  Grid g;
  g.extent = {48, 32, 1};
  double t[3];
  for (int m = 0; m < 3; ++m) {
    c.model = CommModel(m);
    std::string error;
    auto e = CommEngine::halo(c, l, g, error);
    REQUIRE(e);
    auto r = e->run(in);
    REQUIRE(r.error.empty());
    CHECK(r.time_s == e->time(in));
    t[m] = r.time_s;
  }
  CHECK(t[0] < t[2]);
  CHECK(t[2] < t[1]);
}
