// diagnostic_format_test.cpp: unit tests of the coloured text, JSON Lines and SARIF forms of diagnostics.
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/diagnostic_format.h"

using namespace gpm::support;

namespace {

// Sets a style for one test and puts the default back after it.
struct StyleScope {
  explicit StyleScope(DiagnosticStyle style) { set_diagnostic_style(style); }
  ~StyleScope() {
    set_diagnostic_style({});
    sarif_clear();
  }
};

}  // namespace

TEST_CASE("diagnostic format: --color auto is on only on a terminal without a non-empty NO_COLOR") {
  bool color = false;
  CHECK(parse_color_option("auto", true, nullptr, color));
  CHECK(color);
  CHECK(parse_color_option("auto", true, "", color));
  CHECK(color);
  CHECK(parse_color_option("auto", true, "1", color));
  CHECK_FALSE(color);
  CHECK(parse_color_option("auto", false, nullptr, color));
  CHECK_FALSE(color);
  CHECK(parse_color_option("always", false, "1", color));
  CHECK(color);
  CHECK(parse_color_option("never", true, nullptr, color));
  CHECK_FALSE(color);
  CHECK_FALSE(parse_color_option("sometimes", true, nullptr, color));
  DiagFormat format = DiagFormat::Text;
  CHECK(parse_format_option("sarif", format));
  CHECK(format == DiagFormat::Sarif);
  CHECK_FALSE(parse_format_option("xml", format));
}

TEST_CASE("diagnostic format: colour wraps the parts of the text form and keeps its characters") {
  SourceManager sm;
  FileId f = sm.add("m.gpm", "let a = zz\n");
  DiagnosticEngine diags(sm);
  diags.error(DiagKind::UnknownIdentifier, {f, 8, 10}, "unknown name `zz`");
  diags.note({f, 4, 5}, "here");
  const Diagnostic& d = diags.diagnostics()[0];
  std::string plain = diags.render(d), colored = diags.render(d, true);
  CHECK(colored.find("\033[1mm.gpm:1:9:\033[0m \033[1;31merror:\033[0m") == 0);
  CHECK(colored.find("\033[1;36mnote:") != std::string::npos);
  CHECK(colored.find("  \033[1;32m        ^~\033[0m\n") != std::string::npos);  // the caret line, green
  std::string stripped;  // without the escape sequences, the text form itself
  for (size_t i = 0; i < colored.size(); ++i) {
    if (colored[i] == '\033') {
      while (colored[i] != 'm') ++i;
      continue;
    }
    stripped += colored[i];
  }
  CHECK(stripped == plain);
}

TEST_CASE("diagnostic format: flush follows the style: JSON Lines, SARIF kept for the log") {
  SourceManager sm;
  FileId f = sm.add("m.gpm", "param x = 1 s + 1 B\n");
  DiagnosticEngine diags(sm);
  diags.error(DiagKind::UnitMismatch, {f, 16, 19}, "cannot add `time` and `bytes`");
  diags.note({}, "a note without a place");
  {
    StyleScope scope({DiagFormat::Json, true});
    std::ostringstream out;
    diags.flush(out);
    std::string text = out.str();
    REQUIRE(!text.empty());
    CHECK(text.back() == '\n');
    CHECK(text.find('\n') == text.size() - 1);  // one line
    CHECK(text.find('\033') == std::string::npos);
    auto object = nlohmann::json::parse(text);
    CHECK(object["file"] == "m.gpm");
    CHECK(object["line"] == 1);
    CHECK(object["column"] == 17);
    CHECK(object["end_line"] == 1);
    CHECK(object["end_column"] == 20);
    CHECK(object["kind"] == "UnitMismatch");
    CHECK(object["severity"] == "error");
    CHECK(object["message"] == "cannot add `time` and `bytes`");
    REQUIRE(object["notes"].size() == 1);
    CHECK(object["notes"][0]["file"].is_null());
    CHECK(object["notes"][0]["message"] == "a note without a place");
  }
  DiagnosticEngine again(sm);
  again.warning(DiagKind::UnitMismatch, {f, 0, 5}, "a warning");
  StyleScope scope({DiagFormat::Sarif, false});
  std::ostringstream out;
  again.flush(out);
  CHECK(out.str().empty());
  auto log = nlohmann::json::parse(sarif_log("gpmc", "1.2.3", true));
  CHECK(log["version"] == "2.1.0");
  const auto& run = log["runs"][0];
  CHECK(run["tool"]["driver"]["version"] == "1.2.3");
  CHECK(run["tool"]["driver"]["rules"][0]["id"] == "UnitMismatch");
  CHECK(run["results"][0]["level"] == "warning");
  CHECK(run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "m.gpm");
  CHECK(run["results"][0]["locations"][0]["physicalLocation"]["region"]["endColumn"] == 6);
  CHECK(run["invocations"][0]["executionSuccessful"] == true);
}

TEST_CASE("diagnostic format: invalid UTF-8 in a message never fails the JSON") {
  SourceManager sm;
  FileId f = sm.add("m\xff.gpm", "x\n");
  DiagnosticEngine diags(sm);
  diags.error(DiagKind::SyntaxError, {f, 0, 1}, "bad \xc3 byte");
  std::string line = diagnostic_json_line(diags, diags.diagnostics()[0]);
  auto object = nlohmann::json::parse(line);
  CHECK(object["message"].get<std::string>().find("bad") == 0);
  sarif_add(diags, diags.diagnostics()[0]);
  auto log = nlohmann::json::parse(sarif_log("gpmc", "0", false));
  CHECK(log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "m%FF.gpm");
  sarif_clear();
}
