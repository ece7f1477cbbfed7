// expr_builder.h: the AST builder's expressions and dimension types (frontend-internal: it sees ANTLR's contexts).
#pragma once
#include <functional>
#include <optional>
#include <string>

#include "GpmParser.h"
#include "frontend/ast_builder.h"

namespace gpm::frontend {

using P = gpm_gen::GpmParser;

// Builds expressions (chains flattened without recursion along them, literals converted) and dimension types;
// the statement and declaration builder (ast_builder.cpp) extends it.
struct ExprBuilder {
  const OffsetMap& map;
  DiagnosticEngine& diags;

  SourceRange range(antlr4::ParserRuleContext* ctx) const { return map.rule(ctx); }
  SourceRange range(antlr4::tree::TerminalNode* node) const { return map.token(node->getSymbol()); }
  SourceRange range(antlr4::Token* token) const { return map.token(token); }

  static ExprPtr make(ExprKind kind, SourceRange r);
  ExprPtr literal(antlr4::Token* token, bool has_unit);
  ExprPtr primary(P::PrimaryContext* ctx);
  static Op op_of(const std::string& s);
  template <class Ctx>
  ExprPtr chain(Ctx* ctx, std::function<Op(Ctx*)> op_at);
  ExprPtr expr(P::ExprContext* ctx);
  ExprPtr binary(Op op, P::ExprContext* lhs, P::ExprContext* rhs, SourceRange r);
  DimTypeSyntax dim_type(P::DimTypeContext* ctx);
  std::optional<Dim> dim_factor(P::DimFactorContext* ctx);
};

}  // namespace gpm::frontend
