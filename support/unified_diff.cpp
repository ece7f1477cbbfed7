// unified_diff.cpp: a longest-common-subsequence line diff printed as unified hunks with three lines of context.
#include "support/unified_diff.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

namespace gpm::support {
namespace {

constexpr size_t kContext = 3;
// Beyond this many cells the differing middle is shown as one replacement instead of a minimal diff.
constexpr size_t kMaxTable = size_t(16) << 20;

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      lines.push_back(text.substr(start));  // no final newline: kept without one
      break;
    }
    lines.push_back(text.substr(start, end - start + 1));
    start = end + 1;
  }
  return lines;
}

enum class Op : char { Keep = ' ', Remove = '-', Add = '+' };
struct Edit {
  Op op;
  size_t a, b;  // the line of `before` (Keep, Remove) and of `after` (Keep, Add)
};

// The edit script of the middle [a0, a1) x [b0, b1), both ends already trimmed of equal lines.
void middle_edits(const std::vector<std::string>& a, const std::vector<std::string>& b, size_t a0, size_t a1,
                  size_t b0, size_t b1, std::vector<Edit>& out) {
  size_t n = a1 - a0, m = b1 - b0;
  if (n * m > kMaxTable) {
    for (size_t i = a0; i < a1; ++i) out.push_back({Op::Remove, i, b0});
    for (size_t j = b0; j < b1; ++j) out.push_back({Op::Add, a1, j});
    return;
  }
  // lcs[i][j]: the longest common subsequence of a[a0 + i..a1) and b[b0 + j..b1).
  std::vector<uint32_t> lcs((n + 1) * (m + 1), 0);
  auto at = [&](size_t i, size_t j) -> uint32_t& { return lcs[i * (m + 1) + j]; };
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      at(i, j) = a[a0 + i] == b[b0 + j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[a0 + i] == b[b0 + j]) {
      out.push_back({Op::Keep, a0 + i, b0 + j});
      ++i;
      ++j;
    } else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1))) {
      out.push_back({Op::Remove, a0 + i, b0 + j});
      ++i;
    } else {
      out.push_back({Op::Add, a0 + i, b0 + j});
      ++j;
    }
  }
}

std::string range(size_t start, size_t count) {
  // diff -u: a hunk of no lines names the line before it.
  if (count == 0) return fmt::format("{},0", start);
  if (count == 1) return fmt::format("{}", start + 1);
  return fmt::format("{},{}", start + 1, count);
}

}  // namespace

std::string unified_diff(const std::string& before, const std::string& after, const std::string& from_label,
                         const std::string& to_label) {
  if (before == after) return "";
  std::vector<std::string> a = split_lines(before), b = split_lines(after);
  size_t prefix = 0;
  while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) ++prefix;
  size_t suffix = 0;
  while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
         a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix])
    ++suffix;
  std::vector<Edit> edits;
  for (size_t i = 0; i < prefix; ++i) edits.push_back({Op::Keep, i, i});
  middle_edits(a, b, prefix, a.size() - suffix, prefix, b.size() - suffix, edits);
  for (size_t k = suffix; k-- > 0;) edits.push_back({Op::Keep, a.size() - 1 - k, b.size() - 1 - k});

  std::string out = fmt::format("--- {}\n+++ {}\n", from_label, to_label);
  auto line = [&](char sign, const std::string& text) {
    out += sign;
    out += text;
    if (text.empty() || text.back() != '\n') out += "\n\\ No newline at end of file\n";
  };
  for (size_t k = 0; k < edits.size();) {
    if (edits[k].op == Op::Keep) {
      ++k;
      continue;
    }
    // A hunk: from kContext lines before this change to kContext lines after the last change closer than
    // 2 * kContext kept lines to the one before it.
    size_t first = k >= kContext ? k - kContext : 0;
    size_t last = k;  // one past the last change
    for (size_t scan = k; scan < edits.size(); ++scan) {
      if (edits[scan].op == Op::Keep) {
        if (scan - last >= 2 * kContext) break;
        continue;
      }
      last = scan + 1;
    }
    size_t end = std::min(edits.size(), last + kContext);
    size_t a_start = edits[first].a, b_start = edits[first].b, a_count = 0, b_count = 0;
    for (size_t e = first; e < end; ++e) {
      if (edits[e].op != Op::Add) ++a_count;
      if (edits[e].op != Op::Remove) ++b_count;
    }
    out += fmt::format("@@ -{} +{} @@\n", range(a_start, a_count), range(b_start, b_count));
    for (size_t e = first; e < end; ++e) {
      const Edit& edit = edits[e];
      line(char(edit.op), edit.op == Op::Add ? b[edit.b] : a[edit.a]);
    }
    k = end;
  }
  return out;
}

}  // namespace gpm::support
