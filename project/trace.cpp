// trace.cpp: reads a trace file, choosing the CSV or the Nsight SQLite reader by the file's first bytes.
#include "project/trace.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "support/source_file.h"

namespace gpm::project {

using support::DiagKind;

const char* copy_kind_name(CopyKind kind) {
  switch (kind) {
    case CopyKind::H2D: return "h2d";
    case CopyKind::D2H: return "d2h";
    case CopyKind::D2D: return "d2d";
    case CopyKind::P2P: return "p2p";
  }
  return "?";
}

const char* host_memory_name(HostMemory mem) {
  switch (mem) {
    case HostMemory::Pinned: return "pinned";
    case HostMemory::Pageable: return "pageable";
    case HostMemory::None: return "device";
  }
  return "?";
}

void count_skipped(std::vector<SkippedCopies>& skipped, const std::string& what, double bytes, double time_s) {
  auto at = std::lower_bound(skipped.begin(), skipped.end(), what,
                             [](const SkippedCopies& s, const std::string& w) { return s.what < w; });
  if (at == skipped.end() || at->what != what) at = skipped.insert(at, SkippedCopies{what, 0, 0, 0});
  at->count += 1;
  at->bytes += bytes;
  at->time_s += time_s;
}

bool read_trace(const std::string& path, const std::string& what, support::SourceManager& sources,
                support::DiagnosticEngine& diags, Trace& out) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    diags.error(DiagKind::FileNotFound, {}, fmt::format("`{}` is a directory, not a {} file", path, what));
    return false;
  }
  if (!support::regular_file(path, diags, {})) return false;
  // The SQLite file format's header string (sqlite.org, "Database File Format", section 1.3.1).
  static const char kSqliteHeader[16] = {'S', 'Q', 'L', 'i', 't', 'e', ' ', 'f',
                                         'o', 'r', 'm', 'a', 't', ' ', '3', '\0'};
  char head[16] = {};
  std::ifstream in(path, std::ios::binary);
  bool sqlite = in && in.read(head, sizeof head) && std::memcmp(head, kSqliteHeader, sizeof head) == 0;
  in.close();
  bool ok = sqlite ? read_nsight_sqlite_trace(path, what, diags, out) : read_csv_trace(path, what, sources, diags, out);
  if (!ok) return false;
  if (out.copies.empty() && out.kernels.empty() && out.skipped.empty()) {
    diags.error(DiagKind::MalformedTrace, {}, fmt::format("{} `{}` holds no copies and no kernels", what, path));
    return false;
  }
  auto by_start = [](const auto& a, const auto& b) { return a.start_s < b.start_s; };
  std::stable_sort(out.copies.begin(), out.copies.end(), by_start);
  std::stable_sort(out.kernels.begin(), out.kernels.end(), by_start);
  return true;
}

}  // namespace gpm::project
