// topology.h: routes on the node's component graph (shortest paths with a deterministic tie-break).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace gpm::ir {

// One hop: a link, traversed in direction 0 (a -> b) or 1 (b -> a).
struct Hop {
  int link;
  int direction;
};

// The path with the fewest links from `from` to `to` that respects link directions. Ties are broken by
// exploring each component's links in declaration order (breadth-first), so the result is stable. With
// `no_transit_kind`, the path passes through no component of that kind between its two ends (a copy between
// two GPUs is not forwarded by a third).
std::optional<std::vector<Hop>> shortest_path(const Topology& topology, int from, int to,
                                              const std::string& no_transit_kind = {});

// The component of `kind` nearest to `from` (fewest links, then declaration order), or -1.
int nearest_of_kind(const Topology& topology, int from, const std::string& kind);

// Components of a kind, in declaration order.
std::vector<int> components_of_kind(const Topology& topology, const std::string& kind);

}  // namespace gpm::ir
