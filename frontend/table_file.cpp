// table_file.cpp: a `table` declaration's CSV file of numbers, read cell by cell, a bad cell reported where it is.
#include "frontend/table_file.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "support/source_file.h"

namespace gpm::frontend {

using support::DiagKind;
using support::SourceRange;

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Whether `cell` is a decimal number as the language writes one, with an optional sign: digits with an optional
// fraction (`5.`, `.5` too) and an optional exponent. No hexadecimal, no `inf` or `nan`.
bool decimal_number(std::string_view cell) {
  size_t i = 0;
  if (i < cell.size() && (cell[i] == '-' || cell[i] == '+')) ++i;
  size_t digits = 0;
  while (i < cell.size() && std::isdigit(static_cast<unsigned char>(cell[i]))) ++i, ++digits;
  if (i < cell.size() && cell[i] == '.') {
    ++i;
    while (i < cell.size() && std::isdigit(static_cast<unsigned char>(cell[i]))) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < cell.size() && (cell[i] == 'e' || cell[i] == 'E')) {
    ++i;
    if (i < cell.size() && (cell[i] == '-' || cell[i] == '+')) ++i;
    size_t exponent = 0;
    while (i < cell.size() && std::isdigit(static_cast<unsigned char>(cell[i]))) ++i, ++exponent;
    if (exponent == 0) return false;
  }
  return i == cell.size();
}

}  // namespace

bool read_table_file(TableDecl& table, const std::string& dir, support::SourceManager& sources,
                     support::DiagnosticEngine& diags) {
  namespace fs = std::filesystem;
  const fs::path written(table.path);
  const std::string path =
      (written.is_absolute() || dir.empty() ? written : fs::path(dir) / written).lexically_normal().string();
  table.resolved = path;
  std::error_code ec;
  if (table.path.empty() || fs::is_directory(path, ec)) {
    diags.error(DiagKind::FileNotFound, table.path_range,
                fmt::format("table `{}`: `{}` is a directory, not a CSV file of numbers", table.name, path));
    return false;
  }
  std::string text;
  if (!support::read_source_file(path, text, diags, table.path_range)) return false;
  const support::FileId file = sources.add(path, std::move(text));
  table.table_file = file;
  const std::string& held = sources.text(file);
  if (const size_t bad = support::first_non_text_byte(held); bad != std::string::npos) {
    const auto c = static_cast<unsigned char>(held[bad]);
    diags.error(DiagKind::InvalidEncoding, SourceRange{file, uint32_t(bad), uint32_t(bad + 1)},
                c == 0 ? std::string("NUL byte in a table file: is this a binary file?")
                       : fmt::format("invalid UTF-8 byte 0x{:02X}: a table file must be UTF-8 text", c));
    return false;
  }
  const std::string hint = "a table file holds numbers only, separated by commas (no header row, no index column: "
                           "numpy.savetxt(path, matrix, delimiter=\",\") or pandas' to_csv(path, header=False, "
                           "index=False) write one)";
  bool ok = true;
  size_t first_row_line_begin = 0;
  for (size_t begin = 0; begin < held.size() && ok;) {
    size_t end = held.find('\n', begin);
    if (end == std::string::npos) end = held.size();
    size_t first = begin;
    while (first < end && is_blank(held[first])) ++first;
    if (first < end && held[first] != '#') {
      // One row: its cells between commas, blanks around each trimmed.
      size_t width = 0;
      for (size_t start = begin;; ) {
        size_t comma = held.find(',', start);
        if (comma == std::string::npos || comma > end) comma = end;
        size_t b = start, e = comma;
        while (b < e && is_blank(held[b])) ++b;
        while (e > b && is_blank(held[e - 1])) --e;
        const SourceRange at{file, uint32_t(b), uint32_t(b == e ? b + 1 : e)};
        const std::string_view cell(held.data() + b, e - b);
        double v = 0;
        if (cell.empty()) {
          diags.error(DiagKind::MalformedTable, at, fmt::format("table `{}`: an empty cell; {}", table.name, hint));
          ok = false;
          break;
        }
        const char* from = cell.data() + (cell[0] == '+' ? 1 : 0);
        auto [stop, err] = decimal_number(cell) ? std::from_chars(from, cell.data() + cell.size(), v)
                                                : std::from_chars_result{from, std::errc::invalid_argument};
        if (err == std::errc::result_out_of_range || (err == std::errc() && !std::isfinite(v))) {
          diags.error(DiagKind::MalformedTable, at,
                      fmt::format("table `{}`: `{}` is beyond the range of a double-precision number", table.name,
                                  cell));
          ok = false;
          break;
        }
        if (err != std::errc() || stop != cell.data() + cell.size()) {
          diags.error(DiagKind::MalformedTable, at,
                      fmt::format("table `{}`: `{}` is not a number; {}", table.name, cell, hint));
          ok = false;
          break;
        }
        table.cells.push_back(v == 0 ? 0.0 : v);  // -0 reads as 0
        ++width;
        if (comma == end) break;
        start = comma + 1;
      }
      if (!ok) break;
      if (table.rows == 0) {
        table.cols = width;
        first_row_line_begin = begin;
      } else if (width != table.cols) {
        size_t shown_end = end;
        while (shown_end > first && is_blank(held[shown_end - 1])) --shown_end;
        diags.error(DiagKind::MalformedTable, SourceRange{file, uint32_t(first), uint32_t(shown_end)},
                    fmt::format("table `{}`: this row has {} cell{}, the first row (line {}) has {}; every row of "
                                "a table is as wide as the first",
                                table.name, width, width == 1 ? "" : "s",
                                sources.line_column(file, uint32_t(first_row_line_begin)).line,
                                table.cols));
        ok = false;
        break;
      }
      ++table.rows;
    }
    begin = end + 1;
  }
  if (ok && table.rows == 0) {
    diags.error(DiagKind::MalformedTable, SourceRange{file, 0, 0},
                fmt::format("table `{}`: `{}` holds no numbers (only blank lines or `#` comments)", table.name, path));
    ok = false;
  }
  table.loaded = ok;
  return ok;
}

}  // namespace gpm::frontend
