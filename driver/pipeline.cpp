// pipeline.cpp: each step of gpmc as one call, top to bottom: the single place where stages meet.
#include "driver/pipeline.h"

#include <cstdlib>
#include <stdexcept>

#include <fmt/format.h>

#include "frontend/parse.h"
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
                fmt::format("`{}` is {} {}, but {} {} was expected here (usage: gpmc eval MACHINE APP)",
                            others[0]->name, kind == DeclKind::Machine ? "an" : "a", other,
                            kind == DeclKind::Machine ? "a" : "an", want));
  else
    diags.error(DiagKind::WrongModelKind, SourceRange{module.file, 0, 0},
                fmt::format("`{}` declares no {} (usage: gpmc eval MACHINE APP)", module.path, want));
  return nullptr;
}

static bool mentions_names(const Expr& e) {
  if (e.kind == ExprKind::Name) return true;
  for (const auto& op : e.operands)
    if (mentions_names(*op)) return true;
  return false;
}

// Step 4: parse and check each --set value as a constant quantity of its parameter's dimension.
bool Session::bind_settings(const std::vector<Setting>& settings, ir::ParamBindings& bindings) {
  const auto& program = sema_.program();
  bool ok = true;
  for (const auto& setting : settings) {
    auto it = program.globals.find(setting.name);
    if (it != program.globals.end() && it->second->kind != DeclKind::Param) {
      diags_.error(DiagKind::UnknownParameter, {},
                   fmt::format("--set {}: `{}` is not a parameter (only `param` declarations can be set)",
                               setting.name, setting.name));
      ok = false;
      continue;
    }
    if (it == program.globals.end()) {
      std::string names;
      for (const auto* p : program.params) names += (names.empty() ? "" : ", ") + p->name;
      diags_.error(DiagKind::UnknownParameter, {},
                   fmt::format("--set {}: the model has no parameter `{}` (parameters: {})", setting.name, setting.name,
                               names.empty() ? "none" : names));
      ok = false;
      continue;
    }
    const auto& param = static_cast<const ParamDecl&>(*it->second);
    FileId file = sources_.add(fmt::format("--set {}", setting.name), setting.value);
    ExprPtr expr = parse_expression(sources_, file, diags_);
    if (!expr) {
      ok = false;
      continue;
    }
    if (mentions_names(*expr)) {
      diags_.error(DiagKind::InvalidSetValue, expr->range,
                   fmt::format("--set {}: the value must be a constant such as `25GB/s`", setting.name));
      ok = false;
      continue;
    }
    Type t = sema_.check_global_expr(*expr);
    if (t.is_error()) {
      ok = false;
      continue;
    }
    if (t.is_bool() || t.dim != param.type.dim) {
      diags_.error(DiagKind::InvalidSetValue, expr->range,
                   fmt::format("--set {}: `{}` is `{}`, so its value needs that unit, not {}", setting.name,
                               setting.name, dim_name(param.type.dim),
                               t.is_bool() ? "a truth value" : "`" + dim_name(t.dim) + "`"));
      ok = false;
      continue;
    }
    ir::Module scratch;
    ir::ParamBindings none;
    ir::Lowerer lowerer(program, sources_, diags_, scratch, none);
    double value = lowerer.eager_value(lowerer.lower_global(*expr));
    if (!std::isfinite(value)) {
      diags_.error(DiagKind::InvalidSetValue, expr->range,
                   fmt::format("--set {}: the value is not a finite number", setting.name));
      ok = false;
      continue;
    }
    bindings[setting.name] = value;
  }
  return ok;
}

std::unique_ptr<Compiled> Session::compile(const std::string& machine_file, const std::string& app_file,
                                           const std::vector<Setting>& settings) {
  std::vector<const Module*> roots;
  if (!load_and_check({machine_file, app_file}, roots)) return nullptr;
  const Decl* machine = single_decl(*roots[0], DeclKind::Machine, diags_);
  const Decl* app = single_decl(*roots[1], DeclKind::App, diags_);
  if (!machine || !app) return nullptr;
  ir::ParamBindings bindings;
  if (!bind_settings(settings, bindings)) return nullptr;
  // Step 5: lower to IR. Array sizes in the topology are evaluated with the bound values.
  auto compiled = std::make_unique<Compiled>();
  ir::Lowerer lowerer(sema_.program(), sources_, diags_, compiled->module, bindings);
  lowerer.lower_params();
  lowerer.lower_machine(static_cast<const MachineDecl&>(*machine));
  if (diags_.has_errors()) return nullptr;
  lowerer.lower_app(static_cast<const AppDecl&>(*app));
  if (diags_.has_errors()) return nullptr;
  // Step 6: verify; a problem here is a compiler bug.
  auto problems = ir::verify(compiled->module);
  if (!problems.empty()) throw std::logic_error("internal error: invalid IR: " + problems[0]);
  compiled->bound.resize(compiled->module.params.size());
  for (const auto& [name, value] : bindings)
    compiled->bound[size_t(compiled->module.find_param(name))] = value;
  return compiled;
}

// Step 7: evaluate with the reference interpreter.
bool Session::evaluate(const Compiled& compiled, backend::Evaluation& out) {
  return backend::evaluate(compiled.module, compiled.bound, diags_, out);
}

bool Session::check(const std::vector<std::string>& files) {
  std::vector<const Module*> roots;
  if (!load_and_check(files, roots)) return false;
  // Evaluate what needs no app: every parameter and constant, and each machine's topology.
  const auto& program = sema_.program();
  ir::ParamBindings none;
  std::vector<const MachineDecl*> machines = program.machines;
  if (machines.empty()) machines.push_back(nullptr);
  for (const MachineDecl* machine : machines) {
    ir::Module module;
    ir::Lowerer lowerer(program, sources_, diags_, module, none);
    lowerer.lower_params();
    if (machine) lowerer.lower_machine(*machine);
    if (diags_.has_errors()) return false;
    backend::Evaluation ignored;
    backend::evaluate(module, backend::SlotValues(module.params.size()), diags_, ignored);
    if (diags_.has_errors()) return false;
  }
  return true;
}

}  // namespace gpm::driver
