// commands.cpp: runs the pipeline for each subcommand and prints results or diagnostics.
#include "tools/gpmc/commands.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <set>

#include <fmt/format.h>

#include "backend/jit/jit.h"
#include "backend/report/report.h"
#include "engines/congestion/engine.h"
#include "frontend/ast_printer.h"
#include "ir/printer.h"
#include "support/sha256.h"
#include "support/csv.h"

namespace gpm::cli {

driver::Options options_of(const CommonOptions& common) {
  driver::Options options;
  options.include_dirs = common.include_dirs;
  options.warnings_as_errors = common.warnings_as_errors;
  options.mpi_rules = common.mpi_rules;
  options.lazy_prelude = common.lazy_prelude;
  options.referenced_names = common.command_words;
  return options;
}

// Splits `name=value`; reports a malformed --set.
bool parse_settings(const std::vector<std::string>& sets, std::vector<driver::Setting>& out,
                    support::DiagnosticEngine& diags) {
  for (const auto& s : sets) {
    size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == s.size()) {
      diags.error(support::DiagKind::UsageError, {},
                  fmt::format("--set `{}` must have the form name=value, e.g. --set bytes=1GiB (quote a value "
                              "with spaces: --set 'link_bw=25 GB/s')",
                              s));
      return false;
    }
    out.push_back({s.substr(0, eq), s.substr(eq + 1)});
  }
  return true;
}

// One row per flow: the phase and operation it belongs to, its name, ends, bytes, when it was issued, started and
// ended (seconds from the start of one execution of the operation, shortest round-trip form) and its route.
bool write_flows_csv(const backend::Evaluation& evaluation, const std::string& path, support::DiagnosticEngine& diags) {
  bool any = false;
  for (const auto& phase : evaluation.phases)
    for (const auto& row : phase.rows) any = any || bool(row.write_flows);
  if (!any) {
    diags.error(support::DiagKind::UsageError, {},
                fmt::format("--flows-out: app `{}` has no `flows` block", evaluation.app));
    return false;
  }
  auto write = [&](std::ostream& out) {
    out << "phase,operation,flow,src,dst,bytes,issued_s,start_s,end_s,route\n";
    for (const auto& phase : evaluation.phases)
      for (const auto& row : phase.rows)
        if (row.write_flows) row.write_flows(out, support::csv_field(phase.name) + "," + support::csv_field(row.name) + ",");
  };
  if (path == "-") {  // standard output, before the report
    write(std::cout);
    return true;
  }
  std::ofstream out(path, std::ios::binary);
  if (!out) {
    diags.error(support::DiagKind::UsageError, {},
                fmt::format("--flows-out: cannot write `{}`: {}", path, std::strerror(errno)));
    return false;
  }
  write(out);
  out.close();
  if (!out) {
    diags.error(support::DiagKind::UsageError, {}, fmt::format("--flows-out: writing `{}` failed", path));
    return false;
  }
  return true;
}

nlohmann::ordered_json provenance_json(const std::vector<const support::SourceManager*>& managers,
                                       const std::vector<std::string>& files, const std::vector<std::string>& sets) {
  nlohmann::ordered_json doc;
  doc["gpmc"] = {{"version", GPM_VERSION}, {"commit", kCommit}};
  nlohmann::ordered_json inputs = nlohmann::ordered_json::array();
  std::set<std::string> listed;
  for (const support::SourceManager* sources : managers)
    for (support::FileId id = 0; id < support::FileId(sources->file_count()); ++id) {
      const std::string& path = sources->path(id);
      if (sources->is_fragment(id) || path.rfind("--", 0) == 0) continue;  // a --set value or a CSV cell, not a file
      if (!listed.insert(path).second) continue;
      inputs.push_back(
          {{"path", path}, {"bytes", sources->text(id).size()}, {"sha256", support::sha256_hex(sources->text(id))}});
    }
  for (const std::string& path : files) {
    if (path.empty() || !listed.insert(path).second) continue;
    std::ifstream in(path, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) continue;  // it was read moments ago; an input that vanished since is not listed
    inputs.push_back({{"path", path}, {"bytes", text.size()}, {"sha256", support::sha256_hex(text)}});
  }
  doc["inputs"] = inputs;
  doc["set"] = sets;
  return doc;
}

nlohmann::ordered_json provenance_json(driver::Session& session, const std::vector<std::string>& sets,
                                       const std::vector<std::string>& varies) {
  nlohmann::ordered_json doc = provenance_json({&session.sources()}, {}, sets);
  if (!varies.empty()) doc["vary"] = varies;
  return doc;
}

nlohmann::ordered_json warnings_json(const support::DiagnosticEngine& diags) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& d : diags.diagnostics()) {
    if (!d.warning) continue;
    auto at = diags.location(d.range);
    out.push_back({{"file", at.path}, {"line", at.line}, {"column", at.column}, {"kind", support::diag_kind_name(d.kind)},
                   {"message", d.message}});
  }
  return out;
}

int fail(driver::Session& session) {
  session.diags().flush(std::cerr);
  return 1;
}

int run_check(const CommonOptions& common, const std::vector<std::string>& files) {
  driver::Session session(options_of(common));
  if (!session.check(files)) return fail(session);
  session.diags().flush(std::cerr);  // warnings
  return 0;
}

int run_dump_ast(const CommonOptions& common, const std::string& file) {
  driver::Session session(options_of(common));
  const frontend::Module* module = session.parse(file);
  if (!module || session.diags().has_errors()) return fail(session);
  std::cout << frontend::print_module(*module, session.sources());
  return 0;
}

int run_eval(const CommonOptions& common, const EvalOptions& options) {
  if (options.compare == "strategy") return run_compare_strategies(common, options);
  driver::Options driver_options = options_of(common);
  driver_options.strategy = options.strategy;
  driver::Session session(driver_options);
  std::vector<driver::Setting> settings;
  if (!parse_settings(options.sets, settings, session.diags())) return fail(session);
  auto compiled = session.compile(options.machine, options.app, settings);
  if (!compiled) return fail(session);
  // A table shows a few flows, steps and links of each `flows` block: the engines list no more.
  if (options.format == "table")
    engines::congestion::CongestionEngine::set_listing(
        {backend::kTableFlows, backend::kTableSteps, backend::kTableLinks, backend::kTableFlows});
  backend::Evaluation evaluation;
  bool ok = options.backend == "jit"
                ? backend::jit::evaluate(compiled->module, compiled->bound, session.diags(), evaluation)
                : session.evaluate(*compiled, evaluation);
  if (!ok) return fail(session);
  session.diags().flush(std::cerr);  // warnings
  evaluation.warnings = warnings_json(session.diags());
  // Only the JSON report shows the provenance; the digests cost a table report the start-up of libcrypto's providers.
  if (options.format == "json") evaluation.provenance = provenance_json(session, options.sets);
  if (!options.timeline.empty() && !write_timeline(evaluation, options.timeline, session.diags())) return fail(session);
  if (!options.flows_out.empty() && !write_flows_csv(evaluation, options.flows_out, session.diags()))
    return fail(session);
  std::cout << (options.format == "json" ? backend::json_report(evaluation) : backend::table_report(evaluation));
  return 0;
}

int run_dump_ir(const CommonOptions& common, const EvalOptions& options) {
  driver::Session session(options_of(common));
  std::vector<driver::Setting> settings;
  if (!parse_settings(options.sets, settings, session.diags())) return fail(session);
  auto compiled = session.compile(options.machine, options.app, settings);
  if (!compiled) return fail(session);
  session.diags().flush(std::cerr);  // warnings
  std::cout << ir::print_module(compiled->module, &compiled->bound);
  return 0;
}

int run_dump_llvm(const CommonOptions& common, const EvalOptions& options) {
  driver::Session session(options_of(common));
  std::vector<driver::Setting> settings;
  if (!parse_settings(options.sets, settings, session.diags())) return fail(session);
  auto compiled = session.compile(options.machine, options.app, settings);
  if (!compiled) return fail(session);
  // Every parameter not fixed by --set is an input, in slot order: the function a sweep of all of them runs.
  backend::jit::Options jit;
  jit.optimize = options.optimized;
  for (size_t slot = 0; slot < compiled->module.params.size(); ++slot)
    if (!compiled->bound[slot]) jit.inputs.push_back(int32_t(slot));
  std::cout << backend::jit::print_llvm(compiled->module, compiled->bound, jit);
  return 0;
}

}  // namespace gpm::cli
