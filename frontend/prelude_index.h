// prelude_index.h: the top-level declarations of a standard-library file found by lexing alone, so that only those a
// model refers to are parsed (Loader's lazy prelude).
#pragma once
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "frontend/lexer.h"

namespace gpm::frontend {

// One top-level declaration of a file: its keyword's first token up to the next top-level keyword (or the end).
struct IndexedDecl {
  std::string name;        // the declared name (`fn NAME`, `type NAME`, `let NAME`); empty for the other kinds
  bool optional = false;   // a fn, type or let: parsed only when a model refers to its name
  SkippedTokens span;      // the tokens to leave out of the parse when it is not needed
  std::set<std::string> refs;  // every identifier inside it
};

// The declarations of `text` in source order, or nothing when the file is not a plain sequence of declarations at
// bracket depth 0 (unbalanced brackets, a lexical error): such a file is then parsed whole.
std::optional<std::vector<IndexedDecl>> index_declarations(const std::string& text);

// Every identifier of `text` (comments left out), added to `out`.
void collect_identifiers(const std::string& text, std::set<std::string>& out);

}  // namespace gpm::frontend
