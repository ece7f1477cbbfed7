// text_table.h: aligned plain-text tables for the reports of gpmc validate and gpmc project.
#pragma once
#include <string>
#include <vector>

namespace gpm::validate {

// Rows of cells, the first the header (underlined with dashes, at most 120); `right[k]` aligns column k to the
// right. Two spaces between columns, no trailing blanks.
std::string align_columns(const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& right);

}  // namespace gpm::validate
