// fabric_symmetry.h: the fabric model's fast path: a translation of a cluster's nodes that maps the machine, the
// placement and every round of a collective onto themselves, so that a round is solved on one period of nodes.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "engines/congestion/engine.h"
#include "engines/mpi/fabric_engine.h"
#include "engines/mpi/pattern.h"
#include "ir/topology.h"

namespace gpm::mpi {

// The translation g of a cluster by `period` nodes (node i's components to node i + period mod N's, each switch to
// the one the image of its nodes' components reach, spine switches to themselves), with the orbits it makes.
// Every link's orbit has nodes / period links, so a flow of the first period and its translates cross each link of
// the orbit once: max-min sharing solved on the first period's flows, each route taken to its links' orbit
// representatives, counts on each representative exactly the flows the whole round puts on that link.
struct NodeTranslation {
  int64_t nodes = 0;         // N: the cluster's nodes, node i's components at [i x per_node, (i + 1) x per_node)
  int64_t per_node = 0;
  int64_t period = 0;        // nodes in one period (divides N, at most N / 2)
  int64_t period_ranks = 0;  // ranks in one period: rank r + period_ranks runs where rank r's GPU is translated
  std::vector<int> shift;       // per component: its image under g
  std::vector<int> canon;       // per component: its orbit's representative (the least index)
  std::vector<int> link_shift;  // per link: the link (g a, g b), in the same orientation
  std::vector<int> link_canon;  // per link: its orbit's representative (the least index)
  std::vector<int> rank_shift;  // per rank: the rank its translate is
};

// The smallest period (over the divisors of the cluster's node count, up to half of it) under which the topology
// (kinds, links with their bandwidth, latency and arbitration values), the placement (rank r + period_ranks on the
// image of rank r's GPU) and each round's messages (with their counts) are invariant. Nullopt when the machine is
// not a cluster of identical nodes laid out in order, when any link is of PCIe arbitration, or when no period holds.
// Routes are not checked here: the engine checks that the router's route of each translated flow is the translate
// of its route (FabricCommEngine::build).
std::optional<NodeTranslation> find_node_translation(const ir::Topology& topology,
                                                     const engines::congestion::FabricMap& fabrics,
                                                     const FabricPlacement& placement,
                                                     const std::vector<Round>& rounds);

}  // namespace gpm::mpi
