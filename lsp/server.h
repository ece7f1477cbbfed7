// server.h: `gpmc lsp`, a Language Server over stdio: documents in memory, checked on every change.
#pragma once
#include <iosfwd>

namespace gpm::lsp {

// Serves LSP requests read from `in` and writes responses and notifications to `out` until `exit` (or the end of
// `in`); `log` gets one line per message that could not be handled. Returns 0 after a `shutdown` request, else 1.
int run_server(std::istream& in, std::ostream& out, std::ostream& log);

}  // namespace gpm::lsp
