// lexer.h: the .gpm lexer, written by hand for speed, producing exactly the tokens of grammar/Gpm.g4's lexer rules.
#pragma once
#include <antlr4-runtime.h>

#include <string>
#include <string_view>
#include <vector>

#include "frontend/skipped_tokens.h"

namespace gpm::frontend {

// The source as code points, as ANTLR's parser and tokens index it.
class CodePointInput : public antlr4::ANTLRInputStream {
 public:
  using antlr4::ANTLRInputStream::ANTLRInputStream;
  const std::u32string& code_points() const { return _data; }
};

// One token without the allocation of an antlr4::Token: its type (a token type of the generated GpmParser), the
// code-point indices of its first and last character (stop < start for end of file), and where it starts.
struct Lexeme {
  size_t type = 0;
  size_t start = 0, stop = 0;
  size_t line = 1, column = 0;
};

// ANTLR's generated lexer simulates its ATN and builds its DFA anew in every process: about half of the CPU time of
// a one-shot `gpmc eval` went there. This lexer follows the same rules (longest match; of two matches of equal
// length the earlier rule, so keywords before IDENT) by hand. The keywords and punctuation are taken from the
// generated vocabulary, so they cannot drift from the grammar; the rules with a shape (QUANTITY, NUMBER, IDENT,
// STRING, the comments, WS, ERROR_CHAR) are written out below, and a unit test checks that both lexers give the
// same tokens on every shipped model and on inputs chosen to probe each rule's edges.
class Lexer : public antlr4::TokenSource {
 public:
  explicit Lexer(CodePointInput& input);

  // The next token that is not skipped (whitespace, comments); type antlr4::Token::EOF at the end, again and again.
  Lexeme next();
  // The text of a keyword or punctuation token type (`machine`, `->`), or empty for the other types.
  std::string_view literal(size_t type) const;
  // Starts again from the beginning of the input.
  void reset();
  // Tokens that nextToken() leaves out, sorted and disjoint (the flow lines frontend/flow_lines.cpp has built).
  void skip(std::vector<SkippedTokens> spans) { skip_ = std::move(spans); }
  // The unit words a quantity may end with (the grammar's UNIT fragment), for the test that compares them.
  static std::vector<std::string_view> unit_words();

  // antlr4::TokenSource, for the parser's token stream.
  std::unique_ptr<antlr4::Token> nextToken() override;
  size_t getLine() const override { return line_; }
  size_t getCharPositionInLine() override { return column_; }
  antlr4::CharStream* getInputStream() override { return &input_; }
  std::string getSourceName() override { return input_.getSourceName(); }
  antlr4::TokenFactory<antlr4::CommonToken>* getTokenFactory() override {
    return antlr4::CommonTokenFactory::DEFAULT.get();
  }

 private:
  char32_t at(size_t i) const { return i < text_.size() ? text_[i] : 0; }
  void advance_to(size_t end);
  size_t unit_end(size_t i) const;  // the end of the longest unit starting at i, or i when none does
  size_t literal_type(size_t begin, size_t length) const;

  CodePointInput& input_;
  const std::u32string& text_;
  size_t pos_ = 0, line_ = 1, column_ = 0;
  struct Literals;
  const Literals& literals_;
  std::vector<SkippedTokens> skip_;
  size_t next_skip_ = 0;  // the first span of skip_ not yet passed  // the keywords and punctuation of the generated vocabulary (built once)
  friend std::vector<std::string> keyword_words();
};

}  // namespace gpm::frontend
