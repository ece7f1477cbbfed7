// sema.cpp: declarations, duplicates, recursion, and the structure of machines, types and apps.
#include "frontend/sema.h"

#include <algorithm>
#include <functional>

#include <fmt/format.h>

#include "frontend/schema.h"
#include "support/suggest.h"

namespace gpm::frontend {

void Sema::declare(const Decl& decl, const Decl* owner) {
  if (is_builtin(decl.name)) {
    diags_.error(DiagKind::DuplicateDefinition, decl.name_range,
                 fmt::format("`{}` is a built-in function and cannot be redefined", decl.name));
    return;
  }
  // A name inside a machine or app may not shadow a global one either: that would be a trap.
  const Decl* previous = nullptr;
  if (owner) {
    auto global = program_.globals.find(decl.name);
    if (global != program_.globals.end()) previous = global->second;
  }
  if (!previous) {
    SymbolTable& table = owner ? program_.scoped[owner] : program_.globals;
    auto [it, inserted] = table.emplace(decl.name, &decl);
    if (inserted) {
      if (owner) program_.owner[&decl] = owner;
      return;
    }
    previous = it->second;
  }
  diags_.error(DiagKind::DuplicateDefinition, decl.name_range, fmt::format("`{}` is defined twice", decl.name));
  diags_.note(previous->name_range, "first defined here");
}

void Sema::collect(const Module& module) {
  for (const auto& decl : module.decls) {
    switch (decl->kind) {
      case DeclKind::Import: break;
      case DeclKind::Param:
        declare(*decl, nullptr);
        program_.params.push_back(static_cast<const ParamDecl*>(decl.get()));
        break;
      case DeclKind::Let:
        declare(*decl, nullptr);
        program_.lets.push_back(static_cast<const LetDecl*>(decl.get()));
        break;
      case DeclKind::Fn:
        declare(*decl, nullptr);
        program_.fns.push_back(static_cast<const FnDecl*>(decl.get()));
        break;
      case DeclKind::Machine:
        declare(*decl, nullptr);
        program_.machines.push_back(static_cast<const MachineDecl*>(decl.get()));
        break;
      case DeclKind::App:
        declare(*decl, nullptr);
        program_.apps.push_back(static_cast<const AppDecl*>(decl.get()));
        break;
      default: declare(*decl, nullptr);
    }
  }
}

bool Sema::check(const std::vector<Module*>& modules) {
  size_t errors_before = diags_.error_count();
  // Global names first (from every module), then the names inside machines and apps.
  for (const auto& m : modules) collect(*m);
  for (const auto* m : program_.machines) {
    program_.scoped[m];
    for (const auto& p : m->params) declare(*p, m), program_.params.push_back(p.get());
    for (const auto& l : m->lets) declare(*l, m), program_.lets.push_back(l.get());
  }
  for (const auto* a : program_.apps) {
    program_.scoped[a];
    for (const auto& p : a->params) declare(*p, a), program_.params.push_back(p.get());
    for (const auto& l : a->lets) declare(*l, a), program_.lets.push_back(l.get());
  }
  for (const auto* fn : program_.fns) check_fn(*fn);
  for (const auto* p : program_.params) type_of(*p);
  for (const auto* l : program_.lets) type_of(*l);
  check_recursion();
  for (const auto& m : modules)
    for (const auto& decl : m->decls)
      if (decl->kind == DeclKind::Type) check_type_decl(static_cast<const TypeDecl&>(*decl));
  for (const auto* m : program_.machines) check_machine(*m);
  for (const auto* a : program_.apps) check_app(*a);
  return diags_.error_count() == errors_before;
}

Type Sema::check_global_expr(Expr& expr) { return check_expr(expr, Scope{}); }

const Decl* Sema::lookup(const std::string& name, const Scope& scope) const {
  for (const LoopScope* loop = scope.loops; loop; loop = loop->outer)
    if (loop->var->name == name) return loop->var;
  if (scope.owner) {
    auto scoped = program_.scoped.find(scope.owner);
    if (scoped != program_.scoped.end()) {
      auto it = scoped->second.find(name);
      if (it != scoped->second.end()) return it->second;
    }
  }
  auto it = program_.globals.find(name);
  return it == program_.globals.end() ? nullptr : it->second;
}

// Types a param or let on first use. A definition that depends on itself is left for check_recursion.
Type Sema::type_of(const Decl& decl) {
  int& state = state_[&decl];
  if (state == 1) return Type::error();
  if (state == 2)
    return decl.kind == DeclKind::Param ? static_cast<const ParamDecl&>(decl).type
                                        : static_cast<const LetDecl&>(decl).type;
  state = 1;
  const Decl* saved = current_;
  current_ = &decl;
  Scope scope{nullptr, program_.owner_of(&decl)};
  Type t;
  if (decl.kind == DeclKind::Param && static_cast<const ParamDecl&>(decl).is_word()) {
    t = check_word_param(const_cast<ParamDecl&>(static_cast<const ParamDecl&>(decl)));
  } else if (decl.kind == DeclKind::Param) {
    auto& p = const_cast<ParamDecl&>(static_cast<const ParamDecl&>(decl));
    t = check_expr(*p.value, scope);
    if (t.is_bool()) {
      diags_.error(DiagKind::TypeMismatch, p.value->range, "a parameter must be a quantity, not a truth value");
      t = Type::error();
    }
    for (Expr* bound : {p.range_lo.get(), p.range_hi.get()}) {
      if (!bound) continue;
      Type b = check_expr(*bound, scope);
      if (!b.is_error() && !t.is_error() && (b.is_bool() || b.dim != t.dim))
        diags_.error(DiagKind::UnitMismatch, bound->range,
                     fmt::format("the range of `{}` must be `{}` like its value", p.name, dim_name(t.dim)));
    }
    p.type = t;
  } else {
    auto& l = const_cast<LetDecl&>(static_cast<const LetDecl&>(decl));
    t = check_expr(*l.value, scope);
    l.type = t;
  }
  current_ = saved;
  state_[&decl] = 2;
  return t;
}

void Sema::check_fn(const FnDecl& fn) {
  for (size_t i = 0; i < fn.params.size(); ++i)
    for (size_t k = 0; k < i; ++k)
      if (fn.params[i].name == fn.params[k].name)
        diags_.error(DiagKind::DuplicateDefinition, fn.params[i].range,
                     fmt::format("parameter `{}` of `{}` is declared twice", fn.params[i].name, fn.name));
  const Decl* saved = current_;
  current_ = &fn;
  Type body = check_expr(*const_cast<FnDecl&>(fn).body, Scope{&fn, nullptr});
  current_ = saved;
  if (!body.is_error() && fn.result.dim && (body.is_bool() || body.dim != *fn.result.dim))
    diags_.error(DiagKind::UnitMismatch, fn.body->range,
                 fmt::format("`{}` is declared to return `{}` but its body is {}", fn.name, dim_name(*fn.result.dim),
                             body.is_bool() ? "a truth value" : "`" + dim_name(body.dim) + "`"));
}

// Functions are inlined and params and lets are evaluated once, so none may depend on itself, directly
// or through others. Reports the first cycle found (searching in load order), with its chain.
void Sema::check_recursion() {
  std::map<const Decl*, int> color;  // 0 new, 1 on the current path, 2 done
  std::vector<const Decl*> path;
  std::function<bool(const Decl*)> visit = [&](const Decl* d) {
    color[d] = 1;
    path.push_back(d);
    for (const Decl* used : uses_[d]) {
      if (color[used] == 1) {
        std::string chain;
        for (auto it = std::find(path.begin(), path.end(), used); it != path.end(); ++it) chain += "`" + (*it)->name + "` -> ";
        chain += "`" + used->name + "`";
        diags_.error(DiagKind::RecursiveDefinition, used->name_range,
                     fmt::format("`{}` depends on itself ({}); functions are inlined and values computed once, "
                                 "so definitions cannot be recursive",
                                 used->name, chain));
        return true;
      }
      if (color[used] == 0 && visit(used)) return true;
    }
    path.pop_back();
    color[d] = 2;
    return false;
  };
  std::vector<const Decl*> order(program_.fns.begin(), program_.fns.end());
  order.insert(order.end(), program_.params.begin(), program_.params.end());
  order.insert(order.end(), program_.lets.begin(), program_.lets.end());
  for (const Decl* d : order) {
    if (color[d] != 0) continue;
    path.clear();
    if (visit(d)) return;  // one report; the rest of the graph may hold the same cycle again
  }
}

void Sema::expect_dim(Expr& expr, Dim dim, const std::string& what, const Scope& scope) {
  Type t = check_expr(expr, scope);
  if (t.is_error()) return;
  if (t.is_bool() || t.dim != dim) {
    // A plain number where a unit is needed is the most common slip: say which unit to write.
    std::string hint;
    if (!t.is_bool() && t.dim.is_count()) {
      if (dim == Dim::flop()) hint = "; write the unit, e.g. `2e9 flop`";
      else if (dim == Dim::byte()) hint = "; write the unit, e.g. `8 B` or `4 KiB`";
      else if (dim == Dim::seconds()) hint = "; write the unit, e.g. `5 us`";
      else if (dim == Dim::byte() / Dim::seconds()) hint = "; write the unit, e.g. `16 GB/s`";
    }
    diags_.error(DiagKind::UnitMismatch, expr.range,
                 fmt::format("{} must have dimension `{}`, not {}{}", what, dim_name(dim),
                             t.is_bool() ? "a truth value" : "`" + dim_name(t.dim) + "`", hint));
  }
}

void Sema::check_attrs(const std::vector<Attr>& attrs, const std::string& owner, const Scope& scope) {
  for (size_t i = 0; i < attrs.size(); ++i) {
    const Attr& attr = attrs[i];
    for (size_t k = 0; k < i; ++k)
      if (attrs[k].name == attr.name) {
        diags_.error(DiagKind::DuplicateDefinition, attr.name_range,
                     fmt::format("attribute `{}` is set twice", attr.name));
        diags_.note(attrs[k].name_range, "first set here");
      }
    const AttrSpec* spec = find_attribute(owner, attr.name);
    if (!spec) {
      std::vector<std::string> names;
      if (const auto* schema = attribute_schema(owner))
        for (const auto& s : *schema) names.push_back(s.name);
      std::string hint = did_you_mean(attr.name, names);
      diags_.error(DiagKind::UnknownAttribute, attr.name_range,
                   hint.empty() ? fmt::format("a {} has no attribute `{}` (it has: {})", owner, attr.name,
                                              attribute_names(owner))
                                : fmt::format("a {} has no attribute `{}`{}", owner, attr.name, hint));
      continue;
    }
    // `precision` is a number of bits; a word such as bf16 or fp32 where no param or let has that name gets the
    // list, and the number it would mean.
    if (attr.name == "precision" && attr.value->kind == ExprKind::Name && !attr.value->parenthesized &&
        !lookup(attr.value->name, scope)) {
      const std::string& w = attr.value->name;
      std::string bits = w == "fp64" || w == "double" || w == "f64" ? "64"
                         : w == "fp32" || w == "float" || w == "f32" ? "32"
                         : w == "fp16" || w == "bf16" || w == "half" || w == "f16" ? "16"
                                                                                     : "";
      diags_.error(DiagKind::InvalidKeyword, attr.value->range,
                   fmt::format("`precision` is 64, 32 or 16 (the GPU's peak_fp64, peak_fp32 or peak_fp16), not a "
                               "word{}",
                               bits.empty() ? "" : fmt::format("; for {} write `precision = {}`", w, bits)));
      continue;
    }
    expect_dim(*attr.value, spec->dim, fmt::format("attribute `{}`", attr.name), scope);
  }
}

void Sema::check_type_decl(const TypeDecl& type) {
  const bool library = type.component_kind == "library" || type.component_kind == "mpi_library" ||
                       type.component_kind == "openmpi_library";
  if (!is_component_kind(type.component_kind) && type.component_kind != "link" && !library) {
    diags_.error(DiagKind::UnknownComponentKind, type.kind_range,
                 fmt::format("unknown component kind `{}` (cpu, gpu, memory, switch, root, nic, link, library, "
                             "mpi_library or openmpi_library)",
                             type.component_kind));
    return;
  }
  check_attrs(type.attrs, type.component_kind, Scope{});
  if (!library) return;
  // A communication library's model reads every one of its constants: none may be missing.
  std::vector<std::string> missing;
  for (const auto& spec : *attribute_schema(type.component_kind)) {
    bool given = false;
    for (const auto& a : type.attrs) given = given || a.name == spec.name;
    if (!given) missing.push_back(spec.name);
  }
  if (!missing.empty())
    diags_.error(DiagKind::MissingAttribute, type.name_range,
                 fmt::format("library type `{}` lacks {} of the library model's constants: {}", type.name,
                             missing.size(), fmt::format("{}", fmt::join(missing, ", "))));
}

void Sema::check_comp_ref(const CompRef& ref, const Scope& scope) {
  for (const auto& part : ref.parts)
    if (part.index) expect_dim(*part.index, Dim::count(), "an index", scope);
}

// The type declaration named `name` when it exists and has kind `kind`; reports otherwise.
static const TypeDecl* find_type(const CheckedProgram& program, DiagnosticEngine& diags, const std::string& name,
                                 SourceRange range, const std::string& kind) {
  auto it = program.globals.find(name);
  if (it == program.globals.end() || it->second->kind != DeclKind::Type) {
    std::vector<std::string> types;
    for (const auto& [global, decl] : program.globals)
      if (decl->kind == DeclKind::Type) types.push_back(global);
    diags.error(DiagKind::UnknownType, range, fmt::format("unknown component type `{}`{}", name, did_you_mean(name, types)));
    return nullptr;
  }
  const auto* type = static_cast<const TypeDecl*>(it->second);
  if (type->component_kind != kind) {
    diags.error(DiagKind::TypeKindMismatch, range,
                fmt::format("`{}` is a {} type, used here for a {}", name, type->component_kind, kind));
    diags.note(type->name_range, "declared here");
    return nullptr;
  }
  return type;
}

void Sema::check_node_items(const std::vector<NodeItem>& items, bool in_socket, const Scope& scope) {
  std::map<std::string, SourceRange> names;
  auto name_once = [&](const std::string& name, SourceRange range) {
    auto [it, inserted] = names.emplace(name, range);
    if (!inserted) {
      diags_.error(DiagKind::DuplicateDefinition, range, fmt::format("component `{}` is declared twice", name));
      diags_.note(it->second, "first declared here");
    }
  };
  for (const auto& item : items) {
    switch (item.kind) {
      case NodeItem::Kind::Component: {
        const auto& c = *item.component;
        name_once(c.name, c.name_range);
        if (!is_component_kind(c.kind)) {
          diags_.error(DiagKind::UnknownComponentKind, c.kind_range,
                       fmt::format("unknown component kind `{}` (cpu, gpu, memory, switch, root or nic)", c.kind));
          break;
        }
        if (c.count) expect_dim(*c.count, Dim::count(), "an array size", scope);
        if (!c.type_name.empty()) find_type(program_, diags_, c.type_name, c.type_range, c.kind);
        check_attrs(c.attrs, c.kind, scope);
        break;
      }
      case NodeItem::Kind::Socket: {
        const auto& s = *item.socket;
        name_once(s.name, s.name_range);
        if (in_socket) {
          diags_.error(DiagKind::MisplacedDeclaration, s.name_range, "sockets cannot be nested");
          break;
        }
        if (s.count) expect_dim(*s.count, Dim::count(), "an array size", scope);
        check_node_items(s.items, true, scope);
        break;
      }
      case NodeItem::Kind::Link: {
        const auto& l = *item.link;
        for (const auto& pair : l.pairs) {
          check_comp_ref(pair.a, scope);
          check_comp_ref(pair.b, scope);
        }
        if (!l.type_name.empty()) find_type(program_, diags_, l.type_name, l.type_range, "link");
        check_attrs(l.attrs, "link", scope);
        break;
      }
      case NodeItem::Kind::Attr:
        diags_.error(DiagKind::UnknownAttribute, item.attr->name_range,
                     fmt::format("a {} has no attributes; `{}` belongs on a component or link",
                                 in_socket ? "socket" : "node", item.attr->name));
        break;
    }
  }
}

void Sema::check_machine(const MachineDecl& machine) {
  Scope scope{nullptr, &machine};
  check_attrs(machine.attrs, "machine", scope);
  check_mpi_section(machine);
  check_network_section(machine);
  check_cluster_section(machine);
  if (machine.nodes.empty()) {
    diags_.error(DiagKind::MissingAttribute, machine.name_range,
                 fmt::format("machine `{}` has no `node {{ ... }}` description", machine.name));
    return;
  }
  for (size_t i = 1; i < machine.nodes.size(); ++i)
    diags_.error(DiagKind::DuplicateDefinition, machine.nodes[i]->range,
                 "a machine has one `node` description (all nodes are alike)");
  check_node_items(machine.nodes[0]->items, false, scope);
  check_arbitrations(machine);
}

void Sema::check_app(const AppDecl& app) {
  std::map<std::string, SourceRange> local;
  auto name_once = [&](const std::string& name, SourceRange range) {
    auto [it, inserted] = local.emplace(name, range);
    if (!inserted) {
      diags_.error(DiagKind::DuplicateDefinition, range, fmt::format("`{}` is defined twice in app `{}`", name, app.name));
      diags_.note(it->second, "first defined here");
    }
  };
  for (const auto& d : app.data) {
    for (const auto& [name, range] : d->names) name_once(name, range);
    if (d->placement == "host") {
      if (d->host_kind != "pinned" && d->host_kind != "pageable")
        diags_.error(DiagKind::InvalidKeyword, d->host_kind.empty() ? d->placement_range : d->host_kind_range,
                     "host data must be `host pinned` or `host pageable`");
    } else if (d->placement == "device") {
      if (!d->host_kind.empty())
        diags_.error(DiagKind::InvalidKeyword, d->host_kind_range, "device data takes no `pinned` or `pageable`");
    } else {
      diags_.error(DiagKind::InvalidKeyword, d->placement_range,
                   fmt::format("unknown placement `{}`; data lives on `host pinned`, `host pageable` or `device`",
                               d->placement));
    }
    expect_dim(*d->size, Dim::byte(), "a data size", Scope{nullptr, &app});
  }
  for (const auto& k : app.kernels) {
    name_once(k->name, k->name_range);
    check_attrs(k->attrs, "kernel", Scope{nullptr, &app});
    if (k->on) check_comp_ref(*k->on, Scope{nullptr, &app});
    bool has_time = false, has_work = false;
    for (const auto& a : k->attrs) {
      has_time = has_time || a.name == "time";
      // l2_bytes and shared_bytes are quantitative-roofline work too (E2E section 3.3).
      has_work = has_work || a.name == "flops" || a.name == "bytes" || a.name == "l2_bytes" || a.name == "shared_bytes";
    }
    if (has_time && has_work)
      diags_.error(DiagKind::ConflictingAttributes, k->name_range,
                   fmt::format("kernel `{}` gives both `time` and `flops`/`bytes`; keep one", k->name));
    else if (!has_time && !has_work)
      diags_.error(DiagKind::MissingAttribute, k->name_range,
                   fmt::format("kernel `{}` needs `flops` and/or `bytes` (roofline) or a `time`", k->name));
  }
  for (const auto& s : app.body) check_stmt(app, *s, nullptr);
}

// `copy p2p SIZE from REF to REF`: a GPU-to-GPU copy of a size or of a device buffer; the references are
// resolved when the app is lowered (they need the machine).
void Sema::check_peer_copy(const AppDecl& app, Stmt& s, const Scope& scope) {
  if (!s.peer_from) {
    diags_.error(DiagKind::InvalidKeyword, s.direction_range,
                 "copy p2p copies between two gpus: write `copy p2p SIZE from GPU to GPU`");
    return;
  }
  if (s.direction != "p2p") {
    diags_.error(DiagKind::InvalidKeyword, s.direction_range,
                 fmt::format("`from ... to ...` names the two gpus of a copy p2p, not of a copy {}", s.direction));
    return;
  }
  if (!s.peer_word.empty()) {
    diags_.error(DiagKind::SyntaxError, s.peer_word_range,
                 fmt::format("expected `copy p2p SIZE from GPU to GPU`, found `{}`", s.peer_word));
    return;
  }
  check_comp_ref(*s.peer_from, scope);
  check_comp_ref(*s.peer_to, scope);
  if (s.expr->kind == ExprKind::Name && !s.expr->parenthesized)
    for (const auto& d : app.data)
      for (const auto& [name, range] : d->names)
        if (name == s.expr->name) s.buffer = d.get();
  if (!s.buffer) {
    expect_dim(*s.expr, Dim::byte(), "the size of a copy", scope);
    return;
  }
  if (s.buffer->placement != "device")
    diags_.error(DiagKind::InvalidKeyword, s.expr->range,
                 fmt::format("`{}` lives on the host; copy p2p copies device data from one gpu to another", s.expr->name));
}

// `for NAME in LO .. HI`: the bounds are counts (whole numbers, checked when the loop is expanded); the name is a
// new one, so that no param, let or outer loop variable is hidden inside the body.
bool Sema::check_loop(LetDecl& var, Expr& lo, Expr& hi, const Scope& scope) {
  var.type = Type::quantity(Dim::count());
  state_[&var] = 2;
  expect_dim(lo, Dim::count(), "the first value of a loop", scope);
  expect_dim(hi, Dim::count(), "the last value of a loop", scope);
  if (const Decl* hidden = lookup(var.name, scope)) {
    bool outer_loop = hidden->kind == DeclKind::Let && !static_cast<const LetDecl*>(hidden)->value;
    diags_.error(DiagKind::DuplicateDefinition, var.name_range,
                 fmt::format("loop variable `{}` would hide the {} of that name; choose another name", var.name,
                             outer_loop                          ? "variable of an outer loop"
                             : hidden->kind == DeclKind::Param ? "param"
                                                               : "let"));
    diags_.note(hidden->name_range, "declared here");
    return false;
  }
  return true;
}

void Sema::check_stmt(const AppDecl& app, Stmt& s, const LoopScope* loops) {
  Scope scope{nullptr, &app, loops};
  switch (s.kind) {
    case StmtKind::Run: {
      bool found = false;
      std::vector<std::string> kernels;
      for (const auto& k : app.kernels) {
        found = found || k->name == s.name;
        kernels.push_back(k->name);
      }
      if (!found)
        diags_.error(DiagKind::UnknownIdentifier, s.name_range,
                     fmt::format("app `{}` has no kernel `{}`{}", app.name, s.name, did_you_mean(s.name, kernels)));
      if (s.on) check_comp_ref(*s.on, scope);
      check_attrs(s.attrs, "run", scope);  // device-mapped host memory (mapped_in, mapped_out)
      break;
    }
    case StmtKind::Copy: {
      if (s.peer_from || s.direction == "p2p") {
        check_peer_copy(app, s, scope);
        break;
      }
      // The direction and the host memory kind are words, or word parameters standing for them.
      auto directions = resolve_word(s.direction, s.direction_range, {"h2d", "d2h", "d2d", "p2p"}, "copy direction",
                                     scope, s.direction_param);
      if (directions.empty()) break;
      bool d2d = directions[0] == "d2d";
      if (std::count(directions.begin(), directions.end(), "p2p") != 0) {
        diags_.error(DiagKind::InvalidKeyword, s.direction_range,
                     fmt::format("word parameter `{}` can be `p2p`, but a p2p copy is written `copy p2p SIZE from GPU "
                                 "to GPU` and takes no word parameter",
                                 s.direction));
        break;
      }
      if (std::count(directions.begin(), directions.end(), "d2d") != 0 && directions.size() > 1) {
        diags_.error(DiagKind::InvalidKeyword, s.direction_range,
                     fmt::format("word parameter `{}` mixes d2d with host-device directions; a d2d copy takes no host "
                                 "memory kind, so give it a copy of its own",
                                 s.direction));
        break;
      }
      std::string direction = s.direction_param ? s.direction_param->name : s.direction;
      if (s.on) check_comp_ref(*s.on, scope);
      if (s.host_memory) {
        // `from MEM` for h2d, `to MEM` for d2h; with a direction parameter either word is taken.
        std::string want = d2d ? "" : s.direction_param ? "" : directions[0] == "h2d" ? "from" : "to";
        if (d2d)
          diags_.error(DiagKind::InvalidKeyword, s.host_memory_word_range,
                       "a d2d copy stays on its gpu; it takes no host memory");
        else if (s.host_memory_word != "from" && s.host_memory_word != "to")
          diags_.error(DiagKind::InvalidKeyword, s.host_memory_word_range,
                       fmt::format("expected `{}` and the host memory, not `{}`", want.empty() ? "from` or `to" : want,
                                   s.host_memory_word));
        else if (!want.empty() && s.host_memory_word != want)
          diags_.error(DiagKind::InvalidKeyword, s.host_memory_word_range,
                       fmt::format("copy {} names its host memory with `{}`, not `{}`", direction, want,
                                   s.host_memory_word));
        else
          check_comp_ref(*s.host_memory, scope);
      }
      check_attrs(s.attrs, "copy", scope);
      if (!s.attrs.empty() && d2d)
        diags_.error(DiagKind::InvalidKeyword, s.attrs[0].name_range,
                     "`streams` applies to host-device copies (LogGP), not to d2d");
      // `copy h2d buf` takes its size and host memory kind from the data declaration.
      if (s.expr->kind == ExprKind::Name && !s.expr->parenthesized)
        for (const auto& d : app.data)
          for (const auto& [name, range] : d->names)
            if (name == s.expr->name) s.buffer = d.get();
      if (s.buffer) {
        if (!s.host_kind.empty())
          diags_.error(DiagKind::InvalidKeyword, s.host_kind_range,
                       fmt::format("`{}` is declared `{} {}`; drop `{}` here", s.expr->name, s.buffer->placement,
                                   s.buffer->host_kind, s.host_kind));
        else if (!d2d && s.buffer->placement != "host")
          diags_.error(DiagKind::InvalidKeyword, s.expr->range,
                       fmt::format("`{}` lives on the device; copy {} needs host data", s.expr->name, direction));
        else if (d2d && s.buffer->placement != "device")
          diags_.error(DiagKind::InvalidKeyword, s.expr->range,
                       fmt::format("`{}` lives on the host; copy d2d needs device data", s.expr->name));
        break;
      }
      expect_dim(*s.expr, Dim::byte(), "the size of a copy", scope);
      if (d2d && !s.host_kind.empty())
        diags_.error(DiagKind::InvalidKeyword, s.host_kind_range, "a d2d copy takes no `pinned` or `pageable`");
      else if (!d2d && s.host_kind.empty())
        diags_.error(DiagKind::InvalidKeyword, s.expr->range,
                     fmt::format("copy {} must say `pinned` or `pageable` after its size", direction));
      else if (!d2d)
        resolve_word(s.host_kind, s.host_kind_range, {"pinned", "pageable"}, "host memory kind", scope,
                     s.host_kind_param);
      break;
    }
    case StmtKind::Iterate: expect_dim(*s.expr, Dim::count(), "an iteration count", scope); break;
    case StmtKind::Overhead: expect_dim(*s.expr, Dim::seconds(), "an overhead", scope); break;
    case StmtKind::Flows: check_flows(app, s, loops); break;
    case StmtKind::Mpi: check_mpi_stmt(s, scope); break;
    case StmtKind::Offload: check_offload(s, scope); break;
    case StmtKind::For: {
      if (!check_loop(*s.loop_var, *s.expr, *s.expr_hi, scope)) return;
      LoopScope inner{s.loop_var.get(), loops};
      for (auto& child : s.body) check_stmt(app, *child, &inner);
      return;
    }
    default: break;
  }
  for (auto& child : s.body) check_stmt(app, *child, loops);
}

}  // namespace gpm::frontend
