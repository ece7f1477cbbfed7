// overlap_test.cpp: the overlap engine against the closed forms of van Werkhoven et al. (Figure 7, eq. 1-6,
// stdlib/overlap.gpm) in every scenario of Figures 1-3: 1, 2 and 4 streams, dominant kernel and dominant
// transfers, for each device class; and the engine's schedule rules (gaps, dependencies, implicit sync).
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "test_support.h"
#include "driver/pipeline.h"
#include "engines/overlap/overlap_engine.h"

#include <fmt/format.h>

using namespace gpm;
using engines::OverlapOp;
using engines::OverlapOpKind;
namespace fs = std::filesystem;

namespace {

using gpm::test::approx;

// The link and kernel parameters of one scenario, in seconds and bytes.
struct Scenario {
  double lo_hd = 9.420e-6, bw_hd = 1 / 8.318392e-11, g_hd = 2.503e-6;  // van Werkhoven Table I
  double lo_dh = 9.023e-6, bw_dh = 1 / 7.924734e-11, g_dh = 2.674e-6;
  double b_hd = 0, b_dh = 0, t_e = 0;
  int n = 1;
};

// Inputs: 0-5 the link (lo, bw, g per direction), 6 bytes per h2d chunk, 7 per d2h chunk, 8 kernel time per stream.
std::vector<double> inputs(const Scenario& s) {
  return {s.lo_hd, s.bw_hd, s.g_hd, s.lo_dh, s.bw_dh, s.g_dh, s.b_hd / s.n, s.b_dh / s.n, s.t_e / s.n};
}

// The streamed pattern of section IV, issued breadth first: every h2d, then every kernel, then every d2h.
engines::OverlapEngine streamed(int copy_engines, bool implicit_sync, int n) {
  std::vector<OverlapOp> ops;
  for (int i = 0; i < n; ++i) ops.push_back({OverlapOpKind::H2D, i, "in", 6, -1, -1, {}});
  for (int i = 0; i < n; ++i) ops.push_back({OverlapOpKind::Kernel, i, "kernel", -1, -1, 8, {}});
  for (int i = 0; i < n; ++i) ops.push_back({OverlapOpKind::D2H, i, "out", 7, -1, -1, {}});
  return engines::OverlapEngine({copy_engines, implicit_sync}, {0, 1, 2}, {3, 4, 5}, {3, 4, 5}, std::move(ops), 9);
}

// Evaluates stdlib/overlap.gpm's closed forms through the pipeline: one param per scenario and equation.
struct ClosedForms {
  driver::Session session{driver::Options{{}, GPM_SOURCE_DIR "/stdlib"}};
  backend::Evaluation result;
  fs::path dir, path;
  explicit ClosedForms(const std::vector<std::pair<std::string, std::string>>& params) {
    dir = fs::temp_directory_path() / ("gpm_overlap_test_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    path = dir / "forms.gpm";
    std::ofstream out(path, std::ios::binary);
    out << "app forms {\n";
    for (const auto& [name, expr] : params) out << "  param " << name << " = " << expr << "\n";
    out << "}\n";
    out.close();
    auto compiled = session.compile(GPM_SOURCE_DIR "/machines/das4_gtxtitan.gpm", path.string(), {});
    std::string messages;
    for (const auto& d : session.diags().diagnostics()) messages += session.diags().render(d);
    REQUIRE_MESSAGE(compiled, messages);
    REQUIRE_MESSAGE(session.evaluate(*compiled, result), messages);
  }
  ~ClosedForms() {
    std::error_code ec;
    fs::remove(path, ec);
    fs::remove(dir, ec);
  }
  double operator[](const std::string& name) const {
    for (const auto& p : result.params)
      if (p.name == name) return p.value.value;
    FAIL("no param " << name);
    return 0;
  }
};

std::string call(const std::string& fn, const Scenario& s) {
  return fmt::format("{}({} s, {} B, {} B/s, {} s, {} s, {} s, {} B, {} B/s, {} s, {})", fn, s.lo_hd, s.b_hd, s.bw_hd,
                     s.g_hd, s.t_e, s.lo_dh, s.b_dh, s.bw_dh, s.g_dh, s.n);
}

// Figures 1-3: dominant kernel (t_e 100 ms against 2 x 8 MiB) and dominant transfers (t_e 1 ms against
// 2 x 64 MiB), each with 1, 2 and 4 streams.
std::vector<std::pair<std::string, Scenario>> figure_scenarios() {
  std::vector<std::pair<std::string, Scenario>> out;
  for (int n : {1, 2, 4}) {
    Scenario k;
    k.b_hd = 8 * 1048576.0, k.b_dh = 8 * 1048576.0, k.t_e = 100e-3, k.n = n;
    out.push_back({fmt::format("kernel{}", n), k});
    Scenario t;
    t.b_hd = 64 * 1048576.0, t.b_dh = 64 * 1048576.0, t.t_e = 1e-3, t.n = n;
    out.push_back({fmt::format("transfers{}", n), t});
  }
  return out;
}

}  // namespace

TEST_CASE("overlap: the engine equals eq. 1-5 in every scenario of Figures 1-3 (1, 2, 4 streams; each class)") {
  auto scenarios = figure_scenarios();
  std::vector<std::pair<std::string, std::string>> params;
  for (const auto& [name, s] : scenarios)
    for (const char* eq : {"overlap_eq1", "overlap_eq2", "overlap_eq3", "overlap_eq4", "overlap_eq5"})
      params.push_back({fmt::format("{}_{}", eq, name), call(eq, s)});
  ClosedForms forms(params);
  for (const auto& scenario : scenarios) {
    const auto& name = scenario.first;  // not a structured binding: clang 14 cannot capture one (CAPTURE)
    const auto& s = scenario.second;
    CAPTURE(name);
    bool kernel = name.rfind("kernel", 0) == 0;
    // Figure 1: implicit synchronisation, 1 copy engine (GTX 680): eq. 1 (dominant kernel) or eq. 2.
    double fig1 = streamed(1, true, s.n).time(inputs(s));
    CHECK(fig1 == approx(forms[fmt::format("{}_{}", kernel ? "overlap_eq1" : "overlap_eq2", name)]));
    // Figure 2: no implicit synchronisation, 1 copy engine (GTX Titan): eq. 3 or eq. 4.
    double fig2 = streamed(1, false, s.n).time(inputs(s));
    CHECK(fig2 == approx(forms[fmt::format("{}_{}", kernel ? "overlap_eq3" : "overlap_eq4", name)]));
    // Figure 3: no implicit synchronisation, 2 copy engines (K20): eq. 5 in both scenarios.
    double fig3 = streamed(2, false, s.n).time(inputs(s));
    CHECK(fig3 == approx(forms[fmt::format("overlap_eq5_{}", name)]));
    // More overlap never hurts: the classes are ordered.
    CHECK(fig3 <= fig2 * (1 + 1e-12));
    CHECK(fig2 <= fig1 * (1 + 1e-12));
    if (s.n > 1) {
      // With streams, each class beats the serial time (no overlap) in the dominant-kernel scenario.
      Scenario one = s;
      one.n = 1;
      if (kernel) CHECK(fig2 < streamed(1, false, 1).time(inputs(one)));
    }
  }
}

TEST_CASE("overlap: the engine equals the class closed forms at random points (dominance not assumed)") {
  std::mt19937_64 rng(20140526);
  std::uniform_real_distribution<double> bytes(1, 256e6), time(1e-6, 50e-3);
  std::vector<Scenario> points;
  std::vector<std::pair<std::string, std::string>> params;
  for (int i = 0; i < 40; ++i) {
    Scenario s;
    s.b_hd = std::round(bytes(rng)), s.b_dh = std::round(bytes(rng)), s.t_e = time(rng), s.n = 1 + int(rng() % 64);
    points.push_back(s);
    for (int c = 0; c < 3; ++c) {
      std::string fn = fmt::format("overlap_streams_time({}, {}, ", c == 0 ? 1 : 0, c == 2 ? 2 : 1);
      params.push_back({fmt::format("p{}_{}", i, c), fn + call("", s).substr(1)});
    }
  }
  ClosedForms forms(params);
  for (size_t i = 0; i < points.size(); ++i) {
    CAPTURE(i);
    CHECK(streamed(1, true, points[i].n).time(inputs(points[i])) == approx(forms[fmt::format("p{}_0", i)]));
    CHECK(streamed(1, false, points[i].n).time(inputs(points[i])) == approx(forms[fmt::format("p{}_1", i)]));
    CHECK(streamed(2, false, points[i].n).time(inputs(points[i])) == approx(forms[fmt::format("p{}_2", i)]));
  }
}

TEST_CASE("overlap: a device-mapped kernel equals eq. 6 whichever component dominates") {
  Scenario s;
  std::vector<std::tuple<double, double, double>> cases = {{64e6, 1e6, 1e-3}, {1e6, 1e6, 50e-3}, {1e6, 96e6, 1e-3}};
  std::vector<std::pair<std::string, std::string>> params;
  for (size_t i = 0; i < cases.size(); ++i) {
    auto [in, out, t] = cases[i];
    params.push_back({fmt::format("m{}", i), fmt::format("overlap_eq6({} s, {} B, {} B/s, {} s, {} s, {} B, {} B/s)",
                                                          s.lo_hd, in, s.bw_hd, t, s.lo_dh, out, s.bw_dh)});
  }
  ClosedForms forms(params);
  for (size_t i = 0; i < cases.size(); ++i) {
    auto [in, out, t] = cases[i];
    engines::OverlapEngine e({1, true}, {0, 1, 2}, {3, 4, 5}, {3, 4, 5},
                             {{OverlapOpKind::MappedKernel, 0, "mapped", 6, 7, 8, {}}}, 9);
    std::vector<double> v = {s.lo_hd, s.bw_hd, s.g_hd, s.lo_dh, s.bw_dh, s.g_dh, in, out, t};
    CHECK(e.time(v) == approx(forms[fmt::format("m{}", i)]));
  }
}

TEST_CASE("overlap: LogGP gaps: back-to-back copies of one direction pay g, a copy after idling pays L+o") {
  // Four h2d copies in four streams, nothing else: L+o + 4 kG + 3 g, the stream copy of section V.
  Scenario s;
  s.b_hd = 16777216, s.n = 4;
  std::vector<OverlapOp> ops;
  for (int i = 0; i < 4; ++i) ops.push_back({OverlapOpKind::H2D, i, "in", 6, -1, -1, {}});
  engines::OverlapEngine e({1, false}, {0, 1, 2}, {3, 4, 5}, {3, 4, 5}, ops, 9);
  CHECK(e.time(inputs(s)) == approx(s.lo_hd + s.b_hd / s.bw_hd + 3 * s.g_hd));
  auto sched = e.schedule(inputs(s));
  REQUIRE(sched.intervals.size() == 4);
  for (size_t i = 1; i < 4; ++i) CHECK(sched.intervals[i].start_s == sched.intervals[i - 1].end_s);
}

TEST_CASE("overlap: cross-stream dependencies delay a kernel until another stream's copy has ended") {
  // Two streams; the kernel of stream 0 also needs stream 1's input (like buoydiff's level k - 1).
  std::vector<OverlapOp> ops = {{OverlapOpKind::H2D, 0, "in0", 0, -1, -1, {}},
                                {OverlapOpKind::H2D, 1, "in1", 0, -1, -1, {}},
                                {OverlapOpKind::Kernel, 0, "k0", -1, -1, 1, {1}},
                                {OverlapOpKind::Kernel, 1, "k1", -1, -1, 1, {}}};
  // Inputs: 0 bytes, 1 kernel time, 2 L+o, 3 bandwidth, 4 gap.
  engines::OverlapEngine e({1, false}, {2, 3, 4}, {2, 3, 4}, {2, 3, 4}, ops, 5);
  std::vector<double> v = {1000, 1e-3, 1e-6, 1e9, 0.5e-6};
  double in0 = 1e-6 + 1e-6, in1 = in0 + 0.5e-6 + 1e-6;
  CHECK(e.time(v) == approx(in1 + 2e-3));
  auto sched = e.schedule(v);
  CHECK(sched.intervals[2].start_s == approx(in1));
  // Without the dependency the kernel of stream 0 starts after its own copy.
  ops[2].after.clear();
  engines::OverlapEngine free_engine({1, false}, {2, 3, 4}, {2, 3, 4}, {2, 3, 4}, ops, 5);
  CHECK(free_engine.schedule(v).intervals[2].start_s == approx(in0));
}

TEST_CASE("overlap: bad inputs are errors, not numbers; bad structure is a logic error") {
  auto e = streamed(1, false, 2);
  Scenario s;
  s.b_hd = 1e6, s.n = 2;
  auto v = inputs(s);
  v[1] = 0;  // zero bandwidth
  CHECK(std::isnan(e.time(v)));
  CHECK_FALSE(e.run(v).error.empty());
  v = inputs(s);
  v[8] = -1;
  CHECK_FALSE(e.run(v).error.empty());
  CHECK_FALSE(e.run(std::vector<double>{1, 2}).error.empty());
  CHECK_THROWS_AS(engines::OverlapEngine({3, false}, {0, 1, 2}, {0, 1, 2}, {0, 1, 2}, {}, 3), std::logic_error);
  CHECK_THROWS_AS(engines::OverlapEngine({1, false}, {0, 1, 2}, {0, 1, 2}, {0, 1, 2},
                                         {{OverlapOpKind::Kernel, 0, "k", -1, -1, 0, {0}}}, 3),
                  std::logic_error);
}

TEST_CASE("overlap: run reports the makespan, busy terms and a timeline matching the schedule") {
  Scenario s;
  s.b_hd = 8e6, s.b_dh = 8e6, s.t_e = 4e-3, s.n = 4;
  auto e = streamed(2, false, 4);
  auto r = e.run(inputs(s));
  REQUIRE(r.error.empty());
  CHECK(r.time_s == e.time(inputs(s)));
  CHECK(r.detail["streams"] == 4);
  CHECK(r.detail["copy_engines"] == 2);
  const auto& timeline = r.detail["timeline"];
  REQUIRE(timeline.size() == 12);
  double last = 0;
  for (const auto& item : timeline) {
    CHECK(item["end_s"].get<double>() >= item["start_s"].get<double>());
    last = std::max(last, item["end_s"].get<double>());
  }
  CHECK(last == r.time_s);
  CHECK(timeline[0]["engine"] == "h2d copy engine");
  CHECK(timeline[4]["engine"] == "compute");
  CHECK(timeline[8]["engine"] == "d2h copy engine");
}
