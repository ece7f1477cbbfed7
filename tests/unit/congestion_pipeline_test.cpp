// congestion_pipeline_test.cpp: `flows` blocks and `arbitration` declarations through the whole pipeline on the
// shipped machines and apps: the PCIe paper's full example (acceptance 2) and the search's order counts.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>

#include "backend/interp/interpreter.h"
#include "backend/report/report.h"
#include "driver/pipeline.h"
#include "engines/congestion/engine.h"
#include <fmt/format.h>

#include "test_support.h"

using namespace gpm;

namespace {

const std::string kRoot = GPM_SOURCE_DIR;

struct Compiled {
  driver::Session session{driver::Options{{}, GPM_SOURCE_DIR "/stdlib"}};
  std::unique_ptr<driver::Compiled> compiled;
  backend::Evaluation result;
  std::string messages() {
    std::string out;
    for (const auto& d : session.diags().diagnostics()) out += session.diags().render(d);
    return out;
  }
};

std::unique_ptr<Compiled> compile(const std::string& machine, const std::string& app,
                                  const std::vector<driver::Setting>& settings = {}) {
  auto c = std::make_unique<Compiled>();
  c->compiled = c->session.compile(kRoot + "/" + machine, kRoot + "/" + app, settings);
  REQUIRE_MESSAGE(c->compiled, c->messages());
  REQUIRE_MESSAGE(c->session.evaluate(*c->compiled, c->result), c->messages());
  return c;
}

// The inputs of the model's first engine call (a search's congestion engine), from the compiled values.
std::vector<double> engine_inputs(const Compiled& c) {
  auto values = backend::compute_values(c.compiled->module, c.compiled->bound);
  std::vector<double> inputs;
  for (auto v : c.compiled->module.engine_calls[0].inputs) inputs.push_back(values[size_t(v)]);
  return inputs;
}

const engines::congestion::CongestionEngine& engine_of(const Compiled& c) {
  REQUIRE(c.compiled->module.engine_calls.size() == 1);
  auto* e = dynamic_cast<const engines::congestion::CongestionEngine*>(
      c.compiled->module.engine_calls[0].engine.get());
  REQUIRE(e);
  return *e;
}

// The end time of each flow of one `flows` block (its items `body`) on two switches of three GPUs each.
std::vector<std::pair<std::string, double>> end_times(const std::string& body) {
  const std::string machine =
      "machine m {\n  node {\n    switch s[2]\n    gpu g[6]\n    link s[0] <-> g[0], s[0] <-> g[1], s[0] <-> g[2] "
      "{ bw = 10 GB/s }\n    link s[1] <-> g[3], s[1] <-> g[4], s[1] <-> g[5] { bw = 10 GB/s }\n    link s[0] <-> "
      "s[1] { bw = 15 GB/s }\n  }\n}\n";
  test::Pipeline p;
  p.lower(machine + "app a {\n  flows {\n" + body + "  }\n}\n", {});
  REQUIRE_MESSAGE(!p.diags.has_errors(), p.all_messages());
  backend::Evaluation out;
  REQUIRE(backend::evaluate(p.ir, p.bound, p.diags, out));
  std::vector<std::pair<std::string, double>> ends;
  for (const auto& f : out.phases[0].rows[0].detail["flows"])
    ends.push_back({f["name"].get<std::string>(), f["end_s"].get<double>()});
  return ends;
}

}  // namespace

TEST_CASE("reference: T2 four copies with tau = 0.2 end at 36.118 ms (c, d) and 65.013 ms (a, b)") {
  auto c = compile("machines/cs_storm_t2.gpm", "apps/t2_four_copies.gpm", {{"tau", "0.2"}});
  REQUIRE(c->result.phases.size() == 1);
  const auto& row = c->result.phases[0].rows[0];
  const auto& flows = row.detail["flows"];
  REQUIRE(flows.size() == 4);
  const double expected_ms[] = {65.013, 65.013, 36.118, 36.118};  // Martinasso et al., Table II
  for (size_t i = 0; i < 4; ++i) {
    CAPTURE(i);
    CHECK(std::abs(flows[i]["end_s"].get<double>() * 1e3 - expected_ms[i]) < 0.01);
    CHECK(flows[i]["start_s"].get<double>() == 0);
    CHECK(flows[i]["bytes"].get<double>() == 300e6);
  }
  CHECK(flows[1]["src"] == "g[1]");
  CHECK(flows[1]["dst"] == "g[4]");
  CHECK(c->result.total_s * 1e3 == doctest::Approx(65.013).epsilon(1e-4));
}

TEST_CASE("reference: the halo apps have 20,736 and 1,679,616 orders on T2") {
  CHECK(engine_of(*compile("machines/cs_storm_t2.gpm", "apps/halo2d_8gpu.gpm")).order_count() == 20736);
  CHECK(engine_of(*compile("machines/cs_storm_t2.gpm", "apps/halo3d_8gpu.gpm")).order_count() == 1679616);
}

TEST_CASE("congestion pipeline: the 2D halo search is the same with 1 and 3 threads") {
  auto c = compile("machines/cs_storm_t2.gpm", "apps/halo2d_8gpu.gpm");
  const auto& e = engine_of(*c);
  std::vector<double> inputs = engine_inputs(*c);
  auto one = e.search(inputs, 1, nullptr), three = e.search(inputs, 3, nullptr);
  REQUIRE(one.error.empty());
  CHECK(one.orders == 20736);
  CHECK(one.fastest_s == three.fastest_s);
  CHECK(one.median_s == three.median_s);
  CHECK(one.slowest_s == three.slowest_s);
  CHECK(one.fastest_index == three.fastest_index);
  // No order beats three faces sent back to back at full speed by a GPU with three neighbours.
  CHECK(one.fastest_s >= 3 * 25.2829e-3 * (1 - 1e-12));
  CHECK(one.slowest_s / one.fastest_s > 1.5);
}

TEST_CASE("congestion pipeline: max-min all-to-all on the DGX-1 hybrid cube-mesh, shares computed by hand") {
  auto c = compile("machines/dgx1.gpm", "apps/alltoall_8gpu.gpm");
  const auto& flows = c->result.phases[0].rows[0].detail["flows"];
  REQUIRE(flows.size() == 56);
  // NVLink neighbours (each quad fully connected, GPU i with i+4) have a 20 GB/s link each to themselves, at the
  // write efficiency of AHEAD eq. 7 (256/272). The 24 other pairs cross PCIe and QPI: each PLX-to-CPU link carries
  // the 6 flows of its two GPUs (3 each), the tightest link (QPI carries 12 in 38.4 GB/s, a GPU's own PCIe link 3),
  // so each gets pcie_bw / 6, with Gen3 x16 at the write efficiency of eq. 5 (256/268).
  const double chunk = 100e6, nvlink = 20e9 * 256 / 272, pcie = 16 * 8e9 * 128 / 130 / 8 * 256 / 268;
  int over_nvlink = 0, over_pcie = 0;
  for (const auto& f : flows) {
    int src = f["src"].get<std::string>()[2] - '0', dst = f["dst"].get<std::string>()[2] - '0';
    bool neighbours = (src / 4 == dst / 4) || (src % 4 == dst % 4);
    double expected = neighbours ? chunk / nvlink : chunk / (pcie / 6);
    CAPTURE(f["name"].get<std::string>());
    CHECK(std::abs(f["end_s"].get<double>() - expected) <= 1e-9 * expected);
    (neighbours ? over_nvlink : over_pcie)++;
  }
  CHECK(over_nvlink == 32);
  CHECK(over_pcie == 24);
}

TEST_CASE("congestion pipeline: max-min all-to-all through the DGX A100 NVSwitch") {
  auto c = compile("machines/dgx_a100.gpm", "apps/alltoall_8gpu.gpm");
  // Each GPU's 12 x 25 GB/s link to the switch carries its 7 flows out (and 7 in): 300/7 GB/s each.
  for (const auto& f : c->result.phases[0].rows[0].detail["flows"])
    CHECK(std::abs(f["end_s"].get<double>() - 100e6 / (300e9 / 7)) <= 1e-9);
}

TEST_CASE("congestion pipeline: 6,000 written flows are evaluated; a pattern beyond the cap is refused before expanding") {
  auto model = [](int flows) {
    std::string text = "machine m {\n  node {\n    switch s\n    gpu g[4]\n    link s <-> g[*] { bw = 10 GB/s }\n  }\n}\n";
    text += "app a {\n  flows {\n";
    for (int i = 0; i < flows; ++i) text += fmt::format("    g[{}] -> g[{}] 1 MB\n", i % 4, (i + 1) % 4);
    return text + "  }\n}\n";
  };
  test::Pipeline written;
  written.lower(model(6000), {});
  REQUIRE_MESSAGE(!written.diags.has_errors(), written.all_messages());
  backend::Evaluation out;
  REQUIRE(backend::evaluate(written.ir, written.bound, written.diags, out));
  // Each GPU sends 1,500 MB and receives 1,500 MB over its own 10 GB/s link: 150 ms, however shared.
  CHECK(std::abs(out.total_s - 0.150) < 1e-9);
  // 12,000 endpoints all to all: 143,988,000 flows, above 2^27; refused from the count alone.
  test::Pipeline huge;
  huge.lower("machine m {\n  node {\n    cpu h[12000]\n  }\n}\napp a {\n  flows {\n    all_to_all h[*] 1 MB\n  }\n}\n", {});
  CHECK(huge.has(support::DiagKind::ModelTooLarge));
  CHECK(huge.all_messages().find("143988000 flows") != std::string::npos);
}

TEST_CASE("congestion pipeline: a pattern's flows equal the same flows written out") {
  std::string all, ring, shift, pairs;
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 6; ++j)
      if (i != j) all += fmt::format("    g[{}] -> g[{}] 3 MB\n", i, j);
    ring += fmt::format("    g[{}] -> g[{}] 3 MB\n", i, (i + 1) % 6);
    shift += fmt::format("    g[{}] -> g[{}] 3 MB\n", i, (i + 4) % 6);
    pairs += fmt::format("    g[{}] -> g[{}] 3 MB\n", i, i ^ 1);
  }
  CHECK(end_times("    all_to_all g[*] 3 MB\n") == end_times(all));
  CHECK(end_times("    ring g[*] 3 MB\n") == end_times(ring));
  CHECK(end_times("    shift(-2) g[*] 3 MB\n") == end_times(shift));
  CHECK(end_times("    pairs g[*] 3 MB\n") == end_times(pairs));
  CHECK(end_times("    pairs(1) g[*] 3 MB\n") == end_times(pairs));
}

TEST_CASE("congestion pipeline: flows made by loops equal the same flows written out, and loops nest") {
  std::string all, ring;
  for (int i = 0; i < 6; ++i) {
    for (int j = 1; j < 6; ++j) all += fmt::format("    g[{}] -> g[{}] {} MB\n", i, (i + j) % 6, j);
    ring += fmt::format("    g[{}] -> g[{}] 3 MB\n", i, (i + 1) % 6);
  }
  CHECK(end_times("    for i in 0 .. 5 { g[i] -> g[mod(i + 1, 6)] 3 MB }\n") == end_times(ring));
  CHECK(end_times("    for i in 0 .. 5 { for j in 1 .. 5 { g[i] -> g[mod(i + j, 6)] j * 1 MB } }\n") ==
        end_times(all));
  // A loop that holds a pattern repeats the pattern.
  CHECK(end_times("    for i in 1 .. 2 { ring g[*] 3 MB }\n") == end_times(ring + ring));
}

TEST_CASE("congestion pipeline: the 2D halo search split into ranges and summarized equals the whole search") {
  // What `mpirun gpmc search` does: each rank's range of orders, gathered in order, then one summary.
  auto c = compile("machines/cs_storm_t2.gpm", "apps/halo2d_8gpu.gpm");
  const auto& e = engine_of(*c);
  std::vector<double> inputs = engine_inputs(*c);
  auto whole = e.search(inputs, 2, nullptr, true);
  REQUIRE(whole.error.empty());
  std::vector<double> makespans(size_t(e.order_count()));
  uint64_t cut[] = {0, 1000, 7777, 20735, 20736};
  for (size_t k = 0; k + 1 < std::size(cut); ++k)
    CHECK(e.search_range(inputs, cut[k], cut[k + 1], 1 + int(k % 2), nullptr, makespans.data() + cut[k]) ==
          UINT64_MAX);
  auto split = e.summarize(makespans, true);
  CHECK(split.orders == whole.orders);
  CHECK(split.fastest_s == whole.fastest_s);
  CHECK(split.median_s == whole.median_s);
  CHECK(split.slowest_s == whole.slowest_s);
  CHECK(split.fastest_index == whole.fastest_index);
  CHECK(split.slowest_index == whole.slowest_index);
  CHECK(split.fastest_order == whole.fastest_order);
  CHECK(split.makespans == whole.makespans);
}

TEST_CASE("congestion pipeline: a table's listing builds the same table from the first flows, steps and links only") {
  // 90 flows of different sizes around a star of 12 hosts: more steps, flows and directed links (24) than a table
  // shows.
  std::string app = "app around {\n  flows {\n";
  for (int k = 0; k < 90; ++k)
    app += fmt::format("    h[{}] -> h[{}] {} kB\n", k % 12, (k % 12 + 1 + k / 12) % 12 == k % 12 ? (k + 1) % 12 : (k % 12 + 1 + k / 12) % 12,
                       (k + 1) * (k + 7));
  app += "  }\n}\n";
  test::TempFile machine("congestion_pipeline_test", "star.gpm",
                         "machine star {\n  arbitration maxmin\n  node {\n    cpu h[12]\n    switch s\n"
                         "    link s <-> h[*] { bw = 10 GB/s }\n  }\n}\n");
  test::TempFile app_file("congestion_pipeline_test", "app.gpm", app);
  auto evaluate = [&]() {
    auto c = std::make_unique<Compiled>();
    c->compiled = c->session.compile(machine.path.string(), app_file.path.string(), {});
    REQUIRE_MESSAGE(c->compiled, c->messages());
    REQUIRE_MESSAGE(c->session.evaluate(*c->compiled, c->result), c->messages());
    return c;
  };
  auto whole = evaluate();
  engines::congestion::CongestionEngine::set_listing(
      {backend::kTableFlows, backend::kTableSteps, backend::kTableLinks, backend::kTableFlows});
  auto listed = evaluate();
  engines::congestion::CongestionEngine::set_listing({});
  const auto& full = whole->result.phases[0].rows[0].detail;
  const auto& brief = listed->result.phases[0].rows[0].detail;
  REQUIRE(full["steps"].size() > backend::kTableSteps);
  REQUIRE(full["links"].size() > backend::kTableLinks);
  CHECK(full["flows"].size() == 90);
  REQUIRE(brief["steps"].size() == backend::kTableSteps);
  CHECK(brief["steps_total"].get<size_t>() == full["steps"].size());
  CHECK(brief["links"].size() == backend::kTableLinks);
  CHECK(brief["links_total"].get<size_t>() == full["links"].size());
  CHECK(brief["flows"].size() == backend::kTableFlows);
  CHECK(brief["flows_total"].get<size_t>() == 90);
  // Each listed step: the same times, and the first factors of the whole list with the count of all of them.
  bool some_step_cut = false;
  for (size_t i = 0; i < backend::kTableSteps; ++i) {
    const auto &b = brief["steps"][i], &w = full["steps"][i];
    CHECK(b["start_s"] == w["start_s"]);
    CHECK(b["end_s"] == w["end_s"]);
    const size_t all = w["factors"].size();
    CHECK(b["factors"].size() == std::min(all, backend::kTableFlows));
    for (size_t k = 0; k < b["factors"].size(); ++k) CHECK(b["factors"][k] == w["factors"][k]);
    CHECK(b.value("factors_total", b["factors"].size()) == all);
    some_step_cut = some_step_cut || all > backend::kTableFlows;
  }
  CHECK(some_step_cut);
  CHECK(backend::table_report(listed->result) == backend::table_report(whole->result));
  CHECK(backend::table_report(whole->result).find("more steps (see --format json)") != std::string::npos);
  CHECK(backend::table_report(whole->result).find(" more\n") != std::string::npos);  // a step of more than 40 flows
}
