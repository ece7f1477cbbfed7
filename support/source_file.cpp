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

// Opening a FIFO blocks until someone writes to it, and a terminal or a device may never end: only regular files
// (or links to them) are read.
bool regular_file(const std::string& path, DiagnosticEngine& diags, SourceRange site) {
  std::error_code ec;
  auto status = fs::status(path, ec);
  if (ec || fs::is_regular_file(status) || !fs::exists(status) || fs::is_directory(status)) return true;
  const char* what = fs::is_fifo(status)              ? "a pipe (FIFO)"
                     : fs::is_character_file(status) ? "a terminal or character device"
                     : fs::is_block_file(status)     ? "a block device"
                     : fs::is_socket(status)         ? "a socket"
                                                     : "not a regular file";
  diags.error(DiagKind::FileNotFound, site,
              fmt::format("`{}` is {}; gpmc reads its inputs from regular files (save the input to a file first)",
                          path, what));
  return false;
}

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
  if (!regular_file(path, diags, site)) return false;
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
