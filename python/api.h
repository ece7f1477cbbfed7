// api.h: what the gpmc Python module computes, without Python: each call runs the pipeline as its gpmc command does
// and returns the JSON document that command writes (docs/python.md); errors throw Failure with the diagnostics.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "driver/pipeline.h"
#include "support/diagnostics.h"

namespace gpm::python {

using Json = nlohmann::ordered_json;

// What every call takes: the import folders, the standard library's folder (found by the Python package as gpmc
// finds it), --Werror, the --set values as typed (`name=value`) and --strategy.
struct Request {
  std::vector<std::string> include_dirs;
  std::string stdlib_dir;
  bool warnings_as_errors = false;
  std::vector<std::string> sets;
  std::string strategy;
};

// gpmc reported errors: `diagnostics` holds one object per diagnostic (file, line, column, severity, kind, message,
// notes), `text` the diagnostics as gpmc prints them.
struct Failure : std::runtime_error {
  Failure(Json diagnostics, const std::string& text) : std::runtime_error(text), diagnostics(std::move(diagnostics)) {}
  Json diagnostics;
};

// The diagnostics of an engine as JSON objects; `warnings_only` keeps the warnings.
Json diagnostics_json(const support::DiagnosticEngine& diags, bool warnings_only = false);
// Throws Failure with every diagnostic reported so far.
[[noreturn]] void fail(support::DiagnosticEngine& diags);
// The session of a request; `strategy` as --strategy.
driver::Options options_of(const Request& request);
// Splits the request's `name=value` settings; throws Failure on a malformed one.
std::vector<driver::Setting> settings_of(const Request& request, support::DiagnosticEngine& diags);
// The model compiled as `gpmc eval` compiles it; throws Failure on errors.
std::unique_ptr<driver::Compiled> compile(driver::Session& session, const Request& request, const std::string& machine,
                                          const std::string& app);
// gpmc's version and commit, the files read (path, bytes, SHA-256), the settings and varied ranges as typed: the
// `provenance` object of the command line's JSON documents.
Json provenance_json(const std::vector<const support::SourceManager*>& sources, const std::vector<std::string>& files,
                     const std::vector<std::string>& sets, const std::vector<std::string>& varies = {});

// gpmc check FILES: the warnings (errors throw).
Json check(const Request& request, const std::vector<std::string>& files);
// The model compiled and its parameters and lets evaluated: machine, app, params, warnings.
Json load(const Request& request, const std::string& machine, const std::string& app);
// gpmc eval --format json (backend "interp" or "jit").
Json eval(const Request& request, const std::string& machine, const std::string& app, const std::string& backend);
// gpmc eval --compare strategy --format json: the app's own report with `strategies` ranked, fastest first.
Json compare_strategies(const Request& request, const std::string& machine, const std::string& app);
// gpmc eval --timeline: the run as Chrome trace events.
Json timeline(const Request& request, const std::string& machine, const std::string& app);
// gpmc validate --format json.
Json validate(const Request& request, const std::string& machine, const std::string& app, const std::string& measured,
              const std::string& backend);
// gpmc project --format json.
Json project(const Request& request, const std::string& trace, const std::string& from, const std::string& to,
             const std::string& measured_on_b);

struct SweepRequest {
  std::vector<std::string> varies;  // NAME=SPEC
  std::string backend = "jit";
  unsigned threads = 0;  // 0: one per core
  uint64_t max_points = 0;
  bool strict = false;
};
// gpmc sweep --format json: machine, app, varied, phases, provenance, points, errors.
Json sweep(const Request& request, const std::string& machine, const std::string& app, const SweepRequest& sweep);

struct SearchResult {
  Json doc;                      // gpmc search --format json, with slowest_s's order index
  std::vector<double> makespans;  // every order's makespan, by index (when asked for)
};
// gpmc search: every order of the app's `flows unordered` block.
SearchResult search(const Request& request, const std::string& machine, const std::string& app, int threads,
                    uint64_t max_orders, bool makespans);

}  // namespace gpm::python
