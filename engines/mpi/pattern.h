// pattern.h: ranks on nodes and sockets (the mapping), message patterns (halos, collective rounds) and their
// locality statistics: per-node counts for the max-rate k and the K-model's K_inter / K_total (E2E section 3.1).
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "engines/mpi/p2p.h"

namespace gpm::mpi {

constexpr int64_t kMaxRanks = 16'777'216;
constexpr int kSizeKinds = 3;  // halo: face, edge, corner; collective rounds use kind 0 only

// The rank-to-node mapping. Linear fills each node with ranks_per_node consecutive ranks; block(b) deals blocks
// of b consecutive ranks to the nodes in turn; cyclic is block(1); explicit gives each rank's node.
struct Mapping {
  enum class Kind { Linear, Block, Cyclic, Explicit } kind = Kind::Linear;
  int64_t block = 1;
  std::vector<int64_t> nodes;  // explicit: the node of rank i
};

struct Layout {
  int64_t ranks = 0, ranks_per_node = 1, ranks_per_socket = 1;
  int64_t nodes = 0, sockets_per_node = 1;
  std::vector<int32_t> node;    // per rank
  std::vector<int32_t> socket;  // per rank: node * sockets_per_node + socket within the node
  std::string error;            // non-empty: the mapping is impossible
  int64_t nodes_per_leaf = 0;   // > 0: the machine's fat tree puts node n under leaf switch n / nodes_per_leaf
  Locality locality(int64_t a, int64_t b) const {
    if (node[size_t(a)] != node[size_t(b)]) return Locality::InterNode;
    return socket[size_t(a)] != socket[size_t(b)] ? Locality::InterSocket : Locality::IntraSocket;
  }
  int64_t leaf_of(int64_t rank) const { return nodes_per_leaf > 0 ? node[size_t(rank)] / nodes_per_leaf : 0; }
  int64_t leaves() const { return nodes_per_leaf > 0 ? (nodes + nodes_per_leaf - 1) / nodes_per_leaf : 1; }
  // The locality class, or kOffLeaf for an inter-node message between nodes under different leaf switches.
  int route(int64_t a, int64_t b) const {
    Locality l = locality(a, b);
    if (l == Locality::InterNode && leaf_of(a) != leaf_of(b)) return kOffLeaf;
    return int(l);
  }
};

Layout make_layout(int64_t ranks, int64_t ranks_per_node, int64_t ranks_per_socket, const Mapping& mapping);

// A Cartesian decomposition: x varies fastest (rank = x + px * (y + py * z)).
struct Grid {
  int dims = 2;
  std::array<int64_t, 3> extent{1, 1, 1};
  bool periodic = true;
  int neighbours = 4;  // 4 or 8 in 2D, 6 or 26 in 3D
};

// A balanced factorisation of `ranks` into `dims` extents, the largest along x (the fastest-varying dimension).
std::array<int64_t, 3> balanced_extents(int64_t ranks, int dims);

// One pattern's statistics. Counts are per rank: how many messages of each locality class and size kind it
// sends; identical rows are kept once. The k values are maxima over nodes (over sockets for intra-socket).
struct PatternStats {
  using Signature = std::array<int64_t, kRoutes * kSizeKinds>;  // [route * kSizeKinds + kind]
  std::vector<Signature> signatures;
  int64_t k_inter = 0;   // E2E eq. 4: the most inter-node messages sent by one node
  int64_t k_total = 0;   // E2E eq. 4: the most messages sent by one node
  int64_t k_prime = 0;   // the most ranks of one node that send anything
  std::array<int64_t, kClasses> k{};  // the most ranks of one node (socket) that send messages of the class
  int64_t messages = 0;  // all messages of the pattern
  // With a fat tree, the same counts per leaf switch for messages that leave it: the most ranks of a leaf sending
  // off-leaf messages (max-rate), and E2E eq. 4 applied to the leaf for the K-model: the most off-leaf messages and
  // the most messages sent by one leaf, and the most ranks of a leaf that send.
  int64_t k_leaf = 0, k_offleaf = 0, k_leaf_total = 0, k_leaf_prime = 0;
};

// The statistics of a halo exchange over `grid` (its extents must multiply to layout.ranks).
PatternStats halo_pattern(const Layout& layout, const Grid& grid, std::string& error);

// One rank's messages in an operation whose messages have sizes of their own (an alltoallv under a fitted model):
// each distinct (route, bytes) it sends and how many such messages, in that order.
using SizedRow = std::vector<std::tuple<int, double, int64_t>>;

// One step of a collective: the pattern, its message size as a fraction of the operation's size, and how many
// times the step repeats identically. A pipelined step (pipeline_hops > 0) is the steady state of a segmented
// chain of that many hops: the operation's bytes split into S segments, the step repeats hops + S - 1 times with
// messages of n / S, S chosen when the engine runs (CommEngine, the `segment` input).
struct Round {
  PatternStats stats;
  double size_factor = 1;
  double repeat = 1;
  std::string what;
  int64_t pipeline_hops = 0;
  double steps_each = 1;  // communication steps one repeat stands for (an all-to-all's round: p - 1 exchanges)
  // The round's messages (sender, receiver), kept only when collective_rounds is asked for them (the fabric
  // model routes each one); the statistics above stand for them otherwise.
  std::vector<std::pair<int32_t, int32_t>> messages;
  // The fabric model only: flows between two adjacent components (a link of an in-network reduction's tree), each
  // moving the round's message size, made by the lowering from the machine (not by collective_rounds).
  std::vector<std::pair<int32_t, int32_t>> component_messages;
  // An alltoallv: messages of their own sizes, the size input unused. With kept messages each message's bytes
  // (parallel to `messages`); without, each distinct rank's messages (the rows `stats` counts).
  std::vector<double> message_bytes;
  std::vector<SizedRow> sized_rows;
  // message_bytes and sized_rows hold factors of the operation's size, not bytes (a step whose messages differ in
  // size by a rule of the algorithm: Bruck's of radix k, whose last step sends the rest).
  bool sizes_relative = false;
};

enum class Collective { Allreduce, Reduce, Bcast, Allgather, Alltoall, Barrier, ReduceScatter, Gather, Scatter };
enum class Algorithm {
  BinomialTree,
  RecursiveDoubling,
  Ring,
  Rabenseifner,
  Pairwise,
  Dissemination,
  ScatterAllgather,
  Pipeline,
  RecursiveHalving,
  Bruck,                    // allgather, alltoall: ceil(log2 p) steps to r - 2^k (allgather) or r + 2^k (alltoall)
  Scattered,                // alltoall: every message posted at once, in batches of kAlltoallThrottle
  ScatterDoublingAllgather,  // bcast: binomial scatter, then a recursive-doubling allgather (power-of-two ranks)
  Hierarchical,              // allreduce: ring reduce-scatter in each node, ring allreduce per rail, ring allgather
  DoubleBinaryTree,          // allreduce, reduce, bcast: two binary trees, half the data each, pipelined in segments
  InNetwork,                 // allreduce, fabric model: reduced in the switches (SHARP, NVLS) along a tree of links
  // Open MPI's base algorithms (ompi/mca/coll/base, collectives_trees.cpp), each moving the whole message per hop
  // (one segment, as Open MPI's fixed decisions run them):
  Linear,             // bcast, scatter, alltoall: the root (every rank) sends to each; reduce, gather, barrier: the
                      //   root receives from each in turn; allreduce: a linear reduce, then a linear bcast
  LinearSync,         // gather: each rank's block after a zero-byte go-ahead from the root
  Chain,              // bcast, reduce: Variant's chains of consecutive ranks hanging from rank 0
  BinaryTree,         // bcast, reduce: Open MPI's binary tree (a rank r on level l has children r + 2^l, r + 2^(l+1))
  InOrderBinaryTree,  // reduce: the in-order binary tree rooted at rank p - 1, then the result to rank 0
  SplitBinaryTree,    // bcast: each half of the message down one subtree of the binary tree, then pairs swap halves
  Knomial,            // bcast: the k-nomial tree of Variant's radix
  NeighborExchange,   // allgather: p / 2 steps, alternate neighbours (Chen et al. 2005)
  Butterfly,          // reduce_scatter: recursive halving with the partner distance doubling (1, 2, 4, ...)
  NonOverlapping,     // allreduce: a reduce, then a bcast (Variant's parts); reduce_scatter: a reduce, then a
                      //   linear scatter of the shares
  Sparbit,            // allgather: ceil(log2 p) steps, the distance halving, the blocks sent doubling (Open MPI's)
  DirectMessaging,    // allgather: every rank posts its block to every other rank at once (Open MPI's)
  DoubleRing,         // barrier: a zero-byte token twice around the ring of ranks (Open MPI's double_ring)
  AllgatherReduce     // allreduce: an allgather of every rank's whole buffer (Variant's part), reduced locally
};
// The last algorithm (for a loop over their names).
constexpr Algorithm kLastAlgorithm = Algorithm::AllgatherReduce;

// What an algorithm's shape needs besides the layout (Open MPI's parameters, chosen with it by a library; a named
// algorithm gets the defaults): the chains of a Chain, the radix of a k-nomial tree, the parts of a NonOverlapping
// (and of an allgather's linear or an allreduce's allgather_reduce).
struct Variant {
  int64_t bcast_chains = 1, reduce_chains = 1;
  int64_t radix = 4;  // Open MPI's coll_tuned_bcast_algorithm_knomial_radix default
  int64_t bruck_radix = 2;  // an allgather's Bruck of radix k (Open MPI's k_bruck; 2: Bruck et al.'s)
  // Open MPI's linear_sync gather with a first segment (a rule's seg_size): that segment as a fraction of a block;
  // 0: each block whole.
  double first_segment = 0;
  Algorithm reduce_part = Algorithm::BinomialTree, bcast_part = Algorithm::BinomialTree;
  int64_t reduce_part_chains = 1, bcast_part_chains = 1;
  // A non-overlapping composition's reduce or bcast over its tree or chains in segments (the operation's segment).
  bool reduce_part_segmented = false, bcast_part_segmented = false;
  // An allgather's `linear` (a gather to rank 0, then a bcast of the whole, Open MPI's basic linear) and an
  // allreduce's `allgather_reduce`: the gather's and the allgather's algorithms (bcast_part for the bcast).
  Algorithm gather_part = Algorithm::BinomialTree, allgather_part = Algorithm::Ring;
  // Open MPI's generic bcast or reduce over its tree (chain, binary, binomial, k-nomial, in-order binary) in segments,
  // as a rule's seg_size runs it: one pipelined round of every edge of the tree (collectives_trees.cpp).
  bool segmented = false;
  // Open MPI's segmented ring all-reduce (a rule's seg_size): its reduce-scatter in this many phases (collectives.cpp).
  int64_t ring_phases = 1;
  // Open MPI's linear_sync all-to-all with a request limit (a rule's reqs): at most this many sends in flight, taken
  // as batches of that many on the fabric (collectives.cpp); 0: every message at once.
  int64_t requests = 0;
  bool operator==(const Variant&) const = default;
};
// How the report names an algorithm with its variant: "chain (2 chains)", "knomial (radix 4)",
// "nonoverlapping (binomial_tree reduce, then knomial bcast)"; the bare name otherwise.
std::string variant_title(Algorithm a, const Variant& v, Collective c = Collective::Allreduce);

// The double binary tree's parents (Sanders, Speck and Traeff, "Two-tree algorithms for full bandwidth broadcast,
// reduction and scan", Parallel Computing 35(12), 2009): for each of the two trees, each rank's parent (-1 for the
// root), and the larger of the two trees' depths (in edges).
struct DoubleTree {
  std::vector<int64_t> parent[2];
  int64_t depth = 0;
};
DoubleTree double_binary_tree(int64_t ranks);

// MPICH's alltoall `scattered` posts the messages to at most this many destinations at once
// (MPIR_CVAR_ALLTOALL_THROTTLE, default 32, src/mpi/coll/cvars.txt).
constexpr int64_t kAlltoallThrottle = 32;

const char* collective_name(Collective c);
const char* algorithm_name(Algorithm a);
// The algorithm as reports name it: "rabenseifner", or "node-aware rabenseifner" for a node-aware composition.
std::string algorithm_title(Algorithm a, bool node_aware, const Variant& variant = {},
                            Collective c = Collective::Allreduce);
// The default algorithm of each collective (docs/models.md).
Algorithm default_algorithm(Collective c);
bool algorithm_allowed(Collective c, Algorithm a);

// With `keep_messages`, every round lists its messages, and the all-to-all is p - 1 rounds of shifts (rank r sends
// to r + i mod p in round i) instead of one round of statistics: the fabric model needs who sends to whom.
// With kept messages, `channels` > 1 makes a ring algorithm that many rings side by side, each carrying 1 / channels
// of every step's bytes (NCCL's channels): channel k joins consecutive nodes by their k-th or (k + 1)-th ranks (the
// same place in both nodes), so the channels spread over the nodes' NICs.
// MPICH ch4's node-aware compositions (maint/tuning/coll/ch4/generic.json, "composition alpha" and "beta";
// src/mpid/ch4/src/ch4_coll_impl.h): on a communicator of several nodes with several ranks on some node, an
// allreduce reduces within each node to the node's first rank, runs `a` among those ranks, and broadcasts within each
// node; a bcast runs `a` among the nodes' first ranks, then broadcasts within each node; a reduce reduces within
// each node, then runs `a` among them; a barrier synchronises within each node, then runs `a` among them, then
// releases the node. Within a node the shared-memory collectives (release_gather.c) use k-ary trees: a broadcast's
// of `bcast_k` children per rank, a reduce's of `reduce_k`.
struct NodeAware {
  bool on = false;
  int64_t bcast_k = 64, reduce_k = 2;
};
std::vector<Round> collective_rounds(const Layout& layout, Collective c, Algorithm a, bool keep_messages = false,
                                     int64_t channels = 1, NodeAware node_aware = {}, Variant variant = {});
// How many messages collective_rounds lists with kept messages, found on the grouped rounds without listing them:
// exact for the algorithms whose lists grow faster than the ranks (the all-to-alls, the allgather's direct
// messaging, Bruck's, recursive doubling); at least 2 p otherwise (linear, chain and tree algorithms list up to
// 2 p, where the grouped rounds hold each repeated step once); times the channels. For a guard on memory before
// the messages are listed.
uint64_t listed_messages(const Layout& layout, Collective c, Algorithm a, int64_t channels = 1,
                         NodeAware node_aware = {}, Variant variant = {});
// Whether `c` has a node-aware composition (allreduce, bcast, reduce, barrier).
bool has_node_aware(Collective c);
// Whether every node of the layout holds the same number of ranks (the hierarchical all-reduce needs it).
bool balanced_nodes(const Layout& layout);

// A point-to-point operation (OSU-style): `window` messages from rank `from` to rank `to`, and as many back when
// `both`. Kept messages: one round holding every message of the window (they are in flight together); otherwise
// one round of one message each way, repeated `window` times (a rank's messages one after another).
std::vector<Round> p2p_rounds(const Layout& layout, int64_t from, int64_t to, bool both, int64_t window,
                              bool keep_messages = false);

// An all-to-all whose blocks differ (MPI_Alltoallv): bytes[src * ranks + dst] is what rank src sends rank dst; a
// rank's block to itself and blocks of 0 bytes are not sent. `a` is Pairwise, Scattered or Linear. With kept
// messages (the fabric model) the pairwise exchange's p - 1 steps (step i: rank r sends to r + i mod p), the
// scattered batches of kAlltoallThrottle shifts or the linear exchange's p - 1 shifts in flight together, each
// message with its bytes (Round::message_bytes);
// steps that send nothing are left out. Without (the fitted models, as their all-to-all): one round in which each
// rank sends its messages one after another (Round::sized_rows), as many steps as the busiest rank sends messages.
std::vector<Round> alltoallv_rounds(const Layout& layout, std::span<const double> bytes, Algorithm a,
                                    bool keep_messages);

// The same round without kept messages for an alltoallv whose block depends only on the distance dst - src
// (`by_distance[d + ranks - 1]`, 2 ranks - 1 of them), over any number of ranks: counted over the runs of consecutive
// ranks that share a rank's socket, node and leaf switch (alltoallv_distance.cpp). Nothing, with `why`, when the
// mapping gives a socket, node or leaf ranks that are not consecutive, or the sizes are too many to count.
std::optional<Round> alltoallv_distance_round(const Layout& layout, std::span<const double> by_distance,
                                              std::string& why);

// A halo exchange's messages: sender, receiver and size kind (face, edge, corner), every rank's at once.
struct HaloMessage {
  int32_t from = 0, to = 0;
  int kind = 0;
};
std::vector<HaloMessage> halo_messages(const Grid& grid, int64_t ranks, std::string& error);

// The time of a pattern: the slowest rank's messages, one after another, each priced by `message_time` with the
// k of its class (the K-model's k for inter-node messages under the K-model), its staging copies or pinning delay
// overlapping the rank's other messages (MessagePipeline, p2p.h). `sizes` has kSizeKinds entries.
struct PatternTime {
  double time_s = NAN;
  double k_used[kRoutes]{};  // per class, then the leaf's k for off-leaf messages
  std::array<int64_t, kRoutes * kSizeKinds> slowest{};
  std::array<Protocol, kRoutes * kSizeKinds> protocol{};
  bool fell_back = false;
  std::string error;
  // Sized rows (sized_pattern_time): the slowest row, and its messages' protocols in its order.
  int64_t slowest_row = -1;
  std::vector<Protocol> row_protocol;
};
PatternTime pattern_time(const PatternStats& s, const Choice& c, std::span<const double> inputs,
                         std::span<const double> sizes);
// The same for rows of messages of their own sizes (Round::sized_rows): the slowest row's messages one after
// another, each priced with the k of its class from `s`.
PatternTime sized_pattern_time(const PatternStats& s, const std::vector<SizedRow>& rows, const Choice& c,
                               std::span<const double> inputs);

}  // namespace gpm::mpi
