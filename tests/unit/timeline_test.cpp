// timeline_test.cpp: `gpmc eval --timeline` for a whole app: the trace's slices checked against the report (every
// operation once per execution, in the order and at the times the task tree gives, phases as spans, no overlap on
// a track), for jacobi2d on Summit and for an app with a par and an offload.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "backend/report/report.h"
#include "driver/pipeline.h"
#include "test_support.h"

using namespace gpm;
namespace fs = std::filesystem;
using test::approx;

namespace {

struct Traced {
  backend::Evaluation report;
  nlohmann::json doc;
  std::vector<nlohmann::json> app_slices;         // pid 1, phases excluded
  std::vector<nlohmann::json> phase_slices;       // pid 1, tid 1
  std::map<int, std::vector<nlohmann::json>> by_pid;  // every slice, by process
};

// Runs `gpmc eval MACHINE APP --timeline FILE` and evaluates the same pair in-process for its report.
Traced trace(const std::string& machine, const std::string& app) {
  fs::path dir = fs::temp_directory_path() / ("gpm_timeline_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path file = dir / "timeline.json";
  std::string command =
      std::string(GPMC_PATH) + " eval " + machine + " " + app + " --timeline " + file.string() + " > /dev/null";
  REQUIRE(std::system(command.c_str()) == 0);
  Traced t;
  std::ifstream in(file);
  t.doc = nlohmann::json::parse(in);
  fs::remove_all(dir);
  driver::Session s{driver::Options{{}, GPM_SOURCE_DIR "/stdlib"}};
  auto compiled = s.compile(machine, app, {});
  REQUIRE(compiled);
  REQUIRE(s.evaluate(*compiled, t.report));
  for (const auto& e : t.doc["traceEvents"]) {
    if (e["ph"] != "X") continue;
    t.by_pid[e["pid"].get<int>()].push_back(e);
    if (e["pid"] != 1) continue;
    (e["tid"] == 1 ? t.phase_slices : t.app_slices).push_back(e);
  }
  return t;
}

// Microsecond times equal to 1e-9 relative, or 1e-9 us absolute near 0.
bool near(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); }

double end_of(const nlohmann::json& slice) { return slice["ts"].get<double>() + slice["dur"].get<double>(); }

// No two slices of one track overlap (to a relative 1e-9).
void check_tracks(const std::vector<nlohmann::json>& slices) {
  std::map<int, std::vector<std::pair<double, double>>> tracks;
  for (const auto& s : slices) tracks[s["tid"].get<int>()].push_back({s["ts"].get<double>(), end_of(s)});
  for (auto& track : tracks) {
    int tid = track.first;  // not a structured binding: clang 14 cannot capture one (CAPTURE)
    auto& spans = track.second;
    std::sort(spans.begin(), spans.end());
    for (size_t i = 1; i < spans.size(); ++i) {
      CAPTURE(tid);
      CHECK(spans[i].first >= spans[i - 1].second * (1 - 1e-9));
    }
  }
}

}  // namespace

TEST_CASE("timeline: jacobi2d on Summit, every operation of every iteration in order, ending at the total") {
  Traced t = trace(GPM_SOURCE_DIR "/machines/summit.gpm", GPM_SOURCE_DIR "/apps/jacobi2d.gpm");
  REQUIRE(t.report.phases.size() == 1);
  const auto& phase = t.report.phases[0];
  REQUIRE(t.phase_slices.size() == 1);
  CHECK(t.phase_slices[0]["name"] == phase.name);
  CHECK(t.phase_slices[0]["dur"].get<double>() == approx(phase.time_s * 1e6));
  // One slice per execution of each operation: its count from the report, in the report's order each iteration.
  size_t executions = 0;
  for (const auto& row : phase.rows) executions += row.is_block ? 0 : size_t(row.count);
  REQUIRE(t.app_slices.size() == executions);
  size_t ops = 0;
  for (const auto& row : phase.rows) ops += row.is_block ? 0 : 1;
  double clock = 0;
  for (size_t k = 0; k < t.app_slices.size(); ++k) {
    const auto& row = phase.rows[k % ops];
    CAPTURE(k);
    CHECK(t.app_slices[k]["name"] == row.name);
    CHECK(t.app_slices[k]["dur"].get<double>() == approx(row.each_s * 1e6));
    CHECK(near(t.app_slices[k]["ts"].get<double>(), clock));  // a seq: each starts where the last ended
    clock = end_of(t.app_slices[k]);
  }
  CHECK(clock == approx(t.report.total_s * 1e6));
  check_tracks(t.app_slices);
}

TEST_CASE("timeline: a par's branches start together on separate tracks; an offload's schedule is a process") {
  fs::path dir = fs::temp_directory_path() / ("gpm_timeline_app_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path app = dir / "app.gpm";
  std::ofstream(app, std::ios::binary)
      << "app m {\n kernel k { time = 5 ms }\n kernel j { time = 2 ms }\n phase setup { overhead 1 ms }\n"
         " par {\n  run k\n  run j\n  run j\n }\n"
         " offload o { strategy = streams; streams = 2; bytes_in = 8 MiB; bytes_out = 8 MiB; time = 2 ms }\n}\n";
  Traced t = trace(GPM_SOURCE_DIR "/machines/das4_k20m.gpm", app.string());
  fs::remove_all(dir);
  REQUIRE(t.phase_slices.size() == 3);
  CHECK(t.phase_slices[1]["ts"].get<double>() == approx(1000.0));  // the par starts after the 1 ms setup
  // The par's three runs start at 1 ms, each on a track of its own (they run at once on one GPU's kernels track).
  std::vector<nlohmann::json> runs;
  for (const auto& s : t.app_slices)
    if (s["name"].get<std::string>().rfind("run ", 0) == 0) runs.push_back(s);
  REQUIRE(runs.size() == 3);
  for (const auto& r : runs) CHECK(r["ts"].get<double>() == approx(1000.0));
  CHECK(runs[0]["tid"] != runs[1]["tid"]);
  CHECK(runs[1]["tid"] != runs[2]["tid"]);
  check_tracks(t.app_slices);
  // The offload starts when the par ends (6 ms) and its engine schedule (process 2) starts there too.
  REQUIRE(t.by_pid.count(2) == 1);
  double first = 1e300, last = 0;
  for (const auto& s : t.by_pid[2]) {
    first = std::min(first, s["ts"].get<double>());
    last = std::max(last, end_of(s));
  }
  CHECK(first == approx(6000.0));
  CHECK(last == approx(t.report.total_s * 1e6));
}

TEST_CASE("timeline: a par's streams with a flows block draw the block's flows side by side, no track overlapping") {
  // tests/golden/eval/par_flows_copies.gpm: the block's `a` and `b` run at once (2.4985 ms), then the flow after
  // `a`; the other stream's kernel (1 ms) then its copy, to 3.5015 ms.
  Traced t = trace(GPM_SOURCE_DIR "/tests/golden/loops/inputs/four_gpus.gpm",
                   GPM_SOURCE_DIR "/tests/golden/eval/par_flows_copies.gpm");
  REQUIRE(t.by_pid.count(2) == 1);
  const auto& slices = t.by_pid[2];
  REQUIRE(slices.size() == 5);
  std::map<std::string, nlohmann::json> by_name;
  for (const auto& s : slices) by_name[s["name"].get<std::string>()] = s;
  CHECK(by_name["a"]["ts"].get<double>() == 0.0);
  CHECK(by_name["b"]["ts"].get<double>() == 0.0);
  CHECK(by_name["a"]["tid"] != by_name["b"]["tid"]);  // at once: two lanes of the stream's flows
  CHECK(by_name["p -> g[3]"]["ts"].get<double>() == approx(end_of(by_name["a"])));
  CHECK(end_of(by_name["a"]) == approx(2498.5));
  CHECK(by_name["run k on g[2]"]["dur"].get<double>() == approx(1000.0));
  double last = 0;
  for (const auto& s : slices) last = std::max(last, end_of(s));
  CHECK(last == approx(t.report.total_s * 1e6));
  CHECK(last == approx(3501.5));
  check_tracks(slices);
  // The lanes are named after the stream: `flows / stream 0` and `flows / stream 0 (2)`.
  std::vector<std::string> names;
  for (const auto& e : t.doc["traceEvents"])
    if (e["ph"] == "M" && e["pid"] == 2 && e["name"] == "thread_name") names.push_back(e["args"]["name"]);
  CHECK(std::find(names.begin(), names.end(), "flows / stream 0 (2)") != names.end());
}
