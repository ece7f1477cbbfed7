// table_file_test.cpp: a `table` declaration's CSV file of numbers: what it reads (signs, exponents, blanks, CRLF,
// comments, a path from the declaring file's folder) and what it refuses, each refusal at its line and column.
#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "frontend/loader.h"
#include "frontend/table_file.h"
#include "test_support.h"

using namespace gpm::frontend;

namespace {

// A table declared in a file of its own folder and read from `text`; the diagnostics and the declaration kept.
struct Read {
  SourceManager sources;
  DiagnosticEngine diags{sources};
  TableDecl table;
  bool ok = false;
  explicit Read(const std::string& text) {
    gpm::test::TempFile file("table_file", "t.csv", text);
    table.name = "t";
    table.path = "t.csv";
    ok = read_table_file(table, file.path.parent_path().string(), sources, diags);
  }
  std::string where() const {  // line:column of the first diagnostic
    const auto& d = diags.diagnostics().at(0);
    auto lc = sources.line_column(d.range.file, d.range.begin);
    return std::to_string(lc.line) + ":" + std::to_string(lc.column);
  }
};

}  // namespace

TEST_CASE("table file: numbers with signs, fractions and exponents, blanks, comments and CRLF") {
  Read r("# a comment\r\n 1, -2.5 ,+3e2\r\n\r\n.5,5.,-0\r\n  # indented comment\n7,8,9");
  INFO(gpm::test::DiagnosticsView{r.diags}.all_messages());
  REQUIRE(r.ok);
  CHECK(r.table.loaded);
  CHECK(r.table.rows == 3);
  CHECK(r.table.cols == 3);
  const std::vector<double> want = {1, -2.5, 300, 0.5, 5, 0, 7, 8, 9};
  CHECK(r.table.cells == want);
  CHECK_FALSE(std::signbit(r.table.cells[5]));  // -0 reads as 0
}

TEST_CASE("table file: what is not a decimal number is MalformedTable at its cell") {
  for (const auto& item : std::vector<std::pair<std::string, std::string>>{{"1,0x10\n", "1:3"},
                                                                                {"inf\n", "1:1"},
                                                                                {"1\nnan\n", "2:1"},
                                                                                {"1e\n", "1:1"},
                                                                                {"\"1\"\n", "1:1"},
                                                                                {"-\n", "1:1"},
                                                                                {"1 2\n", "1:1"},
                                                                                {"1;2\n", "1:1"},
                                                                                {"1,2,\n", "1:5"},
                                                                                {"2,1e400\n", "1:3"}}) {
    const std::string text = item.first, at = item.second;
    Read r(text);
    INFO(text);
    CHECK_FALSE(r.ok);
    CHECK_FALSE(r.table.loaded);
    REQUIRE(gpm::test::DiagnosticsView{r.diags}.has(DiagKind::MalformedTable));
    CHECK(r.where() == at);
  }
}

TEST_CASE("table file: rows of different widths, no numbers, bad bytes") {
  {
    Read r("1,2\n3,4\n5\n");
    CHECK_FALSE(r.ok);
    CHECK(gpm::test::DiagnosticsView{r.diags}.has(DiagKind::MalformedTable));
    CHECK(r.where() == "3:1");
  }
  {
    Read r("# only a comment\n\n   \n");
    CHECK_FALSE(r.ok);
    CHECK(gpm::test::DiagnosticsView{r.diags}.has(DiagKind::MalformedTable));
  }
  {
    Read r(std::string("1,2\n3,\xff\n"));
    CHECK_FALSE(r.ok);
    CHECK(gpm::test::DiagnosticsView{r.diags}.has(DiagKind::InvalidEncoding));
    CHECK(r.where() == "2:3");
  }
}

TEST_CASE("table file: the loader reads a table from the declaring file's folder, an imported file's from its own") {
  gpm::test::TempFile data("table_loader", "sizes.csv", "1,2,3\n");
  const auto dir = data.path.parent_path();
  gpm::test::TempFile sub_data("table_loader_sub", "sizes.csv", "4\n5\n");
  gpm::test::TempFile imported("table_loader_sub", "lib.gpm", "table inner = \"sizes.csv\"\n");
  gpm::test::TempFile root("table_loader", "main.gpm",
                           "import \"" + imported.path.string() + "\"\ntable outer = \"sizes.csv\"\nparam x = 1\n");
  SourceManager sources;
  DiagnosticEngine diags{sources};
  LoaderOptions options;
  options.prelude.clear();
  Loader loader(sources, diags, options);
  REQUIRE(loader.load_root(root.path.string()));
  INFO(gpm::test::DiagnosticsView{diags}.all_messages());
  CHECK_FALSE(diags.has_errors());
  const TableDecl* outer = nullptr;
  const TableDecl* inner = nullptr;
  for (const auto* m : loader.modules())
    for (const auto& d : m->decls)
      if (d->kind == DeclKind::Table) (d->name == "outer" ? outer : inner) = static_cast<const TableDecl*>(d.get());
  REQUIRE(outer);
  REQUIRE(inner);
  CHECK((outer->rows == 1 && outer->cols == 3));
  CHECK((inner->rows == 2 && inner->cols == 1));
  CHECK(outer->cells == std::vector<double>{1, 2, 3});
  CHECK(inner->cells == std::vector<double>{4, 5});
}
