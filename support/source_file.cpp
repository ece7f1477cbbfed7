// source_file.cpp: whole-file reading with existence, type and size checks, located diagnostics on failure.
#include "support/source_file.h"

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
  // Read at most one byte past the limit, so that a huge or endless file (a FIFO) costs nothing.
  out.assign(kMaxSourceBytes + 1, '\0');
  in.read(out.data(), std::streamsize(out.size()));
  out.resize(size_t(in.gcount()));
  if (out.size() > kMaxSourceBytes) {
    diags.error(DiagKind::FileTooLarge, site,
                fmt::format("`{}` is larger than {} MiB; .gpm models are expected to be small text files",
                            path, kMaxSourceBytes >> 20));
    return false;
  }
  return true;
}

}  // namespace gpm::support
