// mapped_run_test.cpp: `run K { mapped_in; mapped_out }` (van Werkhoven et al. eq. 6) through the whole pipeline:
// the three alternatives, the link's mapped bandwidths, and both backends.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "test_support.h"
#include "backend/interp/interpreter.h"
#include "backend/jit/jit.h"
#include "driver/pipeline.h"

using namespace gpm;
namespace fs = std::filesystem;

TEST_CASE("mapped run: eq. 6 on the DAS-4 K20m with Table II's mapped G, the same through the JIT") {
  fs::path dir = fs::temp_directory_path() / ("gpm_mapped_run_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path app = dir / "app.gpm";
  std::ofstream(app, std::ios::binary)
      << "app m {\n kernel k { time = 5 ms }\n run k { mapped_in = 32 MiB; mapped_out = 16 MiB }\n"
         " run k { mapped_out = 64 MiB }\n}\n";
  driver::Session s{driver::Options{{}, GPM_SOURCE_DIR "/stdlib"}};
  auto compiled = s.compile(GPM_SOURCE_DIR "/machines/das4_k20m.gpm", app.string(), {});
  REQUIRE(compiled);
  backend::Evaluation interp, jit;
  REQUIRE(s.evaluate(*compiled, interp));
  REQUIRE(backend::jit::evaluate(compiled->module, compiled->bound, s.diags(), jit));
  fs::remove_all(dir);
  const double lo = 9.420e-6 + 9.023e-6, g_hd = 2.491988e-10, g_dh = 2.236644e-10;  // Table I L+o, Table II G
  // 32 MiB in: 8.36 ms > 5 ms kernel > 3.75 ms out.
  REQUIRE(interp.phases.size() == 2);
  const backend::Row& first = interp.phases[0].rows[0];
  CHECK(first.each_s == test::approx(lo + 32 * 1048576.0 * g_hd));
  CHECK(first.bound == "mapped input (eq. 6)");
  CHECK(first.part == "overhead");                      // E2E 3.4: the exposed mapped transfer is overhead,
  CHECK(first.kernels_each_s == test::approx(5e-3));    // the kernel's own 5 ms is kernels
  // Only output: 64 MiB out (15.0 ms) bounds it.
  CHECK(interp.phases[1].rows[0].each_s == test::approx(lo + 64 * 1048576.0 * g_dh));
  CHECK(interp.phases[1].rows[0].bound == "mapped output (eq. 6)");
  CHECK(jit.total_s == interp.total_s);
}
