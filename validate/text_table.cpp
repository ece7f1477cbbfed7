// text_table.cpp: aligned plain-text tables for the reports of gpmc validate and gpmc project.
#include "validate/text_table.h"

#include <algorithm>

namespace gpm::validate {

std::string align_columns(const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& right) {
  std::vector<size_t> width(right.size(), 0);
  for (const auto& row : rows)
    for (size_t k = 0; k < row.size(); ++k) width[k] = std::max(width[k], row[k].size());
  std::string out;
  for (size_t r = 0; r < rows.size(); ++r) {
    std::string line;
    for (size_t k = 0; k < rows[r].size(); ++k) {
      std::string pad(width[k] - rows[r][k].size(), ' ');
      line += (k ? "  " : "") + (right[k] ? pad + rows[r][k] : rows[r][k] + pad);
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
    if (r == 0) {
      size_t total = 0;
      for (size_t w : width) total += w;
      out += std::string(std::min<size_t>(total + 2 * (width.size() - 1), 120), '-') + "\n";
    }
  }
  return out;
}

}  // namespace gpm::validate
