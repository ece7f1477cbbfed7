// flow_lines_test.cpp: the plain flow lines built before the parse (frontend/flow_lines.cpp) give the AST, the source
// ranges and the diagnostics that the ANTLR parse gives, on every .gpm file of the repository and on made-up blocks.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "frontend/ast.h"
#include "frontend/ast_printer.h"
#include "frontend/parse.h"
#include "support/diagnostics.h"
#include "support/limits.h"

using namespace gpm::frontend;
namespace fs = std::filesystem;

namespace {

void ranges(const SourceRange& r, std::string& out) { out += fmt::format("{}-{} ", r.begin, r.end); }

void ranges(const Expr& e, std::string& out) {
  out += "(";
  ranges(e.range, out);
  ranges(e.name_range, out);
  out += fmt::format("{} {} {} ", e.text, e.name, e.value);
  for (const auto& o : e.operands) ranges(*o, out);
  out += ")";
}

void ranges(const CompRef& r, std::string& out) {
  ranges(r.range, out);
  for (const auto& p : r.parts) {
    out += p.name + (p.star ? "*" : "") + ":";
    ranges(p.range, out);
    if (p.index) ranges(*p.index, out);
  }
}

void ranges(const FlowItem& f, std::string& out) {
  out += "{" + f.label + " " + f.pattern + " " + f.after + " ";
  for (const SourceRange* r : {&f.range, &f.label_range, &f.pattern_range, &f.after_range}) ranges(*r, out);
  for (const CompRef* r : {&f.src, &f.dst, &f.members}) ranges(*r, out);
  for (const ExprPtr* e : {&f.bytes, &f.start, &f.pattern_arg, &f.loop_lo, &f.loop_hi})
    if (*e) ranges(**e, out);
  for (const auto& inner : f.body) ranges(inner, out);
  out += "}\n";
}

void ranges(const Stmt& s, std::string& out) {
  ranges(s.range, out);
  for (const auto& f : s.flows) ranges(f, out);
  for (const auto& inner : s.body) ranges(*inner, out);
}

// The AST as printed, every range of every flow, and the diagnostics, from one of the two ways.
std::string parsed(const std::string& text, bool flow_lines) {
  SourceManager sources;
  DiagnosticEngine diags(sources);
  FileId file = sources.add("test.gpm", text);
  auto module = parse_module(sources, file, diags, flow_lines);
  std::string out;
  for (const auto& d : diags.diagnostics()) out += diags.render(d);
  if (!module) return out + "(no module)\n";
  out += print_module(*module, sources);
  for (const auto& decl : module->decls)
    if (decl->kind == DeclKind::App)
      for (const auto& s : static_cast<const AppDecl&>(*decl).body) ranges(*s, out);
  return out;
}

void same_both_ways(const std::string& text) {
  std::string fast = parsed(text, true), slow = parsed(text, false);
  CHECK(fast == slow);
}

std::string app(const std::string& flows) { return "app a {\n  flows {\n" + flows + "  }\n}\n"; }

}  // namespace

TEST_CASE("flow lines: every .gpm file of the repository parses to the same AST and ranges both ways") {
  int files = 0, with_flows = 0;
  for (const char* folder : {"apps", "machines", "stdlib", "bench", "tests/golden"}) {
    fs::path root = fs::path(GPM_SOURCE_DIR) / folder;
    if (!fs::exists(root)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      if (entry.path().extension() != ".gpm" || fs::file_size(entry.path()) > (1u << 20)) continue;
      std::ifstream in(entry.path(), std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      CAPTURE(entry.path().string());
      same_both_ways(text.str());
      ++files;
      with_flows += text.str().find("flows") != std::string::npos;
    }
  }
  CHECK(files > 100);
  CHECK(with_flows > 10);
}

TEST_CASE("flow lines: made-up blocks, valid and not, parse the same both ways") {
  const char* cases[] = {
      "    x: g[0] -> g[1] 1 MB\n    g[1] -> s[0].g[2] 2.5e3 KiB at 3 us\n    y: node[1].gpu[k] -> g[0] size after x\n",
      "    g[0] -> g[1] 1 MB; g[1] -> g[0] 1 MB;\n    a.b.c -> d 3\n",
      "    g[0] -> g[1] 1 MB\n    all_to_all g[*] 1 MB\n    g[1] -> g[0] 1 MB\n",
      "    g[0] -> g[1] 1 MB\n    for i in 0 .. 2 { g[i] -> g[0] 1 MB }\n    g[1] -> g[0] 1 MB\n",
      "    g[0] -> g[1] 1 MB * 2\n    g[1] -> g[0] 1 MB\n",
      "    g[0] -> g[1] 1 MB\n    - 3\n",
      "    g[0] -> g[1] 8 Gbps\n",
      "    g[0] -> g[1] 1 MB at\n",
      "    g[0] -> g[1]\n",
      "    g[0] -> g[1] f(2)\n    g[1] -> g[0] x\n",
      "    g[0] -> g[1] 1e999 MB\n",
      "    g[0] -> g[1] 1 MB after\n    y\n",
      "    g[0] -> g[1] 1 MB\n    g[1] -> g[0] 1 MB\n  }\n  flows unordered {\n    g[0] -> g[1] 1 MB\n",
      "    g[0] -> g[1] 1 MB\n    g[1] -> g[0] 1 MB\n  }\n",
      "    \"s\" -> g[1] 1 MB\n    g[ 0 ] -> g [1] 1 MB // c\n    /* c */ g[1] -> g[0] 1 MB\n",
  };
  for (const char* c : cases) {
    CAPTURE(c);
    same_both_ways(app(c));
  }
}

TEST_CASE("flow lines: a block over --max-flows is refused before the parse") {
  auto saved = gpm::support::limits();
  gpm::support::limits().flows_per_block = 2;
  std::string lines = "    h[0] -> h[1] 1 MB\n    h[1] -> h[2] 1 MB\n";
  std::string two = parsed(app(lines), true);
  std::string three = parsed(app(lines + "    h[2] -> h[0] 1 MB\n") + "app (\n", true);
  gpm::support::limits() = saved;
  CHECK(two.find("ModelTooLarge") == std::string::npos);
  CHECK(three.find("this `flows` block has more than 2 flows") != std::string::npos);
  CHECK(three.find("SyntaxError") == std::string::npos);  // refused before the parse met the error
}
