// diagnostic_format.cpp: the JSON Lines and SARIF 2.1.0 forms of diagnostics, and the process's output style.
#include "support/diagnostic_format.h"

#include <map>
#include <mutex>
#include <ostream>

#include <nlohmann/json.hpp>

namespace gpm::support {

namespace {

using Json = nlohmann::ordered_json;

std::mutex style_mutex;
DiagnosticStyle style;

// The SARIF log under construction: results in the order flushed, the rules they name, notifications.
struct Sarif {
  std::mutex mutex;
  Json results = Json::array();
  Json notifications = Json::array();
  std::map<std::string, size_t> rule_index;  // kind name -> index in rules
  Json rules = Json::array();
};
Sarif& sarif() {
  static Sarif log;
  return log;
}

// Invalid UTF-8 (a path or a quoted source fragment) is written as U+FFFD rather than failing the dump.
std::string dump_line(const Json& value) { return value.dump(-1, ' ', false, Json::error_handler_t::replace); }

const char* severity_of(const Diagnostic& d) { return d.warning ? "warning" : "error"; }

// The location fields of a range: null when it has none.
void put_location(Json& object, const DiagnosticEngine& engine, SourceRange range) {
  DiagnosticEngine::Location at = engine.location(range);
  if (at.path.empty()) {
    object["file"] = nullptr;
    object["line"] = nullptr;
    object["column"] = nullptr;
    object["end_line"] = nullptr;
    object["end_column"] = nullptr;
    return;
  }
  object["file"] = at.path;
  object["line"] = at.line;
  object["column"] = at.column;
  object["end_line"] = at.end_line;
  object["end_column"] = at.end_column;
}

// A SARIF location of a range with its message (notes), or null when the range names no file (a --set value is
// shown as `--set NAME`, which is not a file).
Json sarif_location(const DiagnosticEngine& engine, SourceRange range, const std::string* message) {
  DiagnosticEngine::Location at = engine.location(range);
  Json location = Json::object();
  if (!at.path.empty() && at.path.rfind("--", 0) != 0) {
    Json region = {{"startLine", at.line}, {"startColumn", at.column}};
    if (at.end_line > at.line || (at.end_line == at.line && at.end_column > at.column)) {
      region["endLine"] = at.end_line;
      region["endColumn"] = at.end_column;
    }
    location["physicalLocation"] = {{"artifactLocation", {{"uri", artifact_uri(at.path)}}}, {"region", region}};
  }
  if (message) {
    std::string text = *message;
    if (location.empty() && !at.path.empty()) text = at.path + ": " + text;  // where the note was, in words
    location["message"] = {{"text", text}};
  }
  return location;
}

}  // namespace

void set_diagnostic_style(const DiagnosticStyle& chosen) {
  std::lock_guard lock(style_mutex);
  style = chosen;
}

DiagnosticStyle diagnostic_style() {
  std::lock_guard lock(style_mutex);
  return style;
}

bool parse_color_option(std::string_view when, bool stderr_is_tty, const char* no_color, bool& color) {
  if (when == "always") color = true;
  else if (when == "never") color = false;
  else if (when == "auto") color = stderr_is_tty && (no_color == nullptr || *no_color == '\0');
  else return false;
  return true;
}

bool parse_format_option(std::string_view text, DiagFormat& format) {
  if (text == "text") format = DiagFormat::Text;
  else if (text == "json") format = DiagFormat::Json;
  else if (text == "sarif") format = DiagFormat::Sarif;
  else return false;
  return true;
}

std::string diagnostic_json_line(const DiagnosticEngine& engine, const Diagnostic& d) {
  Json object = Json::object();
  put_location(object, engine, d.range);
  object["kind"] = diag_kind_name(d.kind);
  object["severity"] = severity_of(d);
  object["message"] = d.message;
  Json notes = Json::array();
  for (const auto& note : d.notes) {
    Json n = Json::object();
    put_location(n, engine, note.first);
    n["message"] = note.second;
    notes.push_back(std::move(n));
  }
  object["notes"] = std::move(notes);
  return dump_line(object);
}

void write_message(std::ostream& out, const char* severity, const std::string& message, const std::string& text) {
  switch (diagnostic_style().format) {
    case DiagFormat::Text:
      out << text;
      break;
    case DiagFormat::Json: {
      Json object = {{"file", nullptr}, {"line", nullptr},     {"column", nullptr}, {"end_line", nullptr},
                     {"end_column", nullptr}, {"kind", nullptr}, {"severity", severity}, {"message", message},
                     {"notes", Json::array()}};
      out << dump_line(object) << '\n';
      break;
    }
    case DiagFormat::Sarif:
      sarif_add_notification(severity, message);
      break;
  }
  out.flush();
}

void sarif_add(const DiagnosticEngine& engine, const Diagnostic& d) {
  Sarif& log = sarif();
  std::lock_guard lock(log.mutex);
  std::string rule = diag_kind_name(d.kind);
  auto [it, added] = log.rule_index.emplace(rule, log.rules.size());
  if (added)
    log.rules.push_back({{"id", rule},
                         {"name", rule},
                         {"shortDescription", {{"text", diag_kind_summary(d.kind)}}},
                         {"defaultConfiguration", {{"level", severity_of(d)}}}});
  Json result = {{"ruleId", rule}, {"ruleIndex", it->second}, {"level", severity_of(d)}, {"message", {{"text", d.message}}}};
  Json where = sarif_location(engine, d.range, nullptr);
  if (where.contains("physicalLocation")) result["locations"] = Json::array({where});
  else {
    DiagnosticEngine::Location at = engine.location(d.range);
    if (!at.path.empty()) result["message"]["text"] = at.path + ": " + d.message;
  }
  if (!d.notes.empty()) {
    Json related = Json::array();
    for (size_t i = 0; i < d.notes.size(); ++i) {
      Json location = sarif_location(engine, d.notes[i].first, &d.notes[i].second);
      location["id"] = i;
      related.push_back(std::move(location));
    }
    result["relatedLocations"] = std::move(related);
  }
  log.results.push_back(std::move(result));
}

void sarif_add_notification(const char* severity, const std::string& message) {
  Sarif& log = sarif();
  std::lock_guard lock(log.mutex);
  log.notifications.push_back({{"level", severity}, {"message", {{"text", message}}}});
}

std::string sarif_log(std::string_view tool, std::string_view version, bool success) {
  Sarif& log = sarif();
  std::lock_guard lock(log.mutex);
  Json invocation = {{"executionSuccessful", success}};
  if (!log.notifications.empty()) invocation["toolExecutionNotifications"] = log.notifications;
  Json run = {{"tool",
               {{"driver",
                 {{"name", std::string(tool)},
                  {"version", std::string(version)},
                  {"rules", log.rules}}}}},
              {"columnKind", "unicodeCodePoints"},
              {"invocations", Json::array({invocation})},
              {"results", log.results}};
  Json document = {{"version", "2.1.0"},
                   {"$schema", "https://docs.oasis-open.org/sarif/sarif/v2.1.0/os/schemas/sarif-schema-2.1.0.json"},
                   {"runs", Json::array({run})}};
  return document.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

void sarif_clear() {
  Sarif& log = sarif();
  std::lock_guard lock(log.mutex);
  log.results = Json::array();
  log.notifications = Json::array();
  log.rule_index.clear();
  log.rules = Json::array();
}

// A path as a SARIF artifact URI: relative paths stay relative (to the folder gpmc ran in), absolute ones become
// file:// URIs; every byte outside RFC 3986's unreserved set and `/` is percent-encoded.
std::string artifact_uri(const std::string& path) {
  static const char* hex = "0123456789ABCDEF";
  std::string out = !path.empty() && path[0] == '/' ? "file://" : "";
  for (unsigned char c : path) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
        c == '_' || c == '~' || c == '/') {
      out += char(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

}  // namespace gpm::support
