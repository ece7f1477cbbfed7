// projection_report.h: writes a Projection as aligned tables for people or as JSON for scripts.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "project/projection.h"

namespace gpm::project {

std::string projection_table(const Projection& projection);
// `provenance` (gpmc's version, the inputs with their SHA-256), when not null, is the document's `provenance`.
std::string projection_json(const Projection& projection, const nlohmann::ordered_json& provenance = nullptr);

}  // namespace gpm::project
