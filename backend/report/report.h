// report.h: writers that turn an Evaluation into the table or the JSON document users read.
#pragma once
#include <cstddef>
#include <string>

#include "backend/interp/interpreter.h"

namespace gpm::backend {

// The default human-readable report: the total, then each phase and operation with its share.
std::string table_report(const Evaluation& evaluation);
// The stable JSON contract documented in docs/output.md.
std::string json_report(const Evaluation& evaluation);
// What the table shows of each `flows` block: its first flows and steps and its busiest links (JSON has them all).
inline constexpr size_t kTableFlows = 40;
inline constexpr size_t kTableSteps = 40;
inline constexpr size_t kTableLinks = 8;
// Flows of congestion engines (flows_report.cpp): the table's per-flow and per-step lines (empty when the model has
// no flows), and the top-level JSON "flows" array gathered from the operations' details (null when none).
std::string flows_table(const Evaluation& evaluation);
// The steps of MPI operations priced on the fabric model, each with its busiest link (empty when there are none).
std::string fabric_steps_table(const Evaluation& evaluation);
// Operations priced on the nccl model: the algorithm and protocol chosen and every candidate (nccl_report.cpp).
std::string nccl_choice_table(const Evaluation& evaluation);
// The algorithm/protocol the nccl model chose for each of its operations, and the algorithm an MPI library chose
// for each of its own, joined by ", " (empty when none).
std::string operation_choices(const Evaluation& evaluation);
nlohmann::ordered_json flows_json(const Evaluation& evaluation);
// The whole run as Chrome trace events (timeline.cpp): phases, every operation on its resource's track at the time
// the task tree places it, each offload's schedule as a process (docs/output.md, Timeline).
nlohmann::ordered_json timeline_json(const Evaluation& evaluation);
// Every directed link the flows of congestion engines cross, per operation, busiest first (top-level `links`).
nlohmann::ordered_json links_json(const Evaluation& evaluation);
// E2E section 3.4: iteration time = communication + kernels + overhead. Each part is the whole run's time of the
// operations of that part on the critical path (in a `par`, the longest branch only) divided by `iterations`, the
// largest execution count of any such operation (the main loop's count); so the parts times `iterations` sum to the
// total. any = false when no operation has a part.
struct Parts {
  bool any = false, communication = false;
  double iterations = 1, communication_s = 0, kernels_s = 0, overhead_s = 0;
};
Parts iteration_parts(const Evaluation& evaluation);
// A time in seconds with a readable unit and fixed precision (`1.40502 ms`).
std::string format_seconds(double seconds);
// A share of the total as a percentage with one decimal (`34.4%`).
std::string format_share(double part, double total);

}  // namespace gpm::backend
