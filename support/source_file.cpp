// source_file.cpp: whole-file reading with existence, type and size checks, located diagnostics on failure.
#include "support/source_file.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

namespace gpm::support {

namespace fs = std::filesystem;

bool read_source_file(const std::string& path, std::string& out, DiagnosticEngine& diags, SourceRange site) {
  std::error_code ec;
  auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) {
    diags.error(DiagKind::FileNotFound, site, fmt::format("cannot open `{}`: no such file", path));
    return false;
  }
  if (fs::is_directory(status)) {
    diags.error(DiagKind::FileNotFound, site, fmt::format("`{}` is a directory, not a .gpm file", path));
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    diags.error(DiagKind::FileNotFound, site, fmt::format("cannot open `{}`: {}", path, std::strerror(errno)));
    return false;
  }
  // Read in chunks, at most one byte past the limit, so that a huge or endless file (a FIFO) costs nothing and a
  // small file touches no more memory than its size (a buffer of the whole limit cost every run 8 MiB per file).
  out.clear();
  char chunk[64 * 1024];
  while (out.size() <= kMaxSourceBytes) {
    size_t want = std::min(sizeof chunk, kMaxSourceBytes + 1 - out.size());
    in.read(chunk, std::streamsize(want));
    auto got = in.gcount();
    if (got <= 0) break;
    out.append(chunk, size_t(got));
  }
  if (out.size() > kMaxSourceBytes) {
    diags.error(DiagKind::FileTooLarge, site,
                fmt::format("`{}` is larger than {} MiB; .gpm models are expected to be small text files",
                            path, kMaxSourceBytes >> 20));
    return false;
  }
  return true;
}

}  // namespace gpm::support
