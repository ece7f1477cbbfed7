// projection_report.h: writes a Projection as aligned tables for people or as JSON for scripts.
#pragma once
#include <string>

#include "project/projection.h"

namespace gpm::project {

std::string projection_table(const Projection& projection);
std::string projection_json(const Projection& projection);

}  // namespace gpm::project
