// commands.h: the gpmc subcommands (check, fmt, eval, sweep, dump-ast, dump-ir, dump-llvm, search, validate,
// project), each returning an exit status.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "driver/pipeline.h"
#include "support/limits.h"

namespace gpm::cli {

// The commit gpmc was built from (12 hex digits, `-dirty`, or `unknown`), in a source file generated at every build
// (cmake/commit_stamp.cmake).
extern const char* const kCommit;

struct CommonOptions {
  std::vector<std::string> include_dirs;
  bool warnings_as_errors = false;  // --Werror
  std::string mpi_rules;            // --mpi-rules: a user's Open MPI dynamic rules file
  uint64_t max_source_bytes = support::kMaxSourceBytes;  // --max-source-bytes (support/limits.h)
  uint64_t max_flows = support::kMaxFlowsPerBlock;       // --max-flows
  // A command that loads its files once parses only the standard-library declarations they, or a word of the
  // command line, mention (driver::Options::lazy_prelude).
  bool lazy_prelude = false;
  std::vector<std::string> command_words;  // the command line's arguments
};

struct EvalOptions {
  std::string machine, app;
  std::vector<std::string> sets;  // name=value
  std::string format = "table";
  std::string backend = "interp";  // eval: interp or jit
  bool optimized = false;          // dump-llvm: after the O2 pipeline
  std::string strategy;            // eval: every offload uses this strategy
  std::string compare;             // eval: "strategy" ranks the four offload strategies
  std::string timeline;            // eval: write the offload schedules as Chrome trace JSON to this file
  std::string flows_out;           // eval: write every flow of every `flows` block as CSV to this file
};

struct SweepOptions {
  std::string machine, app;
  std::vector<std::string> sets;    // name=value, fixed for every point
  std::vector<std::string> varies;  // NAME=SPEC
  std::string format = "csv";
  std::string backend = "jit";
  unsigned threads = 0;  // 0: one per core
  uint64_t max_points = 0;
  bool progress = true;  // a progress bar when stderr is a terminal and the sweep is long
  bool strict = false;   // stop at the first invalid point instead of writing a row that says why
};

struct ValidateOptions {
  std::string machine, app;
  std::string measured;            // the CSV of measured points
  std::vector<std::string> sets;   // name=value, fixed for every point
  std::string format = "table";
  std::string backend = "interp";
};

struct SearchOptions {
  EvalOptions eval;
  int threads = 0;                        // 0: every hardware thread
  uint64_t max_orders = 20'000'000;       // refuse larger searches unless raised
  std::string orders_out;                 // --orders-out FILE.csv: every order's makespan
};

int run_check(const CommonOptions& common, const std::vector<std::string>& files);
int run_eval(const CommonOptions& common, const EvalOptions& options);
int run_dump_ast(const CommonOptions& common, const std::string& file);
int run_dump_ir(const CommonOptions& common, const EvalOptions& options);
int run_dump_llvm(const CommonOptions& common, const EvalOptions& options);
int run_sweep(const CommonOptions& common, const SweepOptions& options);
// fmt_command.cpp: `gpmc fmt`, each file rewritten in the canonical layout, or with --check its diff shown.
int run_fmt(const std::vector<std::string>& files, bool check);
// offload_commands.cpp: eval --compare strategy, and the --timeline file.
int run_compare_strategies(const CommonOptions& common, const EvalOptions& options);
// commands.cpp: `eval --flows-out FILE.csv`, every flow of the evaluation (start, end, route).
bool write_flows_csv(const backend::Evaluation& evaluation, const std::string& path, support::DiagnosticEngine& diags);
bool write_timeline(const backend::Evaluation& evaluation, const std::string& path, support::DiagnosticEngine& diags);

// Shared by the subcommands: splits `name=value` settings (false with a diagnostic), prints errors.
bool parse_settings(const std::vector<std::string>& sets, std::vector<driver::Setting>& out,
                    support::DiagnosticEngine& diags);
driver::Options options_of(const CommonOptions& common);
// What produced a result, for the JSON reports: gpmc's version and commit, each input file read (path, bytes,
// SHA-256; the standard library included) and the --set and --vary values as typed.
nlohmann::ordered_json provenance_json(driver::Session& session, const std::vector<std::string>& sets,
                                       const std::vector<std::string>& varies = {});
// The same over the files of several source managers (each path once, in the order first read), and `files` read
// from disk (binary inputs such as an Nsight SQLite trace) where no source manager holds them.
nlohmann::ordered_json provenance_json(const std::vector<const support::SourceManager*>& sources,
                                       const std::vector<std::string>& files, const std::vector<std::string>& sets);
// The warnings reported so far, for the JSON reports: file, line, column, kind and message of each.
nlohmann::ordered_json warnings_json(const support::DiagnosticEngine& diags);
int fail(driver::Session& session);
// `gpmc search` (search.cpp): every order of an app's `flows unordered` block.
int run_search(const CommonOptions& common, const SearchOptions& options);
// `gpmc validate` (validate_command.cpp): the model at each measured point, MAPE and WMAPE.
int run_validate(const CommonOptions& common, const ValidateOptions& options);

struct ProjectOptions {
  std::string trace;       // recorded on A: CSV or Nsight Systems SQLite
  std::string from, to;    // machine models of A and B
  std::string measured_on_b;  // optional: the same run recorded on B
  std::string format = "table";
};
// `gpmc project` (project_command.cpp): a trace's copies from node A priced on node B (AHEAD section V).
int run_project(const CommonOptions& common, const ProjectOptions& options);

}  // namespace gpm::cli
