// lexer_test.cpp: the hand-written lexer gives exactly the tokens of ANTLR's generated one (type, indices, line,
// column) on every .gpm file of the repository, on inputs at each rule's edges and on random inputs.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "GpmLexer.h"
#include "frontend/lexer.h"

namespace {

namespace fs = std::filesystem;
using gpm::frontend::CodePointInput;
using gpm::frontend::Lexer;

struct Tok {
  size_t type, start, stop, line, column;
  bool operator==(const Tok&) const = default;
};

std::string describe(const Tok& t) {
  return "type " + std::to_string(t.type) + " [" + std::to_string(t.start) + ", " + std::to_string(t.stop) + "] at " +
         std::to_string(t.line) + ":" + std::to_string(t.column);
}

// Tokens until end of file (inclusive) from ANTLR's generated lexer.
std::vector<Tok> generated_tokens(const std::string& text) {
  antlr4::ANTLRInputStream input(text);
  gpm_gen::GpmLexer lexer(&input);
  lexer.removeErrorListeners();
  std::vector<Tok> out;
  for (;;) {
    auto token = lexer.nextToken();
    out.push_back({token->getType(), token->getStartIndex(), token->getStopIndex(), token->getLine(),
                   token->getCharPositionInLine()});
    if (token->getType() == antlr4::Token::EOF) return out;
  }
}

std::vector<Tok> hand_tokens(const std::string& text) {
  CodePointInput input(text);
  Lexer lexer(input);
  std::vector<Tok> out;
  for (;;) {
    auto token = lexer.nextToken();  // through the TokenSource interface the parser uses
    out.push_back({token->getType(), token->getStartIndex(), token->getStopIndex(), token->getLine(),
                   token->getCharPositionInLine()});
    if (token->getType() == antlr4::Token::EOF) return out;
  }
}

// Compares both lexers on `text`; `what` names the input in a failure.
void same_tokens(const std::string& text, const std::string& what) {
  try {
    antlr4::ANTLRInputStream probe(text);
  } catch (...) {
    return;  // not UTF-8: refused before lexing (parse.cpp's check_encoding), so neither lexer ever sees it
  }
  auto expected = generated_tokens(text);
  auto got = hand_tokens(text);
  size_t n = std::min(expected.size(), got.size());
  for (size_t i = 0; i < n; ++i) {
    if (expected[i] == got[i]) continue;
    FAIL_CHECK(what << ": token " << i << ": generated " << describe(expected[i]) << ", hand-written "
                    << describe(got[i]));
    return;
  }
  CHECK_MESSAGE(expected.size() == got.size(), what << ": " << expected.size() << " tokens vs " << got.size());
}

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("lexer: the unit words are the alternatives of the grammar's UNIT fragment") {
  std::string grammar = read(fs::path(GPM_SOURCE_DIR) / "grammar" / "Gpm.g4");
  size_t begin = grammar.find("fragment UNIT");
  REQUIRE(begin != std::string::npos);
  size_t end = grammar.find(';', begin);
  std::string fragment = grammar.substr(begin, end - begin);
  std::set<std::string> in_grammar;
  std::regex quoted("'([^']+)'");
  for (auto it = std::sregex_iterator(fragment.begin(), fragment.end(), quoted); it != std::sregex_iterator(); ++it)
    in_grammar.insert((*it)[1]);
  std::set<std::string> in_lexer;
  for (auto word : Lexer::unit_words()) in_lexer.insert(std::string(word));
  CHECK(in_grammar.size() > 30);
  CHECK(in_lexer == in_grammar);
}

TEST_CASE("lexer: every .gpm file of the repository lexes as ANTLR's generated lexer lexes it") {
  size_t files = 0;
  for (const char* folder : {"machines", "apps", "stdlib", "tests", "bench", "validation", "traces"}) {
    fs::path root = fs::path(GPM_SOURCE_DIR) / folder;
    if (!fs::exists(root)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      if (!entry.is_regular_file() || entry.path().extension() != ".gpm") continue;
      same_tokens(read(entry.path()), entry.path().string());
      ++files;
    }
  }
  CHECK(files > 100);
}

TEST_CASE("lexer: inputs at the edges of each rule") {
  const char* inputs[] = {
      "0..7", "1.5.3", "1.", ".5", "1e5", "1e", "1E+", "1e-3 s", "2e+", "4 GB/s", "4GB/sx", "4 \tKiB", "4 Gbps",
      "8 Tflops", "4 s/s/x", "4 GB/", "4 GB / s", "5 Ki", "3 kHzz", "7 MiBB", "6 T", "6 KT/s", "1 /", "9\n s",
      "a<->b", "a<-b", "a->b", "x<=y", "x>=y", "x==y", "x!=y", "!x", "a=b", "a = = b", "\"abc\"", "\"abc", "\"ab\ncd\"",
      "\"\"", "/* x */y", "/* x", "/*/", "/**/", "/* a * / b */c", "/* **/d", "//c\nx", "//", "a/b", "a//b", "a/*b*/c",
      "\xC3\xA9", "a\tb\r\nc", "_x9", "machines", "machine", "in", "inx", "..", ".", "...", "2^-1", "", "   ", "\n\n",
      "\xE2\x82\xAC x", "a\x01" "b", "a\fb", "if not true then -1 else +2", "g[0] -> g[1] 1 MB at 5 us",
      "for i in 0 .. 7 { }", "x: 1;", "import \"a.gpm\"", "1_000", "0x10", "a$b", "a#b", "@", "`", "~", "?",
      "1e400", "123456789012345678901234567890", "\r", "x\r\ny", "1.5e-3GB/s"};
  for (const char* text : inputs) same_tokens(text, std::string("`") + text + "`");
}

TEST_CASE("lexer: random inputs over the characters the rules care about") {
  const std::string alphabet = "0123456789.eE+-/*<>=!:;,()[]{}^\"_ \t\n\rsmunpBkKMGTPiflopHzbxaycd\xC3\xA9#";
  std::mt19937 random(12345);  // fixed: the same inputs every run
  std::uniform_int_distribution<size_t> length(0, 40), pick(0, alphabet.size() - 1);
  for (int i = 0; i < 3000; ++i) {
    std::string text;
    for (size_t k = length(random); k > 0; --k) {
      char c = alphabet[pick(random)];
      if (static_cast<unsigned char>(c) >= 0x80) {
        text += "\xC3\xA9";  // a whole two-byte character: the lexers see code points
        continue;
      }
      text += c;
    }
    same_tokens(text, "random input `" + text + "`");
  }
}
