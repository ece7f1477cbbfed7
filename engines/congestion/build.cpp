// build.cpp: routes the flows of a `flows` block over the topology and builds the flat plan the engine runs on.
#include <algorithm>
#include <deque>
#include <map>

#include <fmt/format.h>

#include "engines/congestion/engine.h"

namespace gpm::engines::congestion {

namespace {

int far_end(const ir::Link& l, int dir) { return dir == 0 ? l.b : l.a; }
int near_end(const ir::Link& l, int dir) { return dir == 0 ? l.a : l.b; }

const char* arbitration_name(int a) { return a == int(Arbitration::Pcie) ? "pcie" : "max-min"; }

}  // namespace

std::shared_ptr<CongestionEngine> CongestionEngine::build(const ir::Topology& t, const FabricMap& fabrics,
                                                          std::vector<FlowSpec> flows, bool unordered,
                                                          BuildError& error, const ir::LinkCostFn& cost) {
  ir::Router router(t, cost);
  Routes routes;
  routes.reserve(flows.size());
  for (const FlowSpec& spec : flows)
    routes.push_back(spec.src == spec.dst ? std::optional<std::vector<ir::Hop>>(std::vector<ir::Hop>{})
                                          : router.route(spec.src, spec.dst, "gpu"));
  auto names = std::make_shared<std::vector<std::string>>();
  for (const auto& c : t.components) names->push_back(c.path);
  return build(t, fabrics, std::move(flows), unordered, error, routes, std::move(names));
}

std::shared_ptr<CongestionEngine> CongestionEngine::build(const ir::Topology& t, const FabricMap& fabrics,
                                                          std::vector<FlowSpec> flows, bool unordered,
                                                          BuildError& error, const Routes& routes,
                                                          std::shared_ptr<const std::vector<std::string>> names) {
  auto e = std::make_shared<CongestionEngine>();
  e->flows_ = std::move(flows);
  e->unordered_ = unordered;
  e->component_names_ = std::move(names);
  Plan& p = e->plan_;
  p.flow_count = int(e->flows_.size());
  if (p.flow_count == 0) {
    error = {-1, "a `flows` block needs at least one flow"};
    return nullptr;
  }
  auto arbitration_of = [&](int link) {
    int a = link < int(fabrics.link_arbitration.size()) ? fabrics.link_arbitration[size_t(link)] : -1;
    return a < 0 ? int(Arbitration::MaxMin) : a;
  };
  std::vector<int> compact(t.links.size() * 2, -1);  // per (link, direction): its compact id
  std::vector<int> source_of(t.components.size(), -1);  // per component: its compact source id
  int sources = 0;
  int arbitration = -1;
  p.path_begin.push_back(0);
  for (int f = 0; f < p.flow_count; ++f) {
    const FlowSpec& spec = e->flows_[size_t(f)];
    const std::string& src = t.components[size_t(spec.src)].path;
    const std::string& dst = t.components[size_t(spec.dst)].path;
    if (spec.src == spec.dst && !spec.timed) {
      error = {f, fmt::format("a flow joins two different components, not `{}` to itself", src)};
      return nullptr;
    }
    for (int a : spec.also_after)
      if (a < 0 || a >= f) {  // made by the lowering, earlier flows only (so no cycle)
        error = {f, "a flow waits only for flows before it"};
        return nullptr;
      }
    if (spec.turn_after >= f || (spec.turn_after >= 0) != (spec.turn_gap_input >= 0)) {
      error = {f, "a copy takes its turn after a flow before it, with a gap"};
      return nullptr;
    }
    const auto& found = routes[size_t(f)];
    if (spec.timed && (!found || !found->empty())) {
      error = {f, "a kernel's flow crosses no link"};
      return nullptr;
    }
    if (!found) {
      error = {f, fmt::format("no path of links carries data from `{}` to `{}` (copies do not pass through a gpu)",
                              src, dst)};
      return nullptr;
    }
    for (const ir::Hop& hop : *found) {
      int a = arbitration_of(hop.link);
      if (arbitration < 0) arbitration = a;
      if (a != arbitration) {
        error = {f, fmt::format("the flows of one block must share one arbitration, but this flow crosses a {} "
                                "link after {} links",
                                arbitration_name(a), arbitration_name(arbitration))};
        return nullptr;
      }
      int& id = compact[size_t(hop.link) * 2 + size_t(hop.direction)];
      if (id < 0) {
        id = int(e->links_.size());
        e->links_.push_back({hop.link, hop.direction});
        const ir::Link& l = t.links[size_t(hop.link)];
        e->link_near_end_.push_back(near_end(l, hop.direction));
        e->link_far_end_.push_back(far_end(l, hop.direction));
      }
      p.hop_link.push_back(id);
      p.hop_flow.push_back(f);
    }
    p.path_begin.push_back(int(p.hop_link.size()));
    int& source = source_of[size_t(spec.src)];
    if (source < 0) {
      source = sources++;
      e->by_source_.emplace_back();
      e->source_names_.push_back(src);
    }
    p.source.push_back(source);
    e->by_source_[size_t(source)].push_back(f);
  }
  p.link_count = int(e->links_.size());
  e->queue_begin_.push_back(0);
  for (const auto& list : e->by_source_) e->queue_begin_.push_back(e->queue_begin_.back() + int(list.size()));
  p.source_count = sources;
  p.arbitration = Arbitration(arbitration);
  // Size and start inputs: those a flow names (shared by the flows of a pattern), then one of its own for each other.
  for (const FlowSpec& spec : e->flows_) {
    e->size_inputs_ = std::max(e->size_inputs_, spec.size_input + 1);
    if (spec.has_start) e->start_inputs_ = std::max(e->start_inputs_, spec.start_input + 1);
    e->cap_inputs_ = std::max(e->cap_inputs_, spec.cap_input + 1);
    e->turn_gap_inputs_ = std::max(e->turn_gap_inputs_, spec.turn_gap_input + 1);
  }
  for (int f = 0; f < p.flow_count; ++f) {
    const FlowSpec& spec = e->flows_[size_t(f)];
    e->size_input_.push_back(spec.size_input >= 0 ? spec.size_input : e->size_inputs_++);
    e->start_input_.push_back(!spec.has_start ? -1 : spec.start_input >= 0 ? spec.start_input : e->start_inputs_++);
  }
  // One gate per group some flow waits for (FlowSpec::after_group), at index flow_count + its order of first use;
  // its flows must all come before the first flow waiting for it.
  std::map<int, int> gate_of;
  std::map<int, int> last_of_group;
  for (int f = 0; f < p.flow_count; ++f)
    if (int g = e->flows_[size_t(f)].group; g >= 0) last_of_group[g] = f;
  for (int f = 0; f < p.flow_count; ++f) {
    int g = e->flows_[size_t(f)].after_group;
    if (g < 0) continue;
    auto last = last_of_group.find(g);
    if (last == last_of_group.end() || last->second >= f) {
      error = {f, "a flow waits only for groups of flows before it"};
      return nullptr;
    }
    gate_of.emplace(g, p.flow_count + int(gate_of.size()));
  }
  const size_t waiters = size_t(p.flow_count) + gate_of.size();
  // What each flow's end (or gate's opening) starts (counting sort by what is waited for; block order within each),
  // and how much each flow and gate waits for.
  e->dependent_begin_.assign(waiters + 1, 0);
  e->waits_.assign(waiters, 0);
  auto waited_for = [&](int f, auto&& visit) {  // visit(a, d): d (a flow or gate) waits for a, for flow f
    const FlowSpec& spec = e->flows_[size_t(f)];
    if (spec.turn_after >= 0) visit(spec.turn_after, f);  // first among f's waits on turn_after (dependent_turn_)
    if (spec.after >= 0) visit(spec.after, f);
    for (int a : spec.also_after) visit(a, f);
    if (spec.after_group >= 0) visit(gate_of.at(spec.after_group), f);
    if (auto gate = gate_of.find(spec.group); spec.group >= 0 && gate != gate_of.end()) visit(f, gate->second);
  };
  for (int f = 0; f < p.flow_count; ++f)
    waited_for(f, [&](int a, int d) {
      ++e->dependent_begin_[size_t(a) + 1];
      ++e->waits_[size_t(d)];
    });
  for (size_t i = 0; i < waiters; ++i) e->dependent_begin_[i + 1] += e->dependent_begin_[i];
  e->dependents_.resize(size_t(e->dependent_begin_.back()));
  e->dependent_turn_.assign(e->dependents_.size(), 0);
  {
    std::vector<int> fill(e->dependent_begin_.begin(), e->dependent_begin_.end() - 1);
    for (int f = 0; f < p.flow_count; ++f) {
      bool turn = e->flows_[size_t(f)].turn_after >= 0;  // the first wait visited is the turn's
      waited_for(f, [&](int a, int d) {
        e->dependent_turn_[size_t(fill[size_t(a)])] = turn && d == f;
        turn = turn && d != f;
        e->dependents_[size_t(fill[size_t(a)]++)] = d;
      });
    }
  }
  if (p.arbitration != Arbitration::Pcie) return e;

  // PCIe (Martinasso et al., section V): the fabric is a tree rooted at the root complex; depth orders the ports.
  size_t n = t.components.size();
  std::vector<int> depth(n, -1);
  int root = -1, nodes = 0, tree_links = 0;
  std::vector<std::vector<int>> pcie_adj(n);  // PCIe links at each component, either direction
  for (size_t i = 0; i < t.links.size(); ++i)
    if (arbitration_of(int(i)) == int(Arbitration::Pcie)) {
      pcie_adj[size_t(t.links[i].a)].push_back(int(i));
      pcie_adj[size_t(t.links[i].b)].push_back(int(i));
    }
  {
    std::vector<uint8_t> seen(n, 0);
    std::deque<int> queue = {e->flows_[0].src};
    seen[size_t(e->flows_[0].src)] = 1;
    std::vector<uint8_t> link_seen(t.links.size(), 0);
    while (!queue.empty()) {
      int at = queue.front();
      queue.pop_front();
      ++nodes;
      if (t.components[size_t(at)].kind == "root") {
        if (root >= 0) {
          error = {-1, fmt::format("PCIe arbitration needs one root complex in its fabric, but `{}` and `{}` are both "
                                   "`root` components",
                                   t.components[size_t(root)].path, t.components[size_t(at)].path)};
          return nullptr;
        }
        root = at;
      }
      for (int i : pcie_adj[size_t(at)]) {
        const ir::Link& l = t.links[size_t(i)];
        if (link_seen[size_t(i)]) continue;
        link_seen[size_t(i)] = 1;
        ++tree_links;
        int next = l.a == at ? l.b : l.a;
        if (!seen[size_t(next)]) {
          seen[size_t(next)] = 1;
          queue.push_back(next);
        }
      }
    }
  }
  if (root < 0) {
    error = {-1, "PCIe arbitration needs a root complex (a `root` component) in the fabric its flows cross"};
    return nullptr;
  }
  if (tree_links != nodes - 1) {
    error = {-1, fmt::format("PCIe arbitration needs a tree, but its fabric has {} links between {} components; use "
                             "max-min arbitration for other graphs",
                             tree_links, nodes)};
    return nullptr;
  }
  {
    std::deque<int> queue = {root};
    depth[size_t(root)] = 0;
    while (!queue.empty()) {
      int at = queue.front();
      queue.pop_front();
      for (int i : pcie_adj[size_t(at)]) {
        const ir::Link& l = t.links[size_t(i)];
        int next = l.a == at ? l.b : l.a;
        if (depth[size_t(next)] < 0) {
          depth[size_t(next)] = depth[size_t(at)] + 1;
          queue.push_back(next);
        }
      }
    }
  }
  // Output ports: every hop after a flow's first leaves a switch (or the root complex) through one.
  struct Raw {
    int node, out_link;
    bool up;
    std::vector<PortEntry> entries;
  };
  std::map<int, Raw> ports;  // by compact out link
  std::map<int, std::vector<int>> inputs;  // by compact in link: hops leaving the switch entered by it
  for (int f = 0; f < p.flow_count; ++f) {
    bool crossed = false;
    for (int h = p.path_begin[size_t(f)] + 1; h < p.path_begin[size_t(f) + 1]; ++h) {
      auto [link, direction] = e->links_[size_t(p.hop_link[size_t(h)])];
      const ir::Link& l = t.links[size_t(link)];
      int node = near_end(l, direction), next = far_end(l, direction);
      if (depth[size_t(node)] < 0 || depth[size_t(next)] < 0) {
        error = {f, "this flow leaves the PCIe tree of the block's first flow; flows of one block share one tree"};
        return nullptr;
      }
      crossed = crossed || node == root;
      auto [it, fresh] = ports.emplace(p.hop_link[size_t(h)], Raw{node, p.hop_link[size_t(h)],
                                                                  depth[size_t(next)] < depth[size_t(node)], {}});
      it->second.entries.push_back({f, h, p.hop_link[size_t(h) - 1], crossed});
      inputs[p.hop_link[size_t(h) - 1]].push_back(h);
    }
  }
  std::vector<Raw*> up, down;
  for (auto& [link, raw] : ports) (raw.up ? up : down).push_back(&raw);
  std::stable_sort(up.begin(), up.end(), [&](Raw* a, Raw* b) { return depth[size_t(a->node)] > depth[size_t(b->node)]; });
  std::stable_sort(down.begin(), down.end(),
                   [&](Raw* a, Raw* b) { return depth[size_t(a->node)] < depth[size_t(b->node)]; });
  for (auto* list : {&up, &down})
    for (Raw* raw : *list) {
      std::stable_sort(raw->entries.begin(), raw->entries.end(),
                       [](const PortEntry& a, const PortEntry& b) { return a.in_link < b.in_link; });
      Port port{raw->out_link, raw->node == root, int(p.entries.size()), 0};
      p.entries.insert(p.entries.end(), raw->entries.begin(), raw->entries.end());
      port.end = int(p.entries.size());
      (list == &up ? p.up : p.down).push_back(port);
    }
  for (auto& [link, hops] : inputs) {
    InputGroup g{int(p.input_hops.size()), 0};
    p.input_hops.insert(p.input_hops.end(), hops.begin(), hops.end());
    g.end = int(p.input_hops.size());
    p.input_groups.push_back(g);
  }
  return e;
}

std::string CongestionEngine::route_text(int f) const {
  std::string out = component_name(flows_[size_t(f)].src);
  for (int h = plan_.path_begin[size_t(f)]; h < plan_.path_begin[size_t(f) + 1]; ++h) {
    out += " -> ";
    out += component_name(link_far_end_[size_t(plan_.hop_link[size_t(h)])]);
  }
  return out;
}

}  // namespace gpm::engines::congestion
