// source_file.h: reads a whole source or data file with the checks every reader shares (exists, not a folder, size).
#pragma once
#include <cstddef>
#include <string>

#include "support/diagnostics.h"
#include "support/limits.h"

namespace gpm::support {

// Reads a whole file, checking existence and size (limits().source_bytes, --max-source-bytes); reports FileNotFound or
// FileTooLarge.
// False, with a diagnostic at `site`, when `path` exists but is not a regular file (a FIFO, a terminal, a device,
// a socket), which could block or never end; true otherwise (a missing file is for the caller to report).
bool regular_file(const std::string& path, DiagnosticEngine& diags, SourceRange site);

// `limit` replaces the process's limit where given (the standard library's files, which the user does not write).
bool read_source_file(const std::string& path, std::string& out, DiagnosticEngine& diags, SourceRange site,
                      uint64_t limit = 0);

}  // namespace gpm::support
