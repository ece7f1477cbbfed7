// fabric_symmetry.cpp: finds the period of nodes under which a cluster, a placement of ranks and a collective's
// rounds are invariant (the fabric model's fast path, docs/models.md section 9.8), and builds the fabric engine on
// one period where one holds.
#include "engines/mpi/fabric_symmetry.h"

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

namespace gpm::mpi {

namespace {

std::string_view after_node(const std::string& path) {
  size_t dot = path.find("].");
  return dot == std::string::npos ? std::string_view() : std::string_view(path).substr(dot + 2);
}

// The orbits of a permutation `g` of n elements whose cycles must all have `length` elements (or 1 where
// `fixed_ok`): the least element of each orbit per element, or empty when g is not such a permutation.
std::vector<int> orbits(const std::vector<int>& g, int64_t length, const std::vector<uint8_t>* fixed_ok) {
  const size_t n = g.size();
  std::vector<int> canon(n, -1);
  std::vector<int> cycle;
  for (size_t c = 0; c < n; ++c) {
    if (canon[c] >= 0) continue;
    cycle.clear();
    int at = int(c);
    do {
      if (at < 0 || size_t(at) >= n || canon[size_t(at)] >= 0 || int64_t(cycle.size()) >= length) return {};
      cycle.push_back(at);
      canon[size_t(at)] = int(c);  // provisional: marks the element as visited
      at = g[size_t(at)];
    } while (at != int(c));
    bool fixed = cycle.size() == 1 && fixed_ok && (*fixed_ok)[c];
    if (int64_t(cycle.size()) != length && !fixed) return {};
    int least = *std::min_element(cycle.begin(), cycle.end());
    for (int x : cycle) canon[size_t(x)] = least;
  }
  return canon;
}

// Whether every message (a, b) of `round`, translated to (a + shift, b + shift) mod ranks, is a message of the
// round as often as (a, b) is.
bool invariant(const Round& round, int64_t ranks, int64_t shift) {
  std::vector<uint64_t> m;
  m.reserve(round.messages.size());
  for (const auto& [a, b] : round.messages) m.push_back(uint64_t(uint32_t(a)) << 32 | uint32_t(b));
  std::sort(m.begin(), m.end());
  for (size_t i = 0; i < m.size();) {
    size_t j = i;
    while (j < m.size() && m[j] == m[i]) ++j;
    uint64_t a = m[i] >> 32, b = m[i] & 0xffffffffu;
    uint64_t t = uint64_t((int64_t(a) + shift) % ranks) << 32 | uint64_t((int64_t(b) + shift) % ranks);
    auto [lo, hi] = std::equal_range(m.begin(), m.end(), t);
    if (hi - lo != std::ptrdiff_t(j - i)) return false;
    i = j;
  }
  return true;
}

}  // namespace

std::optional<NodeTranslation> find_node_translation(const ir::Topology& t, const engines::congestion::FabricMap& fabrics,
                                                     const FabricPlacement& placement,
                                                     const std::vector<Round>& rounds) {
  const auto& comps = t.components;
  const int64_t ranks = int64_t(placement.gpu.size());
  // The cluster: node[0]'s components first, then each other node's in the same order, then the network's switches.
  int64_t per_node = 0;
  while (size_t(per_node) < comps.size() && comps[size_t(per_node)].path.starts_with("node[0].")) ++per_node;
  if (per_node == 0 || ranks < 2) return std::nullopt;
  size_t node_end = size_t(per_node);
  while (node_end < comps.size() && comps[node_end].path.starts_with("node[")) ++node_end;
  if (node_end % size_t(per_node) != 0) return std::nullopt;
  const int64_t nodes = int64_t(node_end) / per_node;
  if (nodes < 2) return std::nullopt;
  for (int a : fabrics.link_arbitration)
    if (a == int(engines::congestion::Arbitration::Pcie)) return std::nullopt;
  for (int g : placement.gpu)
    if (g < 0 || size_t(g) >= node_end) return std::nullopt;
  // The nodes' components checked (each node's as node[0]'s, in order), each node component's one link into the
  // network (NIC to leaf), and every link by its ends: done when a period first passes the placement's check.
  std::vector<int> net_of;
  std::unordered_map<uint64_t, int> by_ends;
  auto index_links = [&]() -> bool {
    for (size_t c = size_t(per_node); c < node_end; ++c) {
      const ir::Component& x = comps[c];
      const ir::Component& first = comps[c % size_t(per_node)];
      if (x.kind != first.kind || after_node(x.path) != after_node(first.path) ||
          !x.path.starts_with("node[" + std::to_string(int64_t(c) / per_node) + "]."))
        return false;
    }
    net_of.assign(node_end, -1);
    by_ends.reserve(t.links.size());
    for (size_t l = 0; l < t.links.size(); ++l) {
      const ir::Link& k = t.links[l];
      if (!by_ends.emplace(uint64_t(uint32_t(k.a)) << 32 | uint32_t(k.b), int(l)).second) return false;
      bool in_a = size_t(k.a) < node_end, in_b = size_t(k.b) < node_end;
      if (in_a == in_b) continue;
      int c = in_a ? k.a : k.b, x = in_a ? k.b : k.a;
      if (net_of[size_t(c)] >= 0) return false;
      net_of[size_t(c)] = x;
    }
    return true;
  };
  bool indexed = false;
  std::vector<uint8_t> is_switch(comps.size(), 0);
  for (size_t c = node_end; c < comps.size(); ++c) is_switch[c] = 1;
  auto arbitration = [&](size_t l) { return l < fabrics.link_arbitration.size() ? fabrics.link_arbitration[l] : -1; };

  for (int64_t period = 1; 2 * period <= nodes; ++period) {
    if (nodes % period != 0 || ranks % (nodes / period) != 0) continue;
    const int64_t orbit = nodes / period;
    NodeTranslation x;
    x.nodes = nodes;
    x.per_node = per_node;
    x.period = period;
    x.period_ranks = ranks / orbit;
    // The placement first (it fails fastest): rank r + period_ranks on the image of rank r's GPU.
    const int64_t span = nodes * per_node;
    bool ok = true;
    x.rank_shift.resize(size_t(ranks));
    for (int64_t r = 0; r < ranks && ok; ++r) {
      int64_t s = (r + x.period_ranks) % ranks;
      x.rank_shift[size_t(r)] = int(s);
      ok = placement.gpu[size_t(s)] == int((int64_t(placement.gpu[size_t(r)]) + period * per_node) % span);
    }
    if (!ok) continue;
    if (!indexed) {
      if (!index_links()) return std::nullopt;
      indexed = true;
    }
    // g on components: nodes by the period; a switch to the one its nodes' images reach; the others fixed.
    x.shift.assign(comps.size(), -1);
    for (size_t c = 0; c < node_end; ++c) x.shift[c] = int((int64_t(c) + period * per_node) % span);
    for (size_t c = 0; c < node_end && ok; ++c) {
      if (net_of[c] < 0) continue;
      int image = net_of[size_t(x.shift[c])];
      int& s = x.shift[size_t(net_of[c])];
      if (image < 0 || (s >= 0 && s != image)) ok = false;
      else s = image;
    }
    if (!ok) continue;
    for (size_t c = node_end; c < comps.size(); ++c) {
      if (x.shift[c] < 0) x.shift[c] = int(c);
      if (comps[size_t(x.shift[c])].kind != comps[c].kind) ok = false;
    }
    if (!ok) continue;
    x.canon = orbits(x.shift, orbit, &is_switch);
    if (x.canon.empty()) continue;
    // g on links: (a, b) to (g a, g b), the same values each way; every link's orbit has `orbit` links.
    x.link_shift.assign(t.links.size(), -1);
    for (size_t l = 0; l < t.links.size() && ok; ++l) {
      const ir::Link& k = t.links[l];
      auto it = by_ends.find(uint64_t(uint32_t(x.shift[size_t(k.a)])) << 32 | uint32_t(x.shift[size_t(k.b)]));
      if (it == by_ends.end()) {
        ok = false;
        break;
      }
      const ir::Link& m = t.links[size_t(it->second)];
      ok = m.bidirectional == k.bidirectional && m.global == k.global && arbitration(size_t(it->second)) == arbitration(l);
      for (int d = 0; d < 2 && ok; ++d) ok = m.bw[d] == k.bw[d] && m.latency[d] == k.latency[d];
      x.link_shift[l] = it->second;
    }
    if (!ok) continue;
    x.link_canon = orbits(x.link_shift, orbit, nullptr);
    if (x.link_canon.empty()) continue;
    for (const Round& round : rounds)
      if (!invariant(round, ranks, x.period_ranks)) {
        ok = false;
        break;
      }
    if (!ok) continue;
    return x;
  }
  return std::nullopt;
}

namespace cg = engines::congestion;

std::shared_ptr<FabricCommEngine> FabricCommEngine::build(const ir::Topology& topology, const cg::FabricMap& fabrics,
                                                          const ir::LinkCostFn& cost, Operation op,
                                                          const FabricPlacement& placement,
                                                          const std::vector<Round>& rounds,
                                                          const std::vector<HaloMessage>& halo, std::string& error,
                                                          const Shared& shared, bool fast_path) {
  // The fast path: GPU to GPU rounds of a collective on a cluster whose nodes translate onto each other.
  // GPMC_FABRIC_FAST_PATH=off builds every flow instead (to compare the two, docs/models.md section 9.8).
  const char* env = std::getenv("GPMC_FABRIC_FAST_PATH");
  bool fast = fast_path && !(env && std::string_view(env) == "off");
  const bool component_flows = std::any_of(rounds.begin(), rounds.end(), [](const Round& r) {
    return !r.component_messages.empty();
  });
  bool sized = false;  // an alltoallv's messages of their own sizes: no period's flows stand for another's
  for (const Round& r : rounds) sized = sized || !r.message_bytes.empty();  // also factors of the size
  // Refused before building when the flows would not fit (FabricShared::flows_fit).
  auto fits = [&](uint64_t flows, const std::string& note) {
    if (!shared.flows_fit) return true;
    std::string why;
    if (shared.flows_fit(flows, why)) return true;
    error = why + note;
    if (shared.too_large) *shared.too_large = true;
    return false;
  };
  if (fast && !op.halo && !sized && op.transport != Transport::Staged && !rounds.empty() && !component_flows)
    if (auto sym = find_node_translation(topology, fabrics, placement, rounds)) {
      // Only the first period's senders become flows (build_on).
      uint64_t period_flows = 0;
      for (const Round& r : rounds)
        for (const auto& m : r.messages) period_flows += m.first < sym->period_ranks;
      if (!fits(period_flows, fmt::format(" (those of one period of {} nodes, which stand for the {} nodes' with "
                                          "the symmetric fast path)",
                                          sym->period, sym->nodes)))
        return nullptr;
      std::string ignored;
      if (auto e = build_on(topology, fabrics, cost, op, placement, rounds, halo, &*sym, ignored, shared)) return e;
    }
  uint64_t flows = halo.size();
  for (const Round& r : rounds) flows += r.messages.size() + r.component_messages.size();
  if (!fits(flows * (op.transport == Transport::Staged ? 3 : 1), "")) return nullptr;
  return build_on(topology, fabrics, cost, op, placement, rounds, halo, nullptr, error, shared);
}

}  // namespace gpm::mpi
