// offload_waits_test.cpp: an offload's cross-stream dependencies (`kernel after h2d(next)`) lowered to the
// overlap engine: the engine's makespan against a schedule computed by hand, and the --timeline file.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "test_support.h"
#include "driver/pipeline.h"
#include "engines/overlap/overlap_engine.h"

using namespace gpm;
namespace fs = std::filesystem;

namespace {

using gpm::test::approx;

// Round numbers: host link L+o 10 us, 1 GB/s and gap 2 us each way; two copy engines, no implicit sync.
const char* kMachine = R"(machine round {
  node {
    memory m { bw = 100 GB/s }
    cpu c { cores = 1 }
    gpu g { mem_bw = 500 GB/s; peak_fp64 = 1 Tflop/s; copy_engines = 2; implicit_sync = 0 }
    link m <-> c { bw = 100 GB/s }
    link c <-> g { bw = 1 GB/s; latency = 10 us; gap = 2 us }
  }
}
)";

// Three streams, 1 MB in and out per stream (1 ms each) and a 2 ms kernel per stream.
std::string app(const std::string& waits) {
  return "app levels {\n  offload stencil { strategy = streams; streams = 3; bytes_in = 3 MB; bytes_out = 3 MB; "
         "time = 6 ms\n    " +
         waits + "\n  }\n}\n";
}

struct Files {
  fs::path dir = fs::temp_directory_path() / ("gpm_offload_waits_" + std::to_string(::getpid()));
  fs::path machine = dir / "round.gpm", app_file = dir / "levels.gpm";
  explicit Files(const std::string& app_text) {
    fs::create_directories(dir);
    std::ofstream(machine) << kMachine;
    std::ofstream(app_file) << app_text;
  }
  ~Files() { fs::remove_all(dir); }
};

struct Result {
  double total_s = 0;
  std::vector<engines::OverlapInterval> intervals;
  std::vector<std::vector<int>> after;
};

Result evaluate(const std::string& waits) {
  Files files(app(waits));
  driver::Session session(driver::Options{{}, GPM_SOURCE_DIR "/stdlib", ""});
  auto compiled = session.compile(files.machine.string(), files.app_file.string(), {});
  std::string messages;
  for (const auto& d : session.diags().diagnostics()) messages += session.diags().render(d);
  REQUIRE_MESSAGE(compiled, messages);
  backend::Evaluation evaluation;
  REQUIRE(session.evaluate(*compiled, evaluation));
  REQUIRE(compiled->module.engine_calls.size() == 1);
  const auto& call = compiled->module.engine_calls[0];
  auto* engine = dynamic_cast<const engines::OverlapEngine*>(call.engine.get());
  REQUIRE(engine);
  auto values = backend::compute_values(compiled->module, compiled->bound);
  std::vector<double> inputs;
  for (auto id : call.inputs) inputs.push_back(values.at(size_t(id)));
  Result r;
  r.total_s = evaluation.total_s;
  r.intervals = engine->schedule(inputs).intervals;
  for (const auto& op : engine->ops()) r.after.push_back(op.after);
  return r;
}

}  // namespace

TEST_CASE("offload waits: kernel after h2d(next) delays each kernel to the next stream's copy (hand schedule)") {
  // h2d copies back to back on one engine: 10 us + 1 ms, then a gap of 2 us before each next one:
  // ends 1.010, 2.012, 3.014 ms.
  // Without waits: kernels 1.010-3.010, 3.010-5.010, 5.010-7.010; d2h each 10 us after its kernel (the d2h engine
  // idles in between): 3.020-4.020, 5.020-6.020, 7.020-8.020 ms.
  Result free_run = evaluate("");
  CHECK(free_run.total_s == approx(8.020e-3));
  // With waits: kernel 0 waits for h2d 1 (2.012), kernel 1 for h2d 2 (3.014) and the compute engine (4.012),
  // kernel 2 for the compute engine: 2.012-4.012, 4.012-6.012, 6.012-8.012; d2h 4.022-5.022, 6.022-7.022,
  // 8.022-9.022 ms.
  Result halo = evaluate("kernel after h2d(next)");
  CHECK(halo.total_s == approx(9.022e-3));
  REQUIRE(halo.intervals.size() == 9);
  CHECK(halo.intervals[3].start_s == approx(2.012e-3));
  CHECK(halo.intervals[4].start_s == approx(4.012e-3));
  CHECK(halo.intervals[5].end_s == approx(8.012e-3));
  CHECK(halo.intervals[8].end_s == approx(9.022e-3));
  // Operations in issue order: h2d 0-2, kernels 3-5, d2h 6-8; the last stream has no next.
  CHECK(halo.after[3] == std::vector<int>{1});
  CHECK(halo.after[4] == std::vector<int>{2});
  CHECK(halo.after[5].empty());
}

TEST_CASE("offload waits: waits the stream order implies add nothing; all, first, last and previous resolve") {
  Result implied = evaluate("kernel after h2d(first), h2d(previous)\n    d2h after kernel(previous)");
  CHECK(implied.total_s == approx(8.020e-3));
  CHECK(implied.after[3].empty());  // stream 0's first and own copy: its stream order already
  CHECK(implied.after[4] == std::vector<int>{0});
  CHECK(implied.after[5] == std::vector<int>{0, 1});
  CHECK(implied.after[7] == std::vector<int>{3});
  // Every kernel after every copy: the kernels start when the last copy ends (3.014 ms) and run back to back.
  Result all = evaluate("kernel after h2d(all)");
  CHECK(all.intervals[3].start_s == approx(3.014e-3));
  CHECK(all.total_s == approx(3.014e-3 + 6e-3 + 10e-6 + 1e-3));
  Result last = evaluate("kernel after h2d(last)");
  CHECK(last.total_s == approx(all.total_s));
}

TEST_CASE("offload waits: the --timeline file holds the delayed schedule") {
  Files files(app("kernel after h2d(next)"));
  fs::path timeline = files.dir / "timeline.json";
  std::string command = std::string(GPMC_PATH) + " eval " + files.machine.string() + " " + files.app_file.string() +
                        " --timeline " + timeline.string() + " > /dev/null";
  REQUIRE(std::system(command.c_str()) == 0);
  std::ifstream in(timeline);
  auto doc = nlohmann::json::parse(in);
  std::vector<nlohmann::json> slices;
  for (const auto& e : doc["traceEvents"])
    if (e["ph"] == "X" && e["pid"] == 2) slices.push_back(e);  // the offload's schedule (process 1: the app)
  REQUIRE(slices.size() == 9);
  // The kernels' slices (microseconds) start where the hand schedule puts them.
  CHECK(slices[3]["ts"].get<double>() == approx(2012.0));
  CHECK(slices[4]["ts"].get<double>() == approx(4012.0));
  CHECK(slices[5]["ts"].get<double>() + slices[5]["dur"].get<double>() == approx(8012.0));
}
