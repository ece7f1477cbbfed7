// flow_lines.cpp: the plain flow lines of `flows` blocks built from the tokens, before and without the ANTLR parse.
#include "frontend/flow_lines.h"

#include <fmt/format.h>

#include <deque>
#include <map>

#include "GpmParser.h"
#include "support/limits.h"

namespace gpm::frontend {
namespace {

using gpm_gen::GpmParser;

class FlowLineScanner {
 public:
  FlowLineScanner(Lexer& lexer, const OffsetMap& map, const std::string& utf8)
      : lexer_(lexer), map_(map), utf8_(utf8) {}

  std::optional<FlowLines> run(DiagnosticEngine& diags) {
    FlowLines out;
    struct Brace {
      bool flows = false;  // a `flows` block's (not a loop's)
      size_t key = 0;      // the code-point index of its `flows` keyword
      SourceRange keyword;
      PrebuiltFlows::Block* lines = nullptr;  // the plain flow lines built in it
    };
    std::vector<Brace> braces;
    int flows_state = 0;  // 1 after `flows`, 2 after `flows unordered`: the next `{` opens a flows block
    Brace opening;
    bool boundary = false;  // whether an entry of the innermost flows block may start at the next token
    const uint64_t limit = limits().flows_per_block;
    for (;;) {
      Lexeme t = get();
      if (t.type == antlr4::Token::EOF) break;
      std::string_view s = lexer_.literal(t.type);
      if (boundary && (t.type == GpmParser::IDENT || s == "node")) {
        window_.assign(1, t);
        FlowItem item;
        size_t used = 0;
        bool built = match(item, used);
        for (size_t k = window_.size(); k-- > (built ? used : 1);) pending_.push_front(window_[k]);
        if (built) {
          Brace& block = braces.back();
          if (!block.lines) block.lines = &out.flows.by_block[block.key];
          if (block.lines->items.size() + 1 > limit) {
            check_flow_entries(block.lines->items.size() + 1, block.keyword, diags);
            pending_.clear();
            lexer_.reset();
            return std::nullopt;
          }
          const Lexeme& last = window_[used - 1];  // tokens never span lines
          out.tokens.push_back({t.start, last.stop + 1, last.line, last.column + (last.stop + 1 - last.start)});
          block.lines->items.push_back(std::move(item));
          block.lines->starts.push_back(t.start);
          continue;  // another entry may follow
        }
      }
      boundary = false;
      if (s == "flows") {
        flows_state = 1;
        opening.key = t.start;
        opening.keyword = range(t);
        continue;
      }
      if (s == "unordered" && flows_state == 1) {
        flows_state = 2;
        continue;
      }
      if (s == "{") {
        Brace brace;
        if (flows_state > 0) brace = opening;
        brace.flows = flows_state > 0;
        braces.push_back(brace);
        boundary = brace.flows;
      } else if (s == "}") {
        if (!braces.empty()) braces.pop_back();
        boundary = !braces.empty() && braces.back().flows;  // after a loop of the block
      } else if (s == ";") {
        boundary = !braces.empty() && braces.back().flows;  // after an entry that ends with `;`
      }
      flows_state = 0;
    }
    pending_.clear();
    lexer_.reset();
    return out;
  }

 private:
  Lexeme get() {
    if (pending_.empty()) return lexer_.next();
    Lexeme l = pending_.front();
    pending_.pop_front();
    return l;
  }
  // The k-th token of the entry being matched, read as far as needed.
  Lexeme at(size_t k) {
    while (window_.size() <= k) window_.push_back(get());
    return window_[k];
  }
  bool is(size_t k, std::string_view literal) { return lexer_.literal(at(k).type) == literal; }
  SourceRange range(const Lexeme& l) const { return map_.span(l.type, l.start, l.stop); }
  SourceRange range(size_t first, size_t last) const {
    return {map_.file(), range(window_[first]).begin, range(window_[last]).end};
  }
  std::string text(const Lexeme& l) const {
    SourceRange r = range(l);
    return utf8_.substr(r.begin, r.end - r.begin);
  }
  ExprPtr name(const Lexeme& l) const {
    auto e = std::make_unique<Expr>();
    e->kind = ExprKind::Name;
    e->range = e->name_range = range(l);
    e->name = text(l);
    return e;
  }
  // A number or a quantity; the value of each spelling is worked out once (a block repeats `1 MB` and `h[0]`).
  ExprPtr literal(const Lexeme& l) {
    SourceRange r = range(l);
    std::string_view spelling(utf8_.data() + r.begin, r.end - r.begin);
    auto found = literals_.find(spelling);
    if (found == literals_.end()) {
      ExprPtr e = literal_expr(std::string(spelling), r, l.type == GpmParser::QUANTITY, nullptr);
      if (!e) return nullptr;
      found = literals_.emplace(e->text, std::make_pair(e->value, e->literal_dim)).first;
    }
    auto e = std::make_unique<Expr>();
    e->kind = ExprKind::Number;
    e->range = r;
    e->text = found->first;
    e->value = found->second.first;
    e->literal_dim = found->second.second;
    return e;
  }
  // A number, a quantity or a name, as the AST builder makes it from a primary expression; null for anything else.
  ExprPtr operand(const Lexeme& l) {
    if (l.type == GpmParser::NUMBER || l.type == GpmParser::QUANTITY) return literal(l);
    return l.type == GpmParser::IDENT ? name(l) : nullptr;
  }

  // REF at window_[i]: parts `name` or `name[INDEX]` joined by `.`.
  bool ref(size_t& i, CompRef& out) {
    size_t first = i;
    for (;;) {
      Lexeme word = at(i);
      bool node = lexer_.literal(word.type) == "node";
      if (word.type != GpmParser::IDENT && !node) return false;
      RefPart part;
      part.name = node ? std::string("node") : text(word);
      size_t part_first = i++;
      if (is(i, "[")) {
        if (!is(i + 2, "]")) return false;
        Lexeme index = at(i + 1);
        if (index.type == GpmParser::NUMBER)
          part.index = literal(index);
        else if (index.type == GpmParser::IDENT)
          part.index = name(index);
        if (!part.index) return false;  // `*` and expressions are the parser's
        i += 3;
      }
      part.range = range(part_first, i - 1);
      out.parts.push_back(std::move(part));
      if (!is(i, ".")) break;
      ++i;
    }
    out.range = range(first, i - 1);
    return true;
  }

  // `[LABEL ':'] REF '->' REF SIZE ['at' START | 'after' LABEL] [';']` from window_[0], ending where no expression
  // continues; `used` is then its number of tokens.
  bool match(FlowItem& f, size_t& used) {
    size_t i = 0;
    if (at(0).type == GpmParser::IDENT && is(1, ":")) {
      f.label = text(window_[0]);
      f.label_range = range(window_[0]);
      i = 2;
    }
    if (!ref(i, f.src) || !is(i, "->")) return false;
    ++i;
    if (!ref(i, f.dst) || !(f.bytes = operand(at(i)))) return false;
    ++i;
    if (is(i, "at")) {
      if (!(f.start = operand(at(i + 1)))) return false;
      i += 2;
    } else if (is(i, "after")) {
      Lexeme label = at(i + 1);
      if (label.type != GpmParser::IDENT) return false;
      f.after = text(label);
      f.after_range = range(label);
      i += 2;
    }
    if (is(i, ";")) {
      ++i;
    } else {
      // What follows must start another entry or close the block: nothing that would continue the expression.
      Lexeme next = at(i);
      std::string_view s = lexer_.literal(next.type);
      if (next.type != GpmParser::IDENT && s != "node" && s != "for" && s != "}") return false;
    }
    f.range = range(0, i - 1);
    used = i;
    return true;
  }

  Lexer& lexer_;
  const OffsetMap& map_;
  const std::string& utf8_;
  std::deque<Lexeme> pending_;  // tokens read ahead and given back
  std::map<std::string, std::pair<double, Dim>, std::less<>> literals_;  // by spelling: value and dimension
  std::vector<Lexeme> window_;  // the tokens of the entry being matched
};

}  // namespace

std::optional<FlowLines> build_flow_lines(Lexer& lexer, const OffsetMap& map, const std::string& utf8,
                                              DiagnosticEngine& diags) {
  return FlowLineScanner(lexer, map, utf8).run(diags);
}

}  // namespace gpm::frontend
