// prelude_index.cpp: top-level declarations and identifiers of a .gpm text, found with the hand-written lexer.
#include "frontend/prelude_index.h"

#include "GpmParser.h"

namespace gpm::frontend {

using gpm_gen::GpmParser;

namespace {

std::string token_text(const CodePointInput& input, const Lexeme& t) {
  std::string out;
  for (size_t i = t.start; i <= t.stop && i < input.code_points().size(); ++i) out += char(input.code_points()[i]);
  return out;
}

bool is_error_token(size_t type) {
  return type == GpmParser::ERROR_CHAR || type == GpmParser::UNTERMINATED_STRING ||
         type == GpmParser::UNTERMINATED_COMMENT;
}

}  // namespace

std::optional<std::vector<IndexedDecl>> index_declarations(const std::string& text) {
  CodePointInput input(text);
  Lexer lexer(input);
  std::vector<IndexedDecl> decls;
  int depth = 0;
  bool expect_name = false;
  for (;;) {
    Lexeme t = lexer.next();
    if (t.type == antlr4::Token::EOF) {
      if (depth != 0) return std::nullopt;
      if (!decls.empty()) {
        decls.back().span.resume = t.start;
        decls.back().span.line = t.line;
        decls.back().span.column = t.column;
      }
      return decls;
    }
    if (is_error_token(t.type)) return std::nullopt;
    std::string_view word = lexer.literal(t.type);
    if (depth == 0 && (word == "fn" || word == "type" || word == "let" || word == "param" || word == "import" ||
                       word == "machine" || word == "app")) {
      if (!decls.empty()) {
        decls.back().span.resume = t.start;
        decls.back().span.line = t.line;
        decls.back().span.column = t.column;
      }
      IndexedDecl d;
      d.span.first = t.start;
      decls.push_back(std::move(d));
      expect_name = word == "fn" || word == "type" || word == "let";
      continue;
    }
    if (decls.empty()) return std::nullopt;  // tokens before the first declaration: a syntax error, parsed whole
    if (word == "(" || word == "{" || word == "[") ++depth;
    if (word == ")" || word == "}" || word == "]") {
      if (--depth < 0) return std::nullopt;
    }
    if (t.type == GpmParser::IDENT) {
      std::string name = token_text(input, t);
      if (expect_name) {
        decls.back().name = name;
        decls.back().optional = true;
      } else {
        decls.back().refs.insert(std::move(name));
      }
    }
    expect_name = false;
  }
}

void collect_identifiers(const std::string& text, std::set<std::string>& out) {
  CodePointInput input(text);
  Lexer lexer(input);
  for (Lexeme t = lexer.next(); t.type != antlr4::Token::EOF; t = lexer.next())
    if (t.type == GpmParser::IDENT) out.insert(token_text(input, t));
}

}  // namespace gpm::frontend
