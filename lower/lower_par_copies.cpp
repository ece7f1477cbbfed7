// lower_par_copies.cpp: copies side by side in a `par` that share a link become flows of the congestion engine, each
// starting after its route's L+O, so that the links divide their bandwidth among them (one engine for every byte).
#include <fmt/format.h>

#include <map>

#include "engines/congestion/engine.h"
#include "lower/lower.h"

namespace gpm::lower {

using namespace frontend;
namespace cg = engines::congestion;

// AHEAD eq. 10 prices a lone pinned copy at L+O + n / BW, BW the slowest link of its route. A flow that starts at
// L+O and moves n bytes alone on that route ends at the same time; copies that cross a link in the same direction
// at once share it by max-min fairness, as the flows of a `flows` block do (docs/models.md section 8.3). Applied
// when every branch of the par is one such copy and two of them share a directed link; where the links' arbitration
// is PCIe (a lone flow there is not eq. 10), a link's `bw_duplex` would apply, or a route differs from the copy's,
// the par stays a par and warn_shared_links says what it does not price.
Task Lowerer::share_par_copies(const Stmt& s, Task par) {
  bool copies = par.children.size() >= 2;
  for (const Task& c : par.children) copies = copies && c.kind == TaskKind::Op && c.flow.src >= 0;
  if (!copies) {
    warn_shared_links(s, par);
    return par;
  }
  std::map<std::pair<int, int>, int> users;  // (link, direction) -> copies crossing it
  for (const Task& c : par.children)
    for (auto [link, direction] : c.route) users[{link, direction}] += 1;
  bool shared = false, duplex = false;
  for (const auto& [hop, n] : users) {
    shared = shared || n > 1;
    const Link& link = m_.topology.links[size_t(hop.first)];
    duplex = duplex || (link.bw_duplex[hop.second] != kNoValue && users.count({hop.first, 1 - hop.second}) > 0);
  }
  if (!shared || duplex) {
    warn_shared_links(s, par);
    return par;
  }
  std::vector<cg::FlowSpec> specs;
  for (const Task& c : par.children) {
    cg::FlowSpec f;
    f.name = c.name;
    f.src = c.flow.src;
    f.dst = c.flow.dst;
    f.has_start = true;
    specs.push_back(std::move(f));
  }
  ValueId tau = kNoValue;
  cg::FabricMap fabrics = fabric_map(tau);
  cg::BuildError error;
  auto engine = cg::CongestionEngine::build(m_.topology, fabrics, std::move(specs), false, error, link_costs());
  bool same_routes = engine && !engine->uses_tau();
  for (size_t i = 0; same_routes && i < par.children.size(); ++i) {
    const cg::Plan& plan = engine->plan();
    std::vector<std::pair<int32_t, int32_t>> route;
    for (int h = plan.path_begin[i]; h < plan.path_begin[i + 1]; ++h) {
      auto [link, direction] = engine->link_inputs()[size_t(plan.hop_link[size_t(h)])];
      route.emplace_back(link, direction);
    }
    same_routes = route == par.children[i].route;
  }
  if (!same_routes) {
    warn_shared_links(s, par);
    return par;
  }
  Task task = Task::make(TaskKind::Engine, par.name + " (copies sharing links, as flows)", s.range);
  task.part = par.children[0].part;  // copies count as overhead (docs/output.md)
  task.track = "flows";
  task.model = "max-min fair sharing, each copy after its route's L+O (AHEAD eq. 10)";
  EngineCall call{engine, {}};
  for (auto [link, dir] : engine->link_inputs()) call.inputs.push_back(m_.topology.links[size_t(link)].bw[dir]);
  for (const Task& c : par.children) call.inputs.push_back(c.flow.bytes);
  for (const Task& c : par.children) call.inputs.push_back(c.flow.latency);
  task.engine_call = int32_t(m_.engine_calls.size());
  m_.engine_calls.push_back(std::move(call));
  return task;
}

}  // namespace gpm::lower
