// source_file.h: reads a whole source or data file with the checks every reader shares (exists, not a folder, size).
#pragma once
#include <cstddef>
#include <string>

#include "support/diagnostics.h"

namespace gpm::support {

// Source files larger than this are refused with FileTooLarge.
inline constexpr size_t kMaxSourceBytes = 8u << 20;

// Reads a whole file, checking existence and size; reports FileNotFound or FileTooLarge.
bool read_source_file(const std::string& path, std::string& out, DiagnosticEngine& diags, SourceRange site);

}  // namespace gpm::support
