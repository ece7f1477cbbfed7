// lower_congestion.cpp: lowers a `flows` block to a congestion-engine task: routes, the machine's arbitration per
// fabric, and the SSA inputs (tau, link bandwidths, sizes, start times) the engine reads.
#include <fmt/format.h>

#include "engines/congestion/engine.h"
#include "lower/lower.h"

namespace gpm::lower {

using namespace frontend;
namespace cg = engines::congestion;

Task Lowerer::lower_flows(const Stmt& s) {
  Task task = Task::make(TaskKind::Engine, s.unordered ? "flows unordered" : "flows", s.range);
  // The event loop has up to two steps per flow and visits every flow in each: keep a block's work bounded.
  constexpr size_t kMaxFlows = 5'000;
  if (s.flows.size() > kMaxFlows) {
    diags_.error(DiagKind::ModelTooLarge, s.range,
                 fmt::format("a `flows` block has {} flows; the limit is {}", s.flows.size(), kMaxFlows));
    return task;
  }
  const MachineDecl* machine = nullptr;
  for (const auto* m : program_.machines)
    if (m->name == m_.machine_name) machine = m;
  // Each link's arbitration: the one declared `on` its type, else the machine's default, else max-min.
  cg::FabricMap fabrics;
  fabrics.link_arbitration.assign(m_.topology.links.size(), -1);
  ValueId tau = kNoValue;
  if (machine) {
    for (const auto& a : machine->arbitrations) {
      int kind = a.kind == "pcie" ? int(cg::Arbitration::Pcie) : int(cg::Arbitration::MaxMin);
      for (size_t i = 0; i < m_.topology.links.size(); ++i) {
        const std::string& type = m_.topology.links[i].type_name;
        bool named = !a.link_type.empty() && type == a.link_type;
        bool by_default = a.link_type.empty() && fabrics.link_arbitration[i] < 0;
        bool other_named = false;
        for (const auto& b : machine->arbitrations) other_named = other_named || (!b.link_type.empty() && b.link_type == type);
        if (named || (by_default && !other_named)) fabrics.link_arbitration[i] = kind;
      }
      for (const auto& attr : a.attrs)
        if (attr.name == "tau" && a.kind == "pcie") {
          tau = lower_expr(*attr.value);
          ValueId lo = b_.constant(0, Dim::count(), attr.value->range), hi = b_.constant(1, Dim::count(), attr.value->range);
          m_.checks.push_back({CheckKind::InRange, tau, lo, hi, attr.value->range, "`tau` of the PCIe arbitration"});
        }
    }
  }
  std::map<std::string, int> index;
  for (size_t i = 0; i < s.flows.size(); ++i)
    if (!s.flows[i].label.empty()) index[s.flows[i].label] = int(i);
  std::vector<cg::FlowSpec> specs;
  std::vector<ValueId> bytes, starts;
  bool ok = true;
  for (const auto& f : s.flows) {
    cg::FlowSpec spec;
    auto endpoint = [&](const CompRef& ref) {
      auto found = resolve(ref, "");
      if (found.size() > 1)
        diags_.error(DiagKind::UnknownComponent, ref.range,
                     fmt::format("`{}` names {} components; a flow goes from one to one", source_text(ref.range),
                                 found.size()));
      return found.size() == 1 ? found[0] : -1;
    };
    spec.src = endpoint(f.src);
    spec.dst = endpoint(f.dst);
    ok = ok && spec.src >= 0 && spec.dst >= 0;
    if (!ok) continue;
    spec.name = !f.label.empty() ? f.label
                                 : m_.topology.components[size_t(spec.src)].path + " -> " +
                                       m_.topology.components[size_t(spec.dst)].path;
    if (!f.after.empty()) spec.after = index.at(f.after);
    ValueId size = lower_expr(*f.bytes);
    add_check(CheckKind::NonNegative, size, f.bytes->range, fmt::format("the size of flow `{}`", spec.name));
    bytes.push_back(size);
    if (f.start) {
      spec.has_start = true;
      ValueId start = lower_expr(*f.start);
      add_check(CheckKind::NonNegative, start, f.start->range, fmt::format("the start time of flow `{}`", spec.name));
      starts.push_back(start);
    }
    specs.push_back(std::move(spec));
  }
  if (!ok) return task;
  cg::BuildError error;
  auto engine = cg::CongestionEngine::build(m_.topology, fabrics, std::move(specs), s.unordered, error, link_costs());
  if (!engine) {
    SourceRange where = error.flow >= 0 ? s.flows[size_t(error.flow)].range : s.range;
    DiagKind kind = error.message.find("no path") != std::string::npos ? DiagKind::NoPath : DiagKind::FabricError;
    diags_.error(kind, where, error.message);
    return task;
  }
  EngineCall call{engine, {}};
  if (engine->uses_tau()) {
    if (tau == kNoValue) {  // sema requires tau; a guard for hand-built programs
      diags_.error(DiagKind::MissingAttribute, s.range, "PCIe arbitration needs `tau`");
      return task;
    }
    call.inputs.push_back(tau);
  }
  for (auto [link, dir] : engine->link_inputs()) call.inputs.push_back(m_.topology.links[size_t(link)].bw[dir]);
  call.inputs.insert(call.inputs.end(), bytes.begin(), bytes.end());
  call.inputs.insert(call.inputs.end(), starts.begin(), starts.end());
  task.model = engine->uses_tau() ? "PCIe congestion (Martinasso et al., Algorithm 1)"
                                  : "max-min fair sharing (progressive filling)";
  task.engine_call = int32_t(m_.engine_calls.size());
  m_.engine_calls.push_back(std::move(call));
  return task;
}

}  // namespace gpm::lower
