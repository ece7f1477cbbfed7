// loader.cpp: import resolution, cycle detection and file reading with size and type checks.
#include "frontend/loader.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "frontend/parse.h"
#include "frontend/prelude_index.h"
#include "frontend/table_file.h"

namespace gpm::frontend {

namespace fs = std::filesystem;

struct Loader::PendingPrelude {
  std::optional<std::vector<IndexedDecl>> decls;  // none: parsed whole
  bool whole = false;  // imported or named by the user: parsed whole
};

Loader::Loader(SourceManager& sources, DiagnosticEngine& diags, LoaderOptions options)
    : sources_(sources), diags_(diags), options_(std::move(options)) {}

Loader::~Loader() = default;

void Loader::reset(bool lazy_prelude) {
  modules_.clear();
  module_keys_.clear();
  prelude_count_ = prelude_files_ = 0;
  failed_.clear();
  stack_.clear();
  pending_.clear();
  options_.lazy_prelude = lazy_prelude;
}

static std::string canonical_key(const std::string& path) {
  std::error_code ec;
  auto canon = fs::weakly_canonical(fs::absolute(path, ec), ec);
  return ec ? path : canon.string();
}

bool Loader::load_prelude() {
  if (prelude_count_ > 0) return true;
  if (options_.stdlib_dir.empty()) {
    diags_.error(DiagKind::FileNotFound, {},
                 "cannot find the standard library: set GPMC_STDLIB to its folder (an installed gpmc has it in "
                 "PREFIX/share/gpmc/stdlib, beside PREFIX/bin/gpmc)");
    return false;
  }
  size_t before = diags_.error_count();
  for (const auto& name : options_.prelude) {
    std::string path = (fs::path(options_.stdlib_dir) / (name + ".gpm")).string();
    if (options_.lazy_prelude) {
      // Read and indexed now, with the file ids of a whole load; parsed by complete_prelude.
      std::string text;
      if (!read_source_file(path, text, diags_, {}, kMaxSourceBytesLimit)) {
        if (diags_.error_count() == before)
          diags_.error(DiagKind::FileNotFound, {}, fmt::format("standard library file `{}` failed to load", path));
        return false;
      }
      auto pending = std::make_unique<PendingPrelude>();
      pending->decls = index_declarations(text);
      if (pending->decls && pending->decls->empty()) pending->decls.reset();  // parsed whole: EmptyFile
      auto module = std::make_shared<Module>();
      module->file = sources_.add(shown_path(path), std::move(text));
      module->path = sources_.path(module->file);
      modules_.push_back(std::move(module));
      module_keys_.push_back(canonical_key(path));
      pending_.push_back(std::move(pending));
      continue;
    }
    if (!load(path, canonical_key(path), {})) {
      if (diags_.error_count() == before)
        diags_.error(DiagKind::FileNotFound, {}, fmt::format("standard library file `{}` failed to load", path));
      return false;
    }
  }
  prelude_count_ = modules_.size();
  prelude_files_ = sources_.file_count();
  return true;
}

void Loader::adopt_prelude(const ParsedPrelude& parsed) {
  for (const auto& file : parsed.files) sources_.add(file.path, file.text);
  for (const auto& loaded : parsed.modules) {
    modules_.push_back(loaded.module);
    module_keys_.push_back(loaded.key);
  }
  prelude_count_ = modules_.size();
  prelude_files_ = parsed.files.size();
}

ParsedPrelude Loader::prelude() const {
  ParsedPrelude out;
  for (FileId id = 0; id < FileId(prelude_files_); ++id) out.files.push_back({sources_.path(id), sources_.text(id)});
  for (size_t i = 0; i < prelude_count_; ++i) out.modules.push_back({module_keys_[i], modules_[i]});
  return out;
}

std::vector<Module*> Loader::modules() const {
  std::vector<Module*> out;
  for (const auto& m : modules_) out.push_back(m.get());
  return out;
}

// Files of the standard library are shown as `stdlib/<name>`, wherever it is installed, so that
// diagnostics do not depend on the build folder.
std::string Loader::shown_path(const std::string& path) const {
  if (options_.stdlib_dir.empty()) return path;
  fs::path relative = fs::path(path).lexically_relative(options_.stdlib_dir);
  if (!relative.empty() && *relative.begin() != "..") return (fs::path("stdlib") / relative).string();
  return path;
}

const Module* Loader::load_root(const std::string& path) { return load(path, canonical_key(path), {}); }

std::string Loader::resolve_import(const std::string& name, const std::string& importer_dir) const {
  std::vector<std::string> dirs = {importer_dir};
  if (!options_.stdlib_dir.empty()) dirs.push_back(options_.stdlib_dir);  // empty is no folder, not the current one
  dirs.insert(dirs.end(), options_.include_dirs.begin(), options_.include_dirs.end());
  for (const auto& dir : dirs) {
    for (const std::string& candidate : {name, name + ".gpm"}) {
      fs::path p = dir.empty() ? fs::path(candidate) : fs::path(dir) / candidate;
      std::error_code ec;
      if (fs::is_regular_file(p, ec)) return p.lexically_normal().string();
    }
  }
  return {};
}

bool Loader::complete_prelude(const std::set<std::string>& names) {
  if (pending_.empty()) return true;
  // The names wanted: those given, every identifier of the files loaded after the prelude, and, as declarations
  // are kept, the identifiers inside them.
  std::set<std::string> wanted = names;
  for (size_t i = prelude_count_; i < modules_.size(); ++i) collect_identifiers(sources_.text(modules_[i]->file), wanted);
  std::map<std::string, std::vector<std::pair<size_t, size_t>>> by_name;  // name -> (file, declaration)
  std::vector<std::vector<char>> keep(pending_.size());
  std::vector<std::string> work(wanted.begin(), wanted.end());
  auto keep_decl = [&](size_t f, size_t d) {
    if (keep[f][d]) return;
    keep[f][d] = 1;
    for (const auto& ref : (*pending_[f]->decls)[d].refs)
      if (wanted.insert(ref).second) work.push_back(ref);
  };
  for (size_t f = 0; f < pending_.size(); ++f) {
    if (!pending_[f]->decls) continue;
    keep[f].assign(pending_[f]->decls->size(), 0);
    for (size_t d = 0; d < pending_[f]->decls->size(); ++d)
      if ((*pending_[f]->decls)[d].optional) by_name[(*pending_[f]->decls)[d].name].emplace_back(f, d);
  }
  for (size_t f = 0; f < pending_.size(); ++f)
    for (size_t d = 0; d < keep[f].size(); ++d)
      if (pending_[f]->whole || !(*pending_[f]->decls)[d].optional) keep_decl(f, d);
  while (!work.empty()) {
    std::string name = std::move(work.back());
    work.pop_back();
    if (auto it = by_name.find(name); it != by_name.end())
      for (auto [f, d] : it->second) keep_decl(f, d);
  }
  bool ok = true;
  for (size_t f = 0; f < pending_.size(); ++f) {
    Module& module = *modules_[f];
    std::vector<SkippedTokens> omit;
    bool any = !pending_[f]->decls;
    for (size_t d = 0; d < keep[f].size(); ++d) {
      if (keep[f][d])
        any = true;
      else
        omit.push_back((*pending_[f]->decls)[d].span);
    }
    if (!any) continue;  // nothing of this file is used: an empty module
    auto parsed = parse_module(sources_, module.file, diags_, true, omit);
    if (parsed && parsed->decls.empty())
      diags_.error(DiagKind::EmptyFile, SourceRange{module.file, 0, 0},
                   "file declares nothing: expected a machine, an app, or params, lets, fns and types");
    if (!parsed || parsed->decls.empty()) {
      ok = false;
      continue;
    }
    module.decls = std::move(parsed->decls);
  }
  pending_.clear();
  return ok;
}

const Module* Loader::load(const std::string& display_path, const std::string& key, SourceRange import_site) {
  for (size_t i = 0; i < module_keys_.size(); ++i)
    if (module_keys_[i] == key) {
      if (i < pending_.size()) pending_[i]->whole = true;  // a lazy prelude file the user loads: all of it
      return modules_[i].get();
    }
  if (failed_.count(key)) return nullptr;  // already reported
  for (size_t i = 0; i < stack_.size(); ++i) {
    if (stack_[i].key != key) continue;
    std::string chain;
    for (size_t k = i; k < stack_.size(); ++k) chain += fs::path(stack_[k].key).filename().string() + " -> ";
    chain += fs::path(key).filename().string();
    diags_.error(DiagKind::ImportCycle, import_site, fmt::format("import cycle: {}", chain));
    return nullptr;
  }
  std::string text;
  if (auto generated = generated_.find(display_path); generated != generated_.end()) {
    text = generated->second;
  } else if (!read_source_file(display_path, text, diags_, import_site,
                               // --max-source-bytes is for the user's files: the standard library is always read
                               shown_path(display_path).rfind("stdlib/", 0) == 0 ? kMaxSourceBytesLimit : 0)) {
    failed_.insert(key);
    return nullptr;
  }
  FileId file = sources_.add(shown_path(display_path), std::move(text));
  auto module = parse_module(sources_, file, diags_);
  if (module && module->decls.empty())
    diags_.error(DiagKind::EmptyFile, SourceRange{file, 0, 0},
                 "file declares nothing: expected a machine, an app, or params, lets, fns and types");
  if (!module || module->decls.empty()) {
    failed_.insert(key);
    return nullptr;
  }
  stack_.push_back({key, import_site});
  std::string dir = fs::path(display_path).parent_path().string();
  for (auto& decl : module->decls) {
    if (decl->kind == DeclKind::Table) read_table_file(static_cast<TableDecl&>(*decl), dir, sources_, diags_);
    if (decl->kind != DeclKind::Import) continue;
    const auto& import = static_cast<const ImportDecl&>(*decl);
    std::string resolved = resolve_import(import.path, dir);
    if (resolved.empty()) {
      diags_.error(DiagKind::ImportNotFound, import.name_range,
                   fmt::format("cannot find `{}` in {}, the standard library or the --include folders",
                               import.path, dir.empty() ? "the current folder" : "`" + dir + "`"));
      continue;
    }
    load(resolved, canonical_key(resolved), import.name_range);
  }
  stack_.pop_back();
  modules_.push_back(std::move(module));
  module_keys_.push_back(key);
  return modules_.back().get();
}

}  // namespace gpm::frontend
