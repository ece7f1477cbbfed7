// diagnostic_format.h: how diagnostics reach stderr: text (coloured or not), JSON Lines, or one SARIF 2.1.0 log.
#pragma once
#include <iosfwd>
#include <string>
#include <string_view>

#include "support/diagnostics.h"

namespace gpm::support {

enum class DiagFormat { Text, Json, Sarif };

// The process's choice (`--diagnostics-format`, `--color`), set by the command line before anything is reported;
// DiagnosticEngine::flush follows it. The default is plain text without colour.
struct DiagnosticStyle {
  DiagFormat format = DiagFormat::Text;
  bool color = false;
};
void set_diagnostic_style(const DiagnosticStyle& style);
DiagnosticStyle diagnostic_style();

// `--color=auto|always|never`: auto is on only when stderr is a terminal and NO_COLOR (`no_color`, null when
// unset) is unset or empty. False for any other word.
bool parse_color_option(std::string_view when, bool stderr_is_tty, const char* no_color, bool& color);
// `--diagnostics-format=text|json|sarif`; false for any other word.
bool parse_format_option(std::string_view text, DiagFormat& format);

// One diagnostic as a JSON object on one line (no newline): file, line, column, end_line, end_column (null when it
// has no location), kind, severity, message, notes (each with its own location and message).
std::string diagnostic_json_line(const DiagnosticEngine& engine, const Diagnostic& diagnostic);

// A line that is not one of an engine's diagnostics (a summary note, an internal error): `text` as it is in the text
// format; in JSON an object with `severity` and `message` (no kind, no location); in SARIF a tool notification.
void write_message(std::ostream& out, const char* severity, const std::string& message, const std::string& text);

// The SARIF log of the process: results are added as diagnostics are flushed, and the command line writes the log
// once, at exit.
void sarif_add(const DiagnosticEngine& engine, const Diagnostic& diagnostic);
void sarif_add_notification(const char* severity, const std::string& message);
// The SARIF 2.1.0 document of everything added so far (indented, with a final newline); `success` is the run's
// `executionSuccessful`.
std::string sarif_log(std::string_view tool, std::string_view version, bool success);
// Empties the process's log (tests).
void sarif_clear();
// A path as a URI: relative paths stay relative, absolute ones become file:// URIs; every byte outside RFC 3986's
// unreserved set and `/` is percent-encoded (SARIF's artifact locations, the language server's documents).
std::string artifact_uri(const std::string& path);

}  // namespace gpm::support
