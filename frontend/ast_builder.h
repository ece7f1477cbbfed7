// ast_builder.h: turns ANTLR parse trees into the AST (chains flattened, literals converted).
#pragma once
#include <memory>
#include <unordered_map>
#include <utility>
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

// A number literal's expression (`16 GB/s`, `4KiB`, `100`): its value in base units, its dimension and spelling. With
// `diags` null, null where an error would be reported (a number too large, an unknown unit).
ExprPtr literal_expr(const std::string& text, SourceRange range, bool has_unit, DiagnosticEngine* diags);

// Flow lines built before the ANTLR parse (frontend/flow_lines.h), spliced into their `flows` blocks by the builder:
// by block (the code-point index of its `flows` keyword), the items and the code-point index of each one's first token.
struct PrebuiltFlows {
  struct Block {
    std::vector<FlowItem> items;
    std::vector<size_t> starts;
  };
  std::unordered_map<size_t, Block> by_block;
};

// Whether `count` single flows (one a line; patterns and loops are counted by the lowering) fit in one `flows` block
// (--max-flows, support/limits.h); otherwise a ModelTooLarge error at `where`, the block's `flows` keyword.
bool check_flow_entries(size_t count, SourceRange where, DiagnosticEngine& diags);

class AstBuilder {
 public:
  AstBuilder(const OffsetMap& offsets, DiagnosticEngine& diags, PrebuiltFlows* prebuilt = nullptr)
      : map_(offsets), diags_(diags), prebuilt_(prebuilt) {}
  std::unique_ptr<Module> build_file(antlr4::ParserRuleContext* file_ctx, const std::string& path);
  ExprPtr build_standalone_expr(antlr4::ParserRuleContext* expr_ctx);

 private:
  struct Impl;
  const OffsetMap& map_;
  DiagnosticEngine& diags_;
  PrebuiltFlows* prebuilt_;
};

}  // namespace gpm::frontend
