// format.h: `gpmc fmt`, the canonical layout of a .gpm file, printed from its tokens and the comments between them.
#pragma once
#include <optional>
#include <string>

#include "support/diagnostics.h"

namespace gpm::frontend {

using namespace gpm::support;

// The layout (docs/fmt.md): two spaces of indentation per block; a line that continues a declaration is indented
// two more, or aligned after the bracket it is inside; one space between tokens, none inside brackets, around `.`
// and `^`, after a sign, before `:` of a function parameter or a flow label, in dimension types (`bytes/time`) and
// inside word sets (`{h2d, d2h}`); the line breaks of the input kept, at most one blank line in a row and none at
// the start or end of a block; the names of consecutive one-line kernels and the columns of consecutive MPI fits
// aligned; trailing comments at column 53 (or, on a run of longer lines, three spaces after the longest); every
// comment kept, its text unchanged but for trailing blanks.
inline constexpr size_t kCommentColumn = 52;  // 0-based: trailing comments start at the 53rd column

// The file's text in the canonical layout, or nothing when it does not parse (the diagnostics are in `diags`, as
// every command reports them). The tokens of the result are those of the input, in the same order.
std::optional<std::string> format_file(const SourceManager& sources, FileId file, DiagnosticEngine& diags);

}  // namespace gpm::frontend
