// parts_test.cpp: E2E section 3.4's iteration parts for operations that mix kernels and transfers: an offload and
// a mapped run put their kernels' own time under kernels and the rest under overhead, nothing lost.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "test_support.h"
#include "backend/report/report.h"
#include "driver/pipeline.h"

using namespace gpm;
namespace fs = std::filesystem;


TEST_CASE("iteration parts: an offload and a mapped run split into kernels and overhead that sum to their time") {
  fs::path dir = fs::temp_directory_path() / ("gpm_parts_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path app = dir / "app.gpm";
  std::ofstream(app, std::ios::binary)
      << "app m {\n kernel k { time = 5 ms }\n iterate 4 {\n  run k { mapped_in = 32 MiB }\n"
         "  offload o { strategy = explicit; bytes_in = 8 MiB; bytes_out = 8 MiB; time = 2 ms }\n }\n}\n";
  driver::Session s{driver::Options{{}, GPM_SOURCE_DIR "/stdlib"}};
  auto compiled = s.compile(GPM_SOURCE_DIR "/machines/das4_k20m.gpm", app.string(), {});
  REQUIRE(compiled);
  backend::Evaluation e;
  REQUIRE(s.evaluate(*compiled, e));
  fs::remove_all(dir);
  backend::Parts p = backend::iteration_parts(e);
  CHECK(p.iterations == 4);
  CHECK(p.kernels_s == test::approx(5e-3 + 2e-3));  // the two kernels' own times
  CHECK(p.communication_s == 0);
  CHECK(4 * (p.kernels_s + p.overhead_s) == test::approx(e.total_s));  // the rest is overhead: nothing lost
  CHECK(p.overhead_s > 0);
}
