// sema_congestion.cpp: checks a machine's `arbitration` declarations and an app's `flows` blocks.
#include <map>
#include <set>

#include <fmt/format.h>

#include "frontend/schema.h"
#include "frontend/sema.h"
#include "support/suggest.h"

namespace gpm::frontend {

void Sema::check_arbitrations(const MachineDecl& machine) {
  Scope scope{nullptr, &machine};
  std::map<std::string, SourceRange> seen;  // link type ("" for the default) -> where
  for (const auto& a : machine.arbitrations) {
    if (a.kind != "pcie" && a.kind != "maxmin") {
      diags_.error(DiagKind::InvalidKeyword, a.kind_range,
                   fmt::format("unknown arbitration `{}` (pcie or maxmin){}", a.kind,
                               did_you_mean(a.kind, {"pcie", "maxmin"})));
      continue;
    }
    if (!a.link_type.empty()) {
      auto it = program_.globals.find(a.link_type);
      if (it == program_.globals.end() || it->second->kind != DeclKind::Type ||
          static_cast<const TypeDecl*>(it->second)->component_kind != "link") {
        std::vector<std::string> link_types;
        for (const auto& [name, decl] : program_.globals)
          if (decl->kind == DeclKind::Type && static_cast<const TypeDecl*>(decl)->component_kind == "link")
            link_types.push_back(name);
        diags_.error(DiagKind::UnknownType, a.link_type_range,
                     fmt::format("`{}` is not a declared link type{}", a.link_type,
                                 did_you_mean(a.link_type, link_types)));
        continue;
      }
    }
    auto [it, fresh] = seen.emplace(a.link_type, a.range);
    if (!fresh) {
      diags_.error(DiagKind::DuplicateDefinition, a.range,
                   a.link_type.empty() ? std::string("the default arbitration is declared twice")
                                       : fmt::format("links of type `{}` already have an arbitration", a.link_type));
      diags_.note(it->second, "first declared here");
      continue;
    }
    if (a.kind == "maxmin") {
      for (const auto& attr : a.attrs)
        diags_.error(DiagKind::UnknownAttribute, attr.name_range,
                     fmt::format("max-min arbitration has no attributes, so not `{}`", attr.name));
      continue;
    }
    check_attrs(a.attrs, "PCIe arbitration", scope);
    bool has_tau = false;
    for (const auto& attr : a.attrs) has_tau = has_tau || attr.name == "tau";
    if (!has_tau)
      diags_.error(DiagKind::MissingAttribute, a.kind_range,
                   "PCIe arbitration needs `tau`, the root-complex penalty (e.g. `{ tau = 0.17 }`)");
  }
}

// A pattern of flows among a set of endpoints (expanded by the lowering, lower/flow_patterns.cpp): the pattern's
// name, whether it takes an argument, the argument's dimension (a count), the endpoints and the size.
void Sema::check_flow_pattern(FlowItem& f, const Scope& scope) {
  struct Kind {
    const char* name;
    int arg;  // 0: none, 1: optional, 2: required
    const char* arg_what;
  };
  static const Kind kinds[] = {{"all_to_all", 0, ""},
                               {"ring", 0, ""},
                               {"shift", 2, "the distance of a shift"},
                               {"pairs", 1, "the distance of pairs"},
                               {"permutation", 2, "the seed of a permutation"}};
  const Kind* kind = nullptr;
  std::vector<std::string> names;
  for (const Kind& k : kinds) {
    names.push_back(k.name);
    if (f.pattern == k.name) kind = &k;
  }
  if (!kind) {
    diags_.error(DiagKind::InvalidKeyword, f.pattern_range,
                 fmt::format("`{}` is not a flow pattern; the patterns are all_to_all, ring, shift(K), pairs, pairs(D) "
                             "and permutation(SEED){}",
                             f.pattern, did_you_mean(f.pattern, names)));
    return;
  }
  if (kind->arg == 0 && f.pattern_arg)
    diags_.error(DiagKind::WrongArgumentCount, f.pattern_arg->range, fmt::format("`{}` takes no argument", f.pattern));
  else if (kind->arg == 2 && !f.pattern_arg)
    diags_.error(DiagKind::WrongArgumentCount, f.pattern_range,
                 fmt::format("`{}` needs an argument: `{}({}) SET SIZE`", f.pattern, f.pattern,
                             f.pattern == "shift" ? "K" : "SEED"));
  else if (f.pattern_arg)
    expect_dim(*f.pattern_arg, Dim::count(), kind->arg_what, scope);
  check_comp_ref(f.members, scope);
  expect_dim(*f.bytes, Dim::byte(), "the size of a flow", scope);
  if (f.start) expect_dim(*f.start, Dim::seconds(), "a flow's start time", scope);
}

namespace {

// The labelled flows that wait, through others, for themselves. Each flow waits for at most one other, so one walk
// from each label, stopping at flows an earlier walk has passed, finds every cycle in time linear in the flows (a
// walk per flow to the end of its chain took 1.2 s for a chain of 4,032 `after`s).
std::set<const FlowItem*> waiting_cycles(const std::map<std::string, const FlowItem*>& labels) {
  auto next = [&](const FlowItem* f) -> const FlowItem* {
    auto it = f->after.empty() ? labels.end() : labels.find(f->after);
    return it == labels.end() ? nullptr : it->second;
  };
  std::map<const FlowItem*, size_t> walked;  // the walk that passed each flow first
  std::set<const FlowItem*> cycles;
  size_t walk = 0;
  for (const auto& [label, first] : labels) {
    ++walk;
    const FlowItem* at = first;
    for (; at && !walked.count(at); at = next(at)) walked[at] = walk;
    if (at && walked[at] == walk)  // this walk came back to a flow of its own: a cycle through `at`
      for (const FlowItem* c = at; cycles.insert(c).second;) c = next(c);
  }
  return cycles;
}

}  // namespace

void Sema::check_flows(const AppDecl& app, Stmt& s, const LoopScope* loops) {
  Scope scope{nullptr, &app, loops};
  std::map<std::string, const FlowItem*> labels;
  std::vector<std::string> names;
  for (const auto& f : s.flows) {
    if (f.label.empty()) continue;
    auto [it, fresh] = labels.emplace(f.label, &f);
    if (!fresh) {
      diags_.error(DiagKind::DuplicateDefinition, f.label_range, fmt::format("flow `{}` is defined twice", f.label));
      diags_.note(it->second->label_range, "first defined here");
    } else {
      names.push_back(f.label);
    }
  }
  if (s.flows.empty())
    diags_.error(DiagKind::MissingAttribute, s.range, "a `flows` block needs at least one flow: `SRC -> DST BYTES`");
  check_flow_items(s, s.flows, scope, labels, names, waiting_cycles(labels));
}

// The flows of a block or of a loop's body (`scope.loops` set inside a loop). Labels name one flow each, so they
// stand only outside loops; a flow inside a loop may wait (`after`) for one of them.
void Sema::check_flow_items(Stmt& s, std::vector<FlowItem>& items, const Scope& scope,
                            const std::map<std::string, const FlowItem*>& labels,
                            const std::vector<std::string>& names, const std::set<const FlowItem*>& cycles) {
  for (auto& f : items) {
    if (f.loop_var) {
      if (f.body.empty())
        diags_.error(DiagKind::MissingAttribute, f.range, "a `for` in a `flows` block needs at least one flow in its body");
      if (!check_loop(*f.loop_var, *f.loop_lo, *f.loop_hi, scope)) continue;
      LoopScope inner{f.loop_var.get(), scope.loops};
      Scope body_scope{scope.fn, scope.owner, &inner};
      check_flow_items(s, f.body, body_scope, labels, names, cycles);
      continue;
    }
    if (scope.loops && !f.label.empty()) {
      diags_.error(DiagKind::MisplacedDeclaration, f.label_range,
                   fmt::format("a flow inside a `for` is made once per iteration, so a label would name several "
                               "flows; label a flow outside the loop, or drop `{}:`",
                               f.label));
      continue;
    }
    if (!f.pattern.empty()) {
      check_flow_pattern(f, scope);
    } else {
      check_comp_ref(f.src, scope);
      check_comp_ref(f.dst, scope);
      expect_dim(*f.bytes, Dim::byte(), "the size of a flow", scope);
      if (f.start) expect_dim(*f.start, Dim::seconds(), "a flow's start time", scope);
    }
    if (s.unordered && (f.start || !f.after.empty())) {
      diags_.error(DiagKind::MisplacedDeclaration, f.start ? f.start->range : f.after_range,
                   "flows in a `flows unordered` block all start together; their order is what `gpmc search` varies");
      continue;
    }
    if (f.after.empty()) continue;
    auto it = labels.find(f.after);
    if (it == labels.end()) {
      diags_.error(DiagKind::UnknownIdentifier, f.after_range,
                   fmt::format("this block has no flow `{}`{}", f.after, did_you_mean(f.after, names)));
      continue;
    }
    // Waiting for a flow that (through others) waits for this one never starts.
    if (cycles.count(&f))
      diags_.error(DiagKind::RecursiveDefinition, f.after_range,
                   fmt::format("flows wait for each other in a cycle through `{}`", f.after));
  }
}

}  // namespace gpm::frontend
