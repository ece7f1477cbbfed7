// format_test.cpp: `gpmc fmt`'s pretty-printer: the layout rules, every comment kept, the same tokens, idempotence on
// every .gpm file of the repository; and the unified diff that `--check` prints.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <optional>
#include <string>
#include <vector>

#include "frontend/format.h"
#include "frontend/lexer.h"
#include "support/unified_diff.h"

namespace {

namespace fs = std::filesystem;
using gpm::frontend::CodePointInput;
using gpm::frontend::Lexer;

// The tokens of a text, as the lexer gives them (comments and whitespace skipped): type and text.
std::vector<std::string> tokens_of(const std::string& text) {
  CodePointInput input(text);
  Lexer lexer(input);
  std::vector<std::string> out;
  for (;;) {
    auto token = lexer.nextToken();
    if (token->getType() == antlr4::Token::EOF) break;
    out.push_back(std::to_string(token->getType()) + " " + token->getText());
  }
  return out;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::optional<std::string> format(const std::string& text, std::string* errors = nullptr) {
  gpm::support::SourceManager sources;
  gpm::support::DiagnosticEngine diags(sources);
  auto id = sources.add("t.gpm", text);
  std::optional<std::string> out = gpm::frontend::format_file(sources, id, diags);
  if (errors) {
    for (const auto& d : diags.diagnostics()) *errors += diags.render(d);
  }
  return out;
}

std::string formatted(const std::string& text) {
  std::optional<std::string> out = format(text);
  REQUIRE(out.has_value());
  return *out;
}

}  // namespace

TEST_CASE("fmt: indentation by block, one space between tokens, none inside brackets") {
  CHECK(formatted("machine m{\nnode{\ncpu c{cores=4}\n      gpu g[ 2 ]\nlink c<->g[*]{bw=1 GB/s}\n}\n}\n") ==
        "machine m {\n  node {\n    cpu c { cores = 4 }\n    gpu g[2]\n    link c <-> g[*] { bw = 1 GB/s }\n  }\n}\n");
  CHECK(formatted("param x=-2^ -1*( 3+f( 1,2 ))\n") == "param x = -2^-1 * (3 + f(1, 2))\n");
  CHECK(formatted("fn f(a : bytes,b:bytes / time)->time=a/b\n") == "fn f(a: bytes, b: bytes/time) -> time = a / b\n");
  CHECK(formatted("app a { param d = h2d in { h2d , d2h } }\n") == "app a { param d = h2d in {h2d, d2h} }\n");
  CHECK(formatted("type L : link {}\n") == "type L : link {}\n");
  CHECK(formatted("machine m { node { link s[0].p <-> s[1].p } }\n") == "machine m { node { link s[0].p <-> s[1].p } }\n");
}

TEST_CASE("fmt: line breaks kept, at most one blank line, none at the ends of a block or the file") {
  CHECK(formatted("\n\nparam a = 1\n\n\n\nparam b = 2\n\n") == "param a = 1\n\nparam b = 2\n");
  CHECK(formatted("app a {\n\n  run k\n\n}\n") == "app a {\n  run k\n}\n");
  CHECK(formatted("param a = 1 param b = 2\n") == "param a = 1 param b = 2\n");
}

TEST_CASE("fmt: continuation lines: after a bracket, under a list, two more than the statement") {
  CHECK(formatted("fn f(a: time,\nb: time) -> time =\nmax(a,\nb)\n") ==
        "fn f(a: time,\n     b: time) -> time =\n  max(a,\n      b)\n");
  CHECK(formatted("fn f(a: count) -> count =\nif a > 1 then\n2\nelse 3\n") ==
        "fn f(a: count) -> count =\n  if a > 1 then\n    2\n  else 3\n");
  CHECK(formatted("machine m {\nnode {\nlink a <-> b,\nc <-> d {\nbw = 1 GB/s\n}\n}\n}\n") ==
        "machine m {\n  node {\n    link a <-> b,\n         c <-> d {\n      bw = 1 GB/s\n    }\n  }\n}\n");
  CHECK(formatted("machine m {\nnode {\nlink a <-> b { bw = 1 GB/s\nlatency = 1 us }\n}\n}\n") ==
        "machine m {\n  node {\n    link a <-> b { bw = 1 GB/s\n                   latency = 1 us }\n  }\n}\n");
}

TEST_CASE("fmt: every comment kept where it stands: trailing, standalone, block, at the end") {
  std::string in =
      "// head\n\n/* block\n   over lines */\nmachine m { // after the brace\n"
      "  // before nodes\n  nodes = 4 // four\n   // and a note under it\n  mem_size = /* inline */ 1 GB\n"
      "  /* lead */ sms = 2\n  // before the brace\n}\n// tail\n";
  std::string out = formatted(in);
  CHECK(out ==
        "// head\n\n/* block\n   over lines */\nmachine m {                                         // after the brace\n"
        "  // before nodes\n  nodes = 4                                         // four\n"
        "  // and a note under it\n  mem_size = /* inline */ 1 GB\n  /* lead */ sms = 2\n  // before the brace\n}\n"
        "// tail\n");
  // A comment line under a trailing comment, in its column, stays in that column.
  CHECK(formatted("param a = 1     // one\n                // more\nparam b = 2\n") ==
        "param a = 1                                         // one\n"
        "                                                    // more\nparam b = 2\n");
  CHECK(formatted("// only a comment\n") == "// only a comment\n");
  CHECK(formatted("param a = 1   \t// trailing blanks go   \n") ==
        "param a = 1                                         // trailing blanks go\n");
}

TEST_CASE("fmt: trailing comments at column 53, or three spaces after the longest of a run of longer lines") {
  std::string long_code = "param a = f(1111111111, 2222222222, 3333333333, 44444444)";
  std::string out = formatted(long_code + " // x\nparam b = g(1) // y\nparam c = 1 // z\n");
  CHECK(out == long_code + "   // x\nparam b = g(1)                                      // y\n"
                           "param c = 1                                         // z\n");
  std::string longer = "param a = f(1111111111, 2222222222, 3333333333, 4444444455)";
  out = formatted(long_code + " // x\n" + longer + " // y\n");
  CHECK(out == long_code + "     // x\n" + longer + "   // y\n");
}

TEST_CASE("fmt: consecutive one-line kernels and MPI fits align as tables") {
  CHECK(formatted("app a {\n  kernel k { time = 1 s }\n  kernel long_name { time = 2 s }\n}\n") ==
        "app a {\n  kernel k         { time = 1 s }\n  kernel long_name { time = 2 s }\n}\n");
  CHECK(formatted("machine m {\n  mpi {\n    intra_socket short postal(1 s, 1 s/B)\n"
                  "    inter_node rendezvous maxrate(1 s, 1 B/s, 1 B/s)\n  }\n}\n") ==
        "machine m {\n  mpi {\n    intra_socket short      postal(1 s, 1 s/B)\n"
        "    inter_node   rendezvous maxrate(1 s, 1 B/s, 1 B/s)\n  }\n}\n");
}

TEST_CASE("fmt: a file that does not parse is reported, not formatted") {
  std::string errors;
  CHECK_FALSE(format("machine m { node { gpu } \n", &errors).has_value());
  CHECK(errors.find("t.gpm:") != std::string::npos);
  CHECK(errors.find("[SyntaxError]") != std::string::npos);
  errors.clear();
  CHECK_FALSE(format("param a = 1 /* open\n", &errors).has_value());
  CHECK(errors.find("[UnterminatedComment]") != std::string::npos);
}

TEST_CASE("fmt: every .gpm file of the repository keeps its tokens and formats to a fixed point") {
  size_t formatted_files = 0, refused = 0;
  for (const char* folder : {"machines", "apps", "stdlib", "tests", "bench", "validation", "traces"}) {
    fs::path root = fs::path(GPM_SOURCE_DIR) / folder;
    if (!fs::exists(root)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      if (!entry.is_regular_file() || entry.path().extension() != ".gpm") continue;
      std::string path = entry.path().string();
      std::string text = read_file(entry.path());
      std::optional<std::string> once = format(text);
      if (!once) {  // a deliberately malformed test input
        ++refused;
        continue;
      }
      ++formatted_files;
      CAPTURE(path);
      CHECK(tokens_of(*once) == tokens_of(text));
      std::optional<std::string> twice = format(*once);
      REQUIRE(twice.has_value());
      CHECK(*twice == *once);
      bool shipped = path.find("/tests/") == std::string::npos;
      if (shipped) CHECK(*once == text);  // the shipped models are kept formatted (tests/tools/fmt_shipped.sh too)
    }
  }
  CHECK(formatted_files > 400);
  CHECK(refused < 40);
}

TEST_CASE("unified diff: hunks with three lines of context, as diff -u writes them") {
  using gpm::support::unified_diff;
  CHECK(unified_diff("a\nb\n", "a\nb\n", "x", "y").empty());
  CHECK(unified_diff("a\nb\nc\n", "a\nB\nc\n", "x", "y") == "--- x\n+++ y\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
  CHECK(unified_diff("", "a\n", "x", "y") == "--- x\n+++ y\n@@ -0,0 +1 @@\n+a\n");
  CHECK(unified_diff("a", "a\n", "x", "y") == "--- x\n+++ y\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n");
  std::string before, after;
  for (int i = 0; i < 20; ++i) {
    before += std::to_string(i) + "\n";
    after += (i == 2 || i == 17 ? "x" : std::to_string(i)) + "\n";
  }
  CHECK(unified_diff(before, after, "x", "y") ==
        "--- x\n+++ y\n@@ -1,6 +1,6 @@\n 0\n 1\n-2\n+x\n 3\n 4\n 5\n@@ -15,6 +15,6 @@\n 14\n 15\n 16\n-17\n+x\n 18\n 19\n");
}
