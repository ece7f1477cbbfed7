// trace_csv.cpp: a trace as CSV: one row per copy or kernel, columns kind, bytes, memory, stream, start_s, duration_s
// and an optional name.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>

#include <fmt/format.h>

#include "support/suggest.h"
#include "project/trace.h"
#include "validate/csv_table.h"

namespace gpm::project {

using support::DiagKind;

namespace {

const std::vector<std::string> kRequired = {"kind", "bytes", "memory", "stream", "start_s", "duration_s"};
const std::vector<std::string> kKinds = {"h2d", "d2h", "d2d", "p2p", "kernel"};

struct Columns {
  std::map<std::string, size_t> index;  // column name -> position
  bool has(const std::string& name) const { return index.count(name) > 0; }
};

bool resolve_header(const validate::CsvTable& table, support::DiagnosticEngine& diags, Columns& out) {
  std::vector<std::string> known = kRequired;
  for (const char* optional : {"name", "gpu", "src_gpu", "dst_gpu"}) known.push_back(optional);
  for (size_t k = 0; k < table.header.cells.size(); ++k) {
    const auto& cell = table.header.cells[k];
    if (std::find(known.begin(), known.end(), cell.text) == known.end()) {
      diags.error(DiagKind::MalformedCsv, cell.range,
                  fmt::format("unknown trace column `{}`: the columns are kind, bytes, memory, stream, start_s, "
                              "duration_s and, optionally, name, gpu, src_gpu and dst_gpu{}",
                              cell.text, support::did_you_mean(cell.text, known)));
      return false;
    }
    if (!out.index.emplace(cell.text, k).second) {
      diags.error(DiagKind::MalformedCsv, cell.range, fmt::format("column `{}` appears twice in the header", cell.text));
      return false;
    }
  }
  for (const auto& name : kRequired) {
    if (out.has(name)) continue;
    diags.error(DiagKind::MalformedCsv, table.header.range,
                fmt::format("the trace has no column `{}`: a trace needs kind, bytes, memory, stream, start_s and "
                            "duration_s",
                            name));
    return false;
  }
  return true;
}

// A plain decimal number read whole; false after reporting. `whole`: an integer is required.
bool read_number(const validate::CsvCell& cell, const std::string& column, const char* expected, bool whole,
                 double minimum, bool minimum_excluded, support::DiagnosticEngine& diags, double& value) {
  char* end = nullptr;
  errno = 0;
  value = cell.text.empty() ? 0 : std::strtod(cell.text.c_str(), &end);
  bool parsed = !cell.text.empty() && end == cell.text.c_str() + cell.text.size() && std::isfinite(value);
  bool ok = parsed && (whole ? value == std::floor(value) && std::fabs(value) <= 9007199254740992.0 : true) &&
            (minimum_excluded ? value > minimum : value >= minimum);
  if (ok) return true;
  diags.error(DiagKind::MalformedTrace, cell.range,
              cell.text.empty() ? fmt::format("column {}: the value is empty; expected {}", column, expected)
                                : fmt::format("column {}: `{}` is not {}", column, cell.text, expected));
  return false;
}

bool read_row(const validate::CsvTable& table, const validate::CsvRow& row, const Columns& columns,
              support::DiagnosticEngine& diags, Trace& out) {
  auto cell = [&](const std::string& name) -> const validate::CsvCell& { return row.cells[columns.index.at(name)]; };
  const auto& kind = cell("kind");
  if (std::find(kKinds.begin(), kKinds.end(), kind.text) == kKinds.end()) {
    diags.error(DiagKind::MalformedTrace, kind.range,
                fmt::format("column kind: `{}` is not one of h2d, d2h, d2d, p2p, kernel{}", kind.text,
                            support::did_you_mean(kind.text, kKinds)));
    return false;
  }
  double stream = 0, start = 0, duration = 0;
  if (!read_number(cell("stream"), "stream", "a whole number (the CUDA stream id)", true, -9007199254740992.0, false,
                   diags, stream) ||
      !read_number(cell("start_s"), "start_s", "a number of seconds, zero or more", false, 0, false, diags, start) ||
      !read_number(cell("duration_s"), "duration_s", "a positive number of seconds", false, 0, true, diags, duration))
    return false;
  const auto& bytes_cell = cell("bytes");
  const auto& memory_cell = cell("memory");
  std::string where = fmt::format("{}:{}", table.path, row.line);
  if (kind.text == "kernel") {
    for (const auto* c : {&bytes_cell, &memory_cell}) {
      if (c->text.empty()) continue;
      diags.error(DiagKind::MalformedTrace, c->range,
                  fmt::format("a kernel row leaves `{}` empty (it is a copy's column)",
                              c == &bytes_cell ? "bytes" : "memory"));
      return false;
    }
    out.kernels.push_back({columns.has("name") ? cell("name").text : std::string(), int64_t(stream), start, duration});
    return true;
  }
  double bytes = 0;
  if (!read_number(bytes_cell, "bytes", "a whole number of bytes, zero or more", true, 0, false, diags, bytes))
    return false;
  bool host = kind.text == "h2d" || kind.text == "d2h";
  const std::vector<std::string> memories =
      host ? std::vector<std::string>{"pinned", "pageable"} : std::vector<std::string>{"device"};
  bool memory_ok = std::find(memories.begin(), memories.end(), memory_cell.text) != memories.end() ||
                   (!host && memory_cell.text.empty());
  if (!memory_ok) {
    diags.error(DiagKind::MalformedTrace, memory_cell.range,
                host ? fmt::format("column memory: an {} copy is from `pinned` or `pageable` host memory, not `{}`{}",
                                   kind.text, memory_cell.text, support::did_you_mean(memory_cell.text, memories))
                     : fmt::format("column memory: a {} copy is between device memories: leave it empty or write "
                                   "`device`, not `{}`",
                                   kind.text, memory_cell.text));
    return false;
  }
  TraceCopy copy;
  if (kind.text == "p2p") {
    // Without the two GPUs a peer copy has no route to price.
    if (!columns.has("src_gpu") || !columns.has("dst_gpu")) {
      count_skipped(out.skipped, "p2p (the trace has no src_gpu and dst_gpu columns)", bytes, duration);
      return true;
    }
    double src = 0, dst = 0;
    if (!read_number(cell("src_gpu"), "src_gpu", "a GPU number (the CUDA device ordinal)", true, 0, false, diags,
                     src) ||
        !read_number(cell("dst_gpu"), "dst_gpu", "a GPU number (the CUDA device ordinal)", true, 0, false, diags,
                     dst))
      return false;
    if (src == dst) {
      diags.error(DiagKind::MalformedTrace, cell("dst_gpu").range,
                  "a p2p copy goes between two different GPUs; a copy within one GPU is d2d");
      return false;
    }
    copy.src_gpu = int64_t(src);
    copy.dst_gpu = int64_t(dst);
  } else if (columns.has("gpu") && !cell("gpu").text.empty()) {
    double gpu = 0;
    if (!read_number(cell("gpu"), "gpu", "a GPU number (the CUDA device ordinal)", true, 0, false, diags, gpu))
      return false;
    copy.gpu = int64_t(gpu);
  }
  copy.kind = kind.text == "h2d"   ? CopyKind::H2D
              : kind.text == "d2h" ? CopyKind::D2H
              : kind.text == "d2d" ? CopyKind::D2D
                                   : CopyKind::P2P;
  copy.memory = !host ? HostMemory::None : memory_cell.text == "pinned" ? HostMemory::Pinned : HostMemory::Pageable;
  copy.bytes = bytes;
  copy.stream = int64_t(stream);
  copy.start_s = start;
  copy.duration_s = duration;
  copy.where = where;
  out.copies.push_back(std::move(copy));
  return true;
}

}  // namespace

bool read_csv_trace(const std::string& path, const std::string& what, support::SourceManager& sources,
                    support::DiagnosticEngine& diags, Trace& out) {
  validate::CsvTable table;
  if (!validate::read_csv_table(path, what, sources, diags, table)) return false;
  Columns columns;
  if (!resolve_header(table, diags, columns)) return false;
  out.path = path;
  out.format = "csv";
  for (const auto& row : table.rows)
    if (!read_row(table, row, columns, diags, out)) return false;
  return true;
}

}  // namespace gpm::project
