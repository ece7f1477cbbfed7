// navigation.cpp: hover (a name's value, unit, dimension and comment), go to definition and completion.
#include <cmath>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "frontend/mpi_schema.h"
#include "frontend/parse.h"
#include "frontend/schema.h"
#include "backend/interp/interpreter.h"
#include "lower/lower.h"
#include "lsp/analysis.h"
#include "lsp/text.h"

namespace gpm::lsp {

namespace {

using frontend::Decl;
using frontend::DeclKind;

std::string type_text(const frontend::Type& type) {
  if (type.is_bool()) return "truth value";
  if (type.is_quantity()) return support::dim_name(type.dim);
  return "unknown";
}

// The MPI owners: the machine's sections and every operation an app may name.
std::vector<std::string> mpi_owners() {
  std::vector<std::string> out = {"section", "network", "cluster"};
  std::string names = frontend::mpi_operation_names();
  for (size_t i = 0; i < names.size();) {
    size_t comma = names.find(", ", i);
    out.push_back(names.substr(i, comma == std::string::npos ? std::string::npos : comma - i));
    if (comma == std::string::npos) break;
    i = comma + 2;
  }
  return out;
}

// Every attribute of that name in the schemas: `owner: meaning (dimension)` lines.
std::vector<std::string> attribute_lines(std::string_view name) {
  std::vector<std::string> out;
  for (const std::string& owner : frontend::attribute_owners())
    if (const frontend::AttrSpec* spec = frontend::find_attribute(owner, name))
      out.push_back(fmt::format("{}: {} ({})", owner, spec->meaning, support::dim_name(spec->dim)));
  for (const std::string& owner : mpi_owners())
    if (const frontend::MpiAttrSpec* spec = frontend::find_mpi_attr(owner, name)) {
      std::string what = spec->kind == frontend::MpiAttrSpec::Kind::Quantity ? support::dim_name(spec->dim)
                         : spec->kind == frontend::MpiAttrSpec::Kind::Truth ? std::string("truth value")
                                                                            : "one of " + std::string(spec->keywords);
      out.push_back(fmt::format("mpi {}: {} ({})", owner, spec->meaning, what));
    }
  return out;
}

}  // namespace

Analysis::Target Analysis::resolve(uint32_t offset) const {
  Target target;
  uint32_t begin = 0, end = 0;
  std::string_view word = word_at(text_, offset, begin, end);
  if (word.empty()) return target;
  target.word = std::string(word);
  const Decl* outer = enclosing(offset);
  if (outer && outer->kind == DeclKind::Fn) {
    const auto* fn = static_cast<const frontend::FnDecl*>(outer);
    for (const auto& p : fn->params)
      if (p.name == word) {
        target.fn = fn;
        target.param = &p;
        return target;
      }
  }
  const frontend::CheckedProgram& program = session_->program();
  if (outer) {
    auto scope = program.scoped.find(outer);
    if (scope != program.scoped.end())
      if (auto it = scope->second.find(word); it != scope->second.end()) {
        target.decl = it->second;
        return target;
      }
  }
  if (outer && outer->kind == DeclKind::App)
    for (const auto& kernel : static_cast<const frontend::AppDecl*>(outer)->kernels)
      if (kernel->name == word) {
        target.kernel = kernel.get();
        return target;
      }
  if (auto it = program.globals.find(word); it != program.globals.end()) target.decl = it->second;
  return target;
}

std::string Analysis::value_text(const Decl& decl) const {
  if (!checked_ || (decl.kind != DeclKind::Param && decl.kind != DeclKind::Let)) return {};
  const frontend::CheckedProgram& program = session_->program();
  const Decl* owner = program.owner_of(&decl);
  ir::Module module;
  lower::ParamBindings none;
  support::DiagnosticEngine scratch(session_->sources());
  lower::Lowerer lowerer(program, session_->sources(), scratch, module, none);
  try {
    lowerer.lower_params(owner ? std::vector<const Decl*>{owner} : std::vector<const Decl*>{});
  } catch (const std::exception&) {
    return {};
  }
  ir::ValueId id = lowerer.value_of(&decl);
  if (scratch.has_errors() || id == ir::kNoValue) return {};
  std::vector<double> values = backend::compute_values(module, backend::SlotValues(module.params.size()));
  if (size_t(id) >= values.size() || !std::isfinite(values[size_t(id)])) return {};
  double value = values[size_t(id)];
  if (decl.kind == DeclKind::Param) {
    const auto& param = static_cast<const frontend::ParamDecl&>(decl);
    if (param.is_word()) return value >= 0 && size_t(value) < param.words.size() ? param.words[size_t(value)] : "";
    if (param.type.is_bool()) return value != 0 ? "true" : "false";
    return support::format_quantity(value, param.type.dim);
  }
  const auto& let = static_cast<const frontend::LetDecl&>(decl);
  if (let.type.is_bool()) return value != 0 ? "true" : "false";
  return support::format_quantity(value, let.type.dim);
}

Json Analysis::hover(uint32_t offset) const {
  Target target = resolve(offset);
  uint32_t begin = 0, end = 0;
  if (target.word.empty()) return nullptr;
  word_at(text_, offset, begin, end);
  std::string code, details, comment;
  if (target.param) {
    code = fmt::format("{}: {}  // a parameter of fn {}", target.param->name, target.param->type.text, target.fn->name);
  } else if (target.kernel) {
    const frontend::KernelDecl& kernel = *target.kernel;
    std::string attrs;
    for (const auto& attr : kernel.attrs) attrs += (attrs.empty() ? "" : ", ") + attr.name;
    code = "kernel " + kernel.name;
    details = attrs.empty() ? "" : "attributes: " + attrs;
    if (kernel.range.valid()) comment = declaration_comment(session_->sources().text(kernel.range.file), kernel.range.begin);
  } else if (target.decl) {
    const Decl& decl = *target.decl;
    const Decl* owner = session_->program().owner_of(&decl);
    std::string where = owner ? fmt::format(" (in {} {})", owner->kind == DeclKind::Machine ? "machine" : "app",
                                            owner->name)
                              : "";
    std::string value = value_text(decl);
    switch (decl.kind) {
      case DeclKind::Param:
      case DeclKind::Let: {
        bool is_param = decl.kind == DeclKind::Param;
        const frontend::Type& type = is_param ? static_cast<const frontend::ParamDecl&>(decl).type
                                              : static_cast<const frontend::LetDecl&>(decl).type;
        code = fmt::format("{} {}{}", is_param ? "param" : "let", decl.name, value.empty() ? "" : " = " + value);
        details = "dimension: " + type_text(type) + where;
        if (is_param) {
          const auto& param = static_cast<const frontend::ParamDecl&>(decl);
          if (param.is_word()) {
            std::string words;
            for (const auto& w : param.words) words += (words.empty() ? "" : ", ") + w;
            details = "one of {" + words + "}" + where;
          }
        }
        break;
      }
      case DeclKind::Fn: {
        const auto& fn = static_cast<const frontend::FnDecl&>(decl);
        std::string params;
        for (const auto& p : fn.params) params += (params.empty() ? "" : ", ") + p.name + ": " + p.type.text;
        code = fmt::format("fn {}({}) -> {}", fn.name, params, fn.result.text);
        break;
      }
      case DeclKind::Type:
        code = fmt::format("type {} : {}", decl.name, static_cast<const frontend::TypeDecl&>(decl).component_kind);
        break;
      case DeclKind::Machine: code = "machine " + decl.name; break;
      case DeclKind::App: code = "app " + decl.name; break;
      case DeclKind::Table: {
        const auto& t = static_cast<const frontend::TableDecl&>(decl);
        code = fmt::format("table {} = \"{}\"", decl.name, t.path);
        if (t.loaded)
          details = fmt::format("{} row{} x {} column{}", t.rows, t.rows == 1 ? "" : "s", t.cols, t.cols == 1 ? "" : "s");
        break;
      }
      case DeclKind::Import: return nullptr;
    }
    if (decl.range.valid()) comment = declaration_comment(session_->sources().text(decl.range.file), decl.range.begin);
    std::string path = file_path(decl.range.file);
    if (decl.range.file != file_) details += (details.empty() ? "" : "; ") + std::string("declared in ") + path;
  } else {
    std::vector<std::string> lines = attribute_lines(target.word);
    if (lines.empty()) return nullptr;
    code = "attribute " + target.word;
    for (const auto& line : lines) details += (details.empty() ? "" : "\n\n") + line;
  }
  std::string markdown = "```gpm\n" + code + "\n```";
  if (!details.empty()) markdown += "\n" + details;
  if (!comment.empty()) markdown += "\n\n" + comment;
  return {{"contents", {{"kind", "markdown"}, {"value", markdown}}}, {"range", range_json(text_, begin, end)}};
}

Json Analysis::definition(uint32_t offset) const {
  if (module_)
    for (const auto& decl : module_->decls) {
      if (decl->kind != DeclKind::Import || decl->range.file != file_ || offset < decl->range.begin ||
          offset > decl->range.end)
        continue;
      // The loader's search: the document's folder, then the standard library.
      const std::string& name = static_cast<const frontend::ImportDecl&>(*decl).path;
      for (const std::string& dir : {std::filesystem::path(path_).parent_path().string(), driver::default_stdlib_dir()})
        for (const std::string& candidate : {name, name + ".gpm"}) {
          std::error_code ec;
          std::filesystem::path p = std::filesystem::path(dir) / candidate;
          if (!dir.empty() && std::filesystem::is_regular_file(p, ec))
            return {{"uri", path_to_uri(p.lexically_normal().string())}, {"range", range_json("", 0, 0)}};
        }
      return nullptr;
    }
  Target target = resolve(offset);
  if (target.param) return location_json(target.param->range);
  if (target.kernel && target.kernel->name_range.valid()) return location_json(target.kernel->name_range);
  if (target.decl && target.decl->name_range.valid()) return location_json(target.decl->name_range);
  return nullptr;
}

Json Analysis::completion(uint32_t offset) const {
  Json items = Json::array();
  std::set<std::string> seen;
  auto add = [&](const std::string& label, int kind, const std::string& detail) {
    if (!seen.insert(label).second) return;
    items.push_back({{"label", label}, {"kind", kind}, {"detail", detail}});
  };
  const int kProperty = 10, kKeyword = 14, kVariable = 6, kFunction = 3, kClass = 7, kModule = 9;
  // Attributes, from the schemas sema checks them against.
  std::map<std::string, std::string> attributes;
  for (const std::string& owner : frontend::attribute_owners())
    for (const frontend::AttrSpec& spec : *frontend::attribute_schema(owner))
      attributes[spec.name] += (attributes[spec.name].empty() ? "" : ", ") + owner;
  for (const std::string& owner : mpi_owners())
    if (const auto* schema = frontend::mpi_schema(owner))
      for (const frontend::MpiAttrSpec& spec : *schema)
        attributes[spec.name] += (attributes[spec.name].empty() ? "mpi " : ", mpi ") + owner;
  for (const auto& [name, owners] : attributes) add(name, kProperty, "attribute of " + owners);
  for (const std::string& word : frontend::keyword_words()) add(word, kKeyword, "keyword");
  // The names visible here: the enclosing machine's or app's params and lets, then the global declarations.
  const frontend::CheckedProgram& program = session_->program();
  auto add_decl = [&](const Decl* decl) {
    switch (decl->kind) {
      case DeclKind::Param: add(decl->name, kVariable, "param"); break;
      case DeclKind::Let: add(decl->name, kVariable, "let"); break;
      case DeclKind::Fn: add(decl->name, kFunction, "fn"); break;
      case DeclKind::Type: add(decl->name, kClass, "type"); break;
      case DeclKind::Machine: add(decl->name, kModule, "machine"); break;
      case DeclKind::App: add(decl->name, kModule, "app"); break;
      case DeclKind::Table: add(decl->name, kFunction, "table"); break;
      case DeclKind::Import: break;
    }
  };
  if (const Decl* outer = enclosing(offset)) {
    if (auto scope = program.scoped.find(outer); scope != program.scoped.end())
      for (const auto& [name, decl] : scope->second) add_decl(decl);
    if (outer->kind == DeclKind::Fn)
      for (const auto& p : static_cast<const frontend::FnDecl*>(outer)->params) add(p.name, kVariable, "fn parameter");
  }
  for (const auto& [name, decl] : program.globals) add_decl(decl);
  return {{"isIncomplete", false}, {"items", items}};
}

}  // namespace gpm::lsp
