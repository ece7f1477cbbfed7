// pipeline.cpp: each step of gpmc as one call, top to bottom: the single place where stages meet.
#include "driver/pipeline.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include <fmt/format.h>

#include "frontend/parse.h"
#include "frontend/suggest.h"
#include "ir/verifier.h"

namespace gpm::driver {

using namespace frontend;

std::string default_stdlib_dir() {
  if (const char* env = std::getenv("GPMC_STDLIB"); env && *env) return env;
  return GPM_STDLIB_DIR;
}

Session::Session(Options options)
    : options_(std::move(options)),
      diags_(sources_),
      loader_(sources_, diags_,
              LoaderOptions{options_.stdlib_dir.empty() ? default_stdlib_dir() : options_.stdlib_dir,
                            options_.include_dirs}),
      sema_(diags_) {}

const Module* Session::parse(const std::string& file) { return loader_.load_root(file); }

// Step 1-3: read and parse every file (with imports and the prelude), then check names and units.
bool Session::load_and_check(const std::vector<std::string>& files, std::vector<const Module*>& roots) {
  if (!loader_.load_prelude()) return false;
  for (const auto& file : files) roots.push_back(loader_.load_root(file));
  if (diags_.has_errors()) return false;
  return sema_.check(loader_.modules());
}

// The one declaration of `kind` in a file given on the command line, or a WrongModelKind error.
static const Decl* single_decl(const Module& module, DeclKind kind, DiagnosticEngine& diags) {
  const char* want = kind == DeclKind::Machine ? "machine" : "app";
  const char* other = kind == DeclKind::Machine ? "app" : "machine";
  std::vector<const Decl*> found, others;
  for (const auto& d : module.decls) {
    if (d->kind == kind) found.push_back(d.get());
    if (d->kind == (kind == DeclKind::Machine ? DeclKind::App : DeclKind::Machine)) others.push_back(d.get());
  }
  if (found.size() == 1) return found[0];
  if (found.size() > 1) {
    diags.error(DiagKind::WrongModelKind, found[1]->name_range,
                fmt::format("`{}` declares {} {}s; give each its own file", module.path, found.size(), want));
    return nullptr;
  }
  if (!others.empty())
    diags.error(DiagKind::WrongModelKind, others[0]->name_range,
                fmt::format("`{}` is {} {}, but {} {} was expected here (the arguments are MACHINE APP)",
                            others[0]->name, kind == DeclKind::Machine ? "an" : "a", other,
                            kind == DeclKind::Machine ? "a" : "an", want));
  else
    diags.error(DiagKind::WrongModelKind, SourceRange{module.file, 0, 0},
                fmt::format("`{}` declares no {} (the arguments are MACHINE APP)", module.path, want));
  return nullptr;
}

static bool mentions_names(const Expr& e) {
  if (e.kind == ExprKind::Name) return true;
  for (const auto& op : e.operands)
    if (mentions_names(*op)) return true;
  return false;
}

// Step 4: find each --set parameter (global, or declared by the chosen machine or app; `owner.name`
// picks one when both declare the name) and check its value: a constant of the parameter's dimension.
bool Session::bind_settings(const std::vector<Setting>& settings, const std::vector<const Decl*>& owners,
                            ir::ParamBindings& bindings) {
  const auto& program = sema_.program();
  bool ok = true;
  auto fail = [&](SourceRange range, std::string message, DiagKind kind) {
    diags_.error(kind, range, std::move(message));
    ok = false;
  };
  for (const auto& setting : settings) {
    std::string owner_name, name = setting.name;
    if (size_t dot = name.find('.'); dot != std::string::npos) {
      owner_name = name.substr(0, dot);
      name = name.substr(dot + 1);
    }
    std::vector<const ParamDecl*> matches;
    std::string visible;
    for (const auto* p : program.params) {
      const Decl* owner = program.owner_of(p);
      if (owner && std::find(owners.begin(), owners.end(), owner) == owners.end()) continue;
      visible += (visible.empty() ? "" : ", ") + (owner ? owner->name + "." : "") + p->name;
      if (p->name == name && (owner_name.empty() || (owner && owner->name == owner_name))) matches.push_back(p);
    }
    if (matches.empty()) {
      std::vector<std::string> names;
      for (const auto* p : program.params) names.push_back(p->name);
      std::string hint = did_you_mean(name, names);
      fail({}, hint.empty() ? fmt::format("--set {}: the model has no parameter `{}` (parameters: {})", setting.name,
                                          setting.name, visible.empty() ? "none" : visible)
                            : fmt::format("--set {}: the model has no parameter `{}`{}", setting.name, setting.name, hint),
           DiagKind::UnknownParameter);
      continue;
    }
    if (matches.size() > 1) {
      const Decl* a = program.owner_of(matches[0]);
      const Decl* b = program.owner_of(matches[1]);
      fail({}, fmt::format("--set {}: `{}` is declared by both `{}` and `{}`; write --set {}.{}=... or --set {}.{}=...",
                           setting.name, name, a ? a->name : "(global)", b ? b->name : "(global)",
                           a ? a->name : "?", name, b ? b->name : "?", name),
           DiagKind::AmbiguousParameter);
      continue;
    }
    const ParamDecl& param = *matches[0];
    FileId file = sources_.add(fmt::format("--set {}", setting.name), setting.value);
    ExprPtr expr = parse_expression(sources_, file, diags_);
    if (!expr) {
      ok = false;
      continue;
    }
    if (mentions_names(*expr)) {
      fail(expr->range, fmt::format("--set {}: the value must be a constant such as `25GB/s`", setting.name),
           DiagKind::InvalidSetValue);
      continue;
    }
    Type t = sema_.check_global_expr(*expr);
    if (t.is_error()) {
      ok = false;
      continue;
    }
    if (t.is_bool() || t.dim != param.type.dim) {
      fail(expr->range,
           fmt::format("--set {}: `{}` is `{}`, so its value needs that unit, not {}", setting.name, name,
                       dim_name(param.type.dim), t.is_bool() ? "a truth value" : "`" + dim_name(t.dim) + "`"),
           DiagKind::InvalidSetValue);
      continue;
    }
    ir::Module scratch;
    ir::ParamBindings none;
    ir::Lowerer lowerer(program, sources_, diags_, scratch, none);
    double value = lowerer.eager_value(lowerer.lower_global(*expr));
    if (!std::isfinite(value)) {
      fail(expr->range, fmt::format("--set {}: the value is not a finite number", setting.name),
           DiagKind::InvalidSetValue);
      continue;
    }
    bindings[&param] = value;
  }
  return ok;
}

std::unique_ptr<Compiled> Session::compile(const std::string& machine_file, const std::string& app_file,
                                           const std::vector<Setting>& settings) {
  try {
    return compile_checked(machine_file, app_file, settings);
  } catch (const ir::ModelTooLarge& e) {
    diags_.error(DiagKind::ModelTooLarge, {}, e.what());
    return nullptr;
  }
}

std::unique_ptr<Compiled> Session::compile_checked(const std::string& machine_file, const std::string& app_file,
                                                   const std::vector<Setting>& settings) {
  std::vector<const Module*> roots;
  if (!load_and_check({machine_file, app_file}, roots)) return nullptr;
  const Decl* machine = single_decl(*roots[0], DeclKind::Machine, diags_);
  const Decl* app = single_decl(*roots[1], DeclKind::App, diags_);
  if (!machine || !app) return nullptr;
  ir::ParamBindings bindings;
  if (!bind_settings(settings, {machine, app}, bindings)) return nullptr;
  // Step 5: lower to IR. Parameters first, checked at once (a value out of its range must not shape the
  // topology); array sizes in the topology are evaluated with the bound values.
  auto compiled = std::make_unique<Compiled>();
  ir::Lowerer lowerer(sema_.program(), sources_, diags_, compiled->module, bindings);
  lowerer.lower_params({machine, app});
  compiled->bound.resize(compiled->module.params.size());
  for (const auto& [decl, value] : bindings) compiled->bound[size_t(lowerer.slot_of(decl))] = value;
  backend::Evaluation params_only;
  if (!backend::evaluate(compiled->module, compiled->bound, diags_, params_only)) return nullptr;
  lowerer.lower_machine(static_cast<const MachineDecl&>(*machine));
  if (diags_.has_errors()) return nullptr;
  lowerer.lower_app(static_cast<const AppDecl&>(*app));
  if (diags_.has_errors()) return nullptr;
  // Step 6: verify; a problem here is a compiler bug.
  auto problems = ir::verify(compiled->module);
  if (!problems.empty()) throw std::logic_error("invalid IR: " + problems[0]);
  compiled->bound.resize(compiled->module.params.size());
  return compiled;
}

// Step 7: evaluate with the reference interpreter.
bool Session::evaluate(const Compiled& compiled, backend::Evaluation& out) {
  return backend::evaluate(compiled.module, compiled.bound, diags_, out);
}

bool Session::check(const std::vector<std::string>& files) {
  try {
    return check_checked(files);
  } catch (const ir::ModelTooLarge& e) {
    diags_.error(DiagKind::ModelTooLarge, {}, e.what());
    return false;
  }
}

bool Session::check_checked(const std::vector<std::string>& files) {
  std::vector<const Module*> roots;
  if (!load_and_check(files, roots)) return false;
  // Evaluate what needs no pairing: the parameters and constants of each machine (with its topology) and
  // of each app; the globals alone when there is neither.
  const auto& program = sema_.program();
  std::vector<const Decl*> owners(program.machines.begin(), program.machines.end());
  owners.insert(owners.end(), program.apps.begin(), program.apps.end());
  if (owners.empty()) owners.push_back(nullptr);
  for (const Decl* owner : owners) {
    ir::Module module;
    ir::ParamBindings none;
    ir::Lowerer lowerer(program, sources_, diags_, module, none);
    lowerer.lower_params({owner});
    backend::Evaluation ignored;
    if (!backend::evaluate(module, backend::SlotValues(module.params.size()), diags_, ignored)) return false;
    if (owner && owner->kind == DeclKind::Machine) lowerer.lower_machine(static_cast<const MachineDecl&>(*owner));
    if (diags_.has_errors()) return false;
    if (!backend::evaluate(module, backend::SlotValues(module.params.size()), diags_, ignored)) return false;
  }
  return true;
}

}  // namespace gpm::driver
