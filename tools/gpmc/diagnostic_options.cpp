// diagnostic_options.cpp: --color and --diagnostics-format, read before parsing; usage errors and the SARIF log.
#include "tools/gpmc/diagnostic_options.h"

#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <string_view>

#include "support/diagnostic_format.h"

namespace gpm::cli {

void add_diagnostic_options(CLI::App* app, DiagnosticOptions& options) {
  app->add_option("--color", options.color,
                  "Colour diagnostics: auto (when stderr is a terminal and NO_COLOR is unset), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->default_val("auto");
  app->add_option("--diagnostics-format", options.format,
                  "Diagnostics on stderr as text, json (one object per line) or sarif (one SARIF 2.1.0 log at exit)")
      ->check(CLI::IsMember({"text", "json", "sarif"}))
      ->default_val("text");
}

int apply_diagnostic_options(int argc, char** argv) {
  support::DiagnosticStyle style;
  std::string_view color = "auto";
  int first_other = 0;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--") break;
    std::string_view value;
    bool is_color = false, is_format = false, consumed_next = false;
    for (std::string_view name : {std::string_view("--color"), std::string_view("--diagnostics-format")}) {
      if (arg == name && i + 1 < argc) {
        value = argv[i + 1];
        consumed_next = true;
      } else if (arg.size() > name.size() && arg.substr(0, name.size()) == name && arg[name.size()] == '=') {
        value = arg.substr(name.size() + 1);
      } else {
        continue;
      }
      (name == "--color" ? is_color : is_format) = true;
      break;
    }
    if (!is_color && !is_format) {
      if (first_other == 0) first_other = i;
      continue;
    }
    support::DiagFormat format;
    bool ignored;
    if (is_color && support::parse_color_option(value, false, nullptr, ignored)) color = value;
    if (is_format && support::parse_format_option(value, format)) style.format = format;
    if (consumed_next) ++i;
  }
  support::parse_color_option(color, isatty(STDERR_FILENO) == 1, std::getenv("NO_COLOR"), style.color);
  support::set_diagnostic_style(style);
  return first_other == 0 ? argc : first_other;
}

void report_usage_error(const std::string& message, const std::string& hint) {
  support::SourceManager sources;
  support::DiagnosticEngine diags(sources);
  diags.error(support::DiagKind::UsageError, {}, message);
  diags.flush(std::cerr);
  if (support::diagnostic_style().format == support::DiagFormat::Text) std::cerr << hint << std::flush;
}

void finish_diagnostics(int status) {
  if (support::diagnostic_style().format != support::DiagFormat::Sarif) return;
  std::cerr << support::sarif_log("gpmc", GPM_VERSION, status == 0) << std::flush;
}

}  // namespace gpm::cli
