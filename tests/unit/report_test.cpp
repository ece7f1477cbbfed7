// report_test.cpp: unit tests of the report writers: the JSON contract (keys and types), determinism,
// and the table and number formatting.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "backend/report/report.h"
#include "driver/pipeline.h"
#include "support/sha256.h"
#include "test_support.h"

using namespace gpm;
using Json = nlohmann::json;

namespace {

using gpm::test::approx;

const std::string kRoot = GPM_SOURCE_DIR;

// Compiles and evaluates MACHINE and APP in a fresh session.
backend::Evaluation evaluate(const std::string& machine, const std::string& app,
                             const std::vector<driver::Setting>& settings = {}) {
  driver::Session session{driver::Options{{}, GPM_SOURCE_DIR "/stdlib"}};
  auto compiled = session.compile(machine, app, settings);
  std::string messages;
  for (const auto& d : session.diags().diagnostics()) messages += session.diags().render(d);
  REQUIRE_MESSAGE(compiled, messages);
  backend::Evaluation e;
  REQUIRE_MESSAGE(session.evaluate(*compiled, e), messages);
  return e;
}

}  // namespace

TEST_CASE("report: json_report has machine, app, total_s and phases with name and time_s") {
  auto e = evaluate(kRoot + "/machines/titan.gpm", kRoot + "/apps/bandwidth.gpm", {{"bytes", "1GiB"}});
  std::string text = backend::json_report(e);
  Json doc;
  REQUIRE_NOTHROW(doc = Json::parse(text));
  REQUIRE(doc.is_object());
  REQUIRE(doc.contains("machine"));
  REQUIRE(doc.contains("app"));
  REQUIRE(doc.contains("total_s"));
  REQUIRE(doc.contains("phases"));
  CHECK(doc["machine"] == "titan");
  CHECK(doc["app"] == "bandwidth");
  CHECK(doc["total_s"].is_number());
  // Titan's Gen2 x16 link (8 GB/s) at the read efficiency of AHEAD eq. 4 at 1 GiB (machines/titan.gpm).
  const double gib = 1073741824.0;
  CHECK(doc["total_s"].get<double>() == approx(9.420e-6 + gib / (8e9 * gib / (12 + 512 + gib / 64 * 12 + gib))).epsilon(1e-12));
  REQUIRE(doc["phases"].is_array());
  REQUIRE(doc["phases"].size() == 1);
  for (const auto& phase : doc["phases"]) {
    REQUIRE(phase.is_object());
    CHECK(phase["name"].is_string());
    CHECK(phase["time_s"].is_number());
    CHECK(phase["operations"].is_array());
  }
  CHECK(doc["phases"][0]["time_s"].get<double>() == doc["total_s"].get<double>());
}

TEST_CASE("report: Summit's Jacobi2D prediction is valid JSON with a positive total and its phases") {
  auto e = evaluate(kRoot + "/machines/summit.gpm", kRoot + "/apps/jacobi2d.gpm");
  Json doc = Json::parse(backend::json_report(e));
  CHECK(doc["machine"] == "summit");
  CHECK(doc["app"] == "jacobi2d");
  CHECK(doc["total_s"].get<double>() > 0);
  REQUIRE(doc["phases"].size() == 1);
  CHECK(doc["phases"][0]["name"] == "iterate iters");
  CHECK(doc["phases"][0]["time_s"].get<double>() == doc["total_s"].get<double>());
  // The stencil and the reduction are bound by memory traffic on a V100 (900 GB/s, 7.8 Tflop/s).
  size_t memory_bound = 0;
  for (const auto& op : doc["phases"][0]["operations"]) memory_bound += op["bound"] == "memory time";
  CHECK(memory_bound == 2);
}

TEST_CASE("report: json_report describes operations, terms and params") {
  auto e = evaluate(kRoot + "/machines/summit.gpm", kRoot + "/apps/jacobi2d.gpm");
  Json doc = Json::parse(backend::json_report(e));
  REQUIRE(doc["phases"].size() == 1);
  const Json& phase = doc["phases"][0];
  CHECK(phase["model"] == "100 iterations");
  CHECK(phase["share"].get<double>() == approx(1.0));
  const Json* stencil = nullptr;
  for (const auto& op : phase["operations"])
    if (op["name"] == "run stencil on s[0].g[0]") stencil = &op;
  REQUIRE(stencil);
  CHECK((*stencil)["kind"] == "operation");
  CHECK((*stencil)["count"].get<double>() == 100);
  CHECK((*stencil)["time_each_s"].is_number());
  CHECK((*stencil)["time_s"].get<double>() ==
        approx(100 * (*stencil)["time_each_s"].get<double>()).epsilon(1e-12));
  REQUIRE((*stencil)["terms"].is_array());
  REQUIRE((*stencil)["terms"].size() == 2);
  CHECK((*stencil)["terms"][1]["name"] == "memory time");
  CHECK((*stencil)["terms"][1]["dimension"] == "time");
  REQUIRE(doc["params"].is_array());
  bool found_n = false;
  for (const auto& p : doc["params"])
    if (p["name"] == "n") {
      found_n = true;
      CHECK(p["value"].get<double>() == 16384);
      CHECK(p["dimension"] == "count");
      CHECK(p["overridden"] == false);
    }
  CHECK(found_n);
}

TEST_CASE("report: the same inputs give byte-identical JSON and tables twice") {
  auto first = evaluate(kRoot + "/machines/summit.gpm", kRoot + "/apps/jacobi2d.gpm");
  auto second = evaluate(kRoot + "/machines/summit.gpm", kRoot + "/apps/jacobi2d.gpm");
  std::string a = backend::json_report(first), b = backend::json_report(second);
  CHECK(a == b);
  CHECK(backend::json_report(first) == a);  // rendering twice changes nothing either
  CHECK(backend::table_report(first) == backend::table_report(second));
  CHECK(!a.empty());
  CHECK(a.back() == '\n');
}

TEST_CASE("report: an evaluation with no phases still gives a valid JSON document") {
  backend::Evaluation e;
  e.machine = "m";
  e.app = "a";
  Json doc = Json::parse(backend::json_report(e));
  CHECK(doc["total_s"].get<double>() == 0.0);
  CHECK(doc["phases"].is_array());
  CHECK(doc["phases"].empty());
}

TEST_CASE("report: names with quotes and non-ASCII characters are escaped in JSON") {
  backend::Evaluation e;
  e.machine = "m \"quoted\"";
  e.app = "caf\xC3\xA9\\";
  e.total_s = 1;
  e.phases.push_back({"phase\n1", "", 1.0, {}});
  Json doc = Json::parse(backend::json_report(e));
  CHECK(doc["machine"] == "m \"quoted\"");
  CHECK(doc["app"] == "caf\xC3\xA9\\");
  CHECK(doc["phases"][0]["name"] == "phase\n1");
}

TEST_CASE("report: table_report names the machine, app and each phase") {
  auto e = evaluate(kRoot + "/machines/titan.gpm", kRoot + "/apps/bandwidth.gpm");
  std::string table = backend::table_report(e);
  CHECK(table.find("titan") != std::string::npos);
  CHECK(table.find("bandwidth") != std::string::npos);
  CHECK(table.find(e.phases.at(0).name) != std::string::npos);
}

TEST_CASE("report: format_seconds picks a readable unit and format_share one decimal") {
  CHECK(backend::format_seconds(0) == "0 s");
  CHECK(backend::format_seconds(2.5) == "2.5 s");
  CHECK(backend::format_seconds(1.40502e-3) == "1.40502 ms");
  CHECK(backend::format_seconds(9.42e-6) == "9.42 us");
  CHECK(backend::format_seconds(5e-9) == "5 ns");
  CHECK(backend::format_share(1, 3) == "33.3%");
  CHECK(backend::format_share(1, 0) == "-");
}

TEST_CASE("report: the JSON's provenance names gpmc's version and commit, every input file with its SHA-256, and --set") {
  std::string command = std::string(GPMC_PATH) + " eval " GPM_SOURCE_DIR "/machines/titan.gpm " GPM_SOURCE_DIR
                        "/apps/bandwidth.gpm --set bytes=1MiB --format json";
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe);
  std::string text;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) text.append(buffer, n);
  REQUIRE(pclose(pipe) == 0);
  auto doc = nlohmann::json::parse(text);
  const auto& p = doc["provenance"];
  CHECK(p["gpmc"]["version"] == GPM_VERSION);
  CHECK(!p["gpmc"]["commit"].get<std::string>().empty());
  CHECK(p["set"] == nlohmann::json::array({"bytes=1MiB"}));
  // Every file read: the standard library, the machine and the app, each with its size and digest.
  std::map<std::string, nlohmann::json> inputs;
  for (const auto& f : p["inputs"]) inputs[f["path"].get<std::string>()] = f;
  REQUIRE(inputs.count(GPM_SOURCE_DIR "/apps/bandwidth.gpm") == 1);
  REQUIRE(inputs.count("stdlib/pcie.gpm") == 1);
  std::ifstream app(GPM_SOURCE_DIR "/apps/bandwidth.gpm", std::ios::binary);
  std::string app_text((std::istreambuf_iterator<char>(app)), std::istreambuf_iterator<char>());
  const auto& entry = inputs[GPM_SOURCE_DIR "/apps/bandwidth.gpm"];
  CHECK(entry["bytes"] == app_text.size());
  CHECK(entry["sha256"] == support::sha256_hex(app_text));
  // The digest itself, against a published test vector (FIPS 180-2, "abc").
  CHECK(support::sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}
