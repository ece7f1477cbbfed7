// validation_report.cpp: writes a Validation as an aligned table for people or as the JSON document for scripts.
#include "validate/validation_report.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backend/report/report.h"
#include "support/units.h"
#include "validate/text_table.h"

namespace gpm::validate {

namespace {

std::string signed_percent(double fraction) { return fmt::format("{:+.1f}%", 100.0 * fraction); }

}  // namespace

std::string validation_table(const Validation& v) {
  std::string out = fmt::format("{} on {}: {} measured point{} from {}\n\n", v.app, v.machine, v.points.size(),
                                v.points.size() == 1 ? "" : "s", v.measured_path);
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header{"line"};
  for (const auto& column : v.columns) header.push_back(column.name);
  for (const char* name : {"measured", "predicted", "error"}) header.emplace_back(name);
  bool choices = false;
  for (const auto& point : v.points) choices = choices || !point.choice.empty();
  if (choices) header.emplace_back("chosen");
  rows.push_back(header);
  for (const auto& point : v.points) {
    std::vector<std::string> row{std::to_string(point.line)};
    for (size_t k = 0; k < v.columns.size(); ++k)
      row.push_back(!point.words[k].empty() ? point.words[k]
                                            : support::format_quantity(point.values[k], v.columns[k].dim));
    row.push_back(backend::format_seconds(point.measured_s));
    row.push_back(backend::format_seconds(point.predicted_s));
    row.push_back(signed_percent(point.error));
    if (choices) row.push_back(point.choice);
    rows.push_back(std::move(row));
  }
  std::vector<bool> right(header.size(), true);
  if (choices) right.back() = false;
  for (size_t k = 0; k < v.columns.size(); ++k)
    right[k + 1] = !(v.columns[k].word || (v.columns[k].param && v.columns[k].param->is_word()));
  out += align_columns(rows, right);
  out += fmt::format("\nmeasured total: {}\npredicted total: {}\n", backend::format_seconds(v.errors.measured_total_s),
                     backend::format_seconds(v.errors.predicted_total_s));
  out += fmt::format("MAPE: {:.1f}%\nWMAPE: {:.1f}%\n", 100.0 * v.errors.mape, 100.0 * v.errors.wmape);
  return out;
}

std::string validation_json(const Validation& v) {
  using nlohmann::ordered_json;
  ordered_json doc;
  doc["machine"] = v.machine;
  doc["app"] = v.app;
  doc["measured_file"] = v.measured_path;
  doc["measured_column"] = v.measured_name;
  ordered_json columns = ordered_json::array();
  for (const auto& column : v.columns) {
    bool word = column.word || (column.param && column.param->is_word());
    columns.push_back({{"name", column.name}, {"dimension", word ? "word" : support::dim_name(column.dim)}});
  }
  doc["columns"] = columns;
  ordered_json points = ordered_json::array();
  for (const auto& point : v.points) {
    ordered_json values = ordered_json::object();
    for (size_t k = 0; k < v.columns.size(); ++k) {
      if (!point.words[k].empty())
        values[v.columns[k].name] = point.words[k];
      else
        values[v.columns[k].name] = point.values[k];
    }
    ordered_json p = {{"line", point.line},
                      {"params", values},
                      {"measured_s", point.measured_s},
                      {"predicted_s", point.predicted_s},
                      {"error", point.error}};
    if (!point.choice.empty()) p["chosen"] = point.choice;
    points.push_back(std::move(p));
  }
  doc["points"] = points;
  doc["count"] = v.errors.count;
  doc["measured_total_s"] = v.errors.measured_total_s;
  doc["predicted_total_s"] = v.errors.predicted_total_s;
  doc["mape"] = v.errors.mape;
  doc["wmape"] = v.errors.wmape;
  if (!v.provenance.is_null()) doc["provenance"] = v.provenance;
  return doc.dump(2) + "\n";
}

}  // namespace gpm::validate
