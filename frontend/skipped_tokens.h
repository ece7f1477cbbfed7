// skipped_tokens.h: a run of tokens the parser is not to see (flow lines built apart, unused stdlib declarations).
#pragma once
#include <cstddef>

namespace gpm::frontend {

// Tokens the parser is not to see: from the token that starts at code point `first` up to code point `resume`, where
// the lexer goes on (at `line` and `column`), skipped without being lexed again.
struct SkippedTokens {
  size_t first = 0;
  size_t resume = 0, line = 1, column = 0;
};

}  // namespace gpm::frontend
