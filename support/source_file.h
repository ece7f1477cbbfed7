// source_file.h: reads a whole source or data file with the checks every reader shares (exists, not a folder, size).
#pragma once
#include <cstddef>
#include <string>

#include "support/diagnostics.h"

namespace gpm::support {

// Source files larger than this are refused with FileTooLarge.
inline constexpr size_t kMaxSourceBytes = 8u << 20;

// Reads a whole file, checking existence and size; reports FileNotFound or FileTooLarge.
// False, with a diagnostic at `site`, when `path` exists but is not a regular file (a FIFO, a terminal, a device,
// a socket), which could block or never end; true otherwise (a missing file is for the caller to report).
bool regular_file(const std::string& path, DiagnosticEngine& diags, SourceRange site);

bool read_source_file(const std::string& path, std::string& out, DiagnosticEngine& diags, SourceRange site);

}  // namespace gpm::support
