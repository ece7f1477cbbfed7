// unified_diff.h: a unified diff of two texts line by line (`gpmc fmt --check` shows what formatting would change).
#pragma once
#include <string>

namespace gpm::support {

// The hunks that turn `before` into `after`, with three lines of context, under `--- from_label` and
// `+++ to_label` headers as `diff -u` writes them; empty when the texts are equal. A line without its final newline
// is marked `\ No newline at end of file`.
std::string unified_diff(const std::string& before, const std::string& after, const std::string& from_label,
                         const std::string& to_label);

}  // namespace gpm::support
