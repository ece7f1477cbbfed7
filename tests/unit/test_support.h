// test_support.h: helpers shared by the unit tests: relative comparisons, diagnostics lookups, and a
// fixture that parses the standard library plus one text, checks it and lowers it to IR.
#pragma once
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "backend/interp/interpreter.h"
#include "support/diagnostics.h"
#include "frontend/parse.h"
#include "frontend/sema.h"
#include "lower/lower.h"

#include <unistd.h>

namespace gpm::test {

// A temporary file `name` holding `text`, in a folder of its own for this process (`tag` names the test), removed
// afterwards.
struct TempFile {
  std::filesystem::path path;
  TempFile(const std::string& tag, const std::string& name, const std::string& text) {
    auto dir = std::filesystem::temp_directory_path() / ("gpm_" + tag + "_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    path = dir / name;
    std::ofstream(path, std::ios::binary) << text;
  }
  ~TempFile() {
    std::error_code ec;
    std::filesystem::remove(path, ec);
    std::filesystem::remove(path.parent_path(), ec);  // only succeeds once empty
  }
};

// A topology from kinds and undirected links, for the engines' tests (bandwidths and latencies are engine inputs).
struct Net {
  ir::Topology t;
  int add(const std::string& kind, const std::string& path) {
    t.components.push_back({kind, path, "", {}, {}});
    return int(t.components.size()) - 1;
  }
  void link(int a, int b) {
    ir::Link l;
    l.a = a;
    l.b = b;
    t.links.push_back(l);
  }
};

// A relative comparison (doctest's Approx is absolute below 1 unless its scale is 0): 1e-9 unless narrowed.
inline doctest::Approx approx(double value) { return doctest::Approx(value).epsilon(1e-9).scale(0); }

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Lookups over the diagnostics an engine collected.
struct DiagnosticsView {
  const support::DiagnosticEngine& engine;
  size_t count(support::DiagKind kind) const {
    size_t n = 0;
    for (const auto& d : engine.diagnostics()) n += d.kind == kind;
    return n;
  }
  bool has(support::DiagKind kind) const { return count(kind) > 0; }
  const support::Diagnostic* find(support::DiagKind kind) const {
    for (const auto& d : engine.diagnostics())
      if (d.kind == kind) return &d;
    return nullptr;
  }
  std::string all_messages() const {
    std::string out;
    for (const auto& d : engine.diagnostics()) out += engine.render(d);
    return out;
  }
};

// The standard library and one user text, parsed, checked and lowered: every machine, then every app,
// with every machine's and app's parameters. Bindings are by parameter name.
struct Pipeline {
  support::SourceManager sources;
  support::DiagnosticEngine diags{sources};
  std::vector<std::unique_ptr<frontend::Module>> modules;
  frontend::Sema sema{diags};
  ir::Module ir;
  lower::ParamBindings bindings;
  backend::SlotValues bound;

  size_t count(support::DiagKind kind) const { return DiagnosticsView{diags}.count(kind); }
  bool has(support::DiagKind kind) const { return DiagnosticsView{diags}.has(kind); }
  const support::Diagnostic* find(support::DiagKind kind) const { return DiagnosticsView{diags}.find(kind); }
  std::string all_messages() const { return DiagnosticsView{diags}.all_messages(); }

  void lower(const std::string& text, const std::map<std::string, double>& named) {
    std::vector<std::pair<std::string, std::string>> files = {
        {"roofline.gpm", read_file(GPM_SOURCE_DIR "/stdlib/roofline.gpm")},
        {"transfer.gpm", read_file(GPM_SOURCE_DIR "/stdlib/transfer.gpm")},
        {"test.gpm", text}};
    for (const auto& [name, source] : files) {
      auto file = sources.add(name, source);
      auto m = frontend::parse_module(sources, file, diags);
      REQUIRE_MESSAGE(m, all_messages());
      modules.push_back(std::move(m));
    }
    REQUIRE_MESSAGE(sema.check(modules), all_messages());
    for (const auto* p : sema.program().params)
      if (auto it = named.find(p->name); it != named.end()) bindings[p] = it->second;
    std::vector<const frontend::Decl*> owners;
    for (const auto* m : sema.program().machines) owners.push_back(m);
    for (const auto* a : sema.program().apps) owners.push_back(a);
    lower::Lowerer lowerer(sema.program(), sources, diags, ir, bindings);
    lowerer.lower_params(owners);
    for (const auto* m : sema.program().machines) lowerer.lower_machine(*m);
    if (!diags.has_errors())
      for (const auto* a : sema.program().apps) lowerer.lower_app(*a);
    bound.assign(ir.params.size(), std::nullopt);
    for (const auto& [decl, value] : bindings) bound[size_t(lowerer.slot_of(decl))] = value;
  }
};

}  // namespace gpm::test
