// diagnostics_test.cpp: unit tests of the diagnostic engine: rendering, kinds, notes, limits.
#include <doctest/doctest.h>

#include <set>
#include <sstream>
#include <string>

#include "support/diagnostics.h"

using namespace gpm::support;

TEST_CASE("diagnostics: an error renders as file:line:col: error: message [Kind] with line and caret") {
  SourceManager sm;
  FileId f = sm.add("model.gpm", "param x = 1 s + 1 B\n");
  DiagnosticEngine diags(sm);
  diags.error(DiagKind::UnitMismatch, {f, 16, 19}, "cannot add `time` and `bytes`");
  REQUIRE(diags.diagnostics().size() == 1);
  CHECK(diags.render(diags.diagnostics()[0]) ==
        "model.gpm:1:17: error: cannot add `time` and `bytes` [UnitMismatch]\n"
        "  param x = 1 s + 1 B\n"
        "                  ^~~\n");
}

TEST_CASE("diagnostics: the caret is placed on the right line of a multi-line file") {
  SourceManager sm;
  FileId f = sm.add("m.gpm", "param a = 1\nparam b = zz\nparam c = 3\n");
  DiagnosticEngine diags(sm);
  diags.error(DiagKind::UnknownIdentifier, {f, 22, 24}, "unknown name `zz`");
  CHECK(diags.render(diags.diagnostics()[0]) ==
        "m.gpm:2:11: error: unknown name `zz` [UnknownIdentifier]\n"
        "  param b = zz\n"
        "            ^~\n");
}

TEST_CASE("diagnostics: an empty range still gets one caret") {
  SourceManager sm;
  FileId f = sm.add("m.gpm", "param a =");
  DiagnosticEngine diags(sm);
  diags.error(DiagKind::SyntaxError, {f, 9, 9}, "unexpected end of file");
  CHECK(diags.render(diags.diagnostics()[0]) ==
        "m.gpm:1:10: error: unexpected end of file [SyntaxError]\n"
        "  param a =\n"
        "           ^\n");
}

TEST_CASE("diagnostics: caret columns count UTF-8 code points") {
  SourceManager sm;
  // `é` is two bytes; the caret must sit under `x`, one cell after it.
  FileId f = sm.add("m.gpm", "// \xC3\xA9 x\n");
  DiagnosticEngine diags(sm);
  diags.error(DiagKind::UnexpectedCharacter, {f, 6, 7}, "here");
  CHECK(diags.render(diags.diagnostics()[0]) ==
        "m.gpm:1:6: error: here [UnexpectedCharacter]\n"
        "  // \xC3\xA9 x\n"
        "       ^\n");
}

TEST_CASE("diagnostics: control characters and invalid bytes in the source line show as ?") {
  SourceManager sm;
  FileId f = sm.add("m.gpm", std::string("a\x01" "b\xFF" "c\n"));
  DiagnosticEngine diags(sm);
  diags.error(DiagKind::InvalidEncoding, {f, 3, 4}, "bad byte");
  std::string out = diags.render(diags.diagnostics()[0]);
  CHECK(out.find("  a?b?c\n") != std::string::npos);
  CHECK(out.find('\x01') == std::string::npos);
  CHECK(out.find('\xFF') == std::string::npos);
}

TEST_CASE("diagnostics: an error without a location renders as gpmc: error: message [Kind]") {
  SourceManager sm;
  DiagnosticEngine diags(sm);
  diags.error(DiagKind::UsageError, {}, "no input files");
  CHECK(diags.render(diags.diagnostics()[0]) == "gpmc: error: no input files [UsageError]\n");
}

TEST_CASE("diagnostics: notes render after their error, with location and caret but no kind") {
  SourceManager sm;
  FileId f = sm.add("m.gpm", "param x = 1\nparam x = 2\n");
  DiagnosticEngine diags(sm);
  diags.error(DiagKind::DuplicateDefinition, {f, 18, 19}, "`x` is defined twice");
  diags.note({f, 6, 7}, "first defined here");
  REQUIRE(diags.diagnostics().size() == 1);
  REQUIRE(diags.diagnostics()[0].notes.size() == 1);
  CHECK(diags.render(diags.diagnostics()[0]) ==
        "m.gpm:2:7: error: `x` is defined twice [DuplicateDefinition]\n"
        "  param x = 2\n"
        "        ^\n"
        "m.gpm:1:7: note: first defined here\n"
        "  param x = 1\n"
        "        ^\n");
}

TEST_CASE("diagnostics: a note before any error is ignored") {
  SourceManager sm;
  DiagnosticEngine diags(sm);
  diags.note({}, "orphan");
  CHECK_FALSE(diags.has_errors());
  CHECK(diags.diagnostics().empty());
}

TEST_CASE("diagnostics: every kind has a unique name and a summary") {
  auto kinds = all_diag_kinds();
  CHECK(kinds.size() >= 40);
  std::set<std::string> names;
  for (DiagKind kind : kinds) {
    std::string name = diag_kind_name(kind);
    std::string summary = diag_kind_summary(kind);
    CHECK_MESSAGE(!name.empty(), "kind ", int(kind));
    CHECK_MESSAGE(name != "Unknown", "kind ", int(kind));
    CHECK_MESSAGE(!summary.empty(), name);
    CHECK_MESSAGE(names.insert(name).second, "duplicate name ", name);
  }
  CHECK(std::string(diag_kind_name(DiagKind::DivisionByZero)) == "DivisionByZero");
  CHECK(std::string(diag_kind_name(DiagKind::FileNotFound)) == "FileNotFound");
  CHECK(std::string(diag_kind_name(DiagKind::UsageError)) == "UsageError");
}

TEST_CASE("diagnostics: flush writes each diagnostic once, in order") {
  SourceManager sm;
  FileId f = sm.add("m.gpm", "abc\n");
  DiagnosticEngine diags(sm);
  diags.error(DiagKind::SyntaxError, {f, 0, 1}, "first");
  diags.error(DiagKind::SyntaxError, {f, 1, 2}, "second");
  std::ostringstream out1;
  diags.flush(out1);
  std::string text = out1.str();
  CHECK(text.find("first") < text.find("second"));
  std::ostringstream out2;
  diags.flush(out2);
  CHECK(out2.str().empty());
  diags.error(DiagKind::SyntaxError, {f, 2, 3}, "third");
  std::ostringstream out3;
  diags.flush(out3);
  CHECK(out3.str().find("third") != std::string::npos);
  CHECK(out3.str().find("first") == std::string::npos);
  CHECK(diags.error_count() == 3);
}

TEST_CASE("diagnostics: beyond kMaxErrors errors are counted as dropped and summarised once") {
  SourceManager sm;
  DiagnosticEngine diags(sm);
  for (size_t i = 0; i < DiagnosticEngine::kMaxErrors + 7; ++i)
    diags.error(DiagKind::SyntaxError, {}, "e" + std::to_string(i));
  CHECK(diags.error_count() == DiagnosticEngine::kMaxErrors + 7);  // every error counts; 50 are kept
  CHECK(diags.diagnostics().size() == DiagnosticEngine::kMaxErrors);
  diags.note({}, "dropped note");  // attaches to nothing once errors are dropped
  CHECK(diags.diagnostics().back().notes.empty());
  std::ostringstream out;
  diags.flush(out);
  CHECK(out.str().find("gpmc: note: 7 further errors not shown") != std::string::npos);
  std::ostringstream again;
  diags.flush(again);
  CHECK(again.str().empty());
}

TEST_CASE("diagnostics: the same error at the same place is reported once, with its notes") {
  SourceManager sm;
  FileId f = sm.add("m.gpm", "param x = 1\n");
  DiagnosticEngine diags(sm);
  diags.error(DiagKind::UnknownIdentifier, {f, 6, 7}, "same");
  diags.note({f, 0, 5}, "first note");
  diags.error(DiagKind::UnknownIdentifier, {f, 6, 7}, "same");
  diags.note({f, 0, 5}, "second note");
  diags.error(DiagKind::UnknownIdentifier, {f, 6, 7}, "other");
  REQUIRE(diags.error_count() == 2);
  CHECK(diags.diagnostics()[0].notes.size() == 1);
  CHECK(diags.diagnostics()[1].message == "other");
}

TEST_CASE("diagnostics: a range spanning lines underlines to the end of its first line") {
  SourceManager sm;
  FileId f = sm.add("m.gpm", "let x = (1 +\n  2)\n");
  DiagnosticEngine diags(sm);
  diags.error(DiagKind::SyntaxError, {f, 8, 16}, "multi");
  CHECK(diags.render(diags.diagnostics()[0]) ==
        "m.gpm:1:9: error: multi [SyntaxError]\n"
        "  let x = (1 +\n"
        "          ^~~~\n");
}

TEST_CASE("diagnostics: a tab before the caret is repeated in the caret line so the caret lines up") {
  SourceManager sm;
  FileId f = sm.add("m.gpm", "\tparam x = y\n");
  DiagnosticEngine diags(sm);
  diags.error(DiagKind::UnknownIdentifier, {f, 11, 12}, "unknown name `y`");
  CHECK(diags.render(diags.diagnostics()[0]) ==
        "m.gpm:1:12: error: unknown name `y` [UnknownIdentifier]\n"
        "  \tparam x = y\n"
        "  \t          ^\n");
}

TEST_CASE("diagnostics: a long line is shown as a window around the caret") {
  SourceManager sm;
  std::string line = std::string(200, 'a') + "X" + std::string(200, 'b');
  FileId f = sm.add("m.gpm", line + "\n");
  DiagnosticEngine diags(sm);
  diags.error(DiagKind::SyntaxError, {f, 200, 201}, "here");
  std::string out = diags.render(diags.diagnostics()[0]);
  CHECK(out.rfind("m.gpm:1:201: error: here [SyntaxError]\n", 0) == 0);
  size_t first_nl = out.find('\n');
  size_t second_nl = out.find('\n', first_nl + 1);
  std::string text = out.substr(first_nl + 1, second_nl - first_nl - 1);
  std::string marks = out.substr(second_nl + 1, out.size() - second_nl - 2);
  CHECK(text.size() < 120);
  CHECK(text.rfind("  ...", 0) == 0);
  CHECK(text.substr(text.size() - 3) == "...");
  // The caret sits under the X.
  REQUIRE(marks.find('^') != std::string::npos);
  CHECK(text[marks.find('^')] == 'X');
}

TEST_CASE("diagnostics: a warning is rendered as a warning and is no error, unless warnings are errors") {
  SourceManager sm;
  FileId f = sm.add("m.gpm", "par {\n");
  DiagnosticEngine diags(sm);
  diags.warning(DiagKind::UnmodelledSharing, {f, 0, 3}, "shared");
  diags.note({f, 0, 3}, "here");
  CHECK_FALSE(diags.has_errors());
  CHECK(diags.error_count() == 0);
  CHECK(diags.warning_count() == 1);
  CHECK(diags.diagnostics().at(0).notes.size() == 1);
  std::ostringstream out;
  diags.flush(out);
  CHECK(out.str().find("m.gpm:1:1: warning: shared [UnmodelledSharing]") == 0);
  CHECK(diags.location({f, 0, 3}).line == 1);
  DiagnosticEngine strict(sm);
  strict.set_warnings_as_errors(true);
  strict.warning(DiagKind::UnmodelledSharing, {f, 0, 3}, "shared");
  CHECK(strict.has_errors());
  std::ostringstream err;
  strict.flush(err);
  CHECK(err.str().find("m.gpm:1:1: error: shared [UnmodelledSharing]") == 0);
}
