// main.cpp: the gpmc command line (CLI11): parses arguments and dispatches to a subcommand on a large stack.
#include <pthread.h>

#include "support/diagnostic_format.h"

#include <exception>
#include <filesystem>
#include <functional>
#include <iostream>

#include <CLI/CLI.hpp>

#include "lsp/server.h"
#include "support/limits.h"
#include "tools/gpmc/commands.h"
#include "tools/gpmc/completion.h"
#include "tools/gpmc/diagnostic_options.h"
#include "tools/gpmc/usage.h"

namespace {

// Runs `work` on a thread with a 1 GiB stack (reserved, not committed), so that the deepest input the
// nesting guard admits never exhausts the stack.
int run_with_large_stack(const std::function<int()>& work) {
  struct Job {
    const std::function<int()>* work;
    int status;
  } job{&work, 2};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, size_t(1) << 30);
  pthread_t thread;
  auto entry = [](void* arg) -> void* {
    auto* j = static_cast<Job*>(arg);
    try {
      j->status = (*j->work)();
    } catch (const std::exception& e) {
      std::string message = std::string("internal error: ") + e.what();
      gpm::support::write_message(std::cerr, "error", message,
                                  "gpmc: " + message + "\nPlease report this with the input that caused it.\n");
      j->status = 2;
    }
    return nullptr;
  };
  if (pthread_create(&thread, &attr, entry, &job) != 0) return (*job.work)();
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
  return job.status;
}

}  // namespace

// The command line with `--set a=1 b=2` written `--set a=1 --set b=2` (and the same for --vary): a word after a
// value of either that starts with no `-` is another value of it, unless it names a file (a .gpm model, or a path
// that exists) and holds no `=`: that is a positional argument. A value split by an unquoted space (`--set a=25
// GB/s`) thus still reaches the check of settings, whose message says to quote it. Words after `--` are left alone.
static std::vector<std::string> split_setting_words(int argc, char** argv) {
  std::vector<std::string> out;
  std::string flag;  // the option whose values are being read, or empty
  bool rest = false;
  auto a_file = [](const std::string& w) {
    std::error_code ec;
    return w.find('=') == std::string::npos && (w.ends_with(".gpm") || std::filesystem::exists(w, ec));
  };
  for (int i = 0; i < argc; ++i) {
    std::string w = argv[i];
    if (!rest && !flag.empty() && !w.empty() && w[0] != '-' && !a_file(w)) {
      out.push_back(flag);
      out.push_back(w);
      continue;
    }
    flag.clear();
    out.push_back(w);
    if (rest || i == 0) continue;
    if (w == "--") {
      rest = true;
    } else if ((w == "--set" || w == "--vary") && i + 1 < argc) {
      out.push_back(argv[++i]);
      flag = w;
    } else if (w.starts_with("--set=") || w.starts_with("--vary=")) {
      flag = w.substr(0, w.find('='));
    }
  }
  return out;
}

static int run_gpmc(int argc, char** argv) {
  int first_word = gpm::cli::apply_diagnostic_options(argc, argv);
  CLI::App app{"gpmc: compiles and evaluates .gpm performance models of GPU machines and applications"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("gpmc ") + GPM_VERSION + " (commit " + gpm::cli::kCommit + ")");
  gpm::cli::CommonOptions common;
  gpm::cli::DiagnosticOptions diagnostic_options;  // applied before parsing (apply_diagnostic_options)
  gpm::cli::add_diagnostic_options(&app, diagnostic_options);
  gpm::cli::EvalOptions eval_options, ir_options;
  std::vector<std::string> check_files;
  std::string ast_file;

  auto add_includes = [&](CLI::App* sub) {
    sub->add_option("--include,-I", common.include_dirs, "Extra folder searched by `import` (repeatable)");
    sub->add_flag("--Werror", common.warnings_as_errors, "Treat warnings (substituted or ignored inputs) as errors");
    sub->add_option("--max-source-bytes", common.max_source_bytes,
                    "Largest source or CSV file read, in bytes (FileTooLarge beyond it; at most 2^31)")
        ->check(CLI::Range(uint64_t(1), gpm::support::kMaxSourceBytesLimit))
        ->capture_default_str();
    sub->add_option("--max-flows", common.max_flows,
                    "Most flows in one `flows` block (ModelTooLarge beyond it; at most 2^27)")
        ->check(CLI::Range(uint64_t(1), gpm::support::kMaxFlowsPerBlock))
        ->capture_default_str();
    gpm::cli::add_diagnostic_options(sub, diagnostic_options);
  };
  // The commands that lower a model: where its MPI library is Open MPI, a user's rules may choose its algorithms.
  auto add_mpi_rules = [&](CLI::App* sub) {
    sub->add_option("--mpi-rules", common.mpi_rules,
                    "Open MPI dynamic rules file (JSON, its tuned component's schema): where the MPI library is "
                    "Open MPI, its rules choose the collectives' algorithms");
  };

  auto* check = app.add_subcommand("check", "Check files; silent with exit status 0 when they are clean");
  check->add_option("files", check_files, ".gpm files")->required();
  add_includes(check);
  check->footer("Parses and checks names, units and structure, and evaluates every parameter and constant and\n"
                "each machine's topology. Exit status 0 when clean, 1 with diagnostics otherwise.");

  std::vector<std::string> fmt_files;
  bool fmt_check = false;
  auto* format = app.add_subcommand("fmt", "Rewrite .gpm files in the canonical layout (--check: show the diff)");
  format->add_option("files", fmt_files, ".gpm files")->required();
  format->add_flag("--check", fmt_check,
                   "Change nothing: print a unified diff for each file not in the canonical layout and exit 1 if any");
  format->footer("Indentation, spacing, blank lines, aligned kernels, MPI fits and trailing comments (docs/fmt.md);\n"
                 "every comment is kept and the tokens are unchanged. A file with a syntax error is reported and left\n"
                 "as it is. Exit status: 0 when every file is (now) formatted, 1 otherwise.\n"
                 "Examples:\n"
                 "  gpmc fmt --check machines/*.gpm apps/*.gpm stdlib/*.gpm\n"
                 "  gpmc fmt apps/my_app.gpm");

  auto* eval = app.add_subcommand("eval", "Evaluate an app on a machine and report the predicted time");
  eval->add_option("machine", eval_options.machine, "Machine model (.gpm)")->required();
  eval->add_option("app", eval_options.app, "App model (.gpm)")->required();
  eval->add_option("--set", eval_options.sets,
                   "Override a parameter, units included: --set bytes=1GiB; --set OWNER.NAME=V picks the machine's "
                   "or the app's when both declare NAME (repeatable)");
  eval->add_option("--format", eval_options.format, "Output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->default_val("table");
  eval->add_option("--backend", eval_options.backend,
                   "interp (the reference interpreter) or jit (LLVM; the same output, slower to start)")
      ->check(CLI::IsMember({"interp", "jit"}))
      ->default_val("interp");
  eval->add_option("--strategy", eval_options.strategy,
                   "Evaluate every offload with this strategy instead of its own")
      ->check(CLI::IsMember({"explicit", "implicit", "streams", "hybrid"}));
  eval->add_option("--compare", eval_options.compare,
                   "strategy: evaluate the four offload strategies and rank them, fastest first")
      ->check(CLI::IsMember({"strategy"}));
  eval->add_option("--timeline", eval_options.timeline,
                   "Write the whole run (phases, every operation on its resource track, offload schedules) to FILE.json "
                   "in Chrome trace-event format (Perfetto, chrome://tracing)");
  eval->add_option("--flows-out", eval_options.flows_out,
                   "Write every flow of the app's `flows` blocks to FILE.csv (size, start, end, route); - for stdout");
  add_includes(eval);
  add_mpi_rules(eval);
  eval->footer(
      "Examples:\n"
      "  gpmc eval machines/summit.gpm apps/jacobi2d.gpm\n"
      "  gpmc eval machines/summit.gpm apps/jacobi2d.gpm --set link_bw=25GB/s --format json\n"
      "  gpmc eval machines/titan.gpm apps/bandwidth.gpm --set bytes=1GiB\n"
      "  gpmc eval machines/das4_k20m.gpm apps/pop_buoydiff.gpm --compare strategy\n"
      "  gpmc eval machines/das4_gtxtitan.gpm apps/pop_state.gpm --strategy streams --timeline state.json\n"
      "Exit status: 0 on success, 1 on any error in the input (diagnostics on stderr).\n"
      "The JSON document is described in docs/output.md.");

  gpm::cli::SweepOptions sweep_options;
  auto* sweep = app.add_subcommand("sweep", "Evaluate the cross product of parameter ranges (one row per point)");
  sweep->add_option("machine", sweep_options.machine, "Machine model (.gpm)")->required();
  sweep->add_option("app", sweep_options.app, "App model (.gpm)")->required();
  sweep->add_option("--vary", sweep_options.varies,
                    "NAME=SPEC, SPEC a list a,b,c, a linear range a:b:step or a geometric range a..b*factor, units "
                    "included (repeatable; the cross product, the first --vary outermost)")
      ->required();
  sweep->add_option("--set", sweep_options.sets, "Fix a parameter for every point (repeatable)");
  sweep->add_option("--format", sweep_options.format, "Output format")
      ->check(CLI::IsMember({"csv", "json", "table"}))
      ->default_val("csv");
  sweep->add_option("--threads", sweep_options.threads,
                    "Worker threads (per rank under mpirun; default: one per core, shared among a machine's ranks)")
      ->check(CLI::Range(1u, 1024u));
  sweep->add_option("--max-points", sweep_options.max_points, "Refuse sweeps of more points (default 100000000)")
      ->check(CLI::PositiveNumber);
  sweep->add_option("--backend", sweep_options.backend, "jit (compiled, the default) or interp")
      ->check(CLI::IsMember({"interp", "jit"}))
      ->default_val("jit");
  sweep->add_flag("!--no-progress", sweep_options.progress, "No progress bar (shown only on a terminal, for long sweeps)");
  sweep->add_flag("--strict", sweep_options.strict,
                  "Stop at the first point that cannot be evaluated (default: write its row with the reason and go on)");
  add_includes(sweep);
  add_mpi_rules(sweep);
  sweep->footer(
      "Examples:\n"
      "  gpmc sweep machines/titan.gpm apps/bandwidth.gpm --vary bytes=1B..1GiB*2\n"
      "  gpmc sweep machines/summit.gpm apps/jacobi2d.gpm --vary n=1024:16384:1024 --vary link_bw=25GB/s,50GB/s\n"
      "Output: CSV with one header row (the varied names, total_s, each phase's time in seconds), one row per\n"
      "point in a fixed order, the same for every --threads. Exit status: 0 on success, 1 on any error; a point\n"
      "that fails (a parameter out of its range...) is reported with the interpreter's diagnostics after the\n"
      "rows before it. Described in docs/output.md. Under `mpirun -np N` the points are split over the ranks and\n"
      "rank 0 writes the same output (docs/mpi.md).");

  auto* dump_ast = app.add_subcommand("dump-ast", "Print the syntax tree of one file");
  dump_ast->add_option("file", ast_file, ".gpm file")->required();
  add_includes(dump_ast);

  auto* dump_ir = app.add_subcommand("dump-ir", "Print the IR of an app lowered onto a machine");
  dump_ir->add_option("machine", ir_options.machine, "Machine model (.gpm)")->required();
  dump_ir->add_option("app", ir_options.app, "App model (.gpm)")->required();
  dump_ir->add_option("--set", ir_options.sets, "Override a parameter (repeatable)");
  add_includes(dump_ir);
  add_mpi_rules(dump_ir);

  auto* dump_llvm = app.add_subcommand("dump-llvm", "Print the LLVM module the JIT compiles for MACHINE and APP");
  dump_llvm->add_option("machine", ir_options.machine, "Machine model (.gpm)")->required();
  dump_llvm->add_option("app", ir_options.app, "App model (.gpm)")->required();
  dump_llvm->add_option("--set", ir_options.sets, "Fix a parameter (repeatable); the others are function inputs");
  dump_llvm->add_flag("--optimized", ir_options.optimized, "After the O2 pipeline (target-specific)");
  add_includes(dump_llvm);
  add_mpi_rules(dump_llvm);

  gpm::cli::SearchOptions search_options;
  auto* search = app.add_subcommand("search", "Evaluate every order of an app's `flows unordered` block");
  search->add_option("machine", search_options.eval.machine, "Machine model (.gpm)")->required();
  search->add_option("app", search_options.eval.app, "App model (.gpm) with one `flows unordered` block")->required();
  search->add_option("--set", search_options.eval.sets, "Override a parameter, units included (repeatable)");
  search->add_option("--format", search_options.eval.format, "Output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->default_val("table");
  search->add_option("--threads", search_options.threads,
                     "Threads (per rank under mpirun; default: every hardware thread, shared among a machine's ranks)")
      ->check(CLI::Range(1, 1024));
  search->add_option("--max-orders", search_options.max_orders, "Refuse to evaluate more orders than this")
      ->default_val(search_options.max_orders);
  search->add_option("--orders-out", search_options.orders_out,
                     "Write every order's makespan to this CSV file (order,makespan_s), for plotting the distribution");
  add_includes(search);
  add_mpi_rules(search);
  search->footer(
      "Each source's flows may be sent in any order; the search evaluates the product of the per-source\n"
      "permutations and reports the fastest, median and slowest makespans and the fastest order.\n"
      "Examples:\n"
      "  gpmc search machines/cs_storm_t2.gpm apps/halo2d_8gpu.gpm\n"
      "  gpmc search machines/cs_storm_t2.gpm apps/halo3d_8gpu.gpm --threads 2 --format json\n"
      "Exit status: 0 on success, 1 on any error in the input or a refused search (diagnostics on stderr).\n"
      "Under `mpirun -np N` the orders are split over the ranks and rank 0 writes the same output (docs/mpi.md).");

  gpm::cli::ValidateOptions validate_options;
  auto* validate = app.add_subcommand("validate", "Evaluate the model at measured points and report the errors");
  validate->add_option("machine", validate_options.machine, "Machine model (.gpm)")->required();
  validate->add_option("app", validate_options.app, "App model (.gpm)")->required();
  validate->add_option("--measured", validate_options.measured,
                       "CSV: `#` comments, a header naming parameters then the measured time, one point per line")
      ->required();
  validate->add_option("--set", validate_options.sets, "Fix a parameter for every point (repeatable)");
  validate->add_option("--format", validate_options.format, "Output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->default_val("table");
  validate->add_option("--backend", validate_options.backend, "interp (the default) or jit")
      ->check(CLI::IsMember({"interp", "jit"}))
      ->default_val("interp");
  add_includes(validate);
  add_mpi_rules(validate);
  validate->footer(
      "Every column but the last names a parameter of the model, its cells written as --set values (units\n"
      "included: 64KiB, 25GB/s; a plain number is in base units); the last column is the measured time in\n"
      "seconds. Reports each point's signed relative error (predicted - measured) / measured, the MAPE and\n"
      "the WMAPE (AHEAD section VI-C).\n"
      "Example:\n"
      "  gpmc validate machines/v100_pcie.gpm validation/v100_pcie/h2d_pinned.gpm \\\n"
      "      --measured validation/v100_pcie/h2d_pinned.csv\n"
      "Exit status: 0 on success, 1 on any error in the models or the CSV (diagnostics name FILE:LINE:COL).\n"
      "Described in docs/output.md.");

  gpm::cli::ProjectOptions project_options;
  auto* project = app.add_subcommand("project", "Project the copies of a trace recorded on node A onto node B");
  project->add_option("--trace", project_options.trace,
                      "Trace recorded on A: CSV (kind,bytes,memory,stream,start_s,duration_s[,name]) or an Nsight "
                      "Systems SQLite export")
      ->required();
  project->add_option("--from", project_options.from, "Machine model of node A (.gpm)")->required();
  project->add_option("--to", project_options.to, "Machine model of node B (.gpm)")->required();
  project->add_option("--measured-on-b", project_options.measured_on_b,
                      "The same run traced on B (CSV or SQLite): adds the projection's MAPE and WMAPE");
  project->add_option("--format", project_options.format, "Output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->default_val("table");
  add_includes(project);
  project->footer(
      "Prices every h2d, d2h, d2d and p2p copy of the trace with the copy models of A and of B (AHEAD eq. 9-10,\n"
      "as gpmc eval does; CUDA device i is the machine's i-th GPU in declaration order), and reports the time on\n"
      "A, A's model of it, the projection on B and the bandwidth-ratio estimate (AHEAD section VI-D), by size\n"
      "class (under 10 B, 10 B to 1 MB, over 1 MB) and by kind. Kernels are counted, not projected; copies of\n"
      "arrays or managed memory are listed as not projected.\n"
      "Example:\n"
      "  gpmc project --trace traces/v100_pcie_bandwidthtest.csv --from machines/v100_pcie.gpm \\\n"
      "      --to machines/summit.gpm\n"
      "Exit status: 0 on success, 1 on any error in the models or the traces. Described in docs/output.md.");

  auto* lsp = app.add_subcommand("lsp", "Run the language server (LSP over stdin and stdout) for editors");
  lsp->footer("Diagnostics as you type, hover (a name's value, unit, dimension and comment), go to definition\n"
               "across imports, completion of attribute names and keywords. Editor set-up: docs/lsp.md.");

  // Hidden (no group): the shell completion scripts, written from the definitions above (docs/install.md).
  std::string completion_shell;
  auto* completion = app.add_subcommand("completion", "Print the bash or zsh completion script of gpmc");
  completion->group("");
  completion->add_option("shell", completion_shell, "bash or zsh")
      ->required()
      ->check(CLI::IsMember({"bash", "zsh"}));

  // A repeatable option takes one value each time it is given, so that a positional argument after it stays one
  // (`gpmc eval M --set a=1 APP`: CLI11 would take APP as a second value of --set). `--set a=1 b=2` keeps its
  // meaning: the words after a --set or --vary value up to a file are further values of it, as if the flag were
  // repeated before each (split_setting_words).
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    for (CLI::Option* opt : sub->get_options())
      if (!opt->get_positional() && opt->get_items_expected_max() > 1) opt->allow_extra_args(false);
  std::vector<std::string> words = split_setting_words(argc, argv);
  std::vector<char*> word_ptrs;
  for (auto& w : words) word_ptrs.push_back(w.data());

  // CLI11 reports an unknown first word as a missing subcommand; name it instead.
  if (first_word < argc && argv[first_word][0] != '-') {
    std::string word = argv[first_word];
    if (app.get_subcommands([&](CLI::App* sub) { return sub->get_name() == word; }).empty()) {
      std::string names;  // the visible subcommands, in the order --help lists them
      for (const CLI::App* sub : app.get_subcommands([](CLI::App* s) { return !s->get_group().empty(); }))
        names += (names.empty() ? "" : ", ") + sub->get_name();
      gpm::cli::report_usage_error("unknown subcommand `" + word + "` (" + names + ")", "Run `gpmc --help`.\n");
      return 1;
    }
  }
  try {
    app.parse(int(word_ptrs.size()), word_ptrs.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    gpm::cli::report_usage_error(gpm::cli::usage_message(app, e), "Run `gpmc --help` or `gpmc SUBCOMMAND --help`.\n");
    return 1;
  }

  if (*completion) {
    std::cout << gpm::cli::completion_script(app, completion_shell);
    return 0;
  }
  gpm::support::limits() = {common.max_source_bytes, common.max_flows};
  // Commands that compile once load the standard library as far as the model uses it; `validate` (CSV cells) and
  // `project` (several models in one session) load all of it.
  common.lazy_prelude = !(*validate || *project || *lsp || *format || *dump_ast);
  common.command_words.assign(argv + 1, argv + argc);
  return run_with_large_stack([&]() -> int {
    if (*check) return gpm::cli::run_check(common, check_files);
    if (*format) return gpm::cli::run_fmt(fmt_files, fmt_check);
    if (*eval) return gpm::cli::run_eval(common, eval_options);
    if (*sweep) return gpm::cli::run_sweep(common, sweep_options);
    if (*dump_llvm) return gpm::cli::run_dump_llvm(common, ir_options);
    if (*dump_ast) return gpm::cli::run_dump_ast(common, ast_file);
    if (*search) return gpm::cli::run_search(common, search_options);
    if (*validate) return gpm::cli::run_validate(common, validate_options);
    if (*project) return gpm::cli::run_project(common, project_options);
    if (*lsp) return gpm::lsp::run_server(std::cin, std::cout, std::cerr);
    return gpm::cli::run_dump_ir(common, ir_options);
  });
}

int main(int argc, char** argv) {
  int status = run_gpmc(argc, argv);
  gpm::cli::finish_diagnostics(status);
  return status;
}
