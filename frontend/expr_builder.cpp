// expr_builder.cpp: the AST builder's expressions and dimension types, and the source offsets of ANTLR's tokens.
#include "frontend/expr_builder.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

#include <antlr4-runtime.h>
#include <fmt/format.h>

namespace gpm::frontend {

OffsetMap::OffsetMap(FileId file, const std::string& utf8) : file_(file) {
  for (uint32_t i = 0; i < utf8.size(); ++i)
    if ((static_cast<unsigned char>(utf8[i]) & 0xC0) != 0x80) byte_of_code_point_.push_back(i);
  byte_of_code_point_.push_back(uint32_t(utf8.size()));
}

SourceRange OffsetMap::token(antlr4::Token* token) const {
  return span(token->getType(), token->getStartIndex(), token->getStopIndex());
}

SourceRange OffsetMap::span(size_t type, size_t start, size_t stop) const {
  size_t last = byte_of_code_point_.size() - 1;
  if (type == antlr4::Token::EOF) {
    uint32_t end = byte_of_code_point_[last];
    return {file_, end, end};
  }
  start = std::min<size_t>(start, last);
  stop = std::min<size_t>(stop + 1, last);
  return {file_, byte_of_code_point_[start], byte_of_code_point_[std::max(start, stop)]};
}

SourceRange OffsetMap::rule(antlr4::ParserRuleContext* ctx) const {
  SourceRange begin = token(ctx->getStart());
  antlr4::Token* stop = ctx->getStop();
  if (!stop || stop->getTokenIndex() < ctx->getStart()->getTokenIndex()) return begin;
  return SourceRange::join(begin, token(stop));
}

const char* op_spelling(Op op) {
  switch (op) {
    case Op::Add: return "+";
    case Op::Sub: return "-";
    case Op::Mul: return "*";
    case Op::Div: return "/";
    case Op::Pow: return "^";
    case Op::Neg: return "-";
    case Op::Plus: return "+";
    case Op::Not: return "not";
    case Op::Lt: return "<";
    case Op::Le: return "<=";
    case Op::Gt: return ">";
    case Op::Ge: return ">=";
    case Op::Eq: return "==";
    case Op::Ne: return "!=";
    case Op::And: return "and";
    case Op::Or: return "or";
  }
  return "?";
}

ExprPtr literal_expr(const std::string& text, SourceRange range, bool has_unit, DiagnosticEngine* diags) {
  auto e = std::make_unique<Expr>();
  e->kind = ExprKind::Number;
  e->range = range;
  e->text = text;
  // The lexer guarantees a decimal number first (digits, optional fraction and exponent).
  char* number_end = nullptr;
  double value = std::strtod(text.c_str(), &number_end);
  size_t num_end = size_t(number_end - text.c_str());
  if (!std::isfinite(value)) {
    if (!diags) return nullptr;
    diags->error(DiagKind::SyntaxError, e->range, fmt::format("`{}` is too large for a number", text.substr(0, num_end)));
    value = 0;
  }
  e->value = value;
  e->literal_dim = Dim::count();
  if (has_unit) {
    size_t unit_start = text.find_first_not_of(" \t", num_end);
    std::string unit_text = text.substr(unit_start);
    auto unit = parse_unit(unit_text);
    if (!unit) {  // the lexer only accepts known words, so this is an internal inconsistency
      if (!diags) return nullptr;
      diags->error(DiagKind::UnknownUnit, e->range, fmt::format("unknown unit `{}`", unit_text));
      return e;
    }
    e->value = unit->to_base(value);
    e->literal_dim = unit->dim;
  }
  return e;
}

ExprPtr ExprBuilder::make(ExprKind kind, SourceRange r) {
  auto e = std::make_unique<Expr>();
  e->kind = kind;
  e->range = r;
  return e;
}

ExprPtr ExprBuilder::literal(antlr4::Token* token, bool has_unit) {
  return literal_expr(token->getText(), range(token), has_unit, &diags);
}

ExprPtr ExprBuilder::primary(P::PrimaryContext* ctx) {
  if (auto* q = dynamic_cast<P::QuantityLitContext*>(ctx)) return literal(q->QUANTITY()->getSymbol(), true);
  if (auto* n = dynamic_cast<P::NumberLitContext*>(ctx)) return literal(n->NUMBER()->getSymbol(), false);
  if (dynamic_cast<P::BoolLitContext*>(ctx)) {
    auto e = make(ExprKind::Bool, range(ctx));
    e->value = ctx->getText() == "true" ? 1 : 0;
    return e;
  }
  if (auto* name = dynamic_cast<P::NameRefContext*>(ctx)) {
    auto e = make(ExprKind::Name, range(ctx));
    e->name = name->IDENT()->getText();
    e->name_range = e->range;
    return e;
  }
  if (auto* call = dynamic_cast<P::CallExprContext*>(ctx)) {
    auto e = make(ExprKind::Call, range(ctx));
    e->name = call->IDENT()->getText();
    e->name_range = range(call->IDENT());
    for (auto* arg : call->arg()) {
      e->arg_names.push_back(arg->IDENT() ? arg->IDENT()->getText() : std::string());
      e->operands.push_back(expr(arg->expr()));
    }
    return e;
  }
  auto* paren = dynamic_cast<P::ParenExprContext*>(ctx);
  auto e = expr(paren->expr());
  e->parenthesized = true;
  e->range = range(ctx);
  return e;
}

Op ExprBuilder::op_of(const std::string& s) {
  if (s == "+") return Op::Add;
  if (s == "-") return Op::Sub;
  if (s == "*") return Op::Mul;
  if (s == "/") return Op::Div;
  if (s == "<") return Op::Lt;
  if (s == "<=") return Op::Le;
  if (s == ">") return Op::Gt;
  if (s == ">=") return Op::Ge;
  if (s == "==") return Op::Eq;
  return Op::Ne;
}

// Flattens a left-associative run of the same precedence level into one Chain node, without
// recursion along the chain (a file may hold a sum of millions of terms).
template <class Ctx>
ExprPtr ExprBuilder::chain(Ctx* ctx, std::function<Op(Ctx*)> op_at) {
  std::vector<std::pair<Op, P::ExprContext*>> rest;
  P::ExprContext* cur = ctx;
  while (auto* c = dynamic_cast<Ctx*>(cur)) {
    rest.emplace_back(op_at(c), c->expr(1));
    cur = c->expr(0);
  }
  auto e = make(ExprKind::Chain, range(ctx));
  e->operands.push_back(expr(cur));
  for (auto it = rest.rbegin(); it != rest.rend(); ++it) {
    e->chain_ops.push_back(it->first);
    e->operands.push_back(expr(it->second));
  }
  return e;
}

ExprPtr ExprBuilder::expr(P::ExprContext* ctx) {
  if (auto* p = dynamic_cast<P::PrimaryExprContext*>(ctx)) return primary(p->primary());
  if (auto* a = dynamic_cast<P::AddExprContext*>(ctx))
    return chain<P::AddExprContext>(a, [](auto* c) { return op_of(c->op->getText()); });
  if (auto* m = dynamic_cast<P::MulExprContext*>(ctx))
    return chain<P::MulExprContext>(m, [](auto* c) { return op_of(c->op->getText()); });
  if (auto* a = dynamic_cast<P::AndExprContext*>(ctx))
    return chain<P::AndExprContext>(a, [](auto*) { return Op::And; });
  if (auto* o = dynamic_cast<P::OrExprContext*>(ctx))
    return chain<P::OrExprContext>(o, [](auto*) { return Op::Or; });
  if (auto* u = dynamic_cast<P::UnaryExprContext*>(ctx)) {
    auto e = make(ExprKind::Unary, range(ctx));
    e->op = u->op->getText() == "-" ? Op::Neg : Op::Plus;
    e->operands.push_back(expr(u->expr()));
    return e;
  }
  if (auto* n = dynamic_cast<P::NotExprContext*>(ctx)) {
    auto e = make(ExprKind::Unary, range(ctx));
    e->op = Op::Not;
    e->operands.push_back(expr(n->expr()));
    return e;
  }
  if (auto* p = dynamic_cast<P::PowExprContext*>(ctx)) {
    if (dynamic_cast<P::PowExprContext*>(p->expr(0))) {
      diags.error(DiagKind::ChainedPower, range(ctx),
                  "`a ^ b ^ c` is ambiguous; write `(a ^ b) ^ c` or `a ^ (b ^ c)`");
      return make(ExprKind::Number, range(ctx));
    }
    return binary(Op::Pow, p->expr(0), p->expr(1), range(ctx));
  }
  if (auto* c = dynamic_cast<P::CmpExprContext*>(ctx)) {
    if (dynamic_cast<P::CmpExprContext*>(c->expr(0))) {
      diags.error(DiagKind::ChainedComparison, range(ctx),
                  "comparisons cannot be chained; write `a < b and b < c`");
      return make(ExprKind::Bool, range(ctx));
    }
    return binary(op_of(c->op->getText()), c->expr(0), c->expr(1), range(ctx));
  }
  auto* i = dynamic_cast<P::IfExprContext*>(ctx);
  auto e = make(ExprKind::If, range(ctx));
  for (int k = 0; k < 3; ++k) e->operands.push_back(expr(i->expr(k)));
  return e;
}

ExprPtr ExprBuilder::binary(Op op, P::ExprContext* lhs, P::ExprContext* rhs, SourceRange r) {
  auto e = make(ExprKind::Binary, r);
  e->op = op;
  e->operands.push_back(expr(lhs));
  e->operands.push_back(expr(rhs));
  return e;
}

DimTypeSyntax ExprBuilder::dim_type(P::DimTypeContext* ctx) {
  DimTypeSyntax out{ctx->getText(), range(ctx), Dim::count()};
  Dim dim;
  bool ok = true;
  auto factors = ctx->dimFactor();
  for (size_t i = 0; i < factors.size(); ++i) {
    auto f = dim_factor(factors[i]);
    if (!f) {
      ok = false;
      continue;
    }
    // Operators alternate with factors among the children: factor op factor op factor.
    bool divide = i > 0 && ctx->children[2 * i - 1]->getText() == "/";
    if (divide ? !dim.can_div(*f) : !dim.can_mul(*f)) {
      diags.error(DiagKind::InvalidDimension, range(ctx),
                  fmt::format("dimension exponents are limited to {}", Dim::kMaxExponent));
      ok = false;
      continue;
    }
    dim = divide ? dim / *f : dim * *f;
  }
  out.dim = ok ? std::optional<Dim>(dim) : std::nullopt;
  return out;
}

std::optional<Dim> ExprBuilder::dim_factor(P::DimFactorContext* ctx) {
  if (ctx->dimType()) return dim_type(ctx->dimType()).dim;
  if (!ctx->IDENT()) {
    if (ctx->NUMBER()->getText() == "1") return Dim::count();
    diags.error(DiagKind::InvalidDimension, range(ctx), "only `1` may stand for a plain count in a dimension");
    return std::nullopt;
  }
  auto dim = dimension_named(ctx->IDENT()->getText());
  if (!dim) {
    diags.error(DiagKind::InvalidDimension, range(ctx->IDENT()),
                fmt::format("`{}` is not a dimension; use time, bytes, flops or count and `*`, `/`, `^`",
                            ctx->IDENT()->getText()));
    return std::nullopt;
  }
  if (!ctx->NUMBER()) return dim;
  int k = 0;
  std::string exp = ctx->NUMBER()->getText();
  auto [ptr, ec] = std::from_chars(exp.data(), exp.data() + exp.size(), k);
  if (ec != std::errc() || ptr != exp.data() + exp.size() || k < 1 || k > Dim::kMaxExponent) {
    diags.error(DiagKind::InvalidExponent, range(ctx->NUMBER()),
                fmt::format("a dimension exponent must be an integer from 1 to {}", Dim::kMaxExponent));
    return std::nullopt;
  }
  return dim->pow(k);
}

}  // namespace gpm::frontend
