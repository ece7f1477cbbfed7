// verifier.h: structural checks of an IR module; a failure is a compiler bug, not a user error.
#pragma once
#include <string>
#include <vector>

#include "ir/ir.h"

namespace gpm::ir {
// Returns a list of problems (empty when the module is well formed).
std::vector<std::string> verify(const Module& module);
}
