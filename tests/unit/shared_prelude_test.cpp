// shared_prelude_test.cpp: sessions that share a prelude parsed once (driver::Session::parsed_prelude, used by the
// fuzz targets) give the results and the diagnostics of sessions that parse it themselves, check after check.
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "driver/pipeline.h"

using gpm::driver::Options;
using gpm::driver::Session;

namespace {

const std::string kRoot = GPM_SOURCE_DIR;

// The total time of MACHINE and APP, and the diagnostics, as `gpmc eval` would compute them.
std::string evaluate(Session& session, const std::string& machine, const std::string& app) {
  std::ostringstream out;
  auto compiled = session.compile(kRoot + "/" + machine, kRoot + "/" + app, {});
  gpm::backend::Evaluation evaluation;
  if (compiled && session.evaluate(*compiled, evaluation)) out << "total " << evaluation.total_s << "\n";
  session.diags().flush(out);
  return out.str();
}

}  // namespace

TEST_CASE("shared prelude: the same results and diagnostics as a prelude parsed by each session") {
  Session first(Options{});
  auto prelude = first.parsed_prelude();
  REQUIRE(prelude);
  CHECK(prelude->files.size() >= 6);
  CHECK(prelude->modules.size() == prelude->files.size());
  const char* pairs[][2] = {{"machines/summit.gpm", "apps/jacobi2d.gpm"},
                            {"machines/dgx1.gpm", "apps/halo2d_8gpu.gpm"},
                            {"machines/titan.gpm", "apps/bandwidth.gpm"},
                            {"machines/summit.gpm", "apps/dgx_h100_step.gpm"}};  // an error: the app needs 8 GPUs
  for (int round = 0; round < 2; ++round)  // a second round re-checks the shared modules sema annotated
    for (const auto& pair : pairs) {
      Session own(Options{});
      Session shared(Options{}, *prelude);
      std::string expected = evaluate(own, pair[0], pair[1]);
      CHECK(!expected.empty());
      CHECK_MESSAGE(evaluate(shared, pair[0], pair[1]) == expected, pair[0], " ", pair[1]);
    }
}

TEST_CASE("shared prelude: a session that adopts it reads no prelude file") {
  Session first(Options{});
  auto prelude = first.parsed_prelude();
  REQUIRE(prelude);
  Options nowhere;
  nowhere.stdlib_dir = "/nonexistent/stdlib";  // loading the prelude from here would fail
  Session shared(nowhere, *prelude);
  shared.add_generated_file("m.gpm", "param x = roofline_compute_time(1 Gflop, 1 Tflop/s)\n");
  CHECK(shared.check({"m.gpm"}));
}
