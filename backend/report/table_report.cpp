// table_report.cpp: the aligned text table printed by `gpmc eval` by default.
#include <algorithm>

#include <fmt/format.h>

#include "backend/report/report.h"
#include "support/units.h"

namespace gpm::backend {

std::string table_report(const Evaluation& e) {
  std::string out = fmt::format("{} on {}: {}\n\n", e.app, e.machine, format_seconds(e.total_s));
  struct Line {
    std::string name, count, each, total, share, model;
  };
  std::vector<Line> lines = {{"phase / operation", "count", "each", "total", "share", "model"}};
  auto model_of = [](const Row& row) {
    std::string model = row.model;
    if (!row.bound.empty()) model += fmt::format(", bound by {}", row.bound);
    for (const auto& term : row.terms)
      model += fmt::format("; {} {}", term.name, support::format_quantity(term.value.value, term.value.dim));
    return model;
  };
  for (const auto& phase : e.phases) {
    // A phase that is one operation is shown on one line, with the operation's model.
    bool single = phase.rows.size() == 1 && !phase.rows[0].is_block && phase.rows[0].name == phase.name;
    lines.push_back({phase.name, "1", format_seconds(phase.time_s), format_seconds(phase.time_s),
                     format_share(phase.time_s, e.total_s), single ? model_of(phase.rows[0]) : phase.model});
    if (single) continue;
    for (const auto& row : phase.rows)
      lines.push_back({std::string(size_t(row.depth + 1) * 2, ' ') + row.name, fmt::format("{:.10g}", row.count),
                       format_seconds(row.each_s), format_seconds(row.total_s), format_share(row.total_s, e.total_s),
                       model_of(row)});
  }
  size_t w[6] = {0, 0, 0, 0, 0, 0};
  for (const auto& l : lines) {
    w[5] = std::max(w[5], l.model.size());
    w[0] = std::max(w[0], l.name.size());
    w[1] = std::max(w[1], l.count.size());
    w[2] = std::max(w[2], l.each.size());
    w[3] = std::max(w[3], l.total.size());
    w[4] = std::max(w[4], l.share.size());
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    const auto& l = lines[i];
    std::string line = fmt::format("{:<{}}  {:>{}}  {:>{}}  {:>{}}  {:>{}}  {}", l.name, w[0], l.count, w[1], l.each,
                                   w[2], l.total, w[3], l.share, w[4], l.model);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
    if (i == 0) out += std::string(std::min<size_t>(w[0] + w[1] + w[2] + w[3] + w[4] + w[5] + 10, 120), '-') + "\n";
  }
  out += flows_table(e);
  out += fabric_steps_table(e);
  out += nccl_choice_table(e);
  out += fmt::format("\ntotal: {}\n", format_seconds(e.total_s));
  // E2E section 3.4, shown when the app communicates: the iteration's three parts.
  if (Parts p = iteration_parts(e); p.communication)
    out += fmt::format("per iteration ({:.10g} iterations): communication {}, kernels {}, overhead {}\n", p.iterations,
                       format_seconds(p.communication_s), format_seconds(p.kernels_s), format_seconds(p.overhead_s));
  std::string params;
  for (const auto& p : e.params)
    params += fmt::format("  {}{} = {}{}\n", p.owner.empty() ? "" : p.owner + ".", p.name,
                          p.word.empty() ? support::format_quantity(p.value.value, p.value.dim) : p.word,
                          p.overridden ? "  (--set)" : "");
  if (!params.empty()) out += "\nparameters:\n" + params;
  return out;
}

}  // namespace gpm::backend
