// lower_cluster.cpp: expands a machine's `cluster` section: N copies of its node (`node[i].` paths) and the network
// between them. A fat tree: leaf and spine switches, every NIC on a leaf (ports in node order; rail: one set of leaves
// per NIC rail), every leaf on every spine, the up-links sized by the taper; with `cores`, a third level: leaves in
// pods, each pod with its own spines, spine s of every pod joined to the s-th group of cores. A dragonfly: routers
// in groups, every NIC on a router (ports in node order), the routers of a group joined to each other, every two
// groups joined by `global_links` links spread over their routers.
#include <cmath>

#include <fmt/format.h>

#include "frontend/mpi_schema.h"
#include "lower/lower.h"

namespace gpm::lower {

using namespace frontend;

namespace {
// Network links (NIC to switch, switch to switch) a cluster may have: checked, with its components, before any is made.
constexpr uint64_t kMaxClusterLinks = 10'000'000;

const Attr* attr_named(const std::vector<Attr>& attrs, std::string_view name) {
  for (const auto& a : attrs)
    if (a.name == name) return &a;
  return nullptr;
}
}  // namespace

bool Lowerer::lower_cluster(const MachineDecl& machine) {
  const NetworkDecl& section = *machine.clusters[0];
  const auto& items = machine.nodes[0]->items;
  const Attr* topology = attr_named(section.attrs, "topology");
  const std::string kind = word_of(topology->word_param, topology->value->name);
  const bool rail = kind == "rail", dragonfly = kind == "dragonfly";
  if (topology->word_param) {  // a word parameter: what the chosen topology needs is checked now
    std::vector<std::string> present;
    for (const auto& a : section.attrs) present.push_back(a.name);
    ClusterAttrCheck check = check_cluster_attrs(present, kind);
    if (!check.missing.empty() || !check.foreign.empty()) {
      std::vector<std::string> parts;
      for (const auto& n : check.missing) parts.push_back(fmt::format("needs `{}`", n));
      for (const auto& n : check.foreign) parts.push_back(fmt::format("cannot have `{}`", n));
      std::string list;
      for (size_t i = 0; i < parts.size(); ++i) list += (i ? ", " : "") + parts[i];
      diags_.error(check.missing.empty() ? DiagKind::ConflictingAttributes : DiagKind::MissingAttribute, section.range,
                   fmt::format("with `topology = {}` this cluster section {}", kind, list));
      return false;
    }
  }
  auto count = [&](const char* name, int64_t lo, int64_t hi) -> std::optional<int64_t> {
    const Attr* a = attr_named(section.attrs, name);
    double v = eager_value(lower_expr(*a->value));
    if (!std::isfinite(v) || v != std::floor(v) || v < double(lo) || v > double(hi)) {
      diags_.error(DiagKind::NotAnInteger, a->value->range,
                   fmt::format("`{}` of a cluster must be a whole number from {} to {}, not {}", name, lo, hi, v));
      return std::nullopt;
    }
    return int64_t(v);
  };
  auto nodes = count("nodes", 1, 1'000'000);
  if (!nodes) return false;
  // The shape of the network: a tree's ports per leaf, spines, and a third level (sema requires `cores` and
  // `leaves_per_pod` together); a dragonfly's ports per router, routers per group and links between two groups.
  std::optional<int64_t> per_leaf, spines, cores, per_pod, per_router, per_group, global_links = 1;
  if (dragonfly) {
    per_router = count("nics_per_router", 1, 1'000'000), per_group = count("routers_per_group", 1, 1'000'000);
    if (attr_named(section.attrs, "global_links")) global_links = count("global_links", 1, 1'000'000);
    if (!per_router || !per_group || !global_links) return false;
  } else {
    per_leaf = count("nics_per_leaf", 1, 1'000'000), spines = count("spines", 1, 1'000'000);
    if (!per_leaf || !spines) return false;
    if (attr_named(section.attrs, "cores")) {
      cores = count("cores", 1, 1'000'000), per_pod = count("leaves_per_pod", 1, 1'000'000);
      if (!cores || !per_pod) return false;
      if (*cores % *spines != 0) {
        const Attr* a = attr_named(section.attrs, "cores");
        diags_.error(DiagKind::ParamOutOfRange, a->value->range,
                     fmt::format("`cores = {}` must be a multiple of `spines = {}`: spine s of every pod joins the "
                                 "s-th of {} equal groups of cores",
                                 *cores, *spines, *spines));
        return false;
      }
    }
  }
  m_.topology.node_count = b_.constant(double(*nodes), Dim::count(), attr_named(section.attrs, "nodes")->value->range);

  // Node 0 first: its components and links say how large the whole cluster will be.
  std::vector<size_t> node_begin = {0};
  const size_t component_errors = diags_.error_count();
  add_components(items, "node[0].");
  const bool copy_components = diags_.error_count() == component_errors;
  node_begin.push_back(m_.topology.components.size());
  int64_t per_node = int64_t(node_begin[1]), nics = 0;
  for (size_t c = 0; c < node_begin[1]; ++c) nics += m_.topology.components[c].kind == "nic";
  if (nics == 0) {
    diags_.error(DiagKind::MissingComponent, section.range,
                 "a cluster joins the nodes' NICs to its switches, and the node has no `nic` component");
    return false;
  }
  // Switches and network links, counted before anything is made.
  int64_t leaves = 0, pods = 1, spine_count = 0, routers = 0, groups = 1;
  uint64_t switch_links = 0;
  if (dragonfly) {
    routers = (*nodes * nics + *per_router - 1) / *per_router;
    groups = (routers + *per_group - 1) / *per_group;
    // Full groups, then the last one's routers (checked against the limits before anything is made, in closed form:
    // the counts may be far beyond them). Past 2^40 the limits are exceeded whatever the rest.
    const uint64_t a = uint64_t(*per_group), full = uint64_t(routers) / a, last = uint64_t(routers) % a;
    const uint64_t g = std::min<uint64_t>(uint64_t(groups), uint64_t(1) << 20);
    switch_links = full * (a * (a - 1) / 2) + last * (last - std::min<uint64_t>(last, 1)) / 2 +
                   g * (g - 1) / 2 * std::min<uint64_t>(uint64_t(*global_links), uint64_t(1) << 20);
  } else {
    leaves = rail ? nics * ((*nodes + *per_leaf - 1) / *per_leaf) : (*nodes * nics + *per_leaf - 1) / *per_leaf;
    pods = cores ? (leaves + *per_pod - 1) / *per_pod : 1;
    spine_count = *spines * pods;
    switch_links = uint64_t(leaves) * uint64_t(*spines) + uint64_t(pods) * uint64_t(cores ? *cores : 0);
  }
  uint64_t components = uint64_t(*nodes) * uint64_t(per_node) + uint64_t(leaves) + uint64_t(spine_count) +
                        uint64_t(cores ? *cores : 0) + uint64_t(routers);
  uint64_t links = uint64_t(*nodes) * uint64_t(nics) + switch_links;
  if (components > kMaxComponents || links > kMaxClusterLinks) {
    diags_.error(DiagKind::ModelTooLarge, section.range,
                 fmt::format("this cluster would have {} components and {} network links; the limits are {} and {}",
                             components, links, kMaxComponents, kMaxClusterLinks));
    return false;
  }
  // The other nodes' components are node 0's under their own path (the same declarations give the same values,
  // whose checks are made once, for node 0); made from the declarations when node 0's were reported.
  const std::string first_prefix = "node[0].";
  for (int64_t i = 1; i < *nodes; ++i) {
    if (copy_components) {
      const std::string prefix = fmt::format("node[{}].", i);
      for (size_t c = 0; c < node_begin[1]; ++c) {
        ir::Component copy = m_.topology.components[c];
        copy.path = prefix + copy.path.substr(first_prefix.size());
        m_.topology.components.push_back(std::move(copy));
      }
    } else {
      add_components(items, fmt::format("node[{}].", i));
    }
    node_begin.push_back(m_.topology.components.size());
  }
  SourceRange where = section.range;
  // `sharp`: every switch of the network reduces in the network (InfiniBand SHARP), a 0 or 1.
  std::map<std::string, ValueId> switch_attrs;
  if (const Attr* a = attr_named(section.attrs, "sharp")) {
    ValueId v = lower_expr(*a->value);
    double x = eager_value(v);
    if (x != 0 && x != 1) {
      diags_.error(DiagKind::InvalidAttributeValue, a->value->range,
                   fmt::format("`sharp` of a cluster is 1 (its switches reduce in the network) or 0, not {}", x));
      return false;
    }
    switch_attrs["sharp"] = v;
  }
  auto add_switches = [&](const char* name, int64_t n) {
    size_t first = m_.topology.components.size();
    for (int64_t j = 0; j < n; ++j)
      m_.topology.components.push_back({"switch", fmt::format("{}[{}]", name, j), "", switch_attrs, where, {}});
    return first;
  };
  const size_t first_leaf = add_switches("leaf", leaves), first_spine = add_switches("spine", spine_count),
               first_core = add_switches("core", cores ? *cores : 0), first_router = add_switches("router", routers);
  index_paths();
  // Node 0's links; the others' are its links moved by the node's first component, when node 0's join its own
  // components only and were made without a diagnostic (the same declarations give the same values, whose checks
  // are made once, for node 0). Otherwise each node's links are made from the declarations, as node 0's were.
  const size_t first_link = m_.topology.links.size(), errors = diags_.error_count();
  add_links(items, "node[0].");
  const size_t node_links = m_.topology.links.size() - first_link;
  bool copy = diags_.error_count() == errors;
  for (size_t k = first_link; k < m_.topology.links.size() && copy; ++k) {
    const Link& l = m_.topology.links[k];
    copy = size_t(l.a) < node_begin[1] && size_t(l.b) < node_begin[1];
  }
  for (int64_t i = 1; i < *nodes; ++i) {
    if (!copy) {
      add_links(items, fmt::format("node[{}].", i));
      continue;
    }
    const int offset = int(node_begin[size_t(i)] - node_begin[0]);
    for (size_t k = 0; k < node_links; ++k) {
      Link l = m_.topology.links[first_link + k];
      l.a += offset;
      l.b += offset;
      m_.topology.links.push_back(l);
    }
  }

  // The network's links: bandwidth and latency per direction, the same both ways.
  const Attr* bw_attr = attr_named(section.attrs, "link_bw");
  ValueId link_bw = lower_expr(*bw_attr->value);
  add_check(CheckKind::Positive, link_bw, bw_attr->value->range, "`link_bw` of the cluster");
  ValueId latency = b_.constant(0, Dim::seconds(), where);
  if (const Attr* a = attr_named(section.attrs, "link_latency")) {
    latency = lower_expr(*a->value);
    add_check(CheckKind::NonNegative, latency, a->value->range, "`link_latency` of the cluster");
  }
  auto join = [&](size_t a, size_t b, ValueId bw, bool global = false) {
    Link link;
    link.a = int(a);
    link.b = int(b);
    link.bidirectional = true;
    link.global = global;
    link.range = where;
    for (int d = 0; d < 2; ++d) {
      link.bw[d] = bw;
      link.latency[d] = latency;
    }
    m_.topology.links.push_back(link);
  };
  // A ratio of capacities (taper): 1 when absent, else checked from 1 to 10^6 at evaluation.
  auto ratio = [&](const char* name) {
    const Attr* a = attr_named(section.attrs, name);
    if (!a) return b_.constant(1, Dim::count(), where);
    ValueId v = lower_expr(*a->value);
    m_.checks.push_back({CheckKind::InRange, v, b_.constant(1, Dim(), a->value->range),
                         b_.constant(1e6, Dim(), a->value->range), a->value->range,
                         fmt::format("`{}` of the cluster", name)});
    return v;
  };
  // A bandwidth that defaults to link_bw (dragonfly): positive.
  auto bandwidth = [&](const char* name) {
    const Attr* a = attr_named(section.attrs, name);
    if (!a) return link_bw;
    ValueId v = lower_expr(*a->value);
    add_check(CheckKind::Positive, v, a->value->range, fmt::format("`{}` of the cluster", name));
    return v;
  };
  // Every NIC on its switch: port p = node x NICs per node + k in node order (rail: NIC k on rail k's leaves).
  for (int64_t i = 0; i < *nodes; ++i) {
    int64_t k = 0;  // the NIC's rank within its node
    for (size_t c = node_begin[size_t(i)]; c < node_begin[size_t(i) + 1]; ++c) {
      if (m_.topology.components[c].kind != "nic") continue;
      int64_t port = i * nics + k;
      size_t sw = dragonfly ? first_router + size_t(port / *per_router)
                  : rail    ? first_leaf + size_t(k * ((*nodes + *per_leaf - 1) / *per_leaf) + i / *per_leaf)
                            : first_leaf + size_t(port / *per_leaf);
      join(c, sw, link_bw);
      ++k;
    }
  }
  if (dragonfly) {
    // Within a group, every two routers; between every two groups i < j, `global_links` links, the c-th on router
    // (peer x global_links + c) mod (routers of the group) of each, where peer numbers the other group among the
    // group's peers in the order j - i - 1 (mod groups): the global ports spread evenly over a group's routers.
    // Global links are marked so that routes take the fewest of them (minimal routing: local, global, local).
    ValueId local_bw = bandwidth("local_bw"), global_bw = bandwidth("global_bw");
    auto group_size = [&](int64_t g) { return std::min(*per_group, routers - g * *per_group); };
    for (int64_t g = 0; g < groups; ++g)
      for (int64_t r = 0; r < group_size(g); ++r)
        for (int64_t s = r + 1; s < group_size(g); ++s)
          join(first_router + size_t(g * *per_group + r), first_router + size_t(g * *per_group + s), local_bw);
    for (int64_t i = 0; i < groups; ++i)
      for (int64_t j = i + 1; j < groups; ++j)
        for (int64_t c = 0; c < *global_links; ++c) {
          int64_t peer_i = (j - i - 1 + groups) % groups, peer_j = (i - j - 1 + groups) % groups;
          size_t ri = first_router + size_t(i * *per_group + (peer_i * *global_links + c) % group_size(i));
          size_t rj = first_router + size_t(j * *per_group + (peer_j * *global_links + c) % group_size(j));
          join(ri, rj, global_bw, true);
        }
    return true;
  }
  // A leaf's up-link capacity is its down-link capacity over the taper, spread over one link to each of its spines.
  ValueId up_bw = b_.binary(
      Opcode::Div, b_.binary(Opcode::Mul, b_.constant(double(*per_leaf), Dim::count(), where), link_bw, where),
      b_.binary(Opcode::Mul, b_.constant(double(*spines), Dim::count(), where), ratio("taper"), where), where);
  // Leaf j joins the spines of its pod: spine[pod x spines + s] (one pod, spine[s], without cores).
  for (int64_t j = 0; j < leaves; ++j) {
    int64_t pod = cores ? j / *per_pod : 0;
    for (int64_t s = 0; s < *spines; ++s) join(first_leaf + size_t(j), first_spine + size_t(pod * *spines + s), up_bw);
  }
  if (!cores) return true;
  // The third level: spine s of every pod joins cores [s x g, (s + 1) x g), g = cores / spines, one link each, so
  // that a spine's up-links carry its down-link capacity (leaves_per_pod leaf links) over the core taper.
  const int64_t group = *cores / *spines;
  ValueId core_bw = b_.binary(
      Opcode::Div, b_.binary(Opcode::Mul, b_.constant(double(*per_pod), Dim::count(), where), up_bw, where),
      b_.binary(Opcode::Mul, b_.constant(double(group), Dim::count(), where), ratio("core_taper"), where), where);
  for (int64_t pod = 0; pod < pods; ++pod)
    for (int64_t s = 0; s < *spines; ++s)
      for (int64_t t = 0; t < group; ++t)
        join(first_spine + size_t(pod * *spines + s), first_core + size_t(s * group + t), core_bw);
  return true;
}

}  // namespace gpm::lower
