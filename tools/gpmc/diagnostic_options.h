// diagnostic_options.h: gpmc's global --color and --diagnostics-format options, and the SARIF log written at exit.
#pragma once
#include <string>

#include <CLI/CLI.hpp>

namespace gpm::cli {

struct DiagnosticOptions {
  std::string color = "auto";    // auto, always, never
  std::string format = "text";   // text, json, sarif
};

// Adds --color and --diagnostics-format to `app` (the top-level command or a subcommand: both accept them).
void add_diagnostic_options(CLI::App* app, DiagnosticOptions& options);
// Sets the process's diagnostic style from the command line before the parser runs, so that its own errors follow
// it too (the last valid value of each option wins; `--` ends the options). Returns the index of the first argument
// that is not one of these two options (the subcommand's name, normally 1).
int apply_diagnostic_options(int argc, char** argv);
// A command-line error: `gpmc: error: MESSAGE [UsageError]` and the hint line in text, an object or a SARIF result
// otherwise.
void report_usage_error(const std::string& message, const std::string& hint);
// Writes the SARIF log to stderr when --diagnostics-format=sarif was chosen; `status` is the exit status.
void finish_diagnostics(int status);

}  // namespace gpm::cli
