// report.h: writers that turn an Evaluation into the table or the JSON document users read.
#pragma once
#include <string>

#include "backend/interp/interpreter.h"

namespace gpm::backend {

// The default human-readable report: the total, then each phase and operation with its share.
std::string table_report(const Evaluation& evaluation);
// The stable JSON contract documented in docs/output.md.
std::string json_report(const Evaluation& evaluation);
// Flows of congestion engines (flows_report.cpp): the table's per-flow and per-step lines (empty when the model has
// no flows), and the top-level JSON "flows" array gathered from the operations' details (null when none).
std::string flows_table(const Evaluation& evaluation);
nlohmann::ordered_json flows_json(const Evaluation& evaluation);
// A time in seconds with a readable unit and fixed precision (`1.40502 ms`).
std::string format_seconds(double seconds);
// A share of the total as a percentage with one decimal (`34.4%`).
std::string format_share(double part, double total);

}  // namespace gpm::backend
