// lsp_test.cpp: unit tests of the language server's positions, URIs and declaration comments.
#include <doctest/doctest.h>

#include <string>

#include "lsp/analysis.h"
#include "lsp/text.h"

using namespace gpm::lsp;

TEST_CASE("lsp: positions count UTF-16 code units, lines from 0") {
  std::string text = "ab\n\xc3\xa9\xf0\x9f\x98\x80x\n";  // é (1 unit), 😀 (2 units), x
  CHECK(offset_of(text, {0, 1}) == 1);
  CHECK(offset_of(text, {1, 0}) == 3);
  CHECK(offset_of(text, {1, 1}) == 5);
  CHECK(offset_of(text, {1, 3}) == 9);
  CHECK(offset_of(text, {1, 99}) == 10);  // clamped to the line's end
  CHECK(offset_of(text, {7, 0}) == text.size());
  Position p = position_of(text, 9);
  CHECK(p.line == 1);
  CHECK(p.character == 3);
  Position end = position_of(text, 999);
  CHECK(end.line == 2);
  CHECK(end.character == 0);
}

TEST_CASE("lsp: file URIs and paths, percent-encoded") {
  CHECK(uri_to_path("file:///tmp/a%20b/c.gpm") == "/tmp/a b/c.gpm");
  CHECK(uri_to_path("file://localhost/x.gpm") == "/x.gpm");
  CHECK(uri_to_path("untitled:Untitled-1") == "untitled:Untitled-1");
  CHECK(path_to_uri("/tmp/a b/c.gpm") == "file:///tmp/a%20b/c.gpm");
  CHECK(uri_to_path(path_to_uri("/tmp/%x#y.gpm")) == "/tmp/%x#y.gpm");
}

TEST_CASE("lsp: the word at an offset") {
  uint32_t begin = 0, end = 0;
  std::string text = "let t = link_bw * 2GB";
  CHECK(word_at(text, 10, begin, end) == "link_bw");
  CHECK(begin == 8);
  CHECK(end == 15);
  CHECK(word_at(text, 15, begin, end) == "link_bw");  // just after it
  CHECK(word_at(text, 16, begin, end).empty());
  CHECK(word_at(text, 19, begin, end).empty());  // a number with its unit
  CHECK(word_at("", 0, begin, end).empty());
}

TEST_CASE("lsp: a declaration's comment: the lines above, else the end of its line") {
  std::string text = "// file header\n\n// The link.\n// Per direction.\nparam bw = 1 GB/s\nlet x = 2  // two\nlet y = 3\n";
  CHECK(declaration_comment(text, uint32_t(text.find("param"))) == "The link.\nPer direction.");
  CHECK(declaration_comment(text, uint32_t(text.find("let x"))) == "two");
  CHECK(declaration_comment(text, uint32_t(text.find("let y"))).empty());
  CHECK(declaration_comment("param a = 1", 0).empty());
}
