// table_file.h: reads the CSV file of numbers a `table` declaration names into its rows and columns.
#pragma once
#include <string>

#include "frontend/ast.h"
#include "support/diagnostics.h"
#include "support/source_manager.h"

namespace gpm::frontend {

// Reads `table.path` (from `dir`, the declaring file's folder, unless absolute) into table.cells: rows of numbers
// separated by commas, blanks around a number, blank lines and lines starting with `#` skipped, every row as wide
// as the first. The file is added to `sources`, so that a bad cell is reported at its line and column
// (MalformedTable; FileNotFound, FileTooLarge, InvalidEncoding at the declaration's string). False after an error.
bool read_table_file(TableDecl& table, const std::string& dir, support::SourceManager& sources,
                     support::DiagnosticEngine& diags);

}  // namespace gpm::frontend
