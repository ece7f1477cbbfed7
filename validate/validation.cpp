// validation.cpp: `gpmc validate`: columns to parameters, cells to values, each point evaluated, then the errors.
#include "validate/validation.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "backend/interp/point.h"
#include "backend/report/report.h"
#include "backend/jit/jit.h"
#include "support/suggest.h"

namespace gpm::validate {

using support::DiagKind;

namespace {

// The header's parameter columns resolved against the model; false after reporting.
bool resolve_columns(driver::Session& session, const driver::Compiled& base, const CsvTable& table,
                     std::vector<Column>& columns) {
  auto& diags = session.diags();
  std::set<std::string> seen_names;
  std::set<const frontend::ParamDecl*> seen_params;
  for (size_t k = 0; k + 1 < table.header.cells.size(); ++k) {
    const CsvCell& cell = table.header.cells[k];
    Column column;
    column.name = cell.text;
    if (!seen_names.insert(cell.text).second) {
      diags.error(DiagKind::MalformedCsv, cell.range, fmt::format("column `{}` appears twice in the header", cell.text));
      return false;
    }
    if (driver::keyword_setting_words(cell.text)) {
      column.word = true;
      if (base.keywords.count(cell.text)) {
        diags.error(DiagKind::MalformedCsv, cell.range,
                    fmt::format("`{}` is also given with --set; give it in one place", cell.text));
        return false;
      }
    } else {
      column.param = session.find_param(base, "column", cell.text, cell.range);
      if (!column.param) return false;
      if (base.bindings.count(column.param)) {
        diags.error(DiagKind::MalformedCsv, cell.range,
                    fmt::format("`{}` is also given with --set; give it in one place", cell.text));
        return false;
      }
      if (!seen_params.insert(column.param).second) {
        diags.error(DiagKind::MalformedCsv, cell.range,
                    fmt::format("column `{}` names a parameter an earlier column already sets", cell.text));
        return false;
      }
      auto slot = base.slots.find(column.param);
      if (slot == base.slots.end()) throw std::logic_error("a parameter of the model has no slot");
      column.slot = slot->second;
      column.dim = column.param->type.dim;
    }
    columns.push_back(std::move(column));
  }
  return true;
}

// A cell that is a plain decimal number (`1000`, `2.5e-06`), read whole; false for anything else.
bool parse_plain_number(const std::string& text, double& value) {
  if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '.' || text[0] == '-' ||
                        text[0] == '+'))
    return false;
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && std::isfinite(value);
}

// A measured time: a plain positive number of seconds; false after reporting.
bool parse_measurement(const CsvCell& cell, const std::string& header, support::DiagnosticEngine& diags,
                       double& seconds) {
  const char* text = cell.text.c_str();
  char* end = nullptr;
  errno = 0;
  seconds = std::strtod(text, &end);
  if (cell.text.empty()) {
    diags.error(DiagKind::InvalidMeasurement, cell.range,
                fmt::format("the measured time (column `{}`) is empty", header));
    return false;
  }
  if (end != text + cell.text.size()) {
    diags.error(DiagKind::InvalidMeasurement, cell.range,
                fmt::format("`{}` in column `{}` is not a number: the last column is the measured time in seconds, "
                            "a plain number such as 1.5e-05",
                            cell.text, header));
    return false;
  }
  if (!std::isfinite(seconds) || !(seconds > 0)) {
    diags.error(DiagKind::InvalidMeasurement, cell.range,
                fmt::format("the measured time `{}` must be a positive, finite number of seconds", cell.text));
    return false;
  }
  return true;
}

// One row's cells to values; false after reporting.
bool read_point(driver::Session& session, const CsvTable& table, const CsvRow& row, const std::vector<Column>& columns,
                MeasuredPoint& point) {
  auto& diags = session.diags();
  point.line = row.line;
  for (size_t k = 0; k < columns.size(); ++k) {
    const CsvCell& cell = row.cells[k];
    const Column& column = columns[k];
    point.values.push_back(0);
    point.words.emplace_back();
    if (cell.text.empty()) {
      diags.error(DiagKind::InvalidSetValue, cell.range, fmt::format("column {}: the value is empty", column.name));
      return false;
    }
    if (column.word) {
      auto words = *driver::keyword_setting_words(column.name);
      if (std::find(words.begin(), words.end(), cell.text) == words.end()) {
        std::string all;
        for (const auto& w : words) all += (all.empty() ? "" : ", ") + w;
        diags.error(DiagKind::InvalidSetValue, cell.range,
                    fmt::format("column {}: the value must be one of {}{}", column.name, all,
                                support::did_you_mean(cell.text, words)));
        return false;
      }
      point.words.back() = cell.text;
      continue;
    }
    if (column.param->is_word()) {  // a word parameter: the cell is one of its words, the value its index
      const auto& words = column.param->words;
      auto it = std::find(words.begin(), words.end(), cell.text);
      if (it == words.end()) {
        std::string all;
        for (const auto& w : words) all += (all.empty() ? "" : ", ") + w;
        diags.error(DiagKind::InvalidSetValue, cell.range,
                    fmt::format("column {}: `{}` is a word parameter; its value is one of {}{}", column.name,
                                column.param->name, all, support::did_you_mean(cell.text, words)));
        return false;
      }
      point.values.back() = double(it - words.begin());
      point.words.back() = cell.text;
      continue;
    }
    // A plain number is in base units (bytes, seconds, B/s), as `gpmc sweep` writes its columns.
    if (parse_plain_number(cell.text, point.values.back())) continue;
    support::FileId fragment =
        session.sources().add_fragment(table.file, cell.range.begin, cell.range.end - cell.range.begin);
    if (!session.constant_value(fragment, "column " + column.name, "`" + column.param->name + "`", column.dim,
                                point.values.back()))
      return false;
  }
  return parse_measurement(row.cells.back(), table.header.cells.back().text, diags, point.measured_s);
}

std::string describe_point(const std::vector<Column>& columns, const CsvRow& row) {
  std::string out;
  for (size_t k = 0; k < columns.size(); ++k) out += fmt::format("{}{}={}", k ? ", " : "", columns[k].name, row.cells[k].text);
  return out;
}

void report_failed(support::DiagnosticEngine& diags, const std::vector<Column>& columns, const CsvRow& row) {
  diags.error(DiagKind::PointFailed, row.range,
              columns.empty()
                  ? std::string("the model cannot be evaluated for the measurement on this line (errors above)")
                  : fmt::format("the model cannot be evaluated at the measured point on this line ({}); the errors "
                                "above say why",
                                describe_point(columns, row)));
}


// Points that keep the model's shape: the compiled `base` with the columns' slots set per point.
bool predict_same_shape(driver::Session& session, const driver::Compiled& base, const CsvTable& table,
                        Backend backend, Validation& out) {
  const ir::Module& module = base.module;
  std::vector<double> phases(std::max<size_t>(module.root.children.size(), 1));
  std::unique_ptr<backend::jit::CompiledModel> jitted;
  if (backend == Backend::Jit) {
    backend::jit::Options options;
    for (const auto& column : out.columns) options.inputs.push_back(column.slot);
    jitted = backend::jit::CompiledModel::compile(module, base.bound, options);
  }
  backend::PointScratch scratch;
  backend::SlotValues bound = base.bound;
  for (size_t i = 0; i < out.points.size(); ++i) {
    MeasuredPoint& point = out.points[i];
    for (size_t k = 0; k < out.columns.size(); ++k) bound[size_t(out.columns[k].slot)] = point.values[k];
    point.predicted_s = jitted ? jitted->point()(point.values.data(), phases.data())
                               : backend::evaluate_point(module, bound, scratch, phases.data());
    if (!std::isnan(point.predicted_s)) {
      if (ir::has_engine(module, "mpi-nccl") || module.library_choices) {  // the full evaluation, for the choice the report shows
        backend::Evaluation e;
        if (backend::evaluate(module, bound, session.diags(), e)) point.choice = backend::operation_choices(e);
      }
      continue;
    }
    backend::Evaluation ignored;
    if (backend::evaluate(module, bound, session.diags(), ignored))
      throw std::logic_error("a point the values-only path rejects evaluates without errors");
    report_failed(session.diags(), out.columns, table.rows[i]);
    return false;
  }
  return true;
}

// Points that change the model's shape or choose a model: lowered again and evaluated one by one.
bool predict_reshaped(driver::Session& session, const driver::Compiled& base, const CsvTable& table, Backend backend,
                      Validation& out) {
  for (size_t i = 0; i < out.points.size(); ++i) {
    MeasuredPoint& point = out.points[i];
    lower::ParamBindings values;
    lower::KeywordSettings words;
    for (size_t k = 0; k < out.columns.size(); ++k) {
      if (out.columns[k].word)
        words[out.columns[k].name] = point.words[k];
      else
        values[out.columns[k].param] = point.values[k];
    }
    auto compiled = session.recompile(base, values, words);
    backend::Evaluation evaluation;
    bool ok = compiled && (backend == Backend::Jit
                               ? backend::jit::evaluate(compiled->module, compiled->bound, session.diags(), evaluation)
                               : session.evaluate(*compiled, evaluation));
    if (!ok) {
      report_failed(session.diags(), out.columns, table.rows[i]);
      return false;
    }
    point.predicted_s = evaluation.total_s;
    point.choice = backend::operation_choices(evaluation);
  }
  return true;
}

}  // namespace

bool validate_points(driver::Session& session, const driver::Compiled& base, const CsvTable& table, Backend backend,
                     Validation& out) {
  out.measured_path = table.path;
  out.measured_name = table.header.cells.back().text;
  if (!resolve_columns(session, base, table, out.columns)) return false;
  for (const auto& row : table.rows) {
    MeasuredPoint point;
    if (!read_point(session, table, row, out.columns, point)) return false;
    out.points.push_back(std::move(point));
  }
  bool reshape = std::any_of(out.columns.begin(), out.columns.end(), [&](const Column& c) {
    return c.word || (c.param && c.param->is_word()) || base.module.shape_slots.count(c.slot) > 0;
  });
  if (!(reshape ? predict_reshaped(session, base, table, backend, out)
                : predict_same_shape(session, base, table, backend, out)))
    return false;
  std::vector<double> measured, predicted;
  for (auto& point : out.points) {
    point.error = relative_error(point.predicted_s, point.measured_s);
    measured.push_back(point.measured_s);
    predicted.push_back(point.predicted_s);
  }
  out.errors = summarize_errors(measured, predicted);
  return true;
}

}  // namespace gpm::validate
