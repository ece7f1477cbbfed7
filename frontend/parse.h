// parse.h: source text -> AST Module (UTF-8 check, lexing, nesting guard, ANTLR parse, AST build).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "frontend/skipped_tokens.h"
#include "support/diagnostics.h"

namespace gpm::frontend {

// The support layer (units, sources, diagnostics, suggestions) is named unqualified throughout the frontend.
using namespace gpm::support;

// Deepest bracket, block, prefix-operator or `if` nesting accepted in one statement.
inline constexpr int kMaxNesting = 256;

// Parses one file already added to the SourceManager. Returns null when the file has lexical or
// syntax errors (they are reported to `diags`). `flow_lines` false leaves every flow line to the ANTLR parse (for the
// test that compares both ways; frontend/flow_lines.h). `omit`, sorted and disjoint, are whole top-level declarations
// the parse leaves out (the standard library's declarations no model refers to; frontend/prelude_index.h).
std::unique_ptr<Module> parse_module(const SourceManager& sources, FileId file, DiagnosticEngine& diags,
                                     bool flow_lines = true, const std::vector<SkippedTokens>& omit = {});

// The keywords of the language (the literals of the generated vocabulary that are words: `machine`, `param`...), in
// token-type order; for completion in editors.
std::vector<std::string> keyword_words();

// Parses a standalone expression, for `--set name=value`; reports errors against `file`.
ExprPtr parse_expression(const SourceManager& sources, FileId file, DiagnosticEngine& diags);

}  // namespace gpm::frontend
