// lower_table.cpp: a `table` read at lowering: `name(row, column)` becomes the number in that cell of the file.
#include <fmt/format.h>

#include <cmath>
#include <set>

#include "lower/lower.h"

namespace gpm::lower {

using namespace frontend;

std::pair<DiagKind, std::string> Lowerer::table_index_problem(const TableCell& cell, double row, double col) {
  const TableDecl& t = *cell.table;
  const bool column_vector = cell.indices == 1 && t.cols == 1;
  const double index = cell.indices == 1 ? (column_vector ? row : col) : 0;
  const size_t extent = cell.indices == 1 ? (column_vector ? t.rows : t.cols) : 0;
  const std::string shape = fmt::format("{} row{} x {} column{}", t.rows, t.rows == 1 ? "" : "s", t.cols,
                                        t.cols == 1 ? "" : "s");
  auto whole = [](double x) { return std::isfinite(x) && x == std::floor(x); };
  if (cell.indices == 1) {
    if (!whole(index))
      return {DiagKind::NotAnInteger, fmt::format("index {} of table `{}` is not a whole number", index, t.name)};
    if (index < 0 || index >= double(extent))
      return {DiagKind::IndexOutOfRange,
              fmt::format("index {} is outside table `{}` ({}: indices 0 to {})", index, t.name, shape, extent - 1)};
    return {DiagKind::IndexOutOfRange, {}};
  }
  if (!whole(row))
    return {DiagKind::NotAnInteger, fmt::format("row {} of table `{}` is not a whole number", row, t.name)};
  if (!whole(col))
    return {DiagKind::NotAnInteger, fmt::format("column {} of table `{}` is not a whole number", col, t.name)};
  if (row < 0 || row >= double(t.rows))
    return {DiagKind::IndexOutOfRange,
            fmt::format("row {} is outside table `{}` ({}: rows 0 to {})", row, t.name, shape, t.rows - 1)};
  if (col < 0 || col >= double(t.cols))
    return {DiagKind::IndexOutOfRange,
            fmt::format("column {} is outside table `{}` ({}: columns 0 to {})", col, t.name, shape, t.cols - 1)};
  return {DiagKind::IndexOutOfRange, {}};
}

double Lowerer::table_cell(const TableCell& cell, double row, double col) {
  const TableDecl& t = *cell.table;
  if (!(row >= 0 && row < double(t.rows) && col >= 0 && col < double(t.cols)) || row != std::floor(row) ||
      col != std::floor(col))
    return std::nan("");
  return t.cells[size_t(row) * t.cols + size_t(col)];
}

bool Lowerer::depends_on_pair(ValueId v) const {
  if (pair_src_ == kNoValue) return false;
  const ValueId mark = std::min(pair_src_, pair_dst_);  // nothing before the placeholders can read them
  std::vector<ValueId> stack = {v};
  std::set<ValueId> seen;
  while (!stack.empty()) {
    const ValueId x = stack.back();
    stack.pop_back();
    if (x < mark || !seen.insert(x).second) continue;
    if (x == pair_src_ || x == pair_dst_) return true;
    const Instr& in = m_.instrs[size_t(x)];
    stack.insert(stack.end(), {in.a, in.b, in.c});
    if (auto cell = table_cells_.find(x); cell != table_cells_.end())
      stack.insert(stack.end(), {cell->second.row, cell->second.col});
  }
  return false;
}

ValueId Lowerer::lower_table_call(const Expr& e, const std::vector<ValueId>& args) {
  const auto& table = static_cast<const TableDecl&>(*e.target);
  // One index reads along the table's only column (or its only row).
  const ValueId zero = b_.constant(0, Dim::count(), e.range);
  TableCell cell{&table, args[0], args.size() == 2 ? args[1] : zero, args.size(), e.range};
  if (args.size() == 1 && table.cols != 1) std::swap(cell.row, cell.col);
  if (depends_on_pair(cell.row) || depends_on_pair(cell.col)) {
    // A placeholder of its own (constants alike are shared): alltoallv_blocks reads the cell pair by pair.
    const ValueId id =
        b_.constant(-0x1.7a1f5p+1002 * (1 + double(table_cells_.size() + 1) * 0x1p-40), Dim::count(), e.range);
    table_cells_[id] = cell;
    return id;
  }
  const double row = eager_value(cell.row), col = eager_value(cell.col);
  if (auto [kind, problem] = table_index_problem(cell, row, col); !problem.empty()) {
    diags_.error(kind, e.range, problem);
    diags_.note(table.name_range, fmt::format("table `{}` is read from `{}`", table.name, table.resolved));
    return b_.constant(0, Dim::count(), e.range);
  }
  return b_.constant(table_cell(cell, row, col), Dim::count(), e.range);
}

}  // namespace gpm::lower
