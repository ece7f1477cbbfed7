// parts_test.cpp: E2E section 3.4's iteration parts for operations that mix kernels and transfers: an offload and
// a mapped run put their kernels' own time under kernels and the rest under overhead, nothing lost.
#include <doctest/doctest.h>

#include <filesystem>
#include <algorithm>
#include <fstream>
#include <set>
#include <string>

#include <unistd.h>

#include "test_support.h"
#include "backend/report/report.h"
#include "driver/pipeline.h"

using namespace gpm;
namespace fs = std::filesystem;


namespace {

// Evaluates an app written in `text` on machines/das4_k20m.gpm.
backend::Evaluation evaluate_on_k20m(const std::string& text) {
  fs::path dir = fs::temp_directory_path() / ("gpm_parts_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path app = dir / "app.gpm";
  std::ofstream(app, std::ios::binary) << text;
  driver::Session s{driver::Options{{}, GPM_SOURCE_DIR "/stdlib"}};
  auto compiled = s.compile(GPM_SOURCE_DIR "/machines/das4_k20m.gpm", app.string(), {});
  fs::remove_all(dir);
  REQUIRE(compiled);
  backend::Evaluation e;
  REQUIRE(s.evaluate(*compiled, e));
  return e;
}

}  // namespace

TEST_CASE("iteration parts: an offload and a mapped run split into kernels and overhead that sum to their time") {
  backend::Evaluation e = evaluate_on_k20m(
      "app m {\n kernel k { time = 5 ms }\n iterate 4 {\n  run k { mapped_in = 32 MiB }\n"
      "  offload o { strategy = explicit; bytes_in = 8 MiB; bytes_out = 8 MiB; time = 2 ms }\n }\n}\n");
  backend::Parts p = backend::iteration_parts(e);
  CHECK(p.iterations == 4);
  CHECK(p.kernels_s == test::approx(5e-3 + 2e-3));  // the two kernels' own times
  CHECK(p.communication_s == 0);
  CHECK(4 * (p.kernels_s + p.overhead_s) == test::approx(e.total_s));  // the rest is overhead: nothing lost
  CHECK(p.overhead_s > 0);
}

TEST_CASE("iteration parts: on every shipped app and machine that evaluate together, the parts sum to the total") {
  std::vector<fs::path> machines, apps;
  for (const auto& e : fs::directory_iterator(GPM_SOURCE_DIR "/machines"))
    if (e.path().extension() == ".gpm") machines.push_back(e.path());
  for (const auto& e : fs::directory_iterator(GPM_SOURCE_DIR "/apps"))
    if (e.path().extension() == ".gpm") apps.push_back(e.path());
  std::sort(machines.begin(), machines.end());
  std::sort(apps.begin(), apps.end());
  int pairs = 0;
  std::set<std::string> apps_checked;
  for (const auto& app : apps)
    for (const auto& machine : machines) {
      driver::Session s{driver::Options{{}, GPM_SOURCE_DIR "/stdlib"}};
      auto compiled = s.compile(machine.string(), app.string(), {});
      if (!compiled) continue;  // an app written for another kind of machine
      backend::Evaluation e;
      if (!s.evaluate(*compiled, e)) continue;
      backend::Parts p = backend::iteration_parts(e);
      INFO(app.filename().string(), " on ", machine.filename().string());
      CHECK(p.any);
      CHECK(p.iterations * (p.communication_s + p.kernels_s + p.overhead_s) == test::approx(e.total_s));
      ++pairs;
      apps_checked.insert(app.filename().string());
    }
  CHECK(pairs >= 40);
  CHECK(apps_checked.size() == apps.size());  // every app runs on some machine
}

TEST_CASE("iteration parts: in a par only the longest branch counts, so parts do not add up branches") {
  backend::Evaluation e = evaluate_on_k20m(
      "app m {\n kernel a { time = 5 ms }\n kernel b { time = 3 ms }\n iterate 2 {\n  par {\n   run a\n   run b\n"
      "   overhead 4 ms\n  }\n  overhead 1 ms\n }\n}\n");
  backend::Parts p = backend::iteration_parts(e);
  CHECK(e.total_s == test::approx(12e-3));
  CHECK(p.iterations == 2);
  CHECK(p.kernels_s == test::approx(5e-3));   // `run a` bounds the par; `run b` and the 4 ms overhead do not count
  CHECK(p.overhead_s == test::approx(1e-3));  // the overhead after the par
}
