// csv_table.h: reads a comma-separated file into cells that keep their place in the file, for located errors.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "support/diagnostics.h"
#include "support/source_manager.h"

namespace gpm::validate {

// One cell: its text without surrounding blanks, and where that text is (an empty cell: where it would be).
struct CsvCell {
  std::string text;
  support::SourceRange range;
};

// One line of data: its 1-based line number, the range of the whole line, its cells.
struct CsvRow {
  uint32_t line = 0;
  support::SourceRange range;
  std::vector<CsvCell> cells;
};

// The file: lines starting with `#` (after blanks) and blank lines are skipped; the first other line is the
// header, every later one a row. Cells are split at every comma (no quoting); a trailing CR is dropped.
struct CsvTable {
  support::FileId file = support::kNoFile;
  std::string path;
  CsvRow header;
  std::vector<CsvRow> rows;
};

// Reads `path` (at most 8 MiB of UTF-8 text without NUL bytes) into `out`. Reports FileNotFound,
// FileTooLarge, InvalidEncoding, and MalformedCsv for a file without a header or without rows, an empty header
// cell, or a row whose cell count differs from the header's. `what` names the file's content in messages
// ("measurements", "trace"). Returns false after reporting.
bool read_csv_table(const std::string& path, const std::string& what, support::SourceManager& sources,
                    support::DiagnosticEngine& diags, CsvTable& out);

}  // namespace gpm::validate
