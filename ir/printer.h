// printer.h: a readable dump of an IR module (`gpmc dump-ir`), used by golden tests.
#pragma once
#include <string>

#include "ir/ir.h"

namespace gpm::ir {
std::string print_module(const Module& module);
}
