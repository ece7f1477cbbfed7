// flow_lines.h: builds the plain flow lines of `flows` blocks (`a: h[0] -> h[1] 1 MB`) straight from the tokens, so
// that the ANTLR parser never sees them.
#pragma once
#include <optional>
#include <string>

#include "frontend/ast_builder.h"
#include "frontend/lexer.h"

namespace gpm::frontend {

// Finds, in the tokens of one file, the entries of `flows` blocks written in the plain form
//   [LABEL ':'] REF '->' REF SIZE ['at' START | 'after' LABEL] [';']
// (REF: parts `name` or `name[INDEX]` joined by `.`, INDEX a number or a name; SIZE and START a number, a quantity or
// a name) that stand where an entry may start (after the block's `{`, a `;`, a loop's `}` or another such line) and
// end where no expression may continue, and builds their FlowItems exactly as the AST builder would from the parse
// tree. A file of 4,032 such lines parses about 10x faster this way than through ANTLR's contexts. Whether the
// rest of the file is well formed is the parser's to say: `parse_module` parses it with these lines' tokens skipped
// and, on any syntax error, parses the whole file again the ordinary way, so that diagnostics are unchanged.
//
// A block with more single flows than --max-flows is reported here (ModelTooLarge), before the parse; nullopt then.
// The lexer is left reset.
struct FlowLines {
  PrebuiltFlows flows;
  std::vector<SkippedTokens> tokens;  // their tokens, for Lexer::skip
};
std::optional<FlowLines> build_flow_lines(Lexer& lexer, const OffsetMap& map, const std::string& utf8,
                                              DiagnosticEngine& diags);

}  // namespace gpm::frontend
