// lower_cluster.cpp: expands a machine's `cluster` section: N copies of its node (`node[i].` paths), leaf and spine
// switches, every NIC on a leaf (fat tree: ports in node order; rail: one set of leaves per NIC rail), every leaf
// on every spine, the up-links sized by the taper; with `cores`, a third level: leaves in pods, each pod with its
// own spines, spine s of every pod joined to the s-th group of cores.
#include <cmath>

#include <fmt/format.h>

#include "lower/lower.h"

namespace gpm::lower {

using namespace frontend;

namespace {
// Network links (NIC to leaf, leaf to spine) a cluster may have: checked, with its components, before any is made.
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
  auto nodes = count("nodes", 1, 1'000'000), per_leaf = count("nics_per_leaf", 1, 1'000'000),
       spines = count("spines", 1, 1'000'000);
  if (!nodes || !per_leaf || !spines) return false;
  // A third level (sema requires `cores` and `leaves_per_pod` together).
  std::optional<int64_t> cores, per_pod;
  if (attr_named(section.attrs, "cores")) {
    cores = count("cores", 1, 1'000'000), per_pod = count("leaves_per_pod", 1, 1'000'000);
    if (!cores || !per_pod) return false;
    if (*cores % *spines != 0) {
      const Attr* a = attr_named(section.attrs, "cores");
      diags_.error(DiagKind::ParamOutOfRange, a->value->range,
                   fmt::format("`cores = {}` must be a multiple of `spines = {}`: spine s of every pod joins the s-th "
                               "of {} equal groups of cores",
                               *cores, *spines, *spines));
      return false;
    }
  }
  const Attr* topology = attr_named(section.attrs, "topology");
  bool rail = word_of(topology->word_param, topology->value->name) == "rail";
  m_.topology.node_count = b_.constant(double(*nodes), Dim::count(), attr_named(section.attrs, "nodes")->value->range);

  // Node 0 first: its components and links say how large the whole cluster will be.
  std::vector<size_t> node_begin = {0};
  add_components(items, "node[0].");
  node_begin.push_back(m_.topology.components.size());
  int64_t per_node = int64_t(node_begin[1]), nics = 0;
  for (size_t c = 0; c < node_begin[1]; ++c) nics += m_.topology.components[c].kind == "nic";
  if (nics == 0) {
    diags_.error(DiagKind::MissingComponent, section.range,
                 "a cluster joins the nodes' NICs to its leaf switches, and the node has no `nic` component");
    return false;
  }
  int64_t leaves = rail ? nics * ((*nodes + *per_leaf - 1) / *per_leaf) : (*nodes * nics + *per_leaf - 1) / *per_leaf;
  const int64_t pods = cores ? (leaves + *per_pod - 1) / *per_pod : 1;
  const int64_t spine_count = *spines * pods;
  uint64_t components = uint64_t(*nodes) * uint64_t(per_node) + uint64_t(leaves) + uint64_t(spine_count) +
                        uint64_t(cores ? *cores : 0);
  uint64_t links = uint64_t(*nodes) * uint64_t(nics) + uint64_t(leaves) * uint64_t(*spines) +
                   uint64_t(pods) * uint64_t(cores ? *cores : 0);
  if (components > kMaxComponents || links > kMaxClusterLinks) {
    diags_.error(DiagKind::ModelTooLarge, section.range,
                 fmt::format("this cluster would have {} components and {} network links; the limits are {} and {}",
                             components, links, kMaxComponents, kMaxClusterLinks));
    return false;
  }
  for (int64_t i = 1; i < *nodes; ++i) {
    add_components(items, fmt::format("node[{}].", i));
    node_begin.push_back(m_.topology.components.size());
  }
  size_t first_leaf = m_.topology.components.size();
  SourceRange where = section.range;
  for (int64_t j = 0; j < leaves; ++j)
    m_.topology.components.push_back({"switch", fmt::format("leaf[{}]", j), "", {}, where, {}});
  size_t first_spine = m_.topology.components.size();
  for (int64_t s = 0; s < spine_count; ++s)
    m_.topology.components.push_back({"switch", fmt::format("spine[{}]", s), "", {}, where, {}});
  size_t first_core = m_.topology.components.size();
  for (int64_t c = 0; cores && c < *cores; ++c)
    m_.topology.components.push_back({"switch", fmt::format("core[{}]", c), "", {}, where, {}});
  index_paths();
  for (int64_t i = 0; i < *nodes; ++i) add_links(items, fmt::format("node[{}].", i));

  // The network's links: bandwidth and latency per direction, the same both ways.
  const Attr* bw_attr = attr_named(section.attrs, "link_bw");
  ValueId link_bw = lower_expr(*bw_attr->value);
  add_check(CheckKind::Positive, link_bw, bw_attr->value->range, "`link_bw` of the cluster");
  ValueId taper = b_.constant(1, Dim::count(), where);
  if (const Attr* a = attr_named(section.attrs, "taper")) {
    taper = lower_expr(*a->value);
    m_.checks.push_back({CheckKind::InRange, taper, b_.constant(1, Dim(), a->value->range),
                         b_.constant(1e6, Dim(), a->value->range), a->value->range, "`taper` of the cluster"});
  }
  ValueId latency = b_.constant(0, Dim::seconds(), where);
  if (const Attr* a = attr_named(section.attrs, "link_latency")) {
    latency = lower_expr(*a->value);
    add_check(CheckKind::NonNegative, latency, a->value->range, "`link_latency` of the cluster");
  }
  // A leaf's up-link capacity is its down-link capacity over the taper, spread over one link to each spine.
  ValueId up_bw = b_.binary(
      Opcode::Div, b_.binary(Opcode::Mul, b_.constant(double(*per_leaf), Dim::count(), where), link_bw, where),
      b_.binary(Opcode::Mul, b_.constant(double(*spines), Dim::count(), where), taper, where), where);
  auto join = [&](size_t a, size_t b, ValueId bw) {
    Link link;
    link.a = int(a);
    link.b = int(b);
    link.bidirectional = true;
    link.range = where;
    for (int d = 0; d < 2; ++d) {
      link.bw[d] = bw;
      link.latency[d] = latency;
    }
    m_.topology.links.push_back(link);
  };
  for (int64_t i = 0; i < *nodes; ++i) {
    int64_t k = 0;  // the NIC's rank within its node
    for (size_t c = node_begin[size_t(i)]; c < node_begin[size_t(i) + 1]; ++c) {
      if (m_.topology.components[c].kind != "nic") continue;
      int64_t leaf = rail ? k * ((*nodes + *per_leaf - 1) / *per_leaf) + i / *per_leaf : (i * nics + k) / *per_leaf;
      join(c, first_leaf + size_t(leaf), link_bw);
      ++k;
    }
  }
  // Leaf j joins the spines of its pod: spine[pod x spines + s] (one pod, spine[s], without cores).
  for (int64_t j = 0; j < leaves; ++j) {
    int64_t pod = cores ? j / *per_pod : 0;
    for (int64_t s = 0; s < *spines; ++s) join(first_leaf + size_t(j), first_spine + size_t(pod * *spines + s), up_bw);
  }
  if (!cores) return true;
  // The third level: spine s of every pod joins cores [s x g, (s + 1) x g), g = cores / spines, one link each, so
  // that a spine's up-links carry its down-link capacity (leaves_per_pod leaf links) over the core taper.
  ValueId core_taper = b_.constant(1, Dim::count(), where);
  if (const Attr* a = attr_named(section.attrs, "core_taper")) {
    core_taper = lower_expr(*a->value);
    m_.checks.push_back({CheckKind::InRange, core_taper, b_.constant(1, Dim(), a->value->range),
                         b_.constant(1e6, Dim(), a->value->range), a->value->range, "`core_taper` of the cluster"});
  }
  const int64_t group = *cores / *spines;
  ValueId core_bw = b_.binary(
      Opcode::Div, b_.binary(Opcode::Mul, b_.constant(double(*per_pod), Dim::count(), where), up_bw, where),
      b_.binary(Opcode::Mul, b_.constant(double(group), Dim::count(), where), core_taper, where), where);
  for (int64_t pod = 0; pod < pods; ++pod)
    for (int64_t s = 0; s < *spines; ++s)
      for (int64_t t = 0; t < group; ++t)
        join(first_spine + size_t(pod * *spines + s), first_core + size_t(s * group + t), core_bw);
  return true;
}

}  // namespace gpm::lower
