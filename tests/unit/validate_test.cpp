// validate_test.cpp: unit tests of gpmc validate: CSV reading, MAPE and WMAPE, and points evaluated through a session.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>

#include "driver/pipeline.h"
#include "test_support.h"
#include "validate/csv_table.h"
#include "validate/error_metrics.h"
#include "validate/validation.h"

using namespace gpm;
using gpm::test::approx;

namespace {

// Writes `text` to a fresh file under the build's temporary folder and returns its path.
std::string write_temp(const std::string& name, const std::string& text) {
  std::string path = std::string("validate_test_") + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

}  // namespace

TEST_CASE("validate: MAPE and WMAPE follow their definitions (AHEAD VI-C)") {
  // A = 1, 3; P = 2, 3: |P - A| = 1, 0. MAPE = (1/1 + 0/3) / 2 = 0.5. WMAPE = (1 + 0) / (1 + 3) = 0.25.
  auto s = validate::summarize_errors({1, 3}, {2, 3});
  CHECK(s.count == 2);
  CHECK(s.mape == approx(0.5));
  CHECK(s.wmape == approx(0.25));
  CHECK(s.measured_total_s == approx(4));
  CHECK(s.predicted_total_s == approx(5));
  // AHEAD's form: sum over i of W_i |A_i - P_i| / A_i with W_i = A_i / sum A equals the ratio above.
  std::vector<double> a{2e-6, 5e-3, 1.0}, p{3e-6, 4e-3, 1.5};
  double ahead = 0, total = 0;
  for (double x : a) total += x;
  for (size_t i = 0; i < a.size(); ++i) ahead += (a[i] / total) * std::fabs(a[i] - p[i]) / a[i];
  CHECK(validate::summarize_errors(a, p).wmape == approx(ahead));
  CHECK(validate::relative_error(90, 100) == approx(-0.1));
  CHECK(validate::relative_error(110, 100) == approx(0.1));
  CHECK(validate::summarize_errors({}, {}).count == 0);
}

TEST_CASE("validate: the CSV reader skips comments and blank lines and keeps cells' places") {
  support::SourceManager sources;
  support::DiagnosticEngine diags(sources);
  std::string path = write_temp("cells.csv", "# comment\n\n  # indented comment\nbytes , measured_s\r\n 1 KiB,2e-6\n");
  validate::CsvTable table;
  REQUIRE(validate::read_csv_table(path, "measurements", sources, diags, table));
  CHECK(table.header.line == 4);
  REQUIRE(table.header.cells.size() == 2);
  CHECK(table.header.cells[0].text == "bytes");
  CHECK(table.header.cells[1].text == "measured_s");
  REQUIRE(table.rows.size() == 1);
  CHECK(table.rows[0].line == 5);
  const auto& cell = table.rows[0].cells[0];
  CHECK(cell.text == "1 KiB");
  auto at = sources.line_column(cell.range.file, cell.range.begin);
  CHECK(at.line == 5);
  CHECK(at.column == 2);
  std::remove(path.c_str());
}

TEST_CASE("validate: ragged rows and files without rows are MalformedCsv") {
  for (const char* text : {"a,measured_s\n1,2,3\n", "a,b,measured_s\n1,2\n", "", "# only\n", "a,measured_s\n"}) {
    support::SourceManager sources;
    support::DiagnosticEngine diags(sources);
    std::string path = write_temp("ragged.csv", text);
    validate::CsvTable table;
    CHECK_FALSE(validate::read_csv_table(path, "measurements", sources, diags, table));
    CHECK_MESSAGE(gpm::test::DiagnosticsView{diags}.has(support::DiagKind::MalformedCsv), text);
    std::remove(path.c_str());
  }
}

TEST_CASE("validate: points evaluated through a session give eq. 10 and the metrics") {
  driver::Session session{driver::Options{{}, GPM_SOURCE_DIR "/stdlib"}};
  auto compiled = session.compile(GPM_SOURCE_DIR "/tests/golden/eval/inputs/one_gpu.gpm",
                                  GPM_SOURCE_DIR "/tests/golden/validate/inputs/copy_app.gpm", {});
  REQUIRE(compiled);
  // one_gpu: 10 us + n / 10 GB/s. 1 MB: 110 us; measured 100 us -> +10%. 10 MB: 1010 us; measured 1010 us -> 0.
  std::string path = write_temp("points.csv", "bytes,measured_s\n1MB,100e-6\n10 MB,1010e-6\n");
  validate::CsvTable table;
  REQUIRE(validate::read_csv_table(path, "measurements", session.sources(), session.diags(), table));
  for (auto backend : {validate::Backend::Interp, validate::Backend::Jit}) {
    validate::Validation v;
    REQUIRE(validate::validate_points(session, *compiled, table, backend, v));
    REQUIRE(v.points.size() == 2);
    CHECK(v.points[0].predicted_s == approx(110e-6));
    CHECK(v.points[1].predicted_s == approx(1010e-6));
    CHECK(v.points[0].error == approx(0.1));
    CHECK(v.points[1].error == doctest::Approx(0).epsilon(1e-12));
    CHECK(v.errors.mape == approx(0.05));
    CHECK(v.errors.wmape == approx(10e-6 / 1110e-6));
  }
  std::remove(path.c_str());
}

TEST_CASE("validate: a column that shapes the model is lowered again per point") {
  driver::Session session{driver::Options{{}, GPM_SOURCE_DIR "/stdlib"}};
  auto compiled = session.compile(GPM_SOURCE_DIR "/tests/golden/validate/inputs/two_links.gpm",
                                  GPM_SOURCE_DIR "/tests/golden/validate/shape_column.gpm", {});
  REQUIRE(compiled);
  std::string path = write_temp("gpus.csv", "gpu,measured_s\n0,1e-4\n1,1e-4\n");
  validate::CsvTable table;
  REQUIRE(validate::read_csv_table(path, "measurements", session.sources(), session.diags(), table));
  validate::Validation v;
  REQUIRE(validate::validate_points(session, *compiled, table, validate::Backend::Interp, v));
  CHECK(v.points[0].predicted_s == approx(110e-6));  // 1 MB over 10 GB/s
  CHECK(v.points[1].predicted_s == approx(60e-6));   // 1 MB over 20 GB/s
  std::remove(path.c_str());
}
