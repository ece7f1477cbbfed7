// lower_congestion.cpp: lowers a `flows` block to a congestion-engine task: routes, the machine's arbitration per
// fabric, and the SSA inputs (tau, link bandwidths, sizes, start times) the engine reads.
#include <fmt/format.h>

#include <unistd.h>

#include <cmath>

#include "engines/congestion/engine.h"
#include "lower/flow_patterns.h"
#include "lower/lower.h"
#include "support/limits.h"

namespace gpm::lower {

using namespace frontend;
namespace cg = engines::congestion;

namespace {

// Memory of one flow from lowering to report (its spec and name, route, the engine's per-flow state, the per-flow
// output): a 1,024-host all-to-all (1,047,552 flows) peaks at 438 MB, about 390 bytes a flow; with a margin.
constexpr uint64_t kBytesPerFlow = 500;

uint64_t physical_memory() {
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && size > 0 ? uint64_t(pages) * uint64_t(size) : 0;
}

}  // namespace

// Whether a block of `flows` flows can be built: at most --max-flows (support/limits.h, at most 2^27: flows and hops
// are numbered with 32-bit integers), and their memory within half the machine's.
bool flows_fit(uint64_t flows, std::string& why, std::string_view what) {
  if (uint64_t limit = support::limits().flows_per_block; flows > limit) {
    why = fmt::format("{} {} flows; gpmc handles at most {} in one block (--max-flows)", what, flows, limit);
    return false;
  }
  uint64_t need = flows * kBytesPerFlow, have = physical_memory();
  if (have > 0 && need > have / 2) {
    why = fmt::format("{} {} flows, which need about {:.1f} GB of memory; this machine has {:.1f} GB (gpmc uses at "
                      "most half)",
                      what, flows, double(need) / 1e9, double(have) / 1e9);
    return false;
  }
  return true;
}

// A listed message is a pair of 32-bit ranks; twice that for the list's growth and the copies the fabric model's
// checks make of a round's messages.
bool messages_fit(uint64_t messages, std::string& why) {
  constexpr uint64_t kBytesPerMessage = 16;
  uint64_t have = physical_memory();
  if (have > 0 && messages > have / 2 / kBytesPerMessage) {
    why = fmt::format("its messages number {}, whose list alone needs about {:.1f} GB of memory; this machine has "
                      "{:.1f} GB (gpmc uses at most half)",
                      messages, double(messages) * double(kBytesPerMessage) / 1e9, double(have) / 1e9);
    return false;
  }
  return true;
}

cg::FabricMap Lowerer::fabric_map(ValueId& tau) {
  const MachineDecl* machine = nullptr;
  for (const auto* m : program_.machines)
    if (m->name == m_.machine_name) machine = m;
  cg::FabricMap fabrics;
  fabrics.link_arbitration.assign(m_.topology.links.size(), -1);
  tau = kNoValue;
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
  return fabrics;
}

Task Lowerer::lower_flows(const Stmt& s) {
  Task task = Task::make(TaskKind::Engine, s.unordered ? "flows unordered" : "flows", s.range);
  task.part = "communication";  // data moved between components, as MPI moves it between ranks (docs/output.md)
  task.track = "flows";
  ValueId tau = kNoValue;
  cg::FabricMap fabrics = fabric_map(tau);
  std::map<std::string, int> index;  // a labelled flow's place among the expanded flows
  // Loops and patterns expand to their flows here: first their endpoints and counts, so that a block too large for
  // memory is refused before any flow is made.
  struct Expansion {
    std::vector<int> members;
    int64_t arg = 1;
  };
  std::vector<Expansion> expansions;  // each pattern's, in the order met
  std::vector<std::pair<uint64_t, SourceRange>> item_begin;  // each flow or pattern met: its first flow, where written
  uint64_t total = 0;
  bool ok = true;
  bool expanded = walk_flows(s.flows, [&](const FlowItem& f) {
    item_begin.emplace_back(total, f.range);
    if (f.pattern.empty()) {
      if (!f.label.empty()) index[f.label] = int(total);
      ++total;
      return;
    }
    Expansion& x = expansions.emplace_back();
    x.members = resolve(f.members, "");
    if (x.members.empty()) {  // resolve reported it
      ok = false;
      return;
    }
    if (f.pattern_arg) {
      double v = eager_value(lower_expr(*f.pattern_arg));
      if (!std::isfinite(v) || v != std::floor(v) || std::fabs(v) > 9.0e15) {
        diags_.error(DiagKind::NotAnInteger, f.pattern_arg->range,
                     fmt::format("the argument of `{}` must be a whole number, not {}", f.pattern, v));
        ok = false;
        return;
      }
      x.arg = int64_t(v);
    }
    std::string why;
    auto count = pattern_flow_count(f.pattern, int64_t(x.members.size()), x.arg, why);
    if (!count) {
      diags_.error(DiagKind::InvalidPattern, f.range, why);
      ok = false;
      return;
    }
    total += *count;
  }, true);
  if (!ok || !expanded) return task;
  if (total == 0) {
    diags_.error(DiagKind::MissingAttribute, s.range, "this `flows` block makes no flow (its loops run no iteration)");
    return task;
  }
  if (std::string why; !flows_fit(total, why)) {
    diags_.error(DiagKind::ModelTooLarge, s.range, why);
    return task;
  }
  std::vector<cg::FlowSpec> specs;
  specs.reserve(size_t(total));
  std::vector<ValueId> bytes, starts;
  auto name_of = [&](int src, int dst) {
    return m_.topology.components[size_t(src)].path + " -> " + m_.topology.components[size_t(dst)].path;
  };
  size_t next_expansion = 0;
  expanded = walk_flows(s.flows, [&](const FlowItem& f) {
    if (!ok) return;
    if (!f.pattern.empty()) {
      const Expansion& x = expansions[next_expansion++];
      ValueId size = lower_expr(*f.bytes);
      add_check(CheckKind::NonNegative, size, f.bytes->range, fmt::format("the size of the flows of `{}`", f.pattern));
      int size_input = int(bytes.size()), start_input = int(starts.size());
      bytes.push_back(size);
      if (f.start) {
        ValueId start = lower_expr(*f.start);
        add_check(CheckKind::NonNegative, start, f.start->range, fmt::format("the start time of `{}`", f.pattern));
        starts.push_back(start);
      }
      for (auto [a, b] : pattern_flows(f.pattern, int64_t(x.members.size()), x.arg)) {
        cg::FlowSpec spec;
        spec.src = x.members[size_t(a)];
        spec.dst = x.members[size_t(b)];
        spec.name = name_of(spec.src, spec.dst);
        spec.size_input = size_input;
        spec.has_start = f.start != nullptr;
        spec.start_input = f.start ? start_input : -1;
        specs.push_back(std::move(spec));
      }
      return;
    }
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
    if (!ok) return;
    spec.name = !f.label.empty() ? f.label : name_of(spec.src, spec.dst);
    if (!f.after.empty()) spec.after = index.at(f.after);
    ValueId size = lower_expr(*f.bytes);
    add_check(CheckKind::NonNegative, size, f.bytes->range, fmt::format("the size of flow `{}`", spec.name));
    spec.size_input = int(bytes.size());
    bytes.push_back(size);
    if (f.start) {
      spec.has_start = true;
      spec.start_input = int(starts.size());
      ValueId start = lower_expr(*f.start);
      add_check(CheckKind::NonNegative, start, f.start->range, fmt::format("the start time of flow `{}`", spec.name));
      starts.push_back(start);
    }
    specs.push_back(std::move(spec));
  }, false);
  if (!ok || !expanded) return task;
  cg::BuildError error;
  auto engine = cg::CongestionEngine::build(m_.topology, fabrics, std::move(specs), s.unordered, error, link_costs());
  if (!engine) {
    // The item a flow came from: the last whose first flow is at or before it.
    size_t item = 0;
    while (item + 1 < item_begin.size() && item_begin[item + 1].first <= uint64_t(error.flow)) ++item;
    SourceRange where = error.flow >= 0 && !item_begin.empty() ? item_begin[item].second : s.range;
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
