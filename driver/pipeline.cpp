// pipeline.cpp: each step of gpmc as one call, top to bottom: the single place where stages meet.
#include "driver/pipeline.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>

#include "frontend/mpi_schema.h"
#include "frontend/parse.h"
#include "support/source_file.h"
#include "support/suggest.h"
#include "ir/verifier.h"

namespace gpm::driver {

using namespace frontend;

// $GPMC_STDLIB; else share/gpmc/stdlib beside the executable's bin/ (an installed tree, wherever it was moved);
// else the source tree's stdlib/ the build was configured with (running from the build tree); else nothing.
std::string default_stdlib_dir() {
  if (const char* env = std::getenv("GPMC_STDLIB"); env && *env) return env;
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    std::filesystem::path installed = (exe.parent_path() / ".." / "share" / "gpmc" / "stdlib").lexically_normal();
    if (std::filesystem::is_directory(installed, ec)) return installed.string();
  }
  if (std::filesystem::is_directory(GPM_STDLIB_DIR, ec)) return GPM_STDLIB_DIR;
  return {};
}

Session::Session(Options options)
    : options_(std::move(options)),
      diags_(sources_),
      loader_(sources_, diags_,
              LoaderOptions{options_.stdlib_dir.empty() ? default_stdlib_dir() : options_.stdlib_dir,
                            options_.include_dirs}),
      sema_(std::make_unique<Sema>(diags_)) {
  if (options_.lazy_prelude) loader_.reset(true);
  diags_.set_warnings_as_errors(options_.warnings_as_errors);
}

Session::Session(Options options, const frontend::ParsedPrelude& prelude) : Session(std::move(options)) {
  loader_.adopt_prelude(prelude);
}

std::optional<frontend::ParsedPrelude> Session::parsed_prelude() {
  if (!loader_.load_prelude()) return std::nullopt;
  return loader_.prelude();
}

const Module* Session::parse(const std::string& file) { return loader_.load_root(file); }

// Step 1-3: read and parse every file (with imports and the prelude), then check names and units.
// With a lazy prelude, a check that fails is forgotten and run again on the whole prelude: the diagnostics (their
// suggestions among every stdlib name included) are those of a whole load.
bool Session::load_and_check(const std::vector<std::string>& files, std::vector<const Module*>& roots) {
  const auto mark = diags_.mark();
  const bool lazy = options_.lazy_prelude;
  options_.lazy_prelude = false;  // the first load only (pipeline.h)
  if (load_and_check_once(files, roots, lazy) || !lazy || !diags_.rollback(mark)) return !diags_.has_errors();
  loader_.reset(false);
  sema_ = std::make_unique<Sema>(diags_);
  roots.clear();
  return load_and_check_once(files, roots, false);
}

bool Session::load_and_check_once(const std::vector<std::string>& files, std::vector<const Module*>& roots,
                                  bool lazy) {
  if (!loader_.load_prelude()) return false;
  for (const auto& file : files) roots.push_back(loader_.load_root(file));
  if (diags_.has_errors()) return false;
  if (lazy) {
    // Every run of identifier characters of the command line's arguments (bytes: an argument need not be UTF-8).
    std::set<std::string> names;
    for (const auto& text : options_.referenced_names) {
      std::string word;
      for (char c : text + " ") {
        if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
          word += c;
        } else if (!word.empty()) {
          names.insert(word);
          word.clear();
        }
      }
    }
    for (const auto& fn : lower::stdlib_functions()) names.insert(fn);
    if (!loader_.complete_prelude(names)) return false;
  }
  return sema_->check(loader_.modules());
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

// Step 4a: settings whose value is a word (`--set comm_model=kmodel`, frontend/mpi_schema.cpp) are taken out;
// a model's own parameter of the same name would be shadowed, so these names are reserved.
bool Session::split_keyword_settings(const std::vector<Setting>& settings, std::vector<Setting>& values,
                                     lower::KeywordSettings& keywords) {
  bool ok = true;
  for (const auto& setting : settings) {
    const MpiAttrSpec* spec = find_keyword_setting(setting.name);
    if (!spec) {
      values.push_back(setting);
      continue;
    }
    auto words = mpi_words(*spec);
    if (std::find(words.begin(), words.end(), setting.value) == words.end()) {
      std::string all;
      for (const auto& w : words) all += (all.empty() ? "" : ", ") + w;
      diags_.error(DiagKind::InvalidSetValue, {},
                   fmt::format("--set {}={}: the value must be one of {}{}", setting.name, setting.value, all,
                               did_you_mean(setting.value, words)));
      ok = false;
      continue;
    }
    keywords[setting.name] = setting.value;
  }
  return ok;
}

// Step 4: find each --set parameter (global, or declared by the chosen machine or app; `owner.name`
// picks one when both declare the name) and check its value: a constant of the parameter's dimension.
const ParamDecl* Session::find_setting_param(const std::string& flag, const std::string& full_name,
                                             const std::vector<const Decl*>& owners, SourceRange where) {
  const auto& program = sema_->program();
  std::string owner_name, name = full_name;
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
    diags_.error(DiagKind::UnknownParameter, where,
                 hint.empty() ? fmt::format("{} {}: the model has no parameter `{}` (parameters: {})", flag, full_name,
                                            full_name, visible.empty() ? "none" : visible)
                              : fmt::format("{} {}: the model has no parameter `{}`{}", flag, full_name, full_name, hint));
    return nullptr;
  }
  if (matches.size() > 1) {
    const Decl* a = program.owner_of(matches[0]);
    const Decl* b = program.owner_of(matches[1]);
    diags_.error(DiagKind::AmbiguousParameter, where,
                 fmt::format("{} {}: `{}` is declared by both `{}` and `{}`; write {} {}.{}=... or {} {}.{}=...", flag,
                             full_name, name, a ? a->name : "(global)", b ? b->name : "(global)", flag,
                             a ? a->name : "?", name, flag, b ? b->name : "?", name));
    return nullptr;
  }
  return matches[0];
}

bool Session::constant_value(const std::string& label, const std::string& what, Dim dim, const std::string& text,
                             double& value) {
  return constant_value(sources_.add(label, text), label, what, dim, value);
}

bool Session::constant_value(FileId file, const std::string& label, const std::string& what, Dim dim,
                             double& value) {
  ExprPtr expr = parse_expression(sources_, file, diags_);
  if (!expr) return false;
  if (mentions_names(*expr)) {
    diags_.error(DiagKind::InvalidSetValue, expr->range,
                 fmt::format("{}: the value must be a constant such as `25GB/s`", label));
    return false;
  }
  Type t = sema_->check_global_expr(*expr);
  if (t.is_error()) return false;
  if (t.is_bool() || t.dim != dim) {
    diags_.error(DiagKind::InvalidSetValue, expr->range,
                 fmt::format("{}: {} is `{}`, so its value needs that unit, not {}", label, what, dim_name(dim),
                             t.is_bool() ? "a truth value" : "`" + dim_name(t.dim) + "`"));
    return false;
  }
  ir::Module scratch;
  lower::ParamBindings none;
  lower::Lowerer lowerer(sema_->program(), sources_, diags_, scratch, none);
  value = lowerer.eager_value(lowerer.lower_global(*expr));
  if (!std::isfinite(value)) {
    diags_.error(DiagKind::InvalidSetValue, expr->range, fmt::format("{}: the value is not a finite number", label));
    return false;
  }
  return true;
}

static bool is_identifier(const std::string& text) {
  if (text.empty() || !(std::isalpha(static_cast<unsigned char>(text[0])) || text[0] == '_')) return false;
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

bool Session::word_or_number(const std::string& label, const ParamDecl& param, const std::string& text,
                             double& index) {
  if (!param.is_word()) {
    if (!is_identifier(text)) return true;  // a number: constant_value parses it
    diags_.error(DiagKind::WordParamMisuse, {},
                 fmt::format("{}={}: `{}` is a number of dimension `{}`, not a word; give a constant such as `{}`",
                             label, text, param.name, dim_name(param.type.dim),
                             format_quantity(1, param.type.dim)));
    return false;
  }
  auto it = std::find(param.words.begin(), param.words.end(), text);
  if (it == param.words.end()) {
    std::string all;
    for (const auto& w : param.words) all += (all.empty() ? "" : ", ") + w;
    diags_.error(is_identifier(text) ? DiagKind::InvalidSetValue : DiagKind::WordParamMisuse, {},
                 fmt::format("{}={}: `{}` is a word parameter; its value is one of {}{}", label, text, param.name, all,
                             did_you_mean(text, param.words)));
    return false;
  }
  index = double(it - param.words.begin());
  return true;
}

// `--strategy` is shorthand for the strategy of every offload; a word parameter that is an offload's strategy and
// is also set with --set would make the two disagree, so giving both is an error.
static const ParamDecl* strategy_param_set(const std::vector<std::unique_ptr<Stmt>>& body,
                                           const lower::ParamBindings& bindings) {
  for (const auto& s : body) {
    if (s->kind == StmtKind::Offload && s->strategy_param && bindings.count(s->strategy_param)) return s->strategy_param;
    if (const ParamDecl* p = strategy_param_set(s->body, bindings)) return p;
  }
  return nullptr;
}

bool Session::bind_settings(const std::vector<Setting>& settings, const std::vector<const Decl*>& owners,
                            lower::ParamBindings& bindings, std::set<const ParamDecl*>* varied) {
  bool ok = true;
  for (const auto& setting : settings) {
    const ParamDecl* param = find_setting_param(setting.flag, setting.name, owners);
    double value = 0;
    const std::string label = setting.flag + " " + setting.name;
    if (param && !word_or_number(label, *param, setting.value, value)) {
      ok = false;
      continue;
    }
    if (param && !param->is_word() &&
        !constant_value(label, "`" + param->name + "`", param->type.dim, setting.value, value)) {
      ok = false;
      continue;
    }
    if (!param) {
      ok = false;
      continue;
    }
    bindings[param] = value;
    if (varied && setting.flag == "--vary") varied->insert(param);
  }
  return ok;
}

int32_t Session::find_slot(const Compiled& compiled, const std::string& flag, const std::string& name) {
  const ParamDecl* param = find_setting_param(flag, name, compiled.owners);
  if (!param) return -1;
  auto it = compiled.slots.find(param);
  if (it == compiled.slots.end()) throw std::logic_error("a parameter of the model has no slot");
  return it->second;
}

const ParamDecl* Session::find_param(const Compiled& compiled, const std::string& flag, const std::string& name,
                                     SourceRange where) {
  return find_setting_param(flag, name, compiled.owners, where);
}

std::unique_ptr<Compiled> Session::recompile(const Compiled& base, const lower::ParamBindings& values,
                                             const lower::KeywordSettings& keywords) {
  lower::ParamBindings bindings = base.bindings;
  for (const auto& [decl, value] : values) bindings[decl] = value;
  lower::KeywordSettings words = base.keywords;
  for (const auto& [name, word] : keywords) words[name] = word;
  try {
    return lower_checked(base.owners.at(0), base.owners.at(1), std::move(bindings), std::move(words), base.varied);
  } catch (const ir::ModelTooLarge& e) {
    diags_.error(DiagKind::ModelTooLarge, e.range, e.what());
    return nullptr;
  }
}

std::unique_ptr<Compiled> Session::compile(const std::string& machine_file, const std::string& app_file,
                                           const std::vector<Setting>& settings) {
  try {
    return compile_checked(machine_file, app_file, settings);
  } catch (const ir::ModelTooLarge& e) {
    diags_.error(DiagKind::ModelTooLarge, e.range, e.what());
    return nullptr;
  }
}

std::unique_ptr<Compiled> Session::compile_checked(const std::string& machine_file, const std::string& app_file,
                                                   const std::vector<Setting>& settings) {
  if (compiled_before_) {  // a second compile (a sweep's base at its first point): the files read and checked anew
    loader_.reset(false);
    sema_ = std::make_unique<Sema>(diags_);
  }
  compiled_before_ = true;
  std::vector<const Module*> roots;
  if (!load_and_check({machine_file, app_file}, roots)) return nullptr;
  const Decl* machine = single_decl(*roots[0], DeclKind::Machine, diags_);
  const Decl* app = single_decl(*roots[1], DeclKind::App, diags_);
  if (!machine || !app) return nullptr;
  // Word-valued settings (`--set comm_model=postal`) choose models; the others bind parameters.
  std::vector<Setting> values;
  lower::KeywordSettings keywords;
  if (!split_keyword_settings(settings, values, keywords)) return nullptr;
  lower::ParamBindings bindings;
  std::set<const ParamDecl*> varied;
  if (!bind_settings(values, {machine, app}, bindings, &varied)) return nullptr;
  if (!options_.strategy.empty())
    if (const ParamDecl* p = strategy_param_set(static_cast<const AppDecl*>(app)->body, bindings)) {
      diags_.error(DiagKind::UsageError, {},
                   fmt::format("--strategy {} and --set {}=... both choose the strategy of offloads; give one of them",
                               options_.strategy, p->name));
      return nullptr;
    }
  return lower_checked(machine, app, std::move(bindings), std::move(keywords), std::move(varied));
}

bool Session::load_openmpi_rules() {
  if (openmpi_rules_) return true;
  std::string text;
  if (!support::read_source_file(options_.mpi_rules, text, diags_, {})) return false;
  openmpi_rules_file_ = sources_.add(options_.mpi_rules, text);
  if (const size_t bad = support::first_non_text_byte(sources_.text(openmpi_rules_file_)); bad != std::string::npos) {
    const auto c = static_cast<unsigned char>(sources_.text(openmpi_rules_file_)[bad]);
    diags_.error(DiagKind::InvalidEncoding, {openmpi_rules_file_, uint32_t(bad), uint32_t(bad) + 1},
                 c == 0 ? std::string("--mpi-rules: NUL byte in a rules file: is this a binary file?")
                        : fmt::format("--mpi-rules: invalid UTF-8 byte 0x{:02X}: a rules file must be UTF-8 text", c));
    return false;
  }
  std::string error;
  uint32_t at = 0;
  auto rules = mpi::parse_openmpi_rules(sources_.text(openmpi_rules_file_), error, at);
  if (!rules) {
    diags_.error(DiagKind::InvalidRulesFile, {openmpi_rules_file_, at, at + 1},
                 fmt::format("--mpi-rules: {}", error));
    return false;
  }
  openmpi_rules_ = std::make_shared<const mpi::OpenmpiRules>(std::move(*rules));
  return true;
}

// Step 5: lower to IR. Parameters first, checked at once (a value out of its range must not shape the
// topology); array sizes in the topology are evaluated with the bound values.
std::unique_ptr<Compiled> Session::lower_checked(const Decl* machine, const Decl* app, lower::ParamBindings bindings,
                                                 lower::KeywordSettings keywords, std::set<const ParamDecl*> varied) {
  auto compiled = std::make_unique<Compiled>();
  compiled->bindings = std::move(bindings);
  compiled->keywords = std::move(keywords);
  compiled->varied = std::move(varied);
  const lower::ParamBindings& bound = compiled->bindings;
  lower::Lowerer lowerer(sema_->program(), sources_, diags_, compiled->module, bound);
  lowerer.set_keyword_settings(compiled->keywords);
  lowerer.set_strategy_override(options_.strategy);
  if (!options_.mpi_rules.empty()) {
    if (!load_openmpi_rules()) return nullptr;
    lowerer.set_openmpi_rules(openmpi_rules_.get(), openmpi_rules_file_);
  }
  lowerer.lower_params({machine, app});
  compiled->bound.resize(compiled->module.params.size());
  for (const auto& [decl, value] : bound) compiled->bound[size_t(lowerer.slot_of(decl))] = value;
  compiled->owners = {machine, app};
  for (const auto* p : sema_->program().params)
    if (int slot = lowerer.slot_of(p); slot >= 0) compiled->slots[p] = slot;
  std::set<int32_t> varied_slots;  // a value out of range names --vary, not --set, where a sweep gave it
  for (const ParamDecl* p : compiled->varied)
    if (int slot = lowerer.slot_of(p); slot >= 0) varied_slots.insert(slot);
  backend::Evaluation params_only;
  if (!backend::evaluate(compiled->module, compiled->bound, diags_, params_only, &varied_slots)) return nullptr;
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

const ParamDecl* Session::param_of_slot(const Compiled& compiled, int32_t slot) {
  for (const auto& [decl, s] : compiled.slots)
    if (s == slot) return decl;
  return nullptr;
}

std::unique_ptr<Compiled> Session::compile_variant(const Compiled& base,
                                                   const std::vector<std::pair<int32_t, double>>& values,
                                                   const lower::KeywordSettings& keywords) {
  lower::ParamBindings bindings = base.bindings;
  std::set<const ParamDecl*> varied = base.varied;
  for (const auto& [slot, value] : values) {
    const ParamDecl* decl = param_of_slot(base, slot);
    if (!decl) throw std::logic_error("compile_variant: a slot without a parameter");
    bindings[decl] = value;
    varied.insert(decl);
  }
  lower::KeywordSettings words = base.keywords;
  for (const auto& [name, word] : keywords) words[name] = word;
  try {
    return lower_checked(base.owners.at(0), base.owners.at(1), std::move(bindings), std::move(words),
                         std::move(varied));
  } catch (const ir::ModelTooLarge& e) {
    diags_.error(DiagKind::ModelTooLarge, e.range, e.what());
    return nullptr;
  }
}

// Step 7: evaluate with the reference interpreter.
bool Session::evaluate(const Compiled& compiled, backend::Evaluation& out) {
  return backend::evaluate(compiled.module, compiled.bound, diags_, out);
}

bool Session::check(const std::vector<std::string>& files) {
  try {
    return check_checked(files);
  } catch (const ir::ModelTooLarge& e) {
    diags_.error(DiagKind::ModelTooLarge, e.range, e.what());
    return false;
  }
}

bool Session::check_checked(const std::vector<std::string>& files) {
  std::vector<const Module*> roots;
  if (!load_and_check(files, roots)) return false;
  // Evaluate what needs no pairing: the parameters and constants of each machine (with its topology) and
  // of each app; the globals alone when there is neither.
  const auto& program = sema_->program();
  std::vector<const Decl*> owners(program.machines.begin(), program.machines.end());
  owners.insert(owners.end(), program.apps.begin(), program.apps.end());
  if (owners.empty()) owners.push_back(nullptr);
  for (const Decl* owner : owners) {
    ir::Module module;
    lower::ParamBindings none;
    lower::Lowerer lowerer(program, sources_, diags_, module, none);
    lowerer.lower_params({owner});
    backend::Evaluation ignored;
    if (!backend::evaluate(module, backend::SlotValues(module.params.size()), diags_, ignored)) return false;
    if (owner && owner->kind == DeclKind::Machine) lowerer.lower_machine(static_cast<const MachineDecl&>(*owner));
    if (diags_.has_errors()) return false;
    if (!backend::evaluate(module, backend::SlotValues(module.params.size()), diags_, ignored)) return false;
  }
  return true;
}

std::optional<std::vector<std::string>> keyword_setting_words(std::string_view name) {
  const frontend::MpiAttrSpec* spec = frontend::find_keyword_setting(name);
  if (!spec) return std::nullopt;
  return frontend::mpi_words(*spec);
}

}  // namespace gpm::driver
