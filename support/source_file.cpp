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

bool read_source_file(const std::string& path, std::string& out, DiagnosticEngine& diags, SourceRange site,
                      uint64_t limit) {
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
  if (limit == 0) limit = limits().source_bytes;
  auto too_large = [&] {
    std::string size = limit % (1u << 20) == 0 ? fmt::format("{} MiB", limit >> 20) : fmt::format("{} bytes", limit);
    diags.error(DiagKind::FileTooLarge, site,
                fmt::format("`{}` is larger than {}; .gpm models are expected to be small text files "
                            "(--max-source-bytes sets the limit)",
                            path, size));
    return false;
  };
  // A regular file's size is known before it is read: one too large is refused without reading a byte.
  if (fs::is_regular_file(status))
    if (auto size = fs::file_size(path, ec); !ec && size > limit) return too_large();
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    diags.error(DiagKind::FileNotFound, site, fmt::format("cannot open `{}`: {}", path, std::strerror(errno)));
    return false;
  }
  // Read in chunks, at most one byte past the limit, so that a file that grows while read costs nothing and a small
  // file touches no more memory than its size (a buffer of the whole limit cost every run 8 MiB per file).
  out.clear();
  char chunk[64 * 1024];
  while (out.size() <= limit) {
    size_t want = size_t(std::min<uint64_t>(sizeof chunk, limit + 1 - out.size()));
    in.read(chunk, std::streamsize(want));
    auto got = in.gcount();
    if (got <= 0) break;
    out.append(chunk, size_t(got));
  }
  if (out.size() > limit) return too_large();
  return true;
}

}  // namespace gpm::support
