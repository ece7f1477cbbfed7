// projection_report.cpp: writes a Projection as aligned tables for people or as JSON for scripts.
#include "project/projection_report.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backend/report/report.h"
#include "support/units.h"
#include "validate/text_table.h"

namespace gpm::project {

namespace {

std::string bytes_text(double bytes) { return support::format_quantity(bytes, support::Dim::byte()); }
std::string percent(double fraction) { return fmt::format("{:.1f}%", 100.0 * fraction); }
std::string seconds_or_dash(const CopyGroup& g, double seconds) {
  return g.count ? backend::format_seconds(seconds) : "-";
}
std::string percent_or_dash(const CopyGroup& g, double fraction) { return g.count ? percent(fraction) : "-"; }

std::string groups_table(const std::vector<const CopyGroup*>& groups, const char* first_column) {
  std::vector<std::vector<std::string>> rows{
      {first_column, "copies", "bytes", "measured on A", "model of A", "WMAPE on A", "projected on B", "BW ratio on B"}};
  for (const auto* g : groups)
    rows.push_back({g->name, std::to_string(g->count), bytes_text(g->bytes), seconds_or_dash(*g, g->measured_a_s),
                    seconds_or_dash(*g, g->model_a_s), percent_or_dash(*g, g->model_a_errors.wmape),
                    seconds_or_dash(*g, g->projected_b_s), seconds_or_dash(*g, g->ratio_b_s)});
  return validate::align_columns(rows, {false, true, true, true, true, true, true, true});
}

std::string measured_table(const std::vector<const CopyGroup*>& groups) {
  std::vector<std::vector<std::string>> rows{{"copies of", "copies", "measured on B", "projected on B", "MAPE",
                                              "WMAPE", "BW ratio on B", "BW ratio WMAPE"}};
  for (const auto* g : groups)
    rows.push_back({g->name, std::to_string(g->count), seconds_or_dash(*g, g->measured_b_s),
                    seconds_or_dash(*g, g->projected_b_s), percent_or_dash(*g, g->projected_errors.mape),
                    percent_or_dash(*g, g->projected_errors.wmape), seconds_or_dash(*g, g->ratio_b_s),
                    percent_or_dash(*g, g->ratio_errors.wmape)});
  return validate::align_columns(rows, {false, true, true, true, true, true, true, true});
}

std::string skipped_lines(const std::vector<SkippedCopies>& skipped, const char* where) {
  std::string out;
  for (const auto& s : skipped)
    out += fmt::format("  not projected (no model prices them): {}: {} cop{}, {}, {} {}\n", s.what, s.count,
                       s.count == 1 ? "y" : "ies", bytes_text(s.bytes), backend::format_seconds(s.time_s), where);
  return out;
}

}  // namespace

std::string projection_table(const Projection& p) {
  std::string out = fmt::format("trace {} ({}), recorded on {} ({}), projected on {} ({})\n", p.trace_path,
                                p.trace_format, p.from_machine, p.from_file, p.to_machine, p.to_file);
  out += fmt::format("{} cop{} projected", p.total.count, p.total.count == 1 ? "y" : "ies");
  out += p.kernel_count ? fmt::format("; {} kernel{} on A ({}), not projected: a trace holds no flop or byte counts\n",
                                      p.kernel_count, p.kernel_count == 1 ? "" : "s",
                                      backend::format_seconds(p.kernel_time_a_s))
                        : std::string("\n");
  out += skipped_lines(p.skipped, "on A");
  std::vector<const CopyGroup*> classes, kinds;
  for (const auto& g : p.size_classes) classes.push_back(&g);
  classes.push_back(&p.total);
  for (const auto& g : p.kinds) kinds.push_back(&g);
  out += "\nby size (AHEAD section V)\n" + groups_table(classes, "size");
  out += kinds.empty() ? "\nno copies to project\n" : "\nby kind\n" + groups_table(kinds, "kind");
  out += fmt::format("\ncopy time on A: {} measured, {} by A's model (WMAPE {}, MAPE {})\n",
                     backend::format_seconds(p.total.measured_a_s), backend::format_seconds(p.total.model_a_s),
                     percent(p.total.model_a_errors.wmape), percent(p.total.model_a_errors.mape));
  out += fmt::format("copy time on B: {} projected (B's model), {} by the bandwidth ratio\n",
                     backend::format_seconds(p.total.projected_b_s), backend::format_seconds(p.total.ratio_b_s));
  if (p.measured_b_path.empty()) return out;
  out += fmt::format("\nagainst the trace measured on B: {}\n", p.measured_b_path);
  out += skipped_lines(p.skipped_b, "on B");
  out += measured_table(classes);
  out += fmt::format("\nWMAPE of the projection on B: {} (MAPE {}); of the bandwidth ratio: {}\n",
                     percent(p.total.projected_errors.wmape), percent(p.total.projected_errors.mape),
                     percent(p.total.ratio_errors.wmape));
  return out;
}

std::string projection_json(const Projection& p, const nlohmann::ordered_json& provenance) {
  using nlohmann::ordered_json;
  auto errors = [](const validate::ErrorSummary& e) { return ordered_json{{"mape", e.mape}, {"wmape", e.wmape}}; };
  bool have_b = !p.measured_b_path.empty();
  auto group = [&](const CopyGroup& g) {
    ordered_json j{{"name", g.name},
                   {"copies", g.count},
                   {"bytes", g.bytes},
                   {"measured_a_s", g.measured_a_s},
                   {"model_a_s", g.model_a_s},
                   {"model_a_errors", errors(g.model_a_errors)},
                   {"projected_b_s", g.projected_b_s},
                   {"bandwidth_ratio_b_s", g.ratio_b_s}};
    if (have_b) {
      j["measured_b_s"] = g.measured_b_s;
      j["projected_errors"] = errors(g.projected_errors);
      j["bandwidth_ratio_errors"] = errors(g.ratio_errors);
    }
    return j;
  };
  auto skipped = [](const std::vector<SkippedCopies>& list) {
    ordered_json out = ordered_json::array();
    for (const auto& s : list) out.push_back({{"what", s.what}, {"copies", s.count}, {"bytes", s.bytes}, {"time_s", s.time_s}});
    return out;
  };
  ordered_json doc;
  doc["trace"] = p.trace_path;
  doc["trace_format"] = p.trace_format;
  doc["from"] = {{"machine", p.from_machine}, {"file", p.from_file}};
  doc["to"] = {{"machine", p.to_machine}, {"file", p.to_file}};
  if (have_b) doc["measured_on_b"] = p.measured_b_path;
  doc["kernels_on_a"] = {{"count", p.kernel_count}, {"time_s", p.kernel_time_a_s}, {"projected", false}};
  doc["not_projected"] = skipped(p.skipped);
  if (have_b) doc["not_projected_on_b"] = skipped(p.skipped_b);
  doc["total"] = group(p.total);
  ordered_json classes = ordered_json::array(), kinds = ordered_json::array();
  for (const auto& g : p.size_classes) classes.push_back(group(g));
  for (const auto& g : p.kinds) kinds.push_back(group(g));
  doc["size_classes"] = classes;
  doc["kinds"] = kinds;
  ordered_json copies = ordered_json::array();
  for (const auto& c : p.copies) {
    ordered_json j{{"kind", copy_kind_name(c.copy->kind)},
                   {"memory", host_memory_name(c.copy->memory)},
                   {"bytes", c.copy->bytes},
                   {"stream", c.copy->stream},
                   {"start_s", c.copy->start_s},
                   {"measured_a_s", c.copy->duration_s},
                   {"model_a_s", c.model_a_s},
                   {"projected_b_s", c.projected_b_s},
                   {"bandwidth_ratio_b_s", c.ratio_b_s}};
    if (c.copy->gpu >= 0) j["gpu"] = c.copy->gpu;
    if (c.copy->kind == CopyKind::P2P) {
      j["src_gpu"] = c.copy->src_gpu;
      j["dst_gpu"] = c.copy->dst_gpu;
    }
    if (have_b) j["measured_b_s"] = c.measured_b_s;
    copies.push_back(j);
  }
  doc["copies"] = copies;
  if (!provenance.is_null()) doc["provenance"] = provenance;
  return doc.dump(2) + "\n";
}

}  // namespace gpm::project
