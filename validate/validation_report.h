// validation_report.h: `gpmc validate` output: the aligned table and the JSON document (docs/output.md).
#pragma once
#include <string>

#include "validate/validation.h"

namespace gpm::validate {

std::string validation_table(const Validation& validation);
std::string validation_json(const Validation& validation);

}  // namespace gpm::validate
