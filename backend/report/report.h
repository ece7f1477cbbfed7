// report.h: writers that turn an Evaluation into the table or the JSON document users read.
#pragma once
#include <string>

#include "backend/interp/interpreter.h"

namespace gpm::backend {

// The default human-readable report: the total, then each phase and operation with its share.
std::string table_report(const Evaluation& evaluation);
// The stable JSON contract documented in docs/output.md.
std::string json_report(const Evaluation& evaluation);
// A time in seconds with a readable unit and fixed precision (`1.40502 ms`).
std::string format_seconds(double seconds);
// A share of the total as a percentage with one decimal (`34.4%`).
std::string format_share(double part, double total);

}  // namespace gpm::backend
