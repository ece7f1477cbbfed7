// loader.h: reads files and follows imports (file's folder, then stdlib/, then --include dirs).
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "support/diagnostics.h"
#include "support/source_file.h"

namespace gpm::frontend {

// The support layer (units, sources, diagnostics, suggestions) is named unqualified throughout the frontend.
using namespace gpm::support;

struct LoaderOptions {
  std::string stdlib_dir;
  std::vector<std::string> include_dirs;
  // Standard-library files loaded before any user file (closed forms the lowering calls).
  std::vector<std::string> prelude = {"roofline", "transfer", "pcie", "nvlink", "loggp", "overlap", "nccl", "mpi"};
  // Parse only the prelude's declarations a model refers to (complete_prelude): the files are read and indexed by
  // load_prelude, and parsed, without the fn, type and let declarations no loaded file or given name mentions, once
  // the user's files are loaded.
  bool lazy_prelude = false;
};

// The prelude parsed once, for a process that checks many inputs one after another (the fuzz targets): each file's
// path, text and module. A loader that adopts it adds the texts to its source manager, in the same order and so
// with the same file ids, and shares the modules. Sema annotates a module in place (types, targets), the same way
// on every check, since the prelude refers to nothing outside itself; loaders sharing one must not run at once.
struct ParsedPrelude {
  struct File {
    std::string path;  // as shown in diagnostics
    std::string text;
  };
  std::vector<File> files;  // by file id, from 0
  struct Loaded {
    std::string key;  // canonical path
    std::shared_ptr<Module> module;
  };
  std::vector<Loaded> modules;  // in load order, imports before importers
};

class Loader {
 public:
  Loader(SourceManager& sources, DiagnosticEngine& diags, LoaderOptions options);
  ~Loader();
  // Loads the prelude; returns false (with diagnostics) when a prelude file is missing or invalid. With
  // `lazy_prelude`, reads and indexes its files only: complete_prelude parses them.
  bool load_prelude();
  // The lazy prelude parsed: every declaration that `names`, a file loaded since load_prelude, or a declaration so
  // kept mentions (by identifier), and every param, import, machine and app. A prelude file a user file imports or
  // names on the command line is parsed whole. False, with diagnostics, on a syntax error. Nothing to do when the
  // prelude is not lazy or is complete.
  bool complete_prelude(const std::set<std::string>& names);
  // Forgets every file and module loaded (the generated files stay), for loading again; `lazy_prelude` as given.
  void reset(bool lazy_prelude);
  // Loads the prelude from `parsed` instead: nothing is read or parsed. The loader must be new (no file loaded yet)
  // and its source manager empty.
  void adopt_prelude(const ParsedPrelude& parsed);
  // The prelude as loaded by load_prelude, to hand to other loaders.
  ParsedPrelude prelude() const;
  // Loads a file named on the command line and everything it imports. Returns the module, or null
  // when the file could not be read or parsed.
  const Module* load_root(const std::string& path);
  // Makes `path` readable with `text` as its content without a file on disk: a model the driver writes for
  // the user's files (gpmc project's copy between two GPUs of a given machine). Diagnostics show `path`.
  void add_generated(const std::string& path, std::string text) { generated_[path] = std::move(text); }
  // Every module loaded so far, imports before importers.
  std::vector<Module*> modules() const;

 private:
  const Module* load(const std::string& display_path, const std::string& canonical, SourceRange import_site);
  std::string resolve_import(const std::string& name, const std::string& importer_dir) const;
  std::string shown_path(const std::string& path) const;

  SourceManager& sources_;
  DiagnosticEngine& diags_;
  LoaderOptions options_;
  std::vector<std::shared_ptr<Module>> modules_;
  size_t prelude_count_ = 0;  // the first modules_ are the prelude's
  size_t prelude_files_ = 0;  // and the first files of the source manager
  std::vector<std::string> module_keys_;  // canonical path of each module
  std::set<std::string> failed_;          // files that could not be read or parsed (reported once)
  std::map<std::string, std::string> generated_;  // path as given -> text (add_generated)
  struct PendingPrelude;  // a lazy prelude file's declarations (loader.cpp)
  std::vector<std::unique_ptr<PendingPrelude>> pending_;  // the lazy prelude's files, by module, until complete_prelude
  struct Active {
    std::string key;
    SourceRange import_site;
  };
  std::vector<Active> stack_;  // files being loaded, for cycle detection
};

}  // namespace gpm::frontend
