// format.cpp: the .gpm pretty-printer: tokens marked from the parse tree, laid out line by line with the comments.
#include "frontend/format.h"

#include <antlr4-runtime.h>

#include <algorithm>

#include "GpmParser.h"
#include "frontend/ast_builder.h"
#include "frontend/lexer.h"
#include "frontend/parse.h"

namespace gpm::frontend {
namespace {

using gpm_gen::GpmParser;

constexpr size_t kIndent = 2;
constexpr size_t kNone = size_t(-1);

// What the parse tree says of a token, for its spacing and its line's indentation.
enum Mark : uint8_t {
  kStatementStart = 1,  // the first token of a declaration, statement, attribute or flow
  kSign = 2,            // a prefix `-` or `+`: no space after it
  kTightColon = 4,      // `:` of a function parameter or a flow label: no space before it
  kTightOperator = 8,   // `*` or `/` of a dimension type: no space around it
  kCallParen = 16,      // `(` of a call, a function declaration, an MPI fit, a flow pattern, a wait: no space before
  kWordBrace = 32,      // `{` and `}` of a word set: no space inside them
  kAlignAfter = 64,     // a table cell ends after this token (an MPI fit's locality and protocol, a kernel's name)
};

// Lines that consecutive neighbours of the same kind align as a table.
enum class Row : uint8_t { None, MpiFit, Kernel };

struct Token {
  std::string text;
  uint32_t begin = 0, end = 0;  // bytes of the source
  uint8_t marks = 0;
  Row row = Row::None;          // at the first token of an MPI fit or a kernel declaration
  size_t row_stop = kNone;      // ... and the index of its last token
  bool is(const char* literal) const { return text == literal; }
};

// Marks the tokens from the parse tree.
void mark(antlr4::tree::ParseTree* node, std::vector<Token>& tokens) {
  auto* ctx = dynamic_cast<antlr4::ParserRuleContext*>(node);
  if (!ctx) return;
  auto at = [&](antlr4::Token* token) -> Token& { return tokens[token->getTokenIndex()]; };
  auto terminals = [&](uint8_t flag, std::initializer_list<const char*> texts, bool first_only) {
    for (auto* child : ctx->children) {
      auto* terminal = dynamic_cast<antlr4::tree::TerminalNode*>(child);
      if (!terminal) continue;
      Token& token = at(terminal->getSymbol());
      for (const char* text : texts)
        if (token.is(text)) {
          token.marks |= flag;
          if (first_only) return;
        }
    }
  };
  if (dynamic_cast<GpmParser::TopDeclContext*>(ctx) || dynamic_cast<GpmParser::MachineItemContext*>(ctx) ||
      dynamic_cast<GpmParser::NodeItemContext*>(ctx) || dynamic_cast<GpmParser::AppItemContext*>(ctx) ||
      dynamic_cast<GpmParser::StmtContext*>(ctx) || dynamic_cast<GpmParser::AttrContext*>(ctx) ||
      dynamic_cast<GpmParser::MpiItemContext*>(ctx) || dynamic_cast<GpmParser::FlowEntryContext*>(ctx) ||
      dynamic_cast<GpmParser::OffloadWaitContext*>(ctx))
    at(ctx->getStart()).marks |= kStatementStart;
  if (auto* unary = dynamic_cast<GpmParser::UnaryExprContext*>(ctx)) at(unary->op).marks |= kSign;
  if (dynamic_cast<GpmParser::FnParamContext*>(ctx) || dynamic_cast<GpmParser::FlowItemContext*>(ctx))
    terminals(kTightColon, {":"}, true);
  if (dynamic_cast<GpmParser::DimTypeContext*>(ctx)) terminals(kTightOperator, {"*", "/"}, false);
  if (dynamic_cast<GpmParser::CallExprContext*>(ctx) || dynamic_cast<GpmParser::FnDeclContext*>(ctx) ||
      dynamic_cast<GpmParser::MpiFitContext*>(ctx) || dynamic_cast<GpmParser::FlowPatternContext*>(ctx) ||
      dynamic_cast<GpmParser::OffloadWaitTargetContext*>(ctx))
    terminals(kCallParen, {"("}, true);
  if (dynamic_cast<GpmParser::WordSetContext*>(ctx)) terminals(kWordBrace, {"{", "}"}, false);
  if (auto* fit = dynamic_cast<GpmParser::MpiFitContext*>(ctx)) {
    at(fit->getStart()).row = Row::MpiFit;
    at(fit->getStart()).row_stop = fit->getStop()->getTokenIndex();
    at(fit->locality).marks |= kAlignAfter;
    at(fit->protocol).marks |= kAlignAfter;
  }
  auto* kernel = dynamic_cast<GpmParser::KernelDeclContext*>(ctx);
  if (kernel && !kernel->compRef()) {  // `kernel NAME { ... }`: aligned at its `{`
    at(kernel->getStart()).row = Row::Kernel;
    at(kernel->getStart()).row_stop = kernel->getStop()->getTokenIndex();
    at(kernel->IDENT()->getSymbol()).marks |= kAlignAfter;
  }
  for (auto* child : ctx->children) mark(child, tokens);
}

// The display width of UTF-8 text: its code points.
size_t width(const std::string& text) {
  auto starts_code_point = [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; };
  return size_t(std::count_if(text.begin(), text.end(), starts_code_point));
}

struct Line {
  enum Kind { Code, Comment, Blank } kind = Code;
  size_t indent = 0;
  std::string code;               // Code: the tokens (and inline block comments); Comment: the comment
  std::string comment;            // Code: a trailing line comment
  size_t source_comment_column = kNone;  // where the (trailing or standalone) line comment stood in the input
  bool continues_comment = false;  // Comment: continues the trailing comment of the line above, aligned with it
  bool opens_block = false;        // ends with the `{` of a block
  bool closes_block = false;       // starts with `}`
  Row row = Row::None;
  std::vector<size_t> cells;       // where table cells end in `code`
  const Token* last = nullptr;     // the last token of `code`
};

class Printer {
 public:
  Printer(const std::string& text, const std::vector<Token>& tokens) : text_(text), tokens_(tokens) {
    opens_.push_back({"", 0, 0, false, kNone, 0});
  }

  std::string print() {
    for (size_t i = 0; i < tokens_.size(); ++i) {
      size_t newlines = gap(i == 0 ? 0 : tokens_[i - 1].end, tokens_[i].begin, i);
      if (i + 1 == tokens_.size()) break;  // end of file
      token(i, newlines);
    }
    end_line();
    align_rows();
    align_comments();
    return render();
  }

 private:
  struct Open {
    std::string text;     // `{`, `(`, `[`; empty for the file itself
    size_t line_indent;   // the indentation of the line it was opened on
    size_t column_after;  // where the text after it starts, when on the same line
    bool hanging;         // something follows it on its line
    size_t second_column;     // the column of the second token of the current statement in it, on its first line
    size_t statement_indent;  // the indentation of the first line of the current statement in it
  };

  size_t source_column(uint32_t offset) const {
    size_t line_start = text_.rfind('\n', offset == 0 ? 0 : offset - 1);
    line_start = line_start == std::string::npos || offset == 0 ? 0 : line_start + 1;
    return width(text_.substr(line_start, offset - line_start));
  }

  // The comments and line breaks between two tokens; returns the line breaks after the last comment.
  size_t gap(uint32_t from, uint32_t to, size_t next) {
    size_t newlines = 0;
    for (uint32_t p = from; p < to;) {
      char c = text_[p];
      if (c == '\n') {
        ++newlines;
        ++p;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        ++p;
      } else if (text_.compare(p, 2, "//") == 0) {
        uint32_t q = p;
        while (q < to && text_[q] != '\n' && text_[q] != '\r') ++q;
        comment(text_.substr(p, q - p), true, newlines, next, source_column(p), false);
        newlines = 0;
        p = q;
      } else {  // a block comment
        size_t close = text_.find("*/", p + 2);
        uint32_t q = close == std::string::npos || close + 2 > to ? to : uint32_t(close + 2);
        bool line_follows = text_.substr(q, to - q).find('\n') != std::string::npos;
        comment(text_.substr(p, q - p), false, newlines, next, source_column(p), line_follows);
        newlines = 0;
        p = q;
      }
    }
    return newlines;
  }

  void comment(std::string text, bool line_comment, size_t newlines, size_t next, size_t column, bool line_follows) {
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) text.pop_back();
    if (newlines == 0 && in_line_) {  // after code on its line
      if (line_comment) {
        current_.comment = text;
        current_.source_comment_column = column;
        end_line();
      } else {
        current_.code += " " + text;
        previous_ = nullptr;  // a space after it
      }
      return;
    }
    end_line();
    if (newlines >= 2) blank_ = true;
    if (!line_comment && !line_follows) {  // a block comment before code on the same line
      start_line(comment_indent(next));
      current_.code = text;
      return;
    }
    Line line;
    line.kind = Line::Comment;
    line.indent = comment_indent(next);
    line.code = text;
    line.source_comment_column = line_comment ? column : kNone;
    const Line* above = lines_.empty() ? nullptr : &lines_.back();
    line.continues_comment = line_comment && newlines == 1 && above &&
                             (above->kind == Line::Code ? !above->comment.empty() : above->continues_comment) &&
                             above->source_comment_column == column;
    push(std::move(line));
  }

  // A comment line's indentation: that of the code after it, or of a block's contents before its `}`.
  size_t comment_indent(size_t next) const {
    if (next + 1 == tokens_.size()) return 0;
    const Token& token = tokens_[next];
    const Open& top = opens_.back();
    if (token.is("}") && !(token.marks & kWordBrace)) return top.hanging ? top.column_after : top.line_indent + kIndent;
    return indent_of(next);
  }

  bool closes(const Token& token) const { return token.is("}") || token.is(")") || token.is("]"); }
  bool opens(const Token& token) const { return token.is("{") || token.is("(") || token.is("["); }

  size_t indent_of(size_t index) const {
    const Token& token = tokens_[index];
    const Open& top = opens_.back();
    if (closes(token)) return top.line_indent;
    if (top.hanging) return top.column_after;                                  // aligned after its bracket
    if (!top.text.empty() && top.text != "{") return top.line_indent + 2 * kIndent;  // `(` that ends its line
    size_t base = top.text.empty() ? 0 : top.line_indent + kIndent;
    if (token.marks & kStatementStart) return base;
    // A continuation line.
    const Line* above = nullptr;
    for (auto it = lines_.rbegin(); it != lines_.rend() && !above; ++it)
      if (it->kind == Line::Code) above = &*it;
    if (above && above->last) {
      if (above->last->is(",") && top.second_column != kNone) return top.second_column;
      if (above->last->is("then") || above->last->is("else")) return above->indent + kIndent;
    }
    return base + kIndent;
  }

  bool space_between(const Token& left, const Token& right) const {
    if (right.marks & kCallParen) return false;
    if (left.is("(") || left.is("[") || (left.is("{") && (left.marks & kWordBrace))) return false;
    if (right.is(")") || right.is("]") || right.is(",") || right.is(";") || right.is("[")) return false;
    if (right.is("}") && ((right.marks & kWordBrace) || left.is("{"))) return false;  // `{}` stays
    if (left.is(".") || right.is(".") || left.is("^") || right.is("^")) return false;
    if ((left.marks & kSign) || (left.marks & kTightOperator) || (right.marks & kTightOperator)) return false;
    if (right.marks & kTightColon) return false;
    return true;
  }

  void start_line(size_t indent) {
    current_ = Line{};
    current_.indent = indent;
    in_line_ = true;
    previous_ = nullptr;
  }

  void token(size_t index, size_t newlines) {
    const Token& token = tokens_[index];
    if (newlines >= 1) end_line();
    if (newlines >= 2) blank_ = true;
    if (!in_line_) {
      start_line(indent_of(index));
      if (token.row != Row::None) {
        current_.row = token.row;
        row_stop_ = token.row_stop;
      }
      current_.closes_block = token.is("}") && !(token.marks & kWordBrace);
    } else if (!current_.code.empty() && (!previous_ || space_between(*previous_, token))) {
      current_.code += ' ';
    }
    size_t column = current_.indent + width(current_.code);
    Open& top = opens_.back();
    if (token.marks & kStatementStart) {
      top.statement_indent = current_.indent;
      top.second_column = kNone;
      second_pending_ = true;
    } else if (second_pending_) {
      top.second_column = column;
      second_pending_ = false;
    }
    current_.code += token.text;
    current_.last = &token;
    previous_ = &token;
    if ((token.marks & kAlignAfter) && current_.row != Row::None) current_.cells.push_back(current_.code.size());
    if (index == row_stop_ && current_.row != Row::None) row_complete_ = true;
    if (closes(token) && opens_.size() > 1) opens_.pop_back();
    if (opens(token)) {
      bool hanging = index + 2 < tokens_.size() &&
                     text_.substr(token.end, tokens_[index + 1].begin - token.end).find('\n') == std::string::npos;
      bool block = token.is("{") && !(token.marks & kWordBrace);
      // A block's contents are indented from its statement's first line, however many lines that statement took.
      size_t indent = block ? opens_.back().statement_indent : current_.indent;
      std::string text = (token.marks & kWordBrace) ? "{}" : token.text;
      opens_.push_back({text, indent, column + (block ? 2 : 1), hanging, kNone, indent});
    }
  }

  void end_line() {
    if (!in_line_) return;
    in_line_ = false;
    second_pending_ = false;
    if (!row_complete_ || current_.row == Row::None) {
      current_.row = Row::None;
      current_.cells.clear();
    }
    row_complete_ = false;
    row_stop_ = kNone;
    current_.opens_block = current_.last && current_.last->is("{") && !(current_.last->marks & kWordBrace);
    push(std::move(current_));
  }

  void push(Line line) {
    if (blank_ && !lines_.empty() && !lines_.back().opens_block && !line.closes_block) {
      Line blank;
      blank.kind = Line::Blank;
      lines_.push_back(blank);
    }
    blank_ = false;
    lines_.push_back(std::move(line));
  }

  // Consecutive one-line kernels, and consecutive MPI fits, at the same indentation: their cells padded to one width.
  void align_rows() {
    for (size_t i = 0; i < lines_.size();) {
      const Line& first = lines_[i];
      size_t j = i + 1;
      if (first.kind == Line::Code && first.row != Row::None)
        while (j < lines_.size() && lines_[j].kind == Line::Code && lines_[j].row == first.row &&
               lines_[j].indent == first.indent && lines_[j].cells.size() == first.cells.size())
          ++j;
      if (j - i >= 2)
        for (size_t cell = 0; cell < first.cells.size(); ++cell) {
          size_t widest = 0;
          for (size_t k = i; k < j; ++k)
            widest = std::max(widest, width(lines_[k].code.substr(0, lines_[k].cells[cell])));
          for (size_t k = i; k < j; ++k) {
            Line& line = lines_[k];
            size_t pad = widest - width(line.code.substr(0, line.cells[cell]));
            line.code.insert(line.cells[cell], pad, ' ');
            for (size_t later = cell; later < line.cells.size(); ++later) line.cells[later] += pad;
          }
        }
      i = j;
    }
  }

  // Trailing comments at kCommentColumn, two spaces after the code at least; consecutive lines whose code reaches
  // past that align theirs three spaces after the longest. A comment line continuing a trailing comment follows it.
  void align_comments() {
    auto end_of = [](const Line& line) { return line.indent + width(line.code); };
    auto long_line = [&](const Line& line) {
      return line.kind == Line::Code && !line.comment.empty() && end_of(line) + 2 > kCommentColumn;
    };
    size_t column = kNone;
    for (size_t i = 0; i < lines_.size(); ++i) {
      Line& line = lines_[i];
      if (line.kind == Line::Comment && line.continues_comment && column != kNone) {
        line.indent = column;
        continue;
      }
      if (line.kind != Line::Code || line.comment.empty()) {
        column = kNone;
        continue;
      }
      if (!long_line(line)) {
        column = kCommentColumn;
      } else if (i == 0 || !long_line(lines_[i - 1])) {
        size_t longest = 0;
        for (size_t k = i; k < lines_.size() && long_line(lines_[k]); ++k)
          longest = std::max(longest, end_of(lines_[k]));
        column = longest + 3;
      }
      line.comment.insert(0, column - end_of(line), ' ');
    }
  }

  std::string render() const {
    std::string out;
    for (const Line& line : lines_) {
      std::string text;
      if (line.kind == Line::Code) {
        text = std::string(line.indent, ' ') + line.code + line.comment;
      } else if (line.kind == Line::Comment) {
        text = std::string(line.indent, ' ') + line.code;
      }
      // Trailing blanks go, on every physical line (a block comment may span several).
      size_t start = 0;
      while (start <= text.size()) {
        size_t end = text.find('\n', start);
        std::string piece = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
        while (!piece.empty() && (piece.back() == ' ' || piece.back() == '\t' || piece.back() == '\r'))
          piece.pop_back();
        out += piece;
        out += '\n';
        if (end == std::string::npos) break;
        start = end + 1;
      }
    }
    return out;
  }

  const std::string& text_;
  const std::vector<Token>& tokens_;
  std::vector<Open> opens_;
  std::vector<Line> lines_;
  Line current_;
  bool in_line_ = false;
  bool blank_ = false;           // a blank line is due before the next line
  bool second_pending_ = false;  // the next token on this line is the statement's second
  bool row_complete_ = false;    // the current line holds the whole of its row's declaration
  size_t row_stop_ = kNone;
  const Token* previous_ = nullptr;
};

}  // namespace

std::optional<std::string> format_file(const SourceManager& sources, FileId file, DiagnosticEngine& diags) {
  size_t errors = diags.error_count();
  if (!parse_module(sources, file, diags) || diags.error_count() > errors) return std::nullopt;
  // The file parses: parse it again for the tree, whose tokens are the lexer's in order.
  const std::string& text = sources.text(file);
  CodePointInput input(text);
  Lexer lexer(input);
  antlr4::CommonTokenStream stream(&lexer);
  GpmParser parser(&stream);
  parser.removeErrorListeners();
  auto* simulator = parser.getInterpreter<antlr4::atn::ParserATNSimulator>();
  simulator->setPredictionMode(antlr4::atn::PredictionMode::SLL);
  parser.setErrorHandler(std::make_shared<antlr4::BailErrorStrategy>());
  antlr4::ParserRuleContext* tree = nullptr;
  try {
    tree = parser.file();
  } catch (antlr4::ParseCancellationException&) {
    stream.seek(0);
    parser.reset();
    simulator->setPredictionMode(antlr4::atn::PredictionMode::LL);
    parser.setErrorHandler(std::make_shared<antlr4::DefaultErrorStrategy>());
    tree = parser.file();
  }
  OffsetMap map(file, text);
  std::vector<Token> tokens;
  for (antlr4::Token* token : stream.getTokens()) {
    SourceRange range = map.token(token);
    Token t;
    t.begin = range.begin;
    t.end = range.end;
    t.text = token->getType() == antlr4::Token::EOF ? "" : text.substr(range.begin, range.end - range.begin);
    if (token->getType() == antlr4::Token::EOF) t.begin = t.end = uint32_t(text.size());
    tokens.push_back(std::move(t));
  }
  mark(tree, tokens);
  return Printer(text, tokens).print();
}

}  // namespace gpm::frontend
