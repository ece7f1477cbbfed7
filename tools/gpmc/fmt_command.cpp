// fmt_command.cpp: `gpmc fmt [--check] FILES`: rewrites .gpm files in the canonical layout, or shows the diff.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include <fmt/format.h>

#include "frontend/format.h"
#include "support/source_file.h"
#include "support/unified_diff.h"
#include "tools/gpmc/commands.h"

namespace gpm::cli {
namespace {

// Writes `text` beside `path` and renames it over `path` (keeping its permissions), so that the file is never seen
// half-written; false with a diagnostic when that fails.
bool replace_file(const std::string& path, const std::string& text, support::DiagnosticEngine& diags) {
  std::string temp = path + ".gpmc-fmt-XXXXXX";
  int fd = mkstemp(temp.data());
  auto fail = [&](const char* what) {
    diags.error(support::DiagKind::UsageError, {},
                fmt::format("cannot write `{}` ({} `{}`: {})", path, what, temp, std::strerror(errno)));
    if (fd >= 0) close(fd);
    std::remove(temp.c_str());
    return false;
  };
  if (fd < 0) return fail("creating");
  struct stat info;
  if (stat(path.c_str(), &info) == 0) fchmod(fd, info.st_mode & 07777);
  for (size_t done = 0; done < text.size();) {
    ssize_t wrote = write(fd, text.data() + done, text.size() - done);
    if (wrote < 0) {
      if (errno == EINTR) continue;
      return fail("writing");
    }
    done += size_t(wrote);
  }
  if (close(fd) != 0) {
    fd = -1;
    return fail("closing");
  }
  fd = -1;
  if (std::rename(temp.c_str(), path.c_str()) != 0) return fail("renaming");
  return true;
}

}  // namespace

int run_fmt(const std::vector<std::string>& files, bool check) {
  int status = 0;
  for (const std::string& path : files) {
    support::SourceManager sources;
    support::DiagnosticEngine diags(sources);
    std::string text;
    if (!support::read_source_file(path, text, diags, {})) {
      diags.flush(std::cerr);
      status = 1;
      continue;
    }
    support::FileId id = sources.add(path, text);
    std::optional<std::string> formatted = frontend::format_file(sources, id, diags);
    if (!formatted) {
      diags.flush(std::cerr);
      status = 1;
      continue;
    }
    if (*formatted == text) continue;
    if (check) {
      std::cout << support::unified_diff(text, *formatted, path, path + " (formatted)");
      status = 1;
    } else if (!replace_file(path, *formatted, diags)) {
      diags.flush(std::cerr);
      status = 1;
    }
  }
  return status;
}

}  // namespace gpm::cli
