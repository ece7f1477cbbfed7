// printer.h: a readable dump of an IR module (`gpmc dump-ir`), used by golden tests.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace gpm::ir {
// `bound` (optional) holds the values --set gave to parameter slots; they are printed beside the params.
std::string print_module(const Module& module, const std::vector<std::optional<double>>* bound = nullptr);
}
