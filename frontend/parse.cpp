// parse.cpp: checks encoding, lexes, guards nesting depth, runs the ANTLR parser, builds the AST.
#include "frontend/parse.h"

#include <antlr4-runtime.h>

#include <algorithm>

#include <fmt/format.h>

#include "GpmParser.h"
#include "frontend/ast_builder.h"
#include "frontend/flow_lines.h"
#include "frontend/lexer.h"
#include "support/units.h"

namespace gpm::frontend {
namespace {

using gpm_gen::GpmParser;

// Reports the first invalid UTF-8 sequence or NUL byte; returns false if there is one.
bool check_encoding(const SourceManager& sources, FileId file, DiagnosticEngine& diags) {
  const std::string& text = sources.text(file);
  const size_t i = first_non_text_byte(text);
  if (i == std::string::npos) return true;
  const auto c = static_cast<unsigned char>(text[i]);
  SourceRange at{file, uint32_t(i), uint32_t(i + 1)};
  if (c == 0)
    diags.error(DiagKind::InvalidEncoding, at, "NUL byte in source: is this a binary file?");
  else
    diags.error(DiagKind::InvalidEncoding, at, fmt::format("invalid UTF-8 byte 0x{:02X}: .gpm files must be UTF-8 text", c));
  return false;
}

// Forwards ANTLR's syntax errors to the diagnostic engine with plainer wording.
class SyntaxErrorForwarder : public antlr4::BaseErrorListener {
 public:
  SyntaxErrorForwarder(const OffsetMap& map, DiagnosticEngine& diags, antlr4::CommonTokenStream& tokens)
      : map_(map), diags_(diags), tokens_(tokens) {}
  size_t count = 0;

  void syntaxError(antlr4::Recognizer*, antlr4::Token* offending, size_t, size_t, const std::string& msg,
                   std::exception_ptr) override {
    if (!offending) return;
    if (offending->getTokenIndex() == last_index_) return;  // one report per token
    last_index_ = offending->getTokenIndex();
    // The errors that follow a reserved word used as a name, on its line, come from it: one report is enough.
    if (offending->getLine() == reserved_line_) return;
    ++count;
    SourceRange range = map_.token(offending);
    // A keyword where a name is expected (`app copy`, `param data`): say that the word is reserved.
    const std::string& text = offending->getText();
    bool word = !text.empty() && (std::isalpha(static_cast<unsigned char>(text[0])) || text[0] == '_');
    if (word && offending->getType() != GpmParser::IDENT && msg.find("IDENT") != std::string::npos) {
      reserved_line_ = offending->getLine();
      diags_.error(DiagKind::ReservedWord, range,
                   fmt::format("`{}` is a reserved word of the language and cannot be used as a name; choose another "
                               "(the reserved words are listed in docs/language.md, section 2)",
                               text));
      return;
    }
    if (offending->getType() == antlr4::Token::EOF) {
      std::string text = reword(msg);
      diags_.error(DiagKind::SyntaxError, range,
                   text.rfind("unexpected end of file", 0) == 0 ? text : "unexpected end of file: " + text);
      return;
    }
    // `8 Gbps` lexes as QUANTITY(8 Gb) IDENT(ps) or NUMBER IDENT: report the unknown unit.
    if (offending->getType() == GpmParser::IDENT && offending->getTokenIndex() > 0) {
      antlr4::Token* prev = tokens_.get(offending->getTokenIndex() - 1);
      if (prev->getType() == GpmParser::NUMBER || prev->getType() == GpmParser::QUANTITY) {
        SourceRange prev_range = map_.token(prev);
        std::string unit = offending->getText();
        SourceRange unit_range = range;
        if (prev->getType() == GpmParser::QUANTITY && prev_range.end == range.begin) {
          std::string prev_text = prev->getText();
          size_t start = prev_text.find_first_not_of("0123456789.eE+- \t");
          unit = prev_text.substr(start) + unit;
          unit_range.begin = prev_range.begin + uint32_t(start);
        }
        diags_.error(DiagKind::UnknownUnit, unit_range,
                     fmt::format("unknown unit `{}` (units are written without spaces, e.g. `GB/s`, "
                                 "`us`, `KiB`, `Tflop/s`; see docs/language.md)",
                                 unit));
        return;
      }
    }
    diags_.error(DiagKind::SyntaxError, range, reword(msg));
  }

 private:
  static std::string reword(const std::string& msg) {
    std::string out = msg;
    auto replace = [&](const std::string& from, const std::string& to) {
      for (size_t pos = out.find(from); pos != std::string::npos; pos = out.find(from, pos + to.size()))
        out.replace(pos, from.size(), to);
    };
    replace("mismatched input", "unexpected");
    replace("extraneous input", "unexpected");
    replace("no viable alternative at input", "cannot parse");
    replace("'<EOF>'", "end of file");
    replace("<EOF>", "end of file");
    replace("IDENT", "a name");
    replace("QUANTITY", "a quantity");
    replace("NUMBER", "a number");
    replace("UNTERMINATED_STRING", "a string");
    replace("STRING", "a string");
    // Long expectation sets are noise; keep short ones.
    size_t expecting = out.find(" expecting {");
    if (expecting != std::string::npos && std::count(out.begin() + expecting, out.end(), ',') > 5)
      out.erase(expecting);
    return out;
  }
  const OffsetMap& map_;
  DiagnosticEngine& diags_;
  antlr4::CommonTokenStream& tokens_;
  size_t last_index_ = size_t(-1);
  size_t reserved_line_ = 0;  // the line of a reserved word reported as a name (0: none)
};

bool is_statement_start(std::string_view text) {
  if (text.empty()) return false;  // a name, a number, a string
  static constexpr std::string_view kStarts[] = {"import", "param", "let", "fn", "type", "machine", "app", "node",
                                  "socket", "link", "data", "kernel", "run", "copy", "seq", "par",
                                  "iterate", "phase", "overhead", "for", "flows", "mpi", "offload", ";", "}"};
  for (std::string_view s : kStarts)
    if (text == s) return true;
  return false;
}

// Reports lexical error tokens and nesting beyond kMaxNesting, so that the recursive-descent
// parser never recurses without bound. Returns false if anything was reported.
bool check_tokens(Lexer& lexer, const OffsetMap& map, DiagnosticEngine& diags) {
  bool ok = true;
  int brackets = 0, prefix_run = 0, ifs_in_statement = 0;
  // Prefix operators that take the rest of a chain as their operand nest one level each although no bracket
  // opens: after `^` (`2^-1^-1...`: the `-` binds looser than `^`, so its operand is `1^-1...`), and `not` after a
  // comparison (`a == not b == not c ...`: `not` binds looser than `==`). Each run is counted until an operator
  // that binds looser than the prefix ends the operand.
  int power_chain = 0, compare_chain = 0;
  std::string_view previous;     // the previous token's text (keywords and punctuation only)
  bool operand_expected = true;  // whether a '-' here is a prefix operator
  // Tokens are checked as the lexer makes them, one at a time and without allocating, so that a refused file is
  // never held as a whole token stream; the lexer is reset for the parser afterwards.
  for (Lexeme lexeme = lexer.next();; lexeme = lexer.next()) {
    size_t type = lexeme.type;
    if (type == antlr4::Token::EOF) break;
    auto range = [&] { return map.span(type, lexeme.start, lexeme.stop); };
    if (type == GpmParser::ERROR_CHAR) {
      std::string text = lexer.getInputStream()->getText(antlr4::misc::Interval(lexeme.start, lexeme.stop));
      diags.error(DiagKind::UnexpectedCharacter, range(), fmt::format("unexpected character `{}`", text));
      ok = false;
      continue;
    }
    if (type == GpmParser::UNTERMINATED_STRING) {
      diags.error(DiagKind::UnterminatedString, range(), "string literal is missing its closing `\"`");
      ok = false;
      continue;
    }
    if (type == GpmParser::UNTERMINATED_COMMENT) {
      SourceRange at = range();
      at.end = std::min(at.end, at.begin + 2);
      diags.error(DiagKind::UnterminatedComment, at, "block comment is missing its closing `*/`");
      ok = false;
      continue;
    }
    if (!ok) continue;
    std::string_view text = lexer.literal(type);  // empty for names, numbers and strings
    if (is_statement_start(text) || text == ",") ifs_in_statement = power_chain = compare_chain = 0;
    bool is_prefix = operand_expected && (text == "-" || text == "+" || text == "not");
    prefix_run = is_prefix ? prefix_run + 1 : 0;
    bool comparison = previous == "<" || previous == "<=" || previous == ">" || previous == ">=" ||
                      previous == "==" || previous == "!=";
    if (is_prefix && previous == "^") ++power_chain;
    if (text == "not" && is_prefix && comparison) ++compare_chain;
    if (!is_prefix && !operand_expected && text != "^") power_chain = 0;  // `*`, `+`, `==` ... end the operand
    if (text == "and" || text == "or" || text == "then" || text == "else" || text == "if") compare_chain = 0;
    if (text == "(" || text == "[" || text == "{") ++brackets;
    if (text == ")" || text == "]" || text == "}") --brackets;
    if (text == "if") ++ifs_in_statement;
    if (brackets > kMaxNesting || prefix_run > kMaxNesting || ifs_in_statement > kMaxNesting ||
        power_chain > kMaxNesting || compare_chain > kMaxNesting) {
      diags.error(DiagKind::NestingTooDeep, range(),
                  fmt::format("nesting deeper than {} levels (brackets, blocks, prefix operators, "
                              "`if` expressions, or chains such as `^ -x ^ -y` and `== not x == not y`); split the "
                              "expression with `let`",
                              kMaxNesting));
      return false;
    }
    previous = text;
    operand_expected = !(type == GpmParser::IDENT || type == GpmParser::NUMBER || type == GpmParser::QUANTITY ||
                         type == GpmParser::STRING || text == ")" || text == "]" || text == "true" ||
                         text == "false");
  }
  lexer.reset();
  return ok;
}

struct ParseSession {
  ParseSession(const SourceManager& sources, FileId file)
      : input(sources.text(file)), lexer(input), tokens(&lexer), parser(&tokens), map(file, sources.text(file)) {
    parser.removeErrorListeners();
  }
  CodePointInput input;
  Lexer lexer;
  antlr4::CommonTokenStream tokens;
  GpmParser parser;
  OffsetMap map;
};

// ANTLR's two-stage parse: SLL prediction, which needs no full-context lookahead, stopping at the first syntax
// error; only then, from the start again, the full LL prediction with error reporting and recovery. Where SLL
// succeeds it gives LL's tree for this grammar (the AST goldens, tests/golden/parse/ast_*, are unchanged by it), and
// a file with an error gets its diagnostics from the second stage, as from a single LL parse.
template <class Rule>
antlr4::ParserRuleContext* sll_stage(ParseSession& session, Rule rule) {
  session.parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(
      antlr4::atn::PredictionMode::SLL);
  session.parser.setErrorHandler(std::make_shared<antlr4::BailErrorStrategy>());
  try {
    return rule(session.parser);
  } catch (antlr4::ParseCancellationException&) {
  }
  return nullptr;
}

template <class Rule>
antlr4::ParserRuleContext* ll_stage(ParseSession& session, SyntaxErrorForwarder& forwarder, Rule rule) {
  session.tokens.seek(0);
  session.parser.reset();
  session.parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(antlr4::atn::PredictionMode::LL);
  session.parser.setErrorHandler(std::make_shared<antlr4::DefaultErrorStrategy>());
  session.parser.addErrorListener(&forwarder);
  return rule(session.parser);
}

template <class Rule>
antlr4::ParserRuleContext* two_stage(ParseSession& session, SyntaxErrorForwarder& forwarder, Rule rule) {
  if (auto* tree = sll_stage(session, rule)) return tree;
  return ll_stage(session, forwarder, rule);
}

antlr4::ParserRuleContext* file_rule(GpmParser& parser) { return parser.file(); }

}  // namespace

std::unique_ptr<Module> parse_module(const SourceManager& sources, FileId file, DiagnosticEngine& diags,
                                     bool flow_lines_first, const std::vector<SkippedTokens>& omit) {
  if (!check_encoding(sources, file, diags)) return nullptr;
  auto session = std::make_unique<ParseSession>(sources, file);
  if (!check_tokens(session->lexer, session->map, diags)) return nullptr;
  // The plain flow lines are built first (refusing a block over --max-flows before any parse) and their tokens are
  // left out of the parse; a file with a syntax error anywhere is parsed again whole, by the LL stage, for the same
  // diagnostics as without them.
  std::optional<FlowLines> flow_lines = FlowLines{};
  if (flow_lines_first) flow_lines = build_flow_lines(session->lexer, session->map, sources.text(file), diags);
  if (!flow_lines) return nullptr;
  bool retry = false;  // the whole file again after a syntax error: LL only, SLL having failed
  if (!flow_lines->tokens.empty() || !omit.empty()) {
    std::vector<SkippedTokens> skipped = std::move(flow_lines->tokens);
    skipped.insert(skipped.end(), omit.begin(), omit.end());
    std::sort(skipped.begin(), skipped.end(),
              [](const SkippedTokens& a, const SkippedTokens& b) { return a.first < b.first; });
    session->lexer.skip(std::move(skipped));
    session->tokens.fill();
    if (auto* tree = sll_stage(*session, file_rule)) {
      AstBuilder builder(session->map, diags, &flow_lines->flows);
      return builder.build_file(tree, sources.path(file));
    }
    session = std::make_unique<ParseSession>(sources, file);
    retry = true;
  }
  session->tokens.fill();
  SyntaxErrorForwarder forwarder(session->map, diags, session->tokens);
  auto* tree = retry ? ll_stage(*session, forwarder, file_rule) : two_stage(*session, forwarder, file_rule);
  if (forwarder.count > 0) return nullptr;
  AstBuilder builder(session->map, diags);
  return builder.build_file(tree, sources.path(file));
}

ExprPtr parse_expression(const SourceManager& sources, FileId file, DiagnosticEngine& diags) {
  if (!check_encoding(sources, file, diags)) return nullptr;
  ParseSession session(sources, file);
  if (!check_tokens(session.lexer, session.map, diags)) return nullptr;
  session.tokens.fill();
  SyntaxErrorForwarder forwarder(session.map, diags, session.tokens);
  auto* tree = two_stage(session, forwarder,
                         [](GpmParser& parser) -> antlr4::ParserRuleContext* { return parser.standaloneExpr(); });
  if (forwarder.count > 0) return nullptr;
  AstBuilder builder(session.map, diags);
  return builder.build_standalone_expr(tree);
}

}  // namespace gpm::frontend
