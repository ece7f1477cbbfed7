// ast_builder.h: turns ANTLR parse trees into the AST (chains flattened, literals converted).
#pragma once
#include <memory>
#include <vector>

#include "frontend/ast.h"
#include "support/diagnostics.h"

namespace gpm_gen {
class GpmParser;
}
namespace antlr4 {
class ParserRuleContext;
class Token;
}  // namespace antlr4

namespace gpm::frontend {

// The support layer (units, sources, diagnostics, suggestions) is named unqualified throughout the frontend.
using namespace gpm::support;

// Maps ANTLR's code-point indices to byte offsets in the file.
class OffsetMap {
 public:
  OffsetMap(FileId file, const std::string& utf8);
  SourceRange token(antlr4::Token* token) const;
  // The range of the code points start..stop (inclusive); the end of the file for a token of type EOF.
  SourceRange span(size_t type, size_t start, size_t stop) const;
  SourceRange rule(antlr4::ParserRuleContext* ctx) const;
  FileId file() const { return file_; }

 private:
  FileId file_;
  std::vector<uint32_t> byte_of_code_point_;
};

class AstBuilder {
 public:
  AstBuilder(const OffsetMap& offsets, DiagnosticEngine& diags) : map_(offsets), diags_(diags) {}
  std::unique_ptr<Module> build_file(antlr4::ParserRuleContext* file_ctx, const std::string& path);
  ExprPtr build_standalone_expr(antlr4::ParserRuleContext* expr_ctx);

 private:
  struct Impl;
  const OffsetMap& map_;
  DiagnosticEngine& diags_;
};

}  // namespace gpm::frontend
