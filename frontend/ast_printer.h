// ast_printer.h: a readable, stable dump of the AST (`gpmc dump-ast`), used by golden tests.
#pragma once
#include <string>

#include "frontend/ast.h"

namespace gpm::frontend {

std::string print_expr(const Expr& expr);
std::string print_module(const Module& module, const SourceManager& sources);

}  // namespace gpm::frontend
