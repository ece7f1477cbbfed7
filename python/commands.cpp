// commands.cpp: check, load, eval, compare_strategies, timeline, validate and project for the Python module, each
// run as its gpmc command runs it (tools/gpmc/), returning that command's JSON document.
#include <algorithm>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "backend/jit/jit.h"
#include "backend/report/report.h"
#include "engines/overlap/overlap_engine.h"
#include "project/copy_pricer.h"
#include "project/projection.h"
#include "project/projection_report.h"
#include "project/trace.h"
#include "python/api.h"
#include "support/sha256.h"
#include "validate/csv_table.h"
#include "validate/validation.h"
#include "validate/validation_report.h"

namespace gpm::cli {
extern const char* const kCommit;  // the build's commit (cmake/commit_stamp.cmake)
}

namespace gpm::python {

Json diagnostics_json(const support::DiagnosticEngine& diags, bool warnings_only) {
  Json out = Json::array();
  auto located = [&](support::SourceRange range, Json object) {
    auto at = diags.location(range);
    object["file"] = at.path.empty() ? Json(nullptr) : Json(at.path);
    object["line"] = at.path.empty() ? Json(nullptr) : Json(at.line);
    object["column"] = at.path.empty() ? Json(nullptr) : Json(at.column);
    return object;
  };
  for (const auto& d : diags.diagnostics()) {
    if (warnings_only && !d.warning) continue;
    Json object = located(d.range, Json::object());
    object["severity"] = d.warning ? "warning" : "error";
    object["kind"] = support::diag_kind_name(d.kind);
    object["message"] = d.message;
    Json notes = Json::array();
    for (const auto& [range, message] : d.notes) notes.push_back(located(range, {{"message", message}}));
    object["notes"] = notes;
    out.push_back(object);
  }
  return out;
}

void fail(support::DiagnosticEngine& diags) {
  std::ostringstream text;
  diags.flush(text);
  throw Failure(diagnostics_json(diags), text.str());
}

driver::Options options_of(const Request& request) {
  driver::Options options;
  options.include_dirs = request.include_dirs;
  options.stdlib_dir = request.stdlib_dir;
  options.strategy = request.strategy;
  options.warnings_as_errors = request.warnings_as_errors;
  return options;
}

std::vector<driver::Setting> settings_of(const Request& request, support::DiagnosticEngine& diags) {
  std::vector<driver::Setting> out;
  for (const auto& s : request.sets) {
    size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == s.size()) {
      diags.error(support::DiagKind::UsageError, {},
                  fmt::format("set `{}` must have the form name=value, e.g. set={{\"bytes\": \"1GiB\"}}", s));
      fail(diags);
    }
    out.push_back({s.substr(0, eq), s.substr(eq + 1)});
  }
  return out;
}

std::unique_ptr<driver::Compiled> compile(driver::Session& session, const Request& request, const std::string& machine,
                                          const std::string& app) {
  auto settings = settings_of(request, session.diags());
  auto compiled = session.compile(machine, app, settings);
  if (!compiled) fail(session.diags());
  return compiled;
}

Json provenance_json(const std::vector<const support::SourceManager*>& managers, const std::vector<std::string>& files,
                     const std::vector<std::string>& sets, const std::vector<std::string>& varies) {
  Json doc;
  doc["gpmc"] = {{"version", GPM_VERSION}, {"commit", cli::kCommit}};
  Json inputs = Json::array();
  std::set<std::string> listed;
  auto add = [&](const std::string& path, const std::string& text) {
    inputs.push_back({{"path", path}, {"bytes", text.size()}, {"sha256", support::sha256_hex(text)}});
  };
  for (const support::SourceManager* sources : managers)
    for (support::FileId id = 0; id < support::FileId(sources->file_count()); ++id) {
      const std::string& path = sources->path(id);
      if (sources->is_fragment(id) || path.rfind("--", 0) == 0) continue;  // a setting or a CSV cell, not a file
      if (listed.insert(path).second) add(path, sources->text(id));
    }
  for (const std::string& path : files) {
    if (path.empty() || !listed.insert(path).second) continue;
    std::ifstream in(path, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.bad()) add(path, text);
  }
  doc["inputs"] = inputs;
  doc["set"] = sets;
  if (!varies.empty()) doc["vary"] = varies;
  return doc;
}

Json check(const Request& request, const std::vector<std::string>& files) {
  driver::Session session(options_of(request));
  if (!session.check(files)) fail(session.diags());
  return diagnostics_json(session.diags(), true);
}

Json load(const Request& request, const std::string& machine, const std::string& app) {
  driver::Session session(options_of(request));
  auto compiled = compile(session, request, machine, app);
  // The parameters' values as the JSON report gives them; the evaluation also checks every value.
  backend::Evaluation evaluation;
  if (!session.evaluate(*compiled, evaluation)) fail(session.diags());
  Json report = Json::parse(backend::json_report(evaluation));
  Json doc;
  doc["machine"] = compiled->module.machine_name;
  doc["app"] = compiled->module.app_name;
  doc["params"] = report["params"];
  doc["warnings"] = diagnostics_json(session.diags(), true);
  return doc;
}

namespace {

// A compiled model evaluated with the interpreter or the JIT; the evaluation's rows point into `compiled`.
backend::Evaluation evaluate(driver::Session& session, const driver::Compiled& compiled,
                             const std::string& backend_name = "interp") {
  backend::Evaluation evaluation;
  bool ok = backend_name == "jit"
                ? backend::jit::evaluate(compiled.module, compiled.bound, session.diags(), evaluation)
                : session.evaluate(compiled, evaluation);
  if (!ok) fail(session.diags());
  return evaluation;
}

}  // namespace

Json eval(const Request& request, const std::string& machine, const std::string& app, const std::string& backend) {
  if (backend != "interp" && backend != "jit")
    throw std::invalid_argument(fmt::format("backend `{}`: interp or jit", backend));
  driver::Session session(options_of(request));
  auto compiled = compile(session, request, machine, app);
  backend::Evaluation evaluation = evaluate(session, *compiled, backend);
  evaluation.warnings = diagnostics_json(session.diags(), true);
  evaluation.provenance = provenance_json({&session.sources()}, {}, request.sets);
  return Json::parse(backend::json_report(evaluation));
}

Json compare_strategies(const Request& request, const std::string& machine, const std::string& app) {
  // The app as written first (its own strategy), then each strategy in the paper's order.
  const char* strategies[] = {"explicit", "implicit", "streams", "hybrid"};
  Json doc;
  std::vector<std::pair<std::string, double>> ranked;
  for (int i = -1; i < 4; ++i) {
    Request one = request;
    one.strategy = i < 0 ? request.strategy : strategies[i];
    driver::Session session(options_of(one));
    auto compiled = compile(session, one, machine, app);
    if (i < 0 && std::none_of(compiled->module.engine_calls.begin(), compiled->module.engine_calls.end(),
                              [](const ir::EngineCall& c) { return c.engine->name() == "overlap"; })) {
      session.diags().error(support::DiagKind::UsageError, {},
                            fmt::format("compare strategy: app `{}` has no `offload` statement to compare",
                                        compiled->module.app_name));
      fail(session.diags());
    }
    backend::Evaluation evaluation = evaluate(session, *compiled);
    if (i < 0) doc = Json::parse(backend::json_report(evaluation));
    else ranked.emplace_back(strategies[i], evaluation.total_s);
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  Json list = Json::array();
  for (const auto& [name, total] : ranked) list.push_back({{"name", name}, {"total_s", total}});
  doc["strategies"] = list;
  return doc;
}

Json timeline(const Request& request, const std::string& machine, const std::string& app) {
  driver::Session session(options_of(request));
  auto compiled = compile(session, request, machine, app);
  return backend::timeline_json(evaluate(session, *compiled));
}

Json validate(const Request& request, const std::string& machine, const std::string& app, const std::string& measured,
              const std::string& backend) {
  driver::Session session(options_of(request));
  auto compiled = compile(session, request, machine, app);
  validate::CsvTable table;
  if (!validate::read_csv_table(measured, "measurements", session.sources(), session.diags(), table))
    fail(session.diags());
  validate::Validation validation;
  validation.machine = compiled->owners[0]->name;
  validation.app = compiled->owners[1]->name;
  auto which = backend == "jit" ? validate::Backend::Jit : validate::Backend::Interp;
  if (!validate::validate_points(session, *compiled, table, which, validation)) fail(session.diags());
  validation.provenance = provenance_json({&session.sources()}, {}, request.sets);
  Json doc = Json::parse(validate::validation_json(validation));
  doc["warnings"] = diagnostics_json(session.diags(), true);
  return doc;
}

Json project(const Request& request, const std::string& trace, const std::string& from, const std::string& to,
             const std::string& measured_on_b) {
  support::SourceManager sources;
  support::DiagnosticEngine diags(sources);
  project::Trace from_a, on_b;
  if (!project::read_trace(trace, "trace", sources, diags, from_a)) fail(diags);
  bool have_b = !measured_on_b.empty();
  if (have_b && !project::read_trace(measured_on_b, "trace measured on B", sources, diags, on_b)) fail(diags);
  project::CopyPricer model_a(options_of(request), from), model_b(options_of(request), to);
  project::Projection projection;
  project::CopyPricer* failed_pricer = nullptr;
  if (!project::project_trace(from_a, model_a, model_b, have_b ? &on_b : nullptr, diags, projection, failed_pricer)) {
    if (!failed_pricer) fail(diags);
    // The pricer's own diagnostics (its model's errors), then the note gpmc project adds.
    std::ostringstream text;
    failed_pricer->flush_errors(text);
    std::string note = fmt::format("the errors above come from pricing the trace's copies on `{}`",
                                   failed_pricer->machine_file());
    Json list = diagnostics_json(diags);
    if (const auto* model_diags = failed_pricer->failed_diags())
      for (const auto& d : diagnostics_json(*model_diags)) list.push_back(d);
    list.push_back({{"file", nullptr}, {"line", nullptr}, {"column", nullptr}, {"severity", "note"},
                    {"kind", nullptr}, {"message", note}, {"notes", Json::array()}});
    throw Failure(list, text.str() + "gpmc project: " + note + " [note]\n");
  }
  std::vector<const support::SourceManager*> inputs = {&sources};
  for (const auto* pricer : {&model_a, &model_b})
    for (const auto* s : pricer->sources()) inputs.push_back(s);
  return Json::parse(project::projection_json(projection, provenance_json(inputs, {trace, measured_on_b}, {})));
}

}  // namespace gpm::python
