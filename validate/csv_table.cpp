// csv_table.cpp: splits a CSV file into located cells, skipping `#` comments, and checks its shape.
#include "validate/csv_table.h"

#include <filesystem>

#include <fmt/format.h>

#include "support/source_file.h"

namespace gpm::validate {

using support::DiagKind;
using support::SourceRange;

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t'; }

// The cells of the line text[begin, end) (without its line terminator).
std::vector<CsvCell> split_cells(const std::string& text, support::FileId file, uint32_t begin, uint32_t end) {
  std::vector<CsvCell> cells;
  uint32_t start = begin;
  for (uint32_t i = begin;; ++i) {
    if (i < end && text[i] != ',') continue;
    uint32_t b = start, e = i;
    while (b < e && is_blank(text[b])) ++b;
    while (e > b && is_blank(text[e - 1])) --e;
    cells.push_back({text.substr(b, e - b), SourceRange{file, b, b == e ? b + 1 : e}});
    if (i >= end) break;
    start = i + 1;
  }
  return cells;
}

// Reports a NUL byte or malformed UTF-8; true when the text is clean.
bool check_text(const std::string& text, support::FileId file, support::DiagnosticEngine& diags) {
  const size_t i = support::first_non_text_byte(text);
  if (i == std::string::npos) return true;
  const auto c = static_cast<unsigned char>(text[i]);
  diags.error(DiagKind::InvalidEncoding, SourceRange{file, uint32_t(i), uint32_t(i + 1)},
              c == 0 ? std::string("NUL byte in a CSV file: is this a binary file?")
                     : fmt::format("invalid UTF-8 byte 0x{:02X}: CSV files must be UTF-8 text", c));
  return false;
}

}  // namespace

bool read_csv_table(const std::string& path, const std::string& what, support::SourceManager& sources,
                    support::DiagnosticEngine& diags, CsvTable& out) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    diags.error(DiagKind::FileNotFound, {}, fmt::format("`{}` is a directory, not a CSV file of {}", path, what));
    return false;
  }
  std::string text;
  if (!support::read_source_file(path, text, diags, {})) return false;
  out.path = path;
  out.file = sources.add(path, text);
  const std::string& held = sources.text(out.file);
  if (!check_text(held, out.file, diags)) return false;
  bool have_header = false;
  uint32_t line = 0;
  for (uint32_t begin = 0; begin < held.size() || (begin == 0 && held.empty());) {
    ++line;
    size_t newline = held.find('\n', begin);
    uint32_t next = newline == std::string::npos ? uint32_t(held.size()) : uint32_t(newline + 1);
    uint32_t end = newline == std::string::npos ? uint32_t(held.size()) : uint32_t(newline);
    if (end > begin && held[end - 1] == '\r') --end;
    uint32_t first = begin;
    while (first < end && is_blank(held[first])) ++first;
    bool skip = first == end || held[first] == '#';
    if (!skip) {
      CsvRow row{line, SourceRange{out.file, begin, end}, split_cells(held, out.file, begin, end)};
      if (!have_header) {
        for (const auto& cell : row.cells)
          if (cell.text.empty()) {
            diags.error(DiagKind::MalformedCsv, cell.range, "the header has an empty column name");
            return false;
          }
        out.header = std::move(row);
        have_header = true;
      } else {
        if (row.cells.size() != out.header.cells.size()) {
          diags.error(DiagKind::MalformedCsv, row.cells.size() > out.header.cells.size()
                                                  ? row.cells[out.header.cells.size()].range
                                                  : SourceRange{out.file, end, end + 1},
                      fmt::format("this row has {} cell{}, the header (line {}) has {}", row.cells.size(),
                                  row.cells.size() == 1 ? "" : "s", out.header.line, out.header.cells.size()));
          return false;
        }
        out.rows.push_back(std::move(row));
      }
    }
    if (next >= held.size()) break;
    begin = next;
  }
  if (!have_header) {
    diags.error(DiagKind::MalformedCsv, SourceRange{out.file, 0, 0},
                fmt::format("`{}` has no header line: a CSV file of {} needs one, then one row per line", path, what));
    return false;
  }
  if (out.rows.empty()) {
    diags.error(DiagKind::MalformedCsv, out.header.range,
                fmt::format("`{}` has a header but no rows of {}", path, what));
    return false;
  }
  return true;
}

}  // namespace gpm::validate
