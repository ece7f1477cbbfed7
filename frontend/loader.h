// loader.h: reads files and follows imports (file's folder, then stdlib/, then --include dirs).
#pragma once
#include <map>
#include <memory>
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
  std::vector<std::string> prelude = {"roofline", "transfer", "pcie", "nvlink", "loggp", "overlap"};
};

class Loader {
 public:
  Loader(SourceManager& sources, DiagnosticEngine& diags, LoaderOptions options);
  // Loads the prelude; returns false (with diagnostics) when a prelude file is missing or invalid.
  bool load_prelude();
  // Loads a file named on the command line and everything it imports. Returns the module, or null
  // when the file could not be read or parsed.
  const Module* load_root(const std::string& path);
  // Makes `path` readable with `text` as its content without a file on disk: a model the driver writes for
  // the user's files (gpmc project's copy between two GPUs of a given machine). Diagnostics show `path`.
  void add_generated(const std::string& path, std::string text) { generated_[path] = std::move(text); }
  // Every module loaded so far, imports before importers.
  const std::vector<std::unique_ptr<Module>>& modules() const { return modules_; }

 private:
  const Module* load(const std::string& display_path, const std::string& canonical, SourceRange import_site);
  std::string resolve_import(const std::string& name, const std::string& importer_dir) const;
  std::string shown_path(const std::string& path) const;

  SourceManager& sources_;
  DiagnosticEngine& diags_;
  LoaderOptions options_;
  std::vector<std::unique_ptr<Module>> modules_;
  std::vector<std::string> module_keys_;  // canonical path of each module
  std::set<std::string> failed_;          // files that could not be read or parsed (reported once)
  std::map<std::string, std::string> generated_;  // path as given -> text (add_generated)
  struct Active {
    std::string key;
    SourceRange import_site;
  };
  std::vector<Active> stack_;  // files being loaded, for cycle detection
};

}  // namespace gpm::frontend
